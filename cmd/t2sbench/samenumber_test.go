package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/stats"
)

// printed is one surface's printing of a comparison: its interval's bounds
// and its p-values, as text.
type printed struct {
	lo, hi, p, pHolm string
}

// TestOneComparisonEverywhere builds one run of three systems (direct,
// cot and sc with k = 3, sim on 30 mini questions) and reads the
// comparisons of cot and of sc against direct from each output that shows
// them: the
// run summary (run's stdout), compare (text and --json), the report's
// pairwise table (CSV), the data of its pairwise-difference plot (the CSV
// beside it) and the viewer's index (data/index.js). Every one must show
// the interval and the p-values of compare --json's exact values, at its
// printed precision (compare's text two decimals, the tables, plot data
// and summary one; p-values three decimals, FormatP). It runs with three
// seeds (one system per runner, seeds pooled: the sign-flip test) and
// with one (McNemar).
func TestOneComparisonEverywhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		seeds string
	}{{"three seeds", "[0, 1, 2]"}, {"one seed", "[0]"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spec := writeSpec(t, dir, `name: same-number
benchmarks: [{name: mini, limit: 30}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 3, temperature: 0.8}
seeds: `+tc.seeds+`
workers: 4
`)
			runDir, repDir := filepath.Join(dir, "run"), filepath.Join(dir, "report")
			var summary, e bytes.Buffer
			if err := run(&summary, &e, []string{"run", spec, "--quiet", "--out", runDir}); err != nil {
				t.Fatalf("run: %v\n%s", err, e.String())
			}
			var js, txt bytes.Buffer
			if err := run(&js, &e, []string{"compare", "--json", runDir}); err != nil {
				t.Fatalf("compare --json: %v\n%s", err, e.String())
			}
			if err := run(&txt, &e, []string{"compare", runDir}); err != nil {
				t.Fatalf("compare: %v\n%s", err, e.String())
			}
			if err := run(&bytes.Buffer{}, &e, []string{"report", runDir, "--out", repDir, "--quiet"}); err != nil {
				t.Fatalf("report: %v\n%s", err, e.String())
			}

			var rows []compare.Row
			if err := json.Unmarshal(js.Bytes(), &rows); err != nil {
				t.Fatalf("compare --json: %v\n%s", err, js.String())
			}
			for _, sys := range []string{"cot", "sc"} {
				checkEverywhere(t, sys, rows, summary.String(), txt.String(), repDir)
			}
			if tc.seeds != "[0]" {
				for _, sys := range []string{"direct", "cot", "sc"} {
					checkMeanSD(t, sys, txt.String(), repDir)
				}
			}
		})
	}
}

// checkMeanSD checks that compare's table and the report's main table
// (ex-by-system.csv) show the same EX, mean over seeds, and sd over seeds
// of system, at their printed precision: compare's two decimals and the
// report's one differ by at most 0.05 + 0.005 points.
func checkMeanSD(t *testing.T, system, txt, repDir string) {
	t.Helper()
	cmpEX, cmpSD := math.NaN(), math.NaN()
	for _, line := range strings.Split(txt, "\n") {
		f := strings.Fields(line)
		// system seeds attempted correct failed pending EX% sd ...
		if len(f) >= 8 && f[0] == system && strings.HasSuffix(f[6], "%") {
			fmt.Sscan(strings.TrimSuffix(f[6], "%"), &cmpEX)
			fmt.Sscan(f[7], &cmpSD)
		}
	}
	if math.IsNaN(cmpEX) || math.IsNaN(cmpSD) {
		t.Fatalf("compare's table has no EX row of %s:\n%s", system, txt)
	}
	recs := readCSV(t, filepath.Join(repDir, "tables", "ex-by-system.csv"))
	for _, r := range recs[1:] {
		if r[0] == system {
			var ex, sd float64
			fmt.Sscan(r[1], &ex)
			fmt.Sscan(r[2], &sd)
			if math.Abs(ex-cmpEX) > 0.055 || math.Abs(sd-cmpSD) > 0.055 {
				t.Errorf("%s: report EX %s sd %s; compare EX %.2f sd %.2f; want the same at printed precision", system, r[1], r[2], cmpEX, cmpSD)
			}
			return
		}
	}
	t.Errorf("report's ex-by-system.csv has no row of %s", system)
}

