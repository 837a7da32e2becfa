package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare systems' EX: paired tests, bootstrap CIs and Holm p, a system's seeds pooled",
		run:     runCompare,
	})
}

// loadRunSystems loads the per-question outcomes of the trials of a run
// directory (runstore.LoadRunSystemsWith); a variable so tests can stub the
// run store.
var loadRunSystems = runstore.LoadRunSystemsWith

// compareSystem is one system's outcomes and where they came from: a
// verdict file, or the trials of a run that differ only in their seed (its
// seeds are replicates).
type compareSystem struct {
	name   string
	source string
	// group is the benchmark of a run's trial; systems are compared only
	// with a baseline of the same group. Verdict files have group "".
	group     string
	fromFile  bool
	simulated bool
	// correct holds, by seed, the questions in EX's one denominator
	// (metrics.GoldRuns: the gold runs), failed ones false. A verdict
	// file has one seed, 0.
	correct stats.Replicates
	// failed holds, by seed, the questions whose runner failed (run
	// directories).
	failed map[int64]map[string]bool
	// excluded maps the questions whose gold does not run to their status;
	// they are in no denominator, and a question excluded in one system is
	// dropped from the other's side of a pair.
	excluded map[string]metrics.Status
	// tallies count each seed's questions on EX's one denominator (run
	// directories record only the counts of excluded questions).
	tallies []metrics.Tally
	// run is true for a system of a run directory; pending counts its
	// unfinished items over its seeds (its EX is then partial).
	run     bool
	pending int
	// dbs maps question id to db_id where the input records it; a paired
	// question on different databases means two different benchmarks.
	dbs map[string]string
	// trial is the configuration of a run system's first trial (its
	// runner, parameters and sweep); nil for a verdict file.
	trial *spec.Trial
	// extra holds what --metric reads beside EX (comparemetric.go).
	extra metricInputs
}

// seeds is the number of the system's seeds.
func (s compareSystem) seeds() int { return len(s.correct) }

// ex is the system's EX, the mean over seeds of each seed's EX (over its
// attempted questions), with the standard deviation over seeds (NaN for
// one seed; stats.MeanSD, as the report's) and the counts summed over
// seeds.
func (s compareSystem) ex() (mean, sd float64, sum metrics.Tally) {
	sum.Excluded = map[metrics.Status]int{}
	var exs []float64
	for _, t := range s.tallies {
		sum.Merge(t)
		if t.Attempted > 0 {
			exs = append(exs, t.EX())
		}
	}
	mean, sd = stats.MeanSD(exs)
	return mean, sd, sum
}

