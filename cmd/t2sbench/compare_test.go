package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/runstore"
)

// writeVerdicts writes a verdict file with one line per outcome, question
// ids q000, q001, ...
func writeVerdicts(t *testing.T, dir, name string, correct []bool) string {
	t.Helper()
	var b strings.Builder
	for i, c := range correct {
		fmt.Fprintf(&b, `{"index":%d,"question_id":"q%03d","db_id":"db","difficulty":"simple","status":"ok","correct":%v,"pred_ms":1.5,"gold_ms":2,"error":""}`+"\n", i, i, c)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// reactSystems builds the BIRD mini-dev ablation of ReAct-SQL (Lu et al.
// 2026) Tables 4 and 5 from its counts, n = 498: baseline 391 right;
// +Iter with b = 53, c = 56 against it (338 both right); +Iter+DSL with
// b = 28, c = 58 against the baseline (421 right, 84.5%).
func reactSystems() (base, iter, dsl []bool) {
	const n = 498
	base, iter, dsl = make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range n {
		base[i] = i < 391 // 0..390 right
		switch {
		case i < 338:
			iter[i] = true
		case i < 391: // 53 baseline-only
		case i < 447: // 56 iter-only
			iter[i] = true
		}
		switch {
		case i < 363: // 28 of the baseline's right (363..390) wrong
			dsl[i] = true
		case i < 391:
		case i < 449: // 58 of the baseline's wrong right
			dsl[i] = true
		}
	}
	return base, iter, dsl
}

func TestCompareReActSQLTable5(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, iter, dsl := reactSystems()
	pb := writeVerdicts(t, dir, "base.jsonl", base)
	pi := writeVerdicts(t, dir, "iter.jsonl", iter)
	pd := writeVerdicts(t, dir, "dsl.jsonl", dsl)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", pb, pi, "--seed", "1", pd}); err != nil {
		t.Fatalf("compare: %v\n%s", err, errb.String())
	}
	text := out.String()
	lines := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	// Paper Table 5: +0.60 [-3.41, +4.62] b=53 c=56 p=0.848 (n.s.);
	// Baseline -> +Iter+DSL: +6.02, b=28, c=58, p=0.002. Holm over the two
	// p-values: 2*0.001765 = 0.00353 and max(0.848, 0.00353) = 0.848.
	// The percentile bounds are multiples of 1/498 (0.20 points): this
	// pair's stream, PCG(1, FNV-1a("base\x00iter")), gives the paper's lower
	// bound and an upper bound one question above the paper's.
	for _, want := range []struct{ row, sub string }{
		{"iter", "78.51    79.12    +0.60  [-3.41, +4.82]"},
		{"iter", "53    56 chi2-cc      0.848      0.848 ~"},
		{"dsl", "78.51    84.54    +6.02"},
		{"dsl", "28    58 chi2-cc      0.002      0.004"},
	} {
		if !strings.Contains(lines[want.row], want.sub) {
			t.Errorf("row %s: %q lacks %q\nfull output:\n%s", want.row, lines[want.row], want.sub, text)
		}
	}
	if strings.HasSuffix(strings.TrimSpace(lines["dsl"]), "~") {
		t.Errorf("dsl row marked not significant: %q", lines["dsl"])
	}

	out.Reset()
	if err := run(&out, &errb, []string{"compare", "--json", "--baseline", "iter", pb, pi}); err != nil {
		t.Fatal(err)
	}
	var rows []compare.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("json output: %v\n%s", err, out.String())
	}
	if len(rows) != 1 || rows[0].Baseline != "iter" || rows[0].System != "base" || rows[0].B != 56 || rows[0].C != 53 || rows[0].Significant {
		t.Errorf("json rows %+v; want one row iter->base with b=56 c=53 not significant", rows)
	}
}

func TestCompareErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeVerdicts(t, dir, "a.jsonl", []bool{true, false, true})
	b := writeVerdicts(t, dir, "b.jsonl", []bool{true, true})
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"question_id\":\"q000\",\"correct\":true}\n\n{\"question_id\":\"q001\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dup := filepath.Join(dir, "dup.jsonl")
	if err := os.WriteFile(dup, []byte("{\"question_id\":\"q0\",\"correct\":true}\n{\"question_id\":\"q0\",\"correct\":false}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"one input", []string{a}, "at least two systems"},
		{"missing id", []string{a, b}, `"q002"`},
		{"bad line", []string{a, bad}, "bad.jsonl:3: missing \"correct\""},
		{"duplicate", []string{a, dup}, "dup.jsonl:2: question \"q0\" repeated"},
		{"directory", []string{a, dir}, "is not a run directory"},
		{"baseline", []string{a, b, "--baseline", "zzz"}, `--baseline "zzz"`},
		{"level", []string{a, b, "--level", "95"}, "--level"},
		{"same name", []string{a, a}, `system name "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(&out, &errb, append([]string{"compare"}, tc.args...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestCompareIntersectAndRunDirs(t *testing.T) {
	dir := t.TempDir()
	a := writeVerdicts(t, dir, "a.jsonl", []bool{true, false, true})
	b := writeVerdicts(t, dir, "b.jsonl", []bool{true, true})
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", "--intersect", a, b}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "dropped 1 questions only in a and 0 only in b") {
		t.Errorf("intersect output lacks the dropped note:\n%s", out.String())
	}

	old := loadRunSystems
	t.Cleanup(func() { loadRunSystems = old })
	loadRunSystems = func(string, runstore.ReadOptions) ([]runstore.RunSystem, *runstore.RunData, error) {
		return []runstore.RunSystem{
			{Label: "direct", Benchmark: "mini", Correct: map[string]bool{"q1": true, "q2": false, "q3": false}},
			{Label: "sc", Benchmark: "mini", Correct: map[string]bool{"q1": true, "q2": true, "q3": false}},
		}, &runstore.RunData{}, nil
	}
	out.Reset()
	if err := run(&out, &errb, []string{"compare", "--json", dir}); err != nil {
		t.Fatal(err)
	}
	var rows []compare.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	// Systems from a directory keep the run's trial order: direct is the baseline.
	if len(rows) != 1 || rows[0].Baseline != "direct" || rows[0].System != "sc" || rows[0].B != 0 || rows[0].C != 1 || rows[0].Test != "exact" {
		t.Errorf("rows %+v; want direct -> sc, b=0 c=1, exact", rows)
	}
}

// TestCompareRunTwoBenchmarks is a regression test: a run over two
// benchmarks whose question ids coincide ("0", "1", ...) used to pair
// direct@mini with direct@spider. Each trial must be compared only with the
// first trial of its own benchmark, and a simulated run says so.
func TestCompareRunTwoBenchmarks(t *testing.T) {
	old := loadRunSystems
	t.Cleanup(func() { loadRunSystems = old })
	loadRunSystems = func(string, runstore.ReadOptions) ([]runstore.RunSystem, *runstore.RunData, error) {
		return []runstore.RunSystem{
			{Label: "direct @mini", Benchmark: "mini", Simulated: true, Correct: map[string]bool{"0": true, "1": false}},
			{Label: "direct @spider", Benchmark: "spider", Simulated: true, Correct: map[string]bool{"0": false, "1": false}},
			{Label: "cot @mini", Benchmark: "mini", Simulated: true, Correct: map[string]bool{"0": true, "1": true}},
			{Label: "cot @spider", Benchmark: "spider", Simulated: true, Correct: map[string]bool{"0": true, "1": true}},
		}, &runstore.RunData{}, nil
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", "--json", dir}); err != nil {
		t.Fatal(err)
	}
	var rows []compare.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"direct @mini", "cot @mini"}, {"direct @spider", "cot @spider"}}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows %+v; want %d", len(rows), rows, len(want))
	}
	for i, w := range want {
		if rows[i].Baseline != w[0] || rows[i].System != w[1] {
			t.Errorf("row %d: got %s vs %s; want %s vs %s", i, rows[i].System, rows[i].Baseline, w[1], w[0])
		}
	}
	// cot @spider vs direct @spider: both questions only cot right, b=0 c=2.
	if rows[1].B != 0 || rows[1].C != 2 {
		t.Errorf("spider row b=%d c=%d; want b=0 c=2", rows[1].B, rows[1].C)
	}
	out.Reset()
	if err := run(&out, &errb, []string{"compare", dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "simulated model") {
		t.Errorf("table of a sim run lacks \"simulated model\":\n%s", out.String())
	}
}

// TestCompareDifferentDatabases is a regression test: two verdict files of
// different benchmarks with overlapping question ids were paired under
// --intersect. A shared question on different databases is an error.
func TestCompareDifferentDatabases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "mini.jsonl")
	b := filepath.Join(dir, "spider.jsonl")
	if err := os.WriteFile(a, []byte(`{"question_id":"0","db_id":"university","correct":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(`{"question_id":"0","db_id":"concert_singer","correct":false}`+"\n"+`{"question_id":"1","db_id":"concert_singer","correct":false}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"compare", "--intersect", a, b})
	if err == nil || !strings.Contains(err.Error(), "different benchmarks") || !strings.Contains(err.Error(), `"university"`) {
		t.Errorf("got %v; want an error naming the databases and \"different benchmarks\"", err)
	}
}

// TestHelp is a regression test: `help nosuch` printed the command list and
// exited 0, and `help eval` wrote its flags to stderr.
func TestHelp(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"help", "nosuch"}); !errors.Is(err, errUsage) {
		t.Errorf("help nosuch: error %v; want a usage error", err)
	}
	out.Reset()
	errb.Reset()
	if err := run(&out, &errb, []string{"help", "eval"}); err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Errorf("help eval: error %v", err)
	}
	if !strings.Contains(out.String(), "-benchmark") {
		t.Errorf("help eval: stdout %q lacks the flags (stderr %q)", out.String(), errb.String())
	}
}

// TestCompareBenchmarkMismatch: eval --out records the benchmark in each
// verdict, and compare refuses verdicts of different benchmarks plainly
// (it used to suggest --intersect).
func TestCompareBenchmarkMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, bench string, ids ...string) string {
		var b strings.Builder
		for i, id := range ids {
			fmt.Fprintf(&b, `{"benchmark":%q,"question_id":%q,"correct":%v,"status":"ok"}`+"\n", bench, id, i%2 == 0)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bird := write("bird.jsonl", "bird", "0", "1", "2")
	bird2 := write("bird2.jsonl", "bird", "0", "1", "2")
	spider := write("spider.jsonl", "spider", "0", "1", "2")
	mixed := filepath.Join(dir, "mixed.jsonl")
	os.WriteFile(mixed, []byte(`{"benchmark":"bird","question_id":"0","correct":true}`+"\n"+`{"benchmark":"spider","question_id":"1","correct":true}`+"\n"), 0o644)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		want  string
		avoid string
	}{
		{"bird vs spider", []string{bird, spider}, exitUsage, "bird.jsonl scores benchmark bird and no other input does (spider: spider)", "--intersect"},
		{"same benchmark", []string{bird, bird2}, exitOK, "", ""},
		{"two lines of different benchmarks", []string{mixed, bird}, exitRuntime, `mixed.jsonl:2: verdict of benchmark "spider" in a file of benchmark "bird"`, ""},
	} {
		var out, errb bytes.Buffer
		err := run(&out, &errb, append([]string{"compare"}, tc.args...))
		if exitCode(err) != tc.code {
			t.Errorf("%s: exit %d (%v); want %d", tc.name, exitCode(err), err, tc.code)
			continue
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.want)
		}
		if tc.avoid != "" && err != nil && strings.Contains(err.Error(), tc.avoid) {
			t.Errorf("%s: error %v suggests %s, which cannot help", tc.name, err, tc.avoid)
		}
	}
}

// TestEvalVerdictsCarryBenchmark: every line eval --out writes names the
// benchmark it scored.
func TestEvalVerdictsCarryBenchmark(t *testing.T) {
	evalEnv(t)
	out := filepath.Join(t.TempDir(), "v.jsonl")
	if _, _, err := runEvalCLI(t, "--benchmark", "mini", "--gold-as-pred", "--quiet", "--out", out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, l := range lines {
		var v struct {
			Benchmark  string `json:"benchmark"`
			QuestionID string `json:"question_id"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Benchmark != "mini" || v.QuestionID == "" {
			t.Fatalf("line %d = %s (%v); want a verdict with benchmark mini", i+1, l, err)
		}
	}
}

// TestCompareWarnings: the comparison's warnings are printed under the
// table, and a difference that rounds to zero prints unsigned. Two
// systems with the same outcomes have no discordant question: McNemar's
// P is 1 (by definition) and the test warns once; the bootstrap's
// interval [0, 0] repeats no warning of its own.
func TestCompareWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeVerdicts(t, dir, "a.jsonl", []bool{true, false, true, true})
	b := writeVerdicts(t, dir, "b.jsonl", []bool{true, false, true, true})
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", a, b}); err != nil {
		t.Fatalf("compare: %v\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"b           4    75.00    75.00     0.00  [0.00, 0.00]           0     0 exact        1.000      1.000 ~\n",
		"\nwarning: b: stats: mcnemar: no discordant questions (b = c = 0)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "no discordant"); n != 1 {
		t.Errorf("got %d warnings of no discordant question; want 1:\n%s", n, text)
	}
}
