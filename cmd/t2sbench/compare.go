package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/stats"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare systems' EX with McNemar tests and paired bootstrap CIs",
		run:     runCompare,
	})
}

// loadRunSystems loads the per-question outcomes of the trials of a run
// directory (bench.LoadRunSystemsWith); a variable so tests can stub the
// run store.
var loadRunSystems = bench.LoadRunSystemsWith

// compareSystem is one system's outcomes and where they came from.
type compareSystem struct {
	name   string
	source string
	// group is the benchmark of a run's trial; systems are compared only
	// with a baseline of the same group. Verdict files have group "".
	group     string
	fromFile  bool
	simulated bool
	// correct holds the questions in EX's one denominator (metrics.GoldRuns:
	// the gold runs), failed ones false.
	correct map[string]bool
	// failed holds the questions whose runner failed (run directories).
	failed map[string]bool
	// excluded maps the questions whose gold does not run to their status;
	// they are in no denominator, and a question excluded in one system is
	// dropped from the other's side of a pair.
	excluded map[string]metrics.Status
	// excludedN counts excluded questions by status (run directories
	// record only the counts).
	excludedN map[metrics.Status]int
	// run is true for a trial of a run directory; pending counts its
	// unfinished items (its EX is then partial).
	run     bool
	pending int
	// dbs maps question id to db_id where the input records it; a paired
	// question on different databases means two different benchmarks.
	dbs map[string]string
}

// tally counts the system's questions on EX's one denominator.
func (s compareSystem) tally() metrics.Tally {
	t := metrics.Tally{Attempted: len(s.correct), Failed: len(s.failed), Excluded: map[metrics.Status]int{}}
	for _, ok := range s.correct {
		if ok {
			t.Correct++
		}
	}
	for _, st := range s.excluded {
		t.Excluded[st]++
	}
	for st, n := range s.excludedN {
		t.Excluded[st] += n
	}
	return t
}

