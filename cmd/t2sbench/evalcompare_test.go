package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/compare"
)

// TestEvalCompareSameEXJSON: eval and compare, run on the same verdict
// file, report the same EX over the same attempted questions (they once
// disagreed): eval --json's overall EX and runnable count against
// compare --json's EX of the file and n, with the file as the compared
// system and as the baseline, for several mixes of right, wrong and
// unparsable predictions and a benchmark with a missing database. The
// EX values must be equal exactly (both are correct / attempted).
func TestEvalCompareSameEXJSON(t *testing.T) {
	b := evalEnv(t)
	full, err := filepath.Abs(filepath.Join("..", "..", "testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	// noWeather is mini without the weather database: its questions are
	// missing_db, outside EX's denominator.
	noWeather := miniWithoutWeather(t)
	// every returns a pred func answering text on every k-th question and
	// the gold elsewhere.
	every := func(k int, text string) func(int) string {
		return func(i int) string {
			if i%k == 0 {
				return text
			}
			return ""
		}
	}
	tests := []struct {
		name string
		data string
		// pred is the prediction for question i, "" for its gold.
		pred func(i int) string
		// wantEX is the EX eval must report, a check that the mix is
		// what its name says (0 < EX < 1 for the mixed ones).
		wantEX func(ex float64) bool
	}{
		{"every fourth wrong", full, every(4, "SELECT 12345"),
			func(ex float64) bool { return ex > 0 && ex < 1 }},
		{"unparsable predictions", full, every(3, "not sql at all"),
			func(ex float64) bool { return ex > 0 && ex < 1 }},
		{"all wrong", full, every(1, "SELECT 12345"), func(ex float64) bool { return ex == 0 }},
		{"missing database", noWeather, every(5, "SELECT 12345"),
			func(ex float64) bool { return ex > 0 && ex < 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var sb strings.Builder
			for i, ex := range b.Examples {
				p := tc.pred(i)
				if p == "" {
					p = strings.NewReplacer("\n", " ", "\t", " ").Replace(ex.GoldSQL)
				}
				sb.WriteString(p + "\n")
			}
			pred := filepath.Join(dir, "pred.sql")
			if err := os.WriteFile(pred, []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			sys, gold := filepath.Join(dir, "sys.jsonl"), filepath.Join(dir, "gold.jsonl")
			stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--data", tc.data, "--pred", pred, "--quiet", "--json", "--cache-dir", "off", "--out", sys)
			if err != nil {
				t.Fatal(err)
			}
			var rep evalReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("eval --json: %v\n%s", err, stdout)
			}
			if !tc.wantEX(rep.Overall.EX) {
				t.Fatalf("eval EX %v (%d / %d); not the mix this case needs", rep.Overall.EX, rep.Overall.Correct, rep.Overall.Runnable)
			}
			if _, _, err := runEvalCLI(t, "--benchmark", "mini", "--data", tc.data, "--gold-as-pred", "--quiet", "--cache-dir", "off", "--out", gold); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{gold, sys}, {"--baseline", "sys", sys, gold}} {
				var out, errb bytes.Buffer
				if err := run(&out, &errb, append([]string{"compare", "--json", "-B", "100"}, args...)); err != nil {
					t.Fatalf("compare %v: %v\n%s", args, err, errb.String())
				}
				var rows []compare.Row
				if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 1 {
					t.Fatalf("compare %v --json: %v, %d rows; want one\n%s", args, err, len(rows), out.String())
				}
				ex := rows[0].AccSystem
				if rows[0].Baseline == "sys" {
					ex = rows[0].AccBaseline
				}
				if ex != rep.Overall.EX || rows[0].N != rep.Overall.Runnable {
					t.Errorf("compare %v: EX of sys %v over n = %d; want eval's %v over %d attempted", args, ex, rows[0].N, rep.Overall.EX, rep.Overall.Runnable)
				}
			}
		})
	}
}