// checkEverywhere checks that every output shows the comparison of system
// with direct that compare --json gives (rows), at its printed precision:
// the run summary, compare's table, the report's pairwise table and plot
// data (CSV under repDir) and the viewer's index.
func checkEverywhere(t *testing.T, system string, rows []compare.Row, summary, txt, repDir string) {
	t.Helper()
	// The reference: compare --json's exact values.
	var ref *compare.Row
	for i := range rows {
		if rows[i].Baseline == "direct" && rows[i].System == system {
			ref = &rows[i]
		}
	}
	if ref == nil {
		var pairs []string
		for _, r := range rows {
			pairs = append(pairs, r.System+" vs "+r.Baseline)
		}
		t.Errorf("compare --json has no comparison of %s with direct (it has %s)", system, strings.Join(pairs, "; "))
		return
	}
	want := func(prec int) printed {
		return printed{stats.FormatSigned(100*ref.CILo, prec), stats.FormatSigned(100*ref.CIHi, prec), stats.FormatP(ref.P), stats.FormatP(ref.PHolm)}
	}
	t.Logf("compare --json: %s vs direct CI [%v, %v] p %v p(Holm) %v test %s", system, ref.CILo, ref.CIHi, ref.P, ref.PHolm, ref.Test)

	got := map[string]printed{}
	prec := map[string]int{}
	// compare's table: "[-19.44, +13.89]" and p, p(Holm) columns.
	for _, l := range strings.Split(txt, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == system && strings.Contains(l, "[") {
			lo, hi, _ := strings.Cut(l[strings.Index(l, "[")+1:strings.Index(l, "]")], ", ")
			n := len(f)
			if f[n-1] == "~" {
				n--
			}
			got["compare"], prec["compare"] = printed{lo, hi, f[n-2], f[n-1]}, 2
		}
	}
	// The report's pairwise table and the plot's data, CSV.
	for name, file := range map[string]string{"report table": "tables/pairwise-mini.csv", "plot data": "plots/pairwise-delta-mini.csv"} {
		prec[name] = 1
		recs := readCSV(t, filepath.Join(repDir, file))
		if recs == nil {
			continue
		}
		col := map[string]int{}
		for j, h := range recs[0] {
			col[h] = j
		}
		for _, r := range recs[1:] {
			if r[0] == system {
				lo, hi, _ := strings.Cut(strings.Trim(r[col["95% CI"]], "[]"), ", ")
				got[name] = printed{lo, hi, r[col["p"]], r[col["p (Holm)"]]}
			}
		}
	}
	// The viewer's index, exact values.
	prec["viewer"] = -1
	if v, ok := viewerComparison(t, filepath.Join(repDir, "view", "data", "index.js"), "direct", system); ok {
		got["viewer"] = v
	}
	// The run summary: the system's rows' comparison (FormatLine).
	prec["run summary"] = 1
	for _, l := range strings.Split(summary, "\n") {
		if strings.HasPrefix(l, system) {
			w := want(1)
			line := fmt.Sprintf("[%s, %s], Holm p=%s", w.lo, w.hi, w.pHolm)
			if strings.Contains(l, line) && strings.Contains(l, "p="+w.p+" ") {
				got["run summary"] = w
			} else {
				got["run summary"] = printed{lo: "(row: " + strings.TrimSpace(l) + ")"}
			}
		}
	}
	for _, surface := range []string{"compare", "report table", "plot data", "viewer", "run summary"} {
		g, ok := got[surface]
		if !ok {
			t.Errorf("%s: shows no comparison of %s with direct", surface, system)
			continue
		}
		var w printed
		if prec[surface] < 0 {
			w = printed{fmt.Sprint(ref.CILo), fmt.Sprint(ref.CIHi), fmt.Sprint(ref.P), fmt.Sprint(ref.PHolm)}
		} else {
			w = want(prec[surface])
		}
		if g != w {
			t.Errorf("%s vs direct: %s: got CI [%s, %s] p %s p(Holm) %s; want CI [%s, %s] p %s p(Holm) %s (compare --json's)", system, surface, g.lo, g.hi, g.p, g.pHolm, w.lo, w.hi, w.p, w.pHolm)
		}
	}
}