// compareRow is one system compared with the baseline; it is also the
// --json output.
type compareRow struct {
	Baseline string `json:"baseline"`
	System   string `json:"system"`
	// Metric is the --metric compared when it is not EX; AccBaseline and
	// AccSystem are then its means.
	Metric      string  `json:"metric,omitempty"`
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
	// Seeds is the number of seeds pooled (1 for a verdict file or a
	// one-seed run); B and C count discordant (seed, question) pairs.
	Seeds       int     `json:"seeds"`
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
	baseline := fs.String("baseline", "", "baseline system name or path (default: the first system of each benchmark; a sweep's points are compared with the runner's paper default point)")
	asJSON := fs.Bool("json", false, "write the comparisons as JSON")
	intersect := fs.Bool("intersect", false, "compare on the questions both systems have under every seed, dropping the others (default: error)")
	level := fs.Float64("level", stats.DefaultLevel, "confidence level of the bootstrap intervals; significance is judged at alpha = 1 - level")
	resamples := fs.Int("B", stats.DefaultResamples, "bootstrap resamples")
	seed := fs.Uint64("seed", stats.DefaultSeed, "bootstrap seed; each pair draws from PCG(seed, FNV-1a(baseline name NUL system name))")
	ciMethod := fs.String("ci", stats.BootstrapPercentile, "bootstrap interval: percentile or bca")
	test := fs.String("test", "auto", "test: auto (one seed: McNemar, exact when b+c < 25, else chi2-cc; several seeds: the exact sign-flip test), exact (several seeds: sign-flip), chi2-cc (one seed only) or chi2 (several seeds: the clustered chi-square)")
	all := fs.Bool("all-trials", false, allTrialsUsage)
	metricFlag := fs.String("metric", "ex", compareMetricUsage)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, compareHelp)
	}

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

	metric, err := parseCompareMetric(*metricFlag)
	if err != nil {
		return err
	}
	systems, err := loadCompareInputs(stderr, inputs, runstore.ReadOptions{AllTrials: *all})
	if err != nil {
		return err
	}
	systems, dropped, err := metric.apply(systems)
	if err != nil {
		return err
	}
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "note: compare --metric %s: %s stored no candidates and %s left out\n", metric.name, strings.Join(dropped, ", "), map[bool]string{true: "is", false: "are"}[len(dropped) == 1])
	}
	if len(systems) < 2 {
		return fmt.Errorf("%w: compare needs at least two systems, got %d (%s)", errUsage, len(systems), strings.Join(inputs, ", "))
	}
	if err := assignGroups(systems, *baseline); err != nil {
		return err
	}
	rows, err := compareAll(systems, *baseline, compareConfig{
		intersect: *intersect, level: *level, resamples: *resamples, seed: *seed, ciMethod: *ciMethod, test: mcTest, metric: metric,
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
	if metric.kind == metricEX {
		writeSystemsTable(stdout, systems)
	} else {
		writeMetricSystemsTable(stdout, systems, metric)
	}
	writeCompareTable(stdout, rows, simulated, *level, *resamples, *seed, *ciMethod, metric)
	return nil
}

// compareHelp ends `help compare`: what each number is and which test
// gives each p (docs/METHODS.md, "Comparing systems", says more).
const compareHelp = `
A run directory's trials that differ only in their seed are one system: its
seeds are replicates. EX is then the mean over seeds; a comparison pools
every (seed, question) pair of two systems run under the same seeds (a
baseline with other seeds is refused).

Each system is compared with its baseline: the first system of its benchmark
(or --baseline); the points of a sweep or simplex grid are compared with the
runner's paper default point. For each pair:
  delta  EX of the system minus EX of the baseline, over the paired questions
  CI     paired bootstrap interval of delta: questions are resampled with
         replacement, every seed of a question kept with it; seeded by
         PCG(--seed, FNV-1a-64(baseline name + NUL + system name)), so a pair
         gets the same interval in compare, the run summary, the report and
         the viewer, whatever other systems are compared
  b, c   (seed, question) pairs only the baseline, only the system got right
  test   the test that gave p: with one seed McNemar's, exact (binomial) when
         b+c < 25, else chi-square with continuity correction (chi2-cc);
         with several seeds the exact sign-flip test over questions
         (sign-flip), which is McNemar's exact test for one seed
  p(Holm) p adjusted by Holm over the comparisons with the same baseline
         (a benchmark's systems; a sweep's points); ~ marks a difference
         that is not significant after adjustment

--metric compares another per-question measure through the same pairing,
intervals and Holm adjustment: soft-f1 and r-ves (verdict files of eval
--metrics soft-f1,r-ves --out; a question's Soft F1, or sqrt of its R-VES
reward) by the paired bootstrap of the mean difference and the sign-flip
randomization test, its p estimated from B random sign assignments
(sign-flip-mc; b and c then count the questions each system scores
higher); pass@K and majority@K (the candidates a run stored: one of the
first K correct, or the answer they vote correct) as 0/1 outcomes, by
McNemar's test as EX.
`

// testNote says which test gives each p, in compare's header.
const testNote = "McNemar with one seed (exact below 25 discordant questions, else chi-square with continuity correction), the exact sign-flip test over questions with several seeds"

// scoreTestNote says which test gives each p of a score metric (Soft F1,
// R-VES), in compare's header; b and c then count the questions each
// system scores higher.
const scoreTestNote = "the sign-flip randomization test over questions, p estimated from B random sign assignments (sign-flip-mc); b, c: questions where the baseline, the system scores higher"

// compareConfig carries the statistical settings of a comparison.
type compareConfig struct {
	intersect bool
	level     float64
	resamples int
	seed      uint64
	ciMethod  string
	test      string
	metric    compareMetric
}

// assignGroups checks the systems' benchmark groups and the baseline:
// verdict files join the group of the run trials when those are all on
// one benchmark; a verdict file alone on its benchmark is an error, as is
// a baseline (a name or a path) that names no system.
func assignGroups(systems []compareSystem, baseline string) error {
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
	count := map[string]int{}
	for _, s := range systems {
		count[benchmarkKey(s.group)]++
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
			return fmt.Errorf("%w: compare: %s scores benchmark %s and no other input does (%s); systems are compared only on the same benchmark: compare verdict files of one benchmark (eval --benchmark)",
				errUsage, s.source, benchmarkOrUnknown(s.group), strings.Join(others, "; "))
		}
	}
	if baseline != "" && !slices.ContainsFunc(systems, func(s compareSystem) bool { return s.name == baseline || s.source == baseline }) {
		names := make([]string, len(systems))
		for i, s := range systems {
			names[i] = s.name
		}
		return fmt.Errorf("%w: --baseline %q is none of the systems %s", errUsage, baseline, strings.Join(names, ", "))
	}
	return nil
}

