package runstore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
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

// TestCallLogOldStore opens a store written before calls were logged as
// they happen (model_calls without state): its rows count as complete,
// and new calls are logged with their state.
func TestCallLogOldStore(t *testing.T) {
	dir := t.TempDir()
	testkit.SQLiteAt(t, filepath.Join(dir, StoreFile),
		`CREATE TABLE model_calls (id INTEGER PRIMARY KEY AUTOINCREMENT, trial_id TEXT NOT NULL, question_id TEXT NOT NULL, session INTEGER NOT NULL,
			role TEXT, n INTEGER, cached INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, latency_ms REAL, error TEXT)`,
		`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error)
			VALUES ('t', 'q', 1, 'reason', 1, 0, 100, 20, 5, '')`,
	)
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CallStarted("t", "q2", Call{Role: "reason", N: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r, err := ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	// Two calls, neither item committed; the new one has no answer.
	want := CallTotals{Calls: 2, Sent: 1, Loose: 2, PromptTokens: 100, CompletionTokens: 20}
	if r.CallLog != want {
		t.Errorf("call totals = %+v; want %+v", r.CallLog, want)
	}
	if len(r.LooseCalls) != 2 || r.LooseCalls[0].Sent || !r.LooseCalls[1].Sent {
		t.Errorf("loose calls = %+v; want the old one answered, the new one sent", r.LooseCalls)
	}
}

// TestMergeKeepsLooseCalls checks that Merge copies the calls of items a
// shard never committed, so the merged call log still counts them.
func TestMergeKeepsLooseCalls(t *testing.T) {
	shard, out := t.TempDir(), t.TempDir()
	st, err := OpenStore(shard)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CallStarted("t", "q", Call{Role: "reason", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CallFinished(id, Call{Role: "reason", N: 2, PromptTokens: 7, CompletionTokens: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CallStarted("t", "q", Call{Role: "reason", N: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ms, err := Merge(out, shard)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(out, false)
	if err != nil {
		t.Fatal(err)
	}
	want := CallTotals{Calls: 2, Sent: 1, Loose: 2, PromptTokens: 7, CompletionTokens: 3}
	if ms.Calls != 2 || r.CallLog != want {
		t.Errorf("merged: %d calls copied, totals %+v; want 2, %+v", ms.Calls, r.CallLog, want)
	}
}