// readCSV reads a CSV file of the report; a missing file is an error of
// the test (the surface then shows nothing) and nil.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Errorf("%s: %v (%d records)", path, err, len(recs))
		return nil
	}
	return recs
}

// viewerComparison reads the viewer index's comparison of system with
// baseline, its exact values printed with %v.
func viewerComparison(t *testing.T, path, baseline, system string) (printed, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("viewer: %v", err)
		return printed{}, false
	}
	s := string(b)
	var idx struct {
		Comparisons []struct {
			System, Baseline string
			CILo             float64 `json:"ci_lo"`
			CIHi             float64 `json:"ci_hi"`
			P                float64 `json:"p"`
			PHolm            float64 `json:"p_holm"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(s[strings.Index(s, "{"):strings.LastIndex(s, "}")+1]), &idx); err != nil {
		t.Errorf("viewer: %s: %v", path, err)
		return printed{}, false
	}
	for _, c := range idx.Comparisons {
		if c.Baseline == baseline && c.System == system {
			return printed{fmt.Sprint(c.CILo), fmt.Sprint(c.CIHi), fmt.Sprint(c.P), fmt.Sprint(c.PHolm)}, true
		}
	}
	return printed{}, false
}

// TestOneTitleNoteEverywhere runs one sim run of direct through the quick
// profile (two mini questions) and reads the title's note, "(simulated
// model, quick profile: ...)", from each output that states it: the run
// summary (run's first line of stdout), the report's title (report's
// first line of stdout) and the viewer's index (its "title"). Each title
// must be the run's name followed by the same note, and the note must
// name the simulated model and the profile.
func TestOneTitleNoteEverywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := writeSpec(t, dir, `name: same-note
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners: [{name: direct}]
`)
	runDir, repDir := filepath.Join(dir, "run"), filepath.Join(dir, "report")
	var summary, rep, e bytes.Buffer
	if err := run(&summary, &e, []string{"run", spec, "--profile", "quick", "--quiet", "--out", runDir}); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	if err := run(&rep, &e, []string{"report", runDir, "--out", repDir}); err != nil {
		t.Fatalf("report: %v\n%s", err, e.String())
	}
	b, err := os.ReadFile(filepath.Join(repDir, "view", "data", "index.js"))
	if err != nil {
		t.Fatalf("viewer: %v", err)
	}
	s := string(b)
	var idx struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(s[strings.Index(s, "{"):strings.LastIndex(s, "}")+1]), &idx); err != nil {
		t.Fatalf("viewer: index.js: %v", err)
	}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	titles := []struct{ surface, title string }{
		{"run summary", firstLine(summary.String())},
		{"report title", firstLine(rep.String())},
		{"viewer index", idx.Title},
	}
	note, ok := strings.CutPrefix(titles[0].title, "same-note ")
	if !ok || !strings.HasPrefix(note, "(simulated model, quick profile: ") || !strings.HasSuffix(note, ")") {
		t.Fatalf("run summary title %q; want \"same-note (simulated model, quick profile: ...)\"", titles[0].title)
	}
	for _, tt := range titles[1:] {
		if want := "same-note " + note; tt.title != want {
			t.Errorf("%s: got title %q; want %q (the run summary's)", tt.surface, tt.title, want)
		}
	}
}
