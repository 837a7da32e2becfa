package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestPlainProgress: off a terminal, progress is one plain line per 10% of
// the total, or after 30 s without one; never a \r.
func TestPlainProgress(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := newPlainProgress(&out, "items", 200)
	clock := p.start
	p.now = func() time.Time { return clock }
	for done := 1; done <= 200; done++ {
		clock = clock.Add(100 * time.Millisecond)
		p.update(done, "EX 50.0%")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 10 {
		t.Errorf("200 items in 20 s: %d lines; want 10 (one per 10%%):\n%s", len(lines), out.String())
	}
	if want := "items 20/200 (10%), 2s elapsed, about 18s left; EX 50.0%"; lines[0] != want {
		t.Errorf("first line %q; want %q", lines[0], want)
	}
	if strings.Contains(out.String(), "\r") {
		t.Errorf("plain progress holds a \\r")
	}

	// A slow run: 5 items of 1000, one a minute, still prints every 30 s
	// (the first line at item 1, 60 s in; then each item).
	out.Reset()
	p = newPlainProgress(&out, "items", 1000)
	clock = p.start
	p.now = func() time.Time { return clock }
	for done := 1; done <= 5; done++ {
		clock = clock.Add(time.Minute)
		p.update(done, "")
	}
	if n := strings.Count(out.String(), "\n"); n != 5 {
		t.Errorf("5 items a minute apart: %d lines; want 5 (30 s passed before each):\n%s", n, out.String())
	}
	// A jump over several tenths prints one line.
	out.Reset()
	p = newPlainProgress(&out, "questions", 10)
	p.update(7, "")
	p.update(8, "")
	if got := out.String(); got != "questions 7/10 (70%), 0s elapsed, about 0s left\nquestions 8/10 (80%), 0s elapsed, about 0s left\n" {
		t.Errorf("jump: got %q", got)
	}
	if isTerminal(&out) {
		t.Errorf("a buffer is a terminal")
	}
}