// benchmarkKey is the name a benchmark group is matched by: run
// directories name it bird/minidev (BenchmarkSpec.Key), verdict files by
// eval's --benchmark, bird-minidev.
func benchmarkKey(group string) string { return spec.DatasetNameOf(group) }

func benchmarkOrUnknown(group string) string {
	if group == "" {
		return "(not recorded: a verdict file written before eval recorded it)"
	}
	return group
}

// compareAll compares the systems family by family: runstore.PlanFamilies
// decides each system's baseline and family (the first system of each
// benchmark or the one --baseline names; a sweep's points against the
// runner's paper default point), and stats.CompareFamily compares each
// member with its baseline (test, paired bootstrap interval seeded by
// cfg.seed and the two names, Holm within the family). Rows are in family
// order.
func compareAll(systems []compareSystem, baseline string, cfg compareConfig) ([]compareRow, error) {
	refs := make([]runstore.SystemRef, len(systems))
	arms := make([]stats.Arm, len(systems))
	for i, s := range systems {
		refs[i] = runstore.SystemRef{Names: []string{s.name, s.source}, Benchmark: benchmarkKey(s.group)}
		if s.trial != nil {
			refs[i].Runner, refs[i].Params = s.trial.Runner, s.trial.Params
			if k, swept := runstore.SweepOf(s.trial); k != "" {
				refs[i].Sweep, refs[i].Swept = s.source+"\x00"+k, swept
			}
		}
		arms[i] = stats.Arm{Key: s.name, Outcomes: s.correct}
		if len(s.excluded) > 0 {
			arms[i].Excluded = map[string]bool{}
			for id := range s.excluded {
				arms[i].Excluded[id] = true
			}
		}
	}
	fams := runstore.PlanFamilies(refs, baseline, paperDefaults())
	// The databases of the questions two systems share must agree.
	for _, f := range fams {
		if f.Base < 0 {
			continue
		}
		b := systems[f.Base]
		for _, i := range f.Members {
			s := systems[i]
			for _, id := range slices.Sorted(maps.Keys(s.dbs)) {
				if da, db := b.dbs[id], s.dbs[id]; da != "" && db != "" && da != db {
					return nil, fmt.Errorf("compare %s (%s) with %s (%s): question %q is on database %q in one and %q in the other; they score different benchmarks",
						b.name, b.source, s.name, s.source, id, da, db)
				}
			}
		}
	}
	fopt := stats.FamilyOptions{Test: cfg.test, Level: cfg.level, Resamples: cfg.resamples,
		CIMethod: cfg.ciMethod, Seed: cfg.seed, Intersect: cfg.intersect}
	var cmp map[int]*runstore.SystemComparison
	var err error
	if cfg.metric.kind == metricScores {
		scoreArms := make([]stats.ScoreArm, len(systems))
		for i, s := range systems {
			scoreArms[i] = stats.ScoreArm{Key: s.name, Scores: s.extra.scores}
		}
		cmp, err = runstore.CompareScoreFamilies(fams, scoreArms, fopt)
	} else {
		cmp, err = runstore.CompareFamilies(fams, arms, fopt)
	}
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var rows []compareRow
	for _, f := range fams {
		if f.Base < 0 {
			continue
		}
		b := systems[f.Base]
		for _, i := range f.Members {
			s, sc := systems[i], cmp[i]
			if sc.Err != nil {
				return nil, fmt.Errorf("compare %s (%s) with %s (%s): %w", b.name, b.source, s.name, s.source, sc.Err)
			}
			c, p := sc.Comparison, sc.Paired
			row := compareRow{
				Baseline: b.name, System: s.name, Benchmark: s.group, N: c.N, Seeds: c.Seeds,
				AccBaseline: c.AccA, AccSystem: c.AccB, Delta: c.Delta,
				CILo: c.CI.Lo, CIHi: c.CI.Hi, Level: c.CI.Level, CIMethod: c.CIMethod, Resamples: c.Resamples,
				B: c.B, C: c.C, Test: c.Test, P: c.P, PHolm: c.PAdj, Significant: c.Significant(), Warnings: c.Warnings,
				BaselineOnly: len(p.OnlyA), SystemOnly: len(p.OnlyB),
				PartialBaseline: b.pending > 0, PartialSystem: s.pending > 0,
				comparison: c,
			}
			if cfg.metric.kind != metricEX {
				row.Metric = cfg.metric.name
			}
			for _, seed := range p.Seeds {
				for _, id := range p.IDs {
					if b.failed[seed][id] {
						row.FailedBaseline++
					}
					if s.failed[seed][id] {
						row.FailedSystem++
					}
				}
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("compare: no two systems are on the same benchmark; nothing to compare")
	}
	return rows, nil
}

// writeSystemsTable prints every system's EX over its attempted questions
// (those whose gold runs; failed ones counted wrong), as eval prints it,
// with its failed and pending counts and the questions left out. When a
// system has several seeds, a column gives their number, EX is the mean
// over seeds of each seed's EX with its standard deviation over seeds, and
// the counts are summed over seeds.
func writeSystemsTable(w io.Writer, systems []compareSystem) {
	seeded := slices.ContainsFunc(systems, func(s compareSystem) bool { return s.seeds() > 1 })
	fmt.Fprintf(w, "EX = correct / attempted (questions whose gold runs; failed items counted wrong)\n")
	if seeded {
		fmt.Fprintf(w, "EX: mean over seeds of each seed's EX; sd: standard deviation over seeds; counts summed over seeds\n")
	}
	fmt.Fprintln(w)
	cols := []textable.Column{{Name: "system"}}
	if seeded {
		cols = append(cols, textable.Column{Name: "seeds", Align: textable.Right, MinWidth: 5})
	}
	cols = append(cols, textable.Column{Name: "attempted", Align: textable.Right, MinWidth: 9}, textable.Column{Name: "correct", Align: textable.Right, MinWidth: 8},
		textable.Column{Name: "failed", Align: textable.Right, MinWidth: 6}, textable.Column{Name: "pending", Align: textable.Right, MinWidth: 7},
		textable.Column{Name: "EX", Align: textable.Right, MinWidth: 8})
	if seeded {
		cols = append(cols, textable.Column{Name: "sd", Align: textable.Right, MinWidth: 6})
	}
	cols = append(cols, textable.Column{Name: "gold does not run", Gap: 2})
	tab := textable.New(1, cols...)
	partial := false
	for _, s := range systems {
		mean, sd, t := s.ex()
		ex := "-"
		if !math.IsNaN(mean) {
			ex = fmt.Sprintf("%.2f%%", 100*mean)
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
		row := []string{s.name}
		if seeded {
			row = append(row, fmt.Sprint(s.seeds()))
		}
		row = append(row, fmt.Sprint(t.Attempted), fmt.Sprint(t.Correct), fmt.Sprint(t.Failed), pend, ex)
		if seeded {
			sds := "-"
			if !math.IsNaN(sd) {
				sds = fmt.Sprintf("%.2f", 100*sd)
			}
			row = append(row, sds)
		}
		tab.Row(append(row, excl)...)
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
func writeCompareTable(w io.Writer, rows []compareRow, simulated bool, level float64, resamples int, seed uint64, ciMethod string, metric compareMetric) {
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
		which = "baseline: column vs (the first system of each benchmark, or --baseline; a sweep's points: the runner's paper default point)"
	}
	families := map[string]bool{}
	seeded := false
	for _, r := range rows {
		families[r.Benchmark+"\x00"+r.Baseline] = true
		seeded = seeded || r.Seeds > 1
	}
	holm := fmt.Sprintf("p Holm-adjusted over %d comparisons", len(rows))
	if len(families) > 1 {
		holm = "p Holm-adjusted within each baseline's comparisons"
	}
	note := testNote
	if metric.kind == metricScores {
		note = scoreTestNote
	}
	fmt.Fprintf(w, "%s; %s and delta in %%; %.0f%% paired bootstrap CI (%s, B=%d, seed %d; questions resampled, a question's seeds kept together); test: %s; %s; ~ not significant at alpha=%.2g\n\n",
		which, metric.label, 100*level, ciMethod, resamples, seed, note, holm, 1-level)
	if len(baselines) > 1 {
		for i := range rows {
			rows[i].System += "  vs " + rows[i].Baseline
		}
	}
	cols := []textable.Column{{Name: "system"}, {Name: "n", Align: textable.Right, MinWidth: 6}}
	if seeded {
		cols = append(cols, textable.Column{Name: "seeds", Align: textable.Right, MinWidth: 5})
	}
	cols = append(cols, textable.Column{Name: metric.label + " base", Align: textable.Right, MinWidth: 8}, textable.Column{Name: metric.label + " sys", Align: textable.Right, MinWidth: 8},
		textable.Column{Name: "delta", Align: textable.Right, MinWidth: 8}, textable.Column{Name: "CI", MinWidth: 18, Gap: 2},
		textable.Column{Name: "b", Align: textable.Right, MinWidth: 5}, textable.Column{Name: "c", Align: textable.Right, MinWidth: 5},
		textable.Column{Name: "test", MinWidth: 7}, textable.Column{Name: "p", Align: textable.Right, MinWidth: 10},
		textable.Column{Name: "p(Holm)", Align: textable.Right, MinWidth: 10}, textable.Column{})
	tab := textable.New(1, cols...)
	for _, r := range rows {
		c := r.comparison
		row := []string{r.System, fmt.Sprint(c.N)}
		if seeded {
			row = append(row, fmt.Sprint(c.Seeds))
		}
		tab.Row(append(row, fmt.Sprintf("%.2f", 100*c.AccA), fmt.Sprintf("%.2f", 100*c.AccB), c.FormatDelta(2), c.FormatCI(2),
			fmt.Sprint(c.B), fmt.Sprint(c.C), c.Test, stats.FormatP(c.P), stats.FormatP(c.PAdj), c.Mark())...)
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
func loadCompareInputs(stderr io.Writer, inputs []string, o runstore.ReadOptions) ([]compareSystem, error) {
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
			return nil, asUsage(fmt.Errorf("compare: %w (want a verdict file or a run directory)", err))
		}
		if st.IsDir() {
			rs, head, err := loadRunSystems(in, o)
			if err != nil {
				return nil, fmt.Errorf("compare: %s: %w", in, err)
			}
			writeStaleNote(stderr, head, o.AllTrials)
			trials := make([]runstore.RunTrial, len(rs))
			for i := range rs {
				trials[i].Trial = rs[i].Trial
				if trials[i].Label == "" {
					trials[i].Label = rs[i].Label
				}
			}
			for _, sys := range runstore.Systems(trials) {
				first := &rs[sys.Trials[0]]
				s := compareSystem{name: sys.Label, source: in, group: first.Benchmark, correct: stats.Replicates{},
					failed: map[int64]map[string]bool{}, dbs: map[string]string{}, run: true, trial: &trials[sys.Trials[0]].Trial}
				for k, i := range sys.Trials {
					r, seed := &rs[i], sys.Seeds[k]
					s.correct[seed], s.failed[seed] = r.Correct, r.Failed
					s.extra.addCandidates(seed, r.Candidates)
					s.tallies = append(s.tallies, r.Tally)
					s.simulated = s.simulated || r.Simulated
					s.pending += r.Pending
					maps.Copy(s.dbs, r.DBs)
				}
				if err := add(s); err != nil {
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
		t := metrics.Tally{Attempted: len(vs.correct), Excluded: map[metrics.Status]int{}}
		for _, ok := range vs.correct {
			if ok {
				t.Correct++
			}
		}
		for _, st := range vs.excluded {
			t.Excluded[st]++
		}
		if err := add(compareSystem{name: name, source: in, group: vs.benchmark, fromFile: true, correct: stats.Single(vs.correct),
			tallies: []metrics.Tally{t}, excluded: vs.excluded, dbs: vs.dbs, extra: vs.extra}); err != nil {
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
	metricLine
}

// verdictOutcomes are a verdict file's outcomes: correct over the
// questions whose gold runs, the others by status, and the databases.
type verdictOutcomes struct {
	// benchmark is the one benchmark every line names ("" when none does).
	benchmark string
	correct   map[string]bool
	excluded  map[string]metrics.Status
	dbs       map[string]string
	extra     metricInputs
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
	var extra metricInputs
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
			extra.addLine(*v.QuestionID, v.metricLine)
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
	return verdictOutcomes{benchmark: bench, correct: out, excluded: excluded, dbs: dbs, extra: extra}, nil
}
