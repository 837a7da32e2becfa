package bench

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestStoreLock(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A second writer (flock locks belong to the open file, so this
	// holds within one process too) fails at once and names the holder.
	_, err = OpenStore(dir)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second OpenStore: err = %v; want a *LockedError wrapping ErrLocked", err)
	}
	host, _ := os.Hostname()
	if le.PID != os.Getpid() || le.Host != host || le.Since == "" {
		t.Errorf("holder = pid %d host %q since %q; want pid %d host %q and a time", le.PID, le.Host, le.Since, os.Getpid(), host)
	}
	if msg := err.Error(); !strings.Contains(msg, "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(msg, "host "+host) {
		t.Errorf("message %q; want it to name pid %d and host %s", msg, os.Getpid(), host)
	}
	// Readers take no lock.
	if _, err := ReadRun(dir, true); err != nil {
		t.Errorf("ReadRun while locked: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := OpenStore(dir)
	if err != nil {
		t.Fatalf("OpenStore after Close: %v", err)
	}
	st2.Close()
}

func TestParseLockFile(t *testing.T) {
	tests := []struct {
		in   string
		pid  int
		host string
	}{
		{"pid 42\nhost node-1\nsince 2026-01-01T00:00:00Z\n", 42, "node-1"},
		{"", 0, ""},
		{"pid x\nhost\n", 0, ""},
	}
	for _, tt := range tests {
		e := parseLockFile(tt.in)
		if e.PID != tt.pid || e.Host != tt.host {
			t.Errorf("parseLockFile(%q) = pid %d host %q; want %d %q", tt.in, e.PID, e.Host, tt.pid, tt.host)
		}
	}
	if got := (&LockedError{Dir: "d"}).Error(); !strings.Contains(got, "another process") {
		t.Errorf("unknown holder message %q; want \"another process\"", got)
	}
}
