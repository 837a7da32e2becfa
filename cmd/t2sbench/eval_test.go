package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
)

// evalEnv points the user cache (mini database builds, default gold
// cache) at a temporary directory and returns the bundled mini benchmark.
func evalEnv(t *testing.T) *datasets.Benchmark {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	b, err := datasets.Open("mini", "", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Engine.Close() })
	return b
}

func runEvalCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, append([]string{"eval"}, args...))
	return out.String(), errb.String(), err
}

func TestEvalGoldAsPredMini(t *testing.T) {
	b := evalEnv(t)
	outFile := filepath.Join(t.TempDir(), "verdicts.jsonl")
	stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--gold-as-pred", "--json", "--quiet", "--out", outFile, "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
	}
	n := len(b.Examples)
	if rep.Overall.Total != n || rep.Overall.Correct != n || rep.Overall.EX != 1 || rep.Status[metrics.StatusOK] != n {
		t.Fatalf("gold-as-pred on mini: %+v; want all %d correct", rep.Overall, n)
	}
	f, err := os.Open(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("verdict line %d: %v", lines+1, err)
		}
		for _, k := range []string{"index", "question_id", "db_id", "difficulty", "status", "correct", "pred_ms", "gold_ms"} {
			if _, ok := v[k]; !ok {
				t.Fatalf("verdict line %d lacks %q: %s", lines+1, k, sc.Text())
			}
		}
		if _, ok := v["error"]; ok {
			t.Fatalf("verdict line %d has an error field for a correct prediction: %s", lines+1, sc.Text())
		}
		lines++
	}
	if lines != n {
		t.Fatalf("verdict file has %d lines; want %d", lines, n)
	}
}

