package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCSV scores the mini benchmark's gold SQL written as a DIN-SQL
// style CSV (a named SQL column, multi-line quoted SQL): every question
// must be correct, as with --gold-as-pred.
func TestEvalCSV(t *testing.T) {
	b := evalEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "din.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"NLQ", "PREDICTED SQL"})
	for _, ex := range b.Examples {
		// A newline inside the SQL: the field is quoted, as a CSV writer does.
		_ = w.Write([]string{ex.Question, strings.Replace(ex.GoldSQL, " FROM ", "\nFROM ", 1)})
	}
	w.Flush()
	if err := f.Close(); err != nil || w.Error() != nil {
		t.Fatal(err, w.Error())
	}
	stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", path, "--pred-column", "PREDICTED SQL", "--json", "--quiet")
	if err != nil {
		t.Fatalf("eval csv: %v", err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Examples); rep.Overall.Total != n || rep.Overall.Correct != n {
		t.Errorf("csv gold on mini: %d of %d correct; want all %d", rep.Overall.Correct, rep.Overall.Total, n)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--pred", path, "--pred-column", "sql_pred"}, exitRuntime, `din.csv:1: no column "sql_pred" in the header (columns: NLQ, PREDICTED SQL)`},
		// No known column name in the header: read without one, so the
		// header row is one prediction too many.
		{[]string{"--pred", path}, exitRuntime, fmt.Sprintf("%d predictions for %d questions of mini: more predictions than questions", len(b.Examples)+1, len(b.Examples))},
		{[]string{"--pred", path, "--format", "jsonl", "--pred-column", "x"}, exitUsage, "--pred-column and --pred-header read a csv prediction file"},
		{[]string{"--pred", path, "--pred-header", "maybe"}, exitUsage, `--pred-header "maybe": want yes or no`},
	} {
		_, _, err := runEvalCLI(t, append([]string{"--benchmark", "mini", "--quiet"}, tc.args...)...)
		if exitCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval %v: %v (exit %d); want exit %d and %q", tc.args, err, exitCode(err), tc.code, tc.want)
		}
	}
}
