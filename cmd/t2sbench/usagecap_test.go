package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
)

// TestOverflowingUsageStoreOpens writes token counts no server may send
// (2^63-1, whose sum overflows SQLite's integers, and a negative one)
// into a finished run's call log with SQL, as a store written before
// counts were validated holds them; status, report, view, export and a
// resume all still work, and each prints a warning naming the item.
func TestOverflowingUsageStoreOpens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, runDir := runSpec(t, dir, `name: usage-cap
benchmarks: [{name: mini, limit: 3}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners: [{name: direct}]
workers: 2
`)
	db, err := sql.Open("sqlite3", filepath.Join(runDir, "run.db"))
	if err != nil {
		t.Fatal(err)
	}
	var qid string
	if err := db.QueryRow(`SELECT question_id FROM model_calls ORDER BY id LIMIT 1`).Scan(&qid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE model_calls SET prompt_tokens = 9223372036854775807, completion_tokens = -7`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{
		{"status", runDir},
		{"report", runDir, "--out", filepath.Join(dir, "report"), "--quiet", "--no-view", "--format", "md"},
		{"view", runDir, "--static", filepath.Join(dir, "site")},
		{"export", runDir, "--trial", "direct", "--format", "jsonl", "--out", filepath.Join(dir, "pred.jsonl")},
		{"run", spec, "--out", runDir},
	} {
		t.Run(args[0], func(t *testing.T) {
			var o, e bytes.Buffer
			err := run(&o, &e, args)
			text := o.String() + e.String()
			if err != nil {
				t.Fatalf("%v: %v; want no error\n%s", args, err, text)
			}
			if strings.Contains(text, "integer overflow") {
				t.Errorf("%v printed %q:\n%s", args, "integer overflow", text)
			}
			if args[0] == "view" {
				idx, err := os.ReadFile(filepath.Join(dir, "site", "data", "index.js"))
				if err != nil {
					t.Fatal(err)
				}
				text = string(idx)
			}
			if args[0] == "report" {
				md, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
				if err != nil {
					t.Fatal(err)
				}
				text += string(md)
			}
			// The report's markdown escapes the underscores of the
			// field names, so the warning is matched around them.
			if want := "item direct/" + qid + ": call 1 (role reason) has prompt"; !strings.Contains(text, want) || !strings.Contains(text, "9223372036854775807") {
				t.Errorf("%v output lacks the warning %q:\n%s", args, want, text)
			}
		})
	}
}

// TestEnvironmentFailureExitCode checks that a run stopped by an
// environment failure (a full disk) exits with the runtime status, 1, as
// README's exit-code table says, not 3 (failed items).
func TestEnvironmentFailureExitCode(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("run: %w", &bench.EnvironmentError{Path: "/x/run.db", Free: 0, Err: syscall.ENOSPC})
	if got := exitCode(err); got != exitRuntime {
		t.Errorf("exitCode(%v) = %d; want %d", err, got, exitRuntime)
	}
}