// compareRow is one system compared with the baseline; it is also the
// --json output.
type compareRow struct {
	Baseline    string  `json:"baseline"`
	System      string  `json:"system"`
	Benchmark   string  `json:"benchmark,omitempty"`
	N           int     `json:"n"`
	AccBaseline float64 `json:"acc_baseline"`
	AccSystem   float64 `json:"acc_system"`
	Delta       float64 `json:"delta"`
	CILo        float64 `json:"ci_lo"`
	CIHi        float64 `json:"ci_hi"`
	Level       float64 `json:"level"`
	CIMethod    string  `json:"ci_method"`
	Resamples   int     `json:"resamples"`
	B           int     `json:"b"`
	C           int     `json:"c"`
	Test        string  `json:"test"`
	P           float64 `json:"p"`
	PHolm       float64 `json:"p_holm"`
	Significant bool    `json:"significant"`
	// FailedBaseline and FailedSystem count the paired questions whose
	// runner failed (counted wrong); Partial* say a run trial has pending
	// items.
	FailedBaseline  int      `json:"failed_baseline"`
	FailedSystem    int      `json:"failed_system"`
	PartialBaseline bool     `json:"partial_baseline,omitempty"`
	PartialSystem   bool     `json:"partial_system,omitempty"`
	BaselineOnly    int      `json:"dropped_baseline_only,omitempty"`
	SystemOnly      int      `json:"dropped_system_only,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
	// comparison is the comparison the row shows; the table prints it.
	comparison *stats.Comparison
}

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", "A B [C ...] [flags]  (verdict .jsonl files or run directories)", stderr)
	baseline := fs.String("baseline", "", "baseline system name or path (default: the first system)")
	asJSON := fs.Bool("json", false, "write the comparisons as JSON")
	intersect := fs.Bool("intersect", false, "compare on the questions both systems have, dropping the others (default: error)")
	level := fs.Float64("level", stats.DefaultLevel, "confidence level of the bootstrap intervals; significance is judged at alpha = 1 - level")
	resamples := fs.Int("B", stats.DefaultResamples, "bootstrap resamples")
	seed := fs.Uint64("seed", 1, "bootstrap random seed")
	ciMethod := fs.String("ci", stats.BootstrapPercentile, "bootstrap interval: percentile or bca")
	test := fs.String("test", "auto", "McNemar test: auto (exact when b+c < 25), exact, chi2-cc or chi2")
	all := fs.Bool("all-trials", false, allTrialsUsage)

	// Flags may come before, between or after the inputs.
	inputs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: compare needs verdict files or run directories", errUsage)
	}
	if !(*level > 0 && *level < 1) {
		return fmt.Errorf("%w: --level %v, want a value in (0, 1)", errUsage, *level)
	}
	mcTest := *test
	if mcTest == "auto" {
		mcTest = stats.McNemarAuto
	}

	systems, err := loadCompareInputs(stderr, inputs, bench.ReadOptions{AllTrials: *all})
	if err != nil {
		return err
	}
	if len(systems) < 2 {
		return fmt.Errorf("%w: compare needs at least two systems, got %d (%s)", errUsage, len(systems), strings.Join(inputs, ", "))
	}
	base, err := pickBaselines(systems, *baseline)
	if err != nil {
		return err
	}
	rows, err := compareAll(systems, base, compareConfig{
		intersect: *intersect, level: *level, resamples: *resamples, seed: *seed, ciMethod: *ciMethod, test: mcTest,
	})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	simulated := false
	for _, s := range systems {
		simulated = simulated || s.simulated
	}
	writeSystemsTable(stdout, systems)
	writeCompareTable(stdout, rows, simulated, *level, *resamples, *seed, *ciMethod)
	return nil
}

// compareConfig carries the statistical settings of a comparison.
type compareConfig struct {
	intersect bool
	level     float64
	resamples int
	seed      uint64
	ciMethod  string
	test      string
}

// pickBaselines assigns every system the index of its baseline: the first
// system of its benchmark group, or the system named by baseline (a name or
// a path) for that system's group. Verdict files join the group of the run
// trials when those are all on one benchmark.
func pickBaselines(systems []compareSystem, baseline string) ([]int, error) {
	groups := map[string]string{} // benchmarkKey -> a group name
	for _, s := range systems {
		if s.group != "" {
			groups[benchmarkKey(s.group)] = s.group
		}
	}
	if len(groups) == 1 {
		for i := range systems {
			if systems[i].group == "" {
				for _, g := range groups {
					systems[i].group = g
				}
			}
		}
	}
	first := map[string]int{}
	count := map[string]int{}
	for i, s := range systems {
		k := benchmarkKey(s.group)
		count[k]++
		if _, ok := first[k]; !ok {
			first[k] = i
		}
	}
	// A verdict file alone on its benchmark is compared with nothing:
	// say so plainly instead of leaving it out.
	for _, s := range systems {
		if s.fromFile && count[benchmarkKey(s.group)] == 1 && len(systems) > 1 {
			var others []string
			for _, o := range systems {
				if o.source != s.source || o.name != s.name {
					others = append(others, fmt.Sprintf("%s: %s", o.name, benchmarkOrUnknown(o.group)))
				}
			}
			return nil, fmt.Errorf("%w: compare: %s scores benchmark %s and no other input does (%s); systems are compared only on the same benchmark: compare verdict files of one benchmark (eval --benchmark)",
				errUsage, s.source, benchmarkOrUnknown(s.group), strings.Join(others, "; "))
		}
	}
	if baseline != "" {
		j := slices.IndexFunc(systems, func(s compareSystem) bool { return s.name == baseline || s.source == baseline })
		if j < 0 {
			names := make([]string, len(systems))
			for i, s := range systems {
				names[i] = s.name
			}
			return nil, fmt.Errorf("%w: --baseline %q is none of the systems %s", errUsage, baseline, strings.Join(names, ", "))
		}
		first[benchmarkKey(systems[j].group)] = j
	}
	base := make([]int, len(systems))
	compared := false
	for i, s := range systems {
		base[i] = first[benchmarkKey(s.group)]
		compared = compared || base[i] != i
	}
	if !compared {
		return nil, fmt.Errorf("compare: no two systems are on the same benchmark; nothing to compare")
	}
	return base, nil
}

// benchmarkKey is the name a benchmark group is matched by: run
// directories name it bird/minidev (BenchmarkSpec.Key), verdict files by
// eval's --benchmark, bird-minidev.
func benchmarkKey(group string) string { return bench.DatasetNameOf(group) }

func benchmarkOrUnknown(group string) string {
	if group == "" {
		return "(not recorded: a verdict file written before eval recorded it)"
	}
	return group
}

// compareAll compares every system i with systems[base[i]] (systems that
// are their own baseline are skipped): one stats.Comparison per pair
// (McNemar test and paired bootstrap), Holm adjustment over the family of
// pairs (stats.AdjustHolm). Every pair's bootstrap
// uses its own source seeded with cfg.seed, so a pair's interval does not
// depend on which other systems are compared.
func compareAll(systems []compareSystem, base []int, cfg compareConfig) ([]compareRow, error) {
	var rows []compareRow
	for i, s := range systems {
		if base[i] == i {
			continue
		}
		b := systems[base[i]]
		p, err := stats.Pair(dropExcluded(b.correct, s.excluded), dropExcluded(s.correct, b.excluded), cfg.intersect)
		if err != nil {
			return nil, fmt.Errorf("compare %s (%s) with %s (%s): %w", b.name, b.source, s.name, s.source, err)
		}
		for _, id := range p.IDs {
			if da, db := b.dbs[id], s.dbs[id]; da != "" && db != "" && da != db {
				return nil, fmt.Errorf("compare %s (%s) with %s (%s): question %q is on database %q in one and %q in the other; they score different benchmarks",
					b.name, b.source, s.name, s.source, id, da, db)
			}
		}
		c, err := stats.Compare(p.A, p.B, stats.CompareOptions{Test: cfg.test, Level: cfg.level,
			Resamples: cfg.resamples, CIMethod: cfg.ciMethod, Rand: rand.New(rand.NewPCG(cfg.seed, 0))})
		if err != nil {
			return nil, fmt.Errorf("compare %s with %s: %w", b.name, s.name, err)
		}
		row := compareRow{
			Baseline: b.name, System: s.name, Benchmark: s.group, N: c.N,
			AccBaseline: c.AccA, AccSystem: c.AccB, Delta: c.Delta,
			CILo: c.CI.Lo, CIHi: c.CI.Hi, Level: c.CI.Level, CIMethod: c.CIMethod, Resamples: c.Resamples,
			B: c.B, C: c.C, Test: c.Test, P: c.P, Warnings: c.Warnings,
			BaselineOnly: len(p.OnlyA), SystemOnly: len(p.OnlyB),
			PartialBaseline: b.pending > 0, PartialSystem: s.pending > 0,
			comparison: c,
		}
		for _, id := range p.IDs {
			if b.failed[id] {
				row.FailedBaseline++
			}
			if s.failed[id] {
				row.FailedSystem++
			}
		}
		rows = append(rows, row)
	}
	family := make([]*stats.Comparison, len(rows))
	for i := range rows {
		family[i] = rows[i].comparison
	}
	if err := stats.AdjustHolm(family); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	for i := range rows {
		rows[i].PHolm = family[i].PAdj
		rows[i].Significant = family[i].Significant()
	}
	return rows, nil
}

// dropExcluded returns correct without the questions in excluded (whose
// gold does not run in the other system's scoring).
func dropExcluded(correct map[string]bool, excluded map[string]metrics.Status) map[string]bool {
	if len(excluded) == 0 {
		return correct
	}
	out := make(map[string]bool, len(correct))
	for id, ok := range correct {
		if _, ex := excluded[id]; !ex {
			out[id] = ok
		}
	}
	return out
}

// writeSystemsTable prints every system's EX over its attempted questions
// (those whose gold runs; failed ones counted wrong), as eval prints it,
// with its failed and pending counts and the questions left out.
func writeSystemsTable(w io.Writer, systems []compareSystem) {
	fmt.Fprintf(w, "EX = correct / attempted (questions whose gold runs; failed items counted wrong)\n\n")
	tab := textable.New(1, textable.Column{Name: "system"},
		textable.Column{Name: "attempted", Align: textable.Right, MinWidth: 9}, textable.Column{Name: "correct", Align: textable.Right, MinWidth: 8},
		textable.Column{Name: "failed", Align: textable.Right, MinWidth: 6}, textable.Column{Name: "pending", Align: textable.Right, MinWidth: 7},
		textable.Column{Name: "EX", Align: textable.Right, MinWidth: 8}, textable.Column{Name: "gold does not run", Gap: 2})
	partial := false
	for _, s := range systems {
		t := s.tally()
		ex := "-"
		if t.Attempted > 0 {
			ex = fmt.Sprintf("%.2f%%", 100*t.EX())
		}
		pend := "-" // a verdict file has no pending items
		if s.run {
			pend = fmt.Sprint(s.pending)
		}
		if s.pending > 0 {
			ex += " (partial)"
			partial = true
		}
		excl := t.ExcludedText()
		if excl == "" {
			excl = "-"
		}
		tab.Row(s.name, fmt.Sprint(t.Attempted), fmt.Sprint(t.Correct), fmt.Sprint(t.Failed), pend, ex, excl)
	}
	tab.Write(w)
	if partial {
		fmt.Fprintln(w, "(partial): the trial has pending items; its EX is over the items finished so far.")
	}
	fmt.Fprintln(w)
}

// writeCompareTable prints rows as a plain text table of their
// comparisons: delta and CI in points (stats.Comparison.FormatDelta and
// FormatCI, two decimals), p-values as every table prints them
// (stats.FormatP), and the comparison's mark, `~` for a difference that is
// not significant after Holm adjustment. A comparison involving the sim
// backend is titled "simulated model". Notes and every comparison's
// warnings follow the table.
func writeCompareTable(w io.Writer, rows []compareRow, simulated bool, level float64, resamples int, seed uint64, ciMethod string) {
	if len(rows) == 0 {
		return
	}
	if simulated {
		fmt.Fprintln(w, "simulated model (sim backend): these numbers measure the harness, not a model")
	}
	baselines := map[string]bool{}
	for _, r := range rows {
		baselines[r.Baseline] = true
	}
	which := "baseline: " + rows[0].Baseline
	if len(baselines) > 1 {
		which = "baseline: the first system of each benchmark (column vs)"
	}
	fmt.Fprintf(w, "%s; EX and delta in %%; %.0f%% paired bootstrap CI (%s, B=%d, seed %d); McNemar p, Holm-adjusted over %d comparisons; ~ not significant at alpha=%.2g\n\n",
		which, 100*level, ciMethod, resamples, seed, len(rows), 1-level)
	if len(baselines) > 1 {
		for i := range rows {
			rows[i].System += "  vs " + rows[i].Baseline
		}
	}
	tab := textable.New(1, textable.Column{Name: "system"}, textable.Column{Name: "n", Align: textable.Right, MinWidth: 6},
		textable.Column{Name: "EX base", Align: textable.Right, MinWidth: 8}, textable.Column{Name: "EX sys", Align: textable.Right, MinWidth: 8},
		textable.Column{Name: "delta", Align: textable.Right, MinWidth: 8}, textable.Column{Name: "CI", MinWidth: 18, Gap: 2},
		textable.Column{Name: "b", Align: textable.Right, MinWidth: 5}, textable.Column{Name: "c", Align: textable.Right, MinWidth: 5},
		textable.Column{Name: "test", MinWidth: 7}, textable.Column{Name: "p", Align: textable.Right, MinWidth: 10},
		textable.Column{Name: "p(Holm)", Align: textable.Right, MinWidth: 10}, textable.Column{})
	for _, r := range rows {
		c := r.comparison
		tab.Row(r.System, fmt.Sprint(c.N), fmt.Sprintf("%.2f", 100*c.AccA), fmt.Sprintf("%.2f", 100*c.AccB), c.FormatDelta(2), c.FormatCI(2),
			fmt.Sprint(c.B), fmt.Sprint(c.C), c.Test, stats.FormatP(c.P), stats.FormatP(c.PAdj), c.Mark())
	}
	tab.Write(w)
	var notes strings.Builder
	for _, r := range rows {
		if r.BaselineOnly > 0 || r.SystemOnly > 0 {
			fmt.Fprintf(&notes, "\nnote: %s: dropped %d questions only in %s and %d only in %s (--intersect)", r.System, r.BaselineOnly, r.Baseline, r.SystemOnly, r.System)
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(&notes, "\nwarning: %s: %s", r.System, warn)
		}
	}
	fmt.Fprintln(w, notes.String())
}

// loadCompareInputs reads each input: a verdict file (one system, named
// after the file) or a run directory (its systems, via loadRunVerdicts).
// System names must be unique.
func loadCompareInputs(stderr io.Writer, inputs []string, o bench.ReadOptions) ([]compareSystem, error) {
	var systems []compareSystem
	seen := map[string]string{}
	add := func(s compareSystem) error {
		if prev, dup := seen[s.name]; dup {
			return fmt.Errorf("compare: system name %q comes from both %s and %s; rename a file", s.name, prev, s.source)
		}
		seen[s.name] = s.source
		systems = append(systems, s)
		return nil
	}
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		if st.IsDir() {
			rs, head, err := loadRunSystems(in, o)
			if err != nil {
				return nil, fmt.Errorf("compare: %s: %w", in, err)
			}
			writeStaleNote(stderr, head, o.AllTrials)
			for _, r := range rs {
				if err := add(compareSystem{name: r.Label, source: in, group: r.Benchmark, simulated: r.Simulated, correct: r.Correct,
					failed: r.Failed, excludedN: r.Tally.Excluded, run: true, pending: r.Pending, dbs: r.DBs}); err != nil {
					return nil, err
				}
			}
			continue
		}
		vs, err := readVerdictOutcomes(in)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
		if err := add(compareSystem{name: name, source: in, group: vs.benchmark, fromFile: true, correct: vs.correct, excluded: vs.excluded, dbs: vs.dbs}); err != nil {
			return nil, err
		}
	}
	return systems, nil
}

// verdictLine is the part of a verdict file line that compare needs.
type verdictLine struct {
	// Benchmark is the eval --benchmark name (files written before it
	// was recorded have none).
	Benchmark  string  `json:"benchmark"`
	QuestionID *string `json:"question_id"`
	DBID       string  `json:"db_id"`
	Correct    *bool   `json:"correct"`
	Status     string  `json:"status"`
}

// verdictOutcomes are a verdict file's outcomes: correct over the
// questions whose gold runs, the others by status, and the databases.
type verdictOutcomes struct {
	// benchmark is the one benchmark every line names ("" when none does).
	benchmark string
	correct   map[string]bool
	excluded  map[string]metrics.Status
	dbs       map[string]string
}

// readVerdictOutcomes reads a verdict file (JSON lines with at least
// "question_id" and "correct", and optionally "db_id" and "status") into
// its outcomes; a question whose status says its gold does not run
// (missing_db, gold_error, gold_timeout) is excluded from EX's
// denominator, as eval excludes it. Errors name file:line; a repeated
// question id is an error.
func readVerdictOutcomes(path string) (verdictOutcomes, error) {
	f, err := os.Open(path)
	if err != nil {
		return verdictOutcomes{}, fmt.Errorf("compare: %w", err)
	}
	defer f.Close()
	return decodeVerdicts(f, path)
}

func decodeVerdicts(r io.Reader, path string) (verdictOutcomes, error) {
	out := map[string]bool{}
	excluded := map[string]metrics.Status{}
	dbs := map[string]string{}
	firstLine := map[string]int{}
	bench := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var v verdictLine
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return verdictOutcomes{}, fmt.Errorf("%s:%d: not a verdict line (want {\"question_id\": \"...\", \"correct\": true|false, ...}, as eval --out writes): %w", path, line, err)
		}
		switch {
		case v.QuestionID == nil || *v.QuestionID == "":
			return verdictOutcomes{}, fmt.Errorf("%s:%d: missing \"question_id\"", path, line)
		case v.Correct == nil:
			return verdictOutcomes{}, fmt.Errorf("%s:%d: missing \"correct\"", path, line)
		}
		if len(firstLine) == 0 { // the first verdict
			bench = v.Benchmark
		} else if v.Benchmark != bench {
			return verdictOutcomes{}, fmt.Errorf("%s:%d: verdict of benchmark %q in a file of benchmark %q; a verdict file holds one benchmark (eval --out writes one)", path, line, v.Benchmark, bench)
		}
		if prev, dup := firstLine[*v.QuestionID]; dup {
			return verdictOutcomes{}, fmt.Errorf("%s:%d: question %q repeated (first on line %d)", path, line, *v.QuestionID, prev)
		}
		firstLine[*v.QuestionID] = line
		if st := metrics.Status(v.Status); !metrics.GoldRuns(st) {
			excluded[*v.QuestionID] = st
		} else {
			out[*v.QuestionID] = *v.Correct
		}
		if v.DBID != "" {
			dbs[*v.QuestionID] = v.DBID
		}
	}
	if err := sc.Err(); err != nil {
		return verdictOutcomes{}, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	if len(out) == 0 && len(excluded) == 0 {
		return verdictOutcomes{}, fmt.Errorf("%s: no verdicts", path)
	}
	return verdictOutcomes{benchmark: bench, correct: out, excluded: excluded, dbs: dbs}, nil
}