func TestEvalPredFileMini(t *testing.T) {
	b := evalEnv(t)
	dir := t.TempDir()
	// sql-lines: gold for every question but the first two: one wrong
	// answer, one that is not SQL.
	var sb strings.Builder
	for i, ex := range b.Examples {
		switch i {
		case 0:
			sb.WriteString("SELECT 12345\n")
		case 1:
			sb.WriteString("not sql at all\n")
		default:
			sb.WriteString(strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(ex.GoldSQL) + "\t" + ex.DBID + "\n")
		}
	}
	pred := filepath.Join(dir, "pred.sql")
	if err := os.WriteFile(pred, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--quiet", "--cache-dir", filepath.Join(dir, "gold"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(b.Examples)
	for _, want := range []string{"benchmark mini", "mode bird", "status: ok " + itoa(n-1) + " pred_error 1", "all "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
	// The gold cache directory now holds entries; a second run reuses them.
	gdb, err := sql.Open("sqlite3", filepath.Join(dir, "gold", metrics.GoldCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	// One entry per gold, plus one per LIMIT probe (metrics.AnalyzeGold
	// runs each gold with a LIMIT once more without it, to look for ties).
	probes := 0
	for _, ex := range b.Examples {
		if strings.Contains(strings.ToUpper(ex.GoldSQL), "LIMIT") {
			probes++
		}
	}
	var entries int
	if err := gdb.QueryRow("SELECT count(*) FROM entries").Scan(&entries); err != nil || entries != n+probes {
		t.Errorf("gold cache holds %d entries, %v; want %d golds + %d probes", entries, err, n, probes)
	}
	gdb.Close()

	// A truncated file is an error naming both counts, unless --allow-partial.
	lines := strings.SplitAfter(sb.String(), "\n")
	short := filepath.Join(dir, "short.sql")
	os.WriteFile(short, []byte(strings.Join(lines[:5], "")), 0o644)
	_, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", short, "--quiet", "--cache-dir", "off")
	if err == nil || !strings.Contains(err.Error(), "5 predictions for "+itoa(n)+" questions") {
		t.Fatalf("short file error = %v; want one naming 5 and %d", err, n)
	}
	// A partial file is scored, and eval exits with status 3 (incomplete).
	stdout, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", short, "--quiet", "--allow-partial", "--json", "--cache-dir", "off")
	if exitCode(err) != exitIncomplete {
		t.Fatalf("partial: exit %d (%v); want %d", exitCode(err), err, exitIncomplete)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Overall.Total != 5 || len(rep.Unscored) != n-5 || rep.Overall.Correct != 3 {
		t.Fatalf("partial: total %d unscored %d correct %d; want 5, %d, 3", rep.Overall.Total, len(rep.Unscored), rep.Overall.Correct, n-5)
	}
	// Regression: the partial EX (3/5) was the only number shown; the EX
	// over all n questions, 3/n, is reported beside it (exact ratio).
	if rep.EXAllQuestions == nil || *rep.EXAllQuestions != 3/float64(n) {
		t.Errorf("partial: ex_all_questions %v; want 3/%d", rep.EXAllQuestions, n)
	}
	stdout, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", short, "--quiet", "--allow-partial", "--cache-dir", "off")
	if exitCode(err) != exitIncomplete || !strings.Contains(stdout, "EX over all "+itoa(n)+" questions (unscored counted wrong)") {
		t.Errorf("partial text output lacks the EX over all questions (err %v):\n%s", err, stdout)
	}

	// --limit scores the first N questions and ignores the rest of the file.
	stdout, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--quiet", "--limit", "4", "--json", "--cache-dir", "off")
	if err != nil {
		t.Fatal(err)
	}
	rep = evalReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Overall.Total != 4 || rep.Overall.Correct != 2 {
		t.Fatalf("--limit 4: %+v, %v; want 4 scored, 2 correct", rep.Overall, err)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cases := [][]string{
		{"--gold-as-pred"},
		{"--benchmark", "mini"},
		{"--benchmark", "mini", "--gold-as-pred", "--pred", "x"},
		{"--benchmark", "mini", "--gold-as-pred", "--mode", "nope"},
		{"--benchmark", "mini", "--gold-as-pred", "--format", "xml"},
		{"--benchmark", "mini", "--gold-as-pred", "--workers", "0"},
		// Regression: MySQL-dialect LogicCat ran on the (mostly empty)
		// SQLite files when no server was given.
		{"--benchmark", "logiccat", "--data", t.TempDir(), "--gold-as-pred"},
		{"--benchmark", "logiccat-mini500", "--data", t.TempDir(), "--gold-as-pred"},
	}
	t.Setenv("T2SBENCH_MYSQL_DSN", "")
	t.Setenv("T2SBENCH_RO_DSN", "")
	for _, c := range cases {
		if _, _, err := runEvalCLI(t, c...); !errors.Is(err, errUsage) {
			t.Errorf("eval %q: error %v; want a usage error", c, err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{\"x\": \"SELECT 1\"}"), 0o644)
	_, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", bad, "--quiet")
	if err == nil || !strings.Contains(err.Error(), bad+":1: key \"x\" is not a question index") {
		t.Errorf("bad bird-json error = %v; want file:line naming the key", err)
	}
}

// TestEvalNonStringPredictions scores a bird-json file holding values that
// are not strings, as BIRD's own ChatGPT prediction files do (JSON 0 for
// failed calls): those questions are pred_error with the reason and the
// file is scored, not refused.
func TestEvalNonStringPredictions(t *testing.T) {
	b := evalEnv(t)
	m := map[string]any{}
	for i, ex := range b.Examples {
		switch i {
		case 1:
			m[itoa(i)] = 0
		case 2:
			m[itoa(i)] = nil
		default:
			m[itoa(i)] = ex.GoldSQL + metrics.BIRDSeparator + ex.DBID
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	pred := filepath.Join(t.TempDir(), "predict_dev.json")
	if err := os.WriteFile(pred, data, 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, stderr, err := runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--quiet", "--cache-dir", "off", "--json", "--out", outFile)
	if err != nil {
		t.Fatalf("eval refused a file with non-string values: %v", err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	n := len(b.Examples)
	if rep.Overall.Total != n || rep.Overall.Correct != n-2 || rep.Status[metrics.StatusPredError] != 2 || len(rep.Warnings) != 2 {
		t.Errorf("scored %+v status %v warnings %q; want %d scored, %d correct, 2 pred_error, 2 warnings", rep.Overall, rep.Status, rep.Warnings, n, n-2)
	}
	_ = stderr
	vs, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(vs), "prediction is a number (0), not a SQL string") || !strings.Contains(string(vs), "prediction is null (null), not a SQL string") {
		t.Errorf("verdicts lack the reasons:\n%s", vs)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
