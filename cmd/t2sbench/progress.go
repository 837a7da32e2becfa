package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// isTerminal reports whether w is a terminal (a character device), where
// a live progress bar may redraw itself with \r.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// plainEvery is the longest a plain progress log stays silent.
const plainEvery = 30 * time.Second

// plainProgress is progress for a log (output that is not a terminal):
// one plain line at every further 10% of the total, or after 30 s without
// one, and never a \r frame.
type plainProgress struct {
	w           io.Writer
	what        string
	total       int
	start, last time.Time
	nextTenth   int // the next multiple of 10% that prints a line
	done        int
	now         func() time.Time
}

func newPlainProgress(w io.Writer, what string, total int) *plainProgress {
	now := time.Now
	t := now()
	return &plainProgress{w: w, what: what, total: total, start: t, last: t, nextTenth: 1, now: now}
}

// update records done of total; detail (may be empty) ends the line.
func (p *plainProgress) update(done int, detail string) {
	p.done = done
	t := p.now()
	reached := p.total > 0 && done*10 >= p.nextTenth*p.total
	if !reached && t.Sub(p.last) < plainEvery {
		return
	}
	if p.total > 0 {
		for done*10 >= p.nextTenth*p.total {
			p.nextTenth++
		}
	}
	p.last = t
	p.line(done, t, detail)
}

func (p *plainProgress) line(done int, t time.Time, detail string) {
	el := t.Sub(p.start)
	s := fmt.Sprintf("%s %d/%d", p.what, done, p.total)
	if p.total > 0 {
		s += fmt.Sprintf(" (%d%%)", 100*done/p.total)
	}
	s += fmt.Sprintf(", %s elapsed", el.Round(time.Second))
	if done > 0 && done < p.total {
		left := time.Duration(float64(el) / float64(done) * float64(p.total-done))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	if detail != "" {
		s += "; " + detail
	}
	fmt.Fprintln(p.w, s)
}
