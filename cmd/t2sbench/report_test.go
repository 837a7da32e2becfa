package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReportTwiceByteIdentical runs a small spec (direct and a k sweep of
// sc, sim on 12 mini questions) and reports it twice: every file must be
// byte-identical, report.md must link every file, and the sim run must be
// titled "simulated model" in the report, every caption and every plot.
func TestReportTwiceByteIdentical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, `name: report-test
benchmarks: [{name: mini, limit: 12}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners:
  - name: direct
  - name: sc
    params: {temperature: 0.8}
    sweep: {k: [2, 4]}
workers: 4
`)
	var texts [2]string
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(dir, "report"+string(rune('a'+i)))
		var o, e bytes.Buffer
		if err := run(&o, &e, []string{"report", runDir, "--out", dirs[i], "--baseline", "direct", "--seed", "3", "-B", "2000"}); err != nil {
			t.Fatalf("report: %v\n%s", err, e.String())
		}
		texts[i] = o.String()
	}
	if texts[0] != texts[1] {
		t.Errorf("terminal output differs between two reports of the same run: %s", firstDiff(texts[0], texts[1]))
	}
	if !strings.HasPrefix(texts[0], "report-test (simulated model)\n") {
		t.Errorf("terminal output starts %q; want the simulated-model title", texts[0][:min(len(texts[0]), 80)])
	}
	var files []string
	err := filepath.WalkDir(dirs[0], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dirs[0], p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dirs[0], "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The setup lists each trial's parameters and the questions it ran.
	for _, want := range []string{"## Setup", "| sc k=2 | sc | mini | 0 | reason=sim | k=2 temperature=0.8 | 12 |", "| sim | sim | - | - | reason | p=0.6 seed=3 |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	var plots int
	for _, f := range files {
		a, _ := os.ReadFile(filepath.Join(dirs[0], f))
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: not byte-identical between the two reports (%d and %d bytes, err %v): %s", f, len(a), len(b), err, firstDiff(string(a), string(b)))
		}
		if f != "report.md" && !strings.HasPrefix(f, "view/") && !bytes.Contains(md, []byte("("+f+")")) {
			t.Errorf("report.md does not link %s", f)
		}
		if strings.HasSuffix(f, ".svg") {
			plots++
		}
		if strings.HasPrefix(f, "tables/") && strings.HasSuffix(f, ".tex") && !bytes.Contains(a, []byte("(simulated model)}")) {
			t.Errorf("table %s caption does not say simulated model", f)
		}
	}
	// The plots hold no title; their captions (plots/captions.tex, one
	// \caption per plot) say simulated model.
	captions, err := os.ReadFile(filepath.Join(dirs[0], "plots", "captions.tex"))
	if err != nil {
		t.Fatal(err)
	}
	var capLines int
	for _, l := range strings.Split(string(captions), "\n") {
		if strings.HasPrefix(l, "\\caption{") {
			capLines++
			if !strings.Contains(l, "(simulated model)") {
				t.Errorf("plot caption %q does not say simulated model", l)
			}
		}
	}
	if capLines != plots {
		t.Errorf("captions.tex holds %d captions; want one per plot, %d", capLines, plots)
	}
	// The sweep of k, the two Pareto plots (no prices: generated tokens),
	// the tables named after what they show, and the setup.
	for _, want := range []string{"view/index.html", "view/data/index.js", "view/data/q/11.js", "plots/ex-vs-k-sc-mini.png",
		"plots/pareto-ex-vs-gen-tokens.svg", "plots/pareto-ex-vs-latency.png", "tables/ex-by-system.tex", "tables/pairwise-mini.csv",
		"tables/ex-by-reasoning-type-mini.md", "tables/setup-trials.md", "tables/setup-models.csv"} {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Errorf("report lacks %s (files: %v)", want, files)
		}
	}
	if plots < 3 {
		t.Errorf("%d SVG plots; want at least 3", plots)
	}
	if !strings.Contains(string(md), "Pairwise tests against direct") {
		t.Errorf("report.md does not hold the pairwise table against --baseline direct")
	}
}

func TestReportUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "at least one run directory"},
		{[]string{"report", "nowhere", "--format", "md,gif"}, `unknown format "gif"`},
		{[]string{"report", "nowhere", "--price", "m=1"}, "MODEL=PROMPT:COMPLETION"},
		{[]string{"report", "nowhere", "--seed", "0"}, "--seed must not be 0"},
		{[]string{"report", t.TempDir()}, "not a run directory"},
	} {
		var o, e bytes.Buffer
		err := run(&o, &e, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v; want containing %q", tt.args, err, tt.want)
		}
	}
}

// TestReportPricesFromSpec checks that a spec's price table prices the
// report without --price, that roles a trial leaves unbound (steinersql's
// decompose falls back to reason) are priced as the reason model, and that
// --price overrides the spec.
func TestReportPricesFromSpec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, `name: priced
benchmarks: [{name: mini, limit: 4}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners:
  - name: steinersql
prices: {sim: {prompt: 1000000, completion: 0}}
`)
	costOf := func(args ...string) string {
		t.Helper()
		var o, e bytes.Buffer
		if err := run(&o, &e, append([]string{"report", runDir, "--quiet", "--format", "csv", "--out", filepath.Join(dir, "rep")}, args...)); err != nil {
			t.Fatalf("report: %v\n%s", err, e.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "rep", "tables", "efficiency.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// At $1 per prompt token, cost per question equals prompt tokens per
	// question, which counts the decompose and reason roles together.
	csv := costOf()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 2 {
		t.Fatalf("efficiency.csv:\n%s", csv)
	}
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	col := func(name string) string {
		for i, h := range head {
			if strings.Contains(h, name) && i < len(row) {
				return row[i]
			}
		}
		t.Fatalf("no column %q in %v", name, head)
		return ""
	}
	cost, err1 := strconv.ParseFloat(col("cost"), 64)
	prompt, err2 := strconv.ParseFloat(col("prompt tok"), 64)
	if err1 != nil || err2 != nil || prompt == 0 || math.Abs(cost-prompt) > 0.5 {
		t.Errorf("cost/q = %q; want the prompt tokens per question %q (spec price $1 per prompt token)\n%s", col("cost"), col("prompt tok"), csv)
	}
	// A trial's cost is its 4 questions' (one seed): 4 times cost/q, within
	// the rounding of prompt tokens per question to a whole token.
	trial, err3 := strconv.ParseFloat(col("cost/trial"), 64)
	if err3 != nil || math.Abs(trial-4*prompt) > 2 {
		t.Errorf("cost/trial = %q; want 4 x %q (4 questions)\n%s", col("cost/trial"), col("prompt tok"), csv)
	}
	if costOf("--price", "sim=0:0") == csv {
		t.Errorf("--price sim=0:0 did not change the cost column")
	}
}

// firstDiff returns the first line where a and b differ, as both read it.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d reads %q and %q", i+1, x, y)
		}
	}
	return "no line differs"
}
