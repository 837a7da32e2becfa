package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestExportQuestion: `export --question ID` writes the trial's item of
// that question as JSON, its SQL the one the jsonl export gives and its
// trace and calls whole; an unknown question and --format beside
// --question are usage errors.
func TestExportQuestion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, "name: export-item\nbenchmarks: [{name: mini, limit: 2}]\nmodels: {sim: {backend: sim, p: 0.6, seed: 3}}\nroles: {reason: sim}\nrunners: [{name: direct}]\n")
	var out, jsonl bytes.Buffer
	if err := run(&jsonl, &out, []string{"export", runDir, "--format", "jsonl"}); err != nil {
		t.Fatalf("export --format jsonl: %v\n%s", err, out.String())
	}
	var first struct {
		QuestionID string `json:"question_id"`
		SQL        string `json:"sql"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(jsonl.String(), "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	var item bytes.Buffer
	if err := run(&item, &out, []string{"export", runDir, "--question", first.QuestionID}); err != nil {
		t.Fatalf("export --question %s: %v\n%s", first.QuestionID, err, out.String())
	}
	var it runstore.Item
	if err := json.Unmarshal(item.Bytes(), &it); err != nil {
		t.Fatalf("export --question: %v\n%s", err, item.String())
	}
	if it.QuestionID != first.QuestionID || it.Result == nil || it.Result.SQL != first.SQL || len(it.Result.Trace.Steps) == 0 || len(it.Calls) == 0 {
		t.Errorf("item %s: got SQL %q, result %v, %d calls; want SQL %q (the jsonl export's), its trace and calls", it.QuestionID, sqlOf(it), it.Result != nil, len(it.Calls), first.SQL)
	}
	for _, args := range [][]string{
		{"export", runDir, "--question", "no-such-question"},
		{"export", runDir, "--question", first.QuestionID, "--format", "jsonl"},
	} {
		if err := run(&out, &out, args); !errors.Is(err, errUsage) {
			t.Errorf("%v: got %v; want a usage error", args[2:], err)
		}
	}
}

func sqlOf(it runstore.Item) string {
	if it.Result == nil {
		return ""
	}
	return it.Result.SQL
}
