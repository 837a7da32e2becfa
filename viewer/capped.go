package viewer

import (
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// MaxText caps every text of the run's store that a question file or the
// index carries: an item's SQL, note and error, its candidates' SQL, its
// trace's step inputs, outputs and info and every string of its trace
// data, a call's error, a trial's parameters. A text longer than MaxText
// keeps its first MaxText bytes (on a rune boundary) followed by a
// marker, "… [truncated, N bytes; full text: t2sbench export ...]", that
// gives its full length and the command that prints it whole
// (ExportCommand). A model answering 10 MB thus adds kilobytes, not
// megabytes, to a question file, whatever field the answer reaches.
const MaxText = 16 << 10

// MaxSpecText caps the stored spec text the overview shows (Run.Spec).
const MaxSpecText = 256 << 10

// redactSlack is what a text keeps past its cap until credentials are
// hidden: a credential that the cap would cut in two is replaced whole
// before the cut, so that no part of it remains.
const redactSlack = 4 << 10

// truncMarker returns the marker that follows a text cut from n bytes;
// cmd, when not empty, is the command that prints the text whole.
func truncMarker(n int, cmd string) string {
	if cmd == "" {
		return fmt.Sprintf("\n… [truncated, %d bytes]", n)
	}
	return fmt.Sprintf("\n… [truncated, %d bytes; full text: %s]", n, cmd)
}

// Truncated reports whether s ends with the viewer's truncation marker
// and returns the full length it gives.
func Truncated(s string) (n int, ok bool) {
	i := strings.LastIndex(s, "\n… [truncated, ")
	if i < 0 {
		return 0, false
	}
	if _, err := fmt.Sscanf(s[i:], "\n… [truncated, %d bytes", &n); err != nil {
		return 0, false
	}
	return n, true
}

// ExportCommand is the command that prints item (trial, question) of run
// directory dir as the store holds it, every text whole
// (`t2sbench export DIR --trial ID --question ID`).
func ExportCommand(dir, trialID, questionID string) string {
	return "t2sbench export " + shellQuote(dir) + " --trial " + shellQuote(trialID) + " --question " + shellQuote(questionID)
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and _ . / - + = : ,.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./-+=:,", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// capper caps texts at max bytes, hiding credentials (red) in what it
// keeps; cmd is the export command its markers give.
type capper struct {
	max int
	red *llm.Redactor
	cmd string
}

// text returns s capped: s itself when it fits, else its first c.max
// bytes, credentials hidden, and the marker.
func (c capper) text(s string) string {
	if len(s) <= c.max {
		return s
	}
	// The slack is redacted before the final cut (redactSlack).
	head := c.red.Redact(cut(s, c.max+redactSlack))
	return cut(head, c.max) + truncMarker(len(s), c.cmd)
}

// value caps, in place where it can, every string of v, a value decoded
// from JSON (maps, slices, strings, numbers), and returns it.
func (c capper) value(v any) any {
	switch x := v.(type) {
	case string:
		return c.text(x)
	case map[string]any:
		var long []string
		for k, e := range x {
			if len(k) > c.max {
				long = append(long, k)
				continue
			}
			x[k] = c.value(e)
		}
		// Keys are renamed after the loop, which would visit a key added
		// during it (and cap its value twice).
		for _, k := range long {
			e := x[k]
			delete(x, k)
			x[c.text(k)] = c.value(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = c.value(e)
		}
		return x
	}
	return v
}

// result caps the texts of an item's stored result, keeping its SQL's
// stored length (QuestItem.sqlLen).
func (c capper) result(qi *QuestItem) {
	qi.sqlLen = len(qi.SQL)
	qi.SQL = c.text(qi.SQL)
	qi.Note = c.text(qi.Note)
	qi.Error = c.text(qi.Error)
	for i := range qi.Candidates {
		qi.Candidates[i].SQL = c.text(qi.Candidates[i].SQL)
		qi.Candidates[i].Group = c.text(qi.Candidates[i].Group)
	}
	if tr := qi.Trace; tr != nil {
		c.trace(tr)
	}
	if qi.Verdict != nil {
		qi.Verdict.Error = c.text(qi.Verdict.Error)
	}
}

func (c capper) trace(tr *runners.Trace) {
	for i := range tr.Steps {
		s := &tr.Steps[i]
		s.Action, s.Role, s.Input, s.Output = c.text(s.Action), c.text(s.Role), c.text(s.Input), c.text(s.Output)
		if s.Info != nil {
			c.value(s.Info)
		}
	}
	if tr.Data != nil {
		c.value(tr.Data)
	}
}

// calls caps the call log's texts of an item's calls.
func (c capper) calls(cs []runstore.Call) {
	for i := range cs {
		cs[i].Error = c.text(cs[i].Error)
	}
}

// capIndex caps the index's texts from the stores and benchmarks: the
// stored specs (MaxSpecText), the trials' parameters, the questions'
// texts and the warnings (MaxText).
func (v *Viewer) capIndex() {
	c := capper{max: MaxText, red: v.red}
	idx := v.index
	for i := range idx.Runs {
		idx.Runs[i].Spec = capper{max: MaxSpecText, red: v.red}.text(idx.Runs[i].Spec)
	}
	for i := range idx.Trials {
		t := &idx.Trials[i]
		if t.Params != nil {
			c.value(t.Params)
		}
		for r, m := range t.Roles {
			t.Roles[r] = c.text(m)
		}
	}
	for i := range idx.Questions {
		idx.Questions[i].Question = c.text(idx.Questions[i].Question)
	}
	for i, w := range idx.Warnings {
		idx.Warnings[i] = c.text(w)
	}
}
