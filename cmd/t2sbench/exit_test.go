package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodes covers each documented exit status (README, "Exit
// codes"): 0 complete, 1 runtime error, 2 usage error, 3 finished with
// failed or pending items. Runs use the fake environment of run_test.go.
func TestExitCodes(t *testing.T) {
	old := runEnv
	runEnv = fakeCLIEnv
	t.Cleanup(func() { runEnv = old })
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "spec.yaml")
	if err := os.WriteFile(spec, []byte(cliSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := filepath.Join(tmp, "failing.yaml")
	if err := os.WriteFile(failing, []byte(strings.Replace(cliSpec, "  - name: cot\n", "  - name: fail-tenth\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	badSpec := filepath.Join(tmp, "bad.yaml")
	if err := os.WriteFile(badSpec, []byte("name: bad\nrunners: [{name: nosuch}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(tmp, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want int
		msg  string // in the error, when not ""
	}{
		{"complete", []string{"run", spec, "--out", filepath.Join(tmp, "ok"), "--quiet", "--limit", "5"}, exitOK, ""},
		{"help", []string{"help"}, exitOK, ""},
		{"runtime: run directory is a file", []string{"run", spec, "--out", notDir, "--quiet", "--limit", "5"}, exitRuntime, ""},
		{"usage: bad flag", []string{"run", spec, "--no-such-flag"}, exitUsage, ""},
		{"usage: bad --max-failures", []string{"run", spec, "--max-failures", "lots"}, exitUsage, "--max-failures"},
		{"usage: invalid spec", []string{"run", badSpec}, exitUsage, "at least one benchmark"},
		{"usage: missing spec", []string{"run", filepath.Join(tmp, "none.yaml")}, exitUsage, ""},
		{"usage: merge of one shard twice", []string{"merge", filepath.Join(tmp, "merged"), filepath.Join(tmp, "ok"), filepath.Join(tmp, "ok")}, exitUsage, "is given twice"},
		// fail-tenth fails on questions 3 and 13 of 20: the run finishes.
		{"incomplete: failed items", []string{"run", failing, "--out", filepath.Join(tmp, "failing"), "--quiet", "--limit", "20"}, exitIncomplete, "2 items failed"},
		{"incomplete: --max-failures", []string{"run", failing, "--out", filepath.Join(tmp, "stopped"), "--quiet", "--limit", "20", "--max-failures", "0", "--workers", "1"}, exitIncomplete, "too many failed items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(&out, &out, tt.args)
			if got := exitCode(err); got != tt.want {
				t.Fatalf("exit status %d (err %v); want %d\n%s", got, err, tt.want, out.String())
			}
			if tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
				t.Errorf("err = %v; want one containing %q", err, tt.msg)
			}
		})
	}
}

// TestHelpListsExitCodes checks that `t2sbench help` documents every exit
// status.
func TestHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(&out, &out, []string{"help"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exit status:", "  0  complete", "  1  runtime error", "  2  usage or configuration error", "  3  finished with failed or pending"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

// TestEvalCompareSameEX scores one prediction file with eval on a copy of
// the mini benchmark whose weather database is missing, then compares the
// verdicts with compare: both print the same EX over the same attempted
// questions (those whose gold runs), and both leave the missing_db ones
// out.
func TestEvalCompareSameEX(t *testing.T) {
	b := evalEnv(t)
	data := miniWithoutWeather(t)
	// Gold for every question but every fourth, which gets a wrong answer.
	var sb strings.Builder
	missing := 0
	for i, ex := range b.Examples {
		if ex.DBID == "weather" {
			missing++
		}
		if i%4 == 0 {
			sb.WriteString("SELECT 12345\n")
			continue
		}
		sb.WriteString(strings.NewReplacer("\n", " ", "\t", " ").Replace(ex.GoldSQL) + "\n")
	}
	if missing == 0 {
		t.Fatal("no mini question on the weather database; the test needs one")
	}
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.sql")
	os.WriteFile(pred, []byte(sb.String()), 0o644)
	v1, v2 := filepath.Join(dir, "preds.jsonl"), filepath.Join(dir, "gold.jsonl")
	evalOut, _, err := runEvalCLI(t, "--benchmark", "mini", "--data", data, "--pred", pred, "--quiet", "--cache-dir", "off", "--out", v1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runEvalCLI(t, "--benchmark", "mini", "--data", data, "--gold-as-pred", "--quiet", "--cache-dir", "off", "--out", v2); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`EX (\d+\.\d\d%) \((\d+) correct / (\d+) attempted\)`).FindStringSubmatch(evalOut)
	if m == nil {
		t.Fatalf("eval output lacks the EX line:\n%s", evalOut)
	}
	if want := itoa(len(b.Examples) - missing); m[3] != want {
		t.Errorf("eval attempted %s; want %s (the %d questions minus %d on the missing database)", m[3], want, len(b.Examples), missing)
	}
	if !strings.Contains(evalOut, "not attempted, gold does not run: missing_db "+itoa(missing)) {
		t.Errorf("eval output does not list the %d missing_db questions:\n%s", missing, evalOut)
	}
	var out bytes.Buffer
	if err := run(&out, &out, []string{"compare", v2, v1}); err != nil {
		t.Fatalf("compare: %v\n%s", err, out.String())
	}
	row := regexp.MustCompile(`(?m)^preds\s+` + m[3] + `\s+` + m[2] + `\s+0\s+-\s+` + regexp.QuoteMeta(m[1]) + `\s+missing_db ` + itoa(missing) + `$`)
	if !row.MatchString(out.String()) {
		t.Errorf("compare does not show EX %s over %s attempted with missing_db %d as eval does:\n%s\neval:\n%s", m[1], m[3], missing, out.String(), evalOut)
	}
	// The pairwise row is over the same questions.
	if !regexp.MustCompile(`(?m)^preds\s+` + m[3] + `\s`).MatchString(out.String()[strings.Index(out.String(), "p(Holm)"):]) {
		t.Errorf("compare's pair is not over the %s attempted questions:\n%s", m[3], out.String())
	}
}
