package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
	"github.com/t2sbench/t2sbench/verdictfile"
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
	if err := compare.AssignGroups(systems, *baseline); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	defaults := paperDefaults()
	cfg := compare.Config{Intersect: *intersect, Level: *level, Resamples: *resamples, Seed: *seed, CIMethod: *ciMethod, Test: mcTest,
		Scores: metric.kind == metricScores, AtDefault: func(r stats.SystemRef) bool { return runstore.AtPaperDefault(r, defaults) }}
	if metric.kind != metricEX {
		cfg.Metric = metric.name
	}
	rows, err := compare.All(systems, *baseline, cfg)
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
		simulated = simulated || s.Simulated
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

// writeSystemsTable prints every system's EX over its attempted questions
// (those whose gold runs; failed ones counted wrong), as eval prints it,
// with its failed and pending counts and the questions left out. When a
// system has several seeds, a column gives their number, EX is the mean
// over seeds of each seed's EX with its standard deviation over seeds, and
// the counts are summed over seeds.
func writeSystemsTable(w io.Writer, systems []compare.System) {
	seeded := slices.ContainsFunc(systems, func(s compare.System) bool { return s.Seeds() > 1 })
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
		mean, sd, t := s.EX()
		ex := "-"
		if !math.IsNaN(mean) {
			ex = fmt.Sprintf("%.2f%%", 100*mean)
		}
		pend := "-" // a verdict file has no pending items
		if s.Run {
			pend = fmt.Sprint(s.Pending)
		}
		if s.Pending > 0 {
			ex += " (partial)"
			partial = true
		}
		excl := t.ExcludedText()
		if excl == "" {
			excl = "-"
		}
		row := []string{s.Name}
		if seeded {
			row = append(row, fmt.Sprint(s.Seeds()))
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
func writeCompareTable(w io.Writer, rows []compare.Row, simulated bool, level float64, resamples int, seed uint64, ciMethod string, metric compareMetric) {
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
		c := r.Comparison
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
// after the file) or a run directory (its systems, via loadRunSystems).
// System names must be unique.
func loadCompareInputs(stderr io.Writer, inputs []string, o runstore.ReadOptions) ([]compare.System, error) {
	var systems []compare.System
	seen := map[string]string{}
	add := func(s compare.System) error {
		if prev, dup := seen[s.Name]; dup {
			return fmt.Errorf("compare: system name %q comes from both %s and %s; rename a file", s.Name, prev, s.Source)
		}
		seen[s.Name] = s.Source
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
				s := compare.System{Name: sys.Label, Source: in, Benchmark: first.Benchmark, Key: spec.DatasetNameOf(first.Benchmark), Correct: stats.Replicates{},
					Failed: map[int64]map[string]bool{}, DBs: map[string]string{}, Run: true, Ref: sys.Ref(trials)}
				for k, i := range sys.Trials {
					r, seed := &rs[i], sys.Seeds[k]
					s.Correct[seed], s.Failed[seed] = r.Correct, r.Failed
					s.Inputs.AddCandidates(seed, r.Candidates)
					s.Tallies = append(s.Tallies, r.Tally)
					s.Simulated = s.Simulated || r.Simulated
					s.Pending += r.Pending
					maps.Copy(s.DBs, r.DBs)
				}
				if err := add(s); err != nil {
					return nil, err
				}
			}
			continue
		}
		vf, err := readVerdictFile(in)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
		if err := add(compare.FromVerdicts(vf, name, spec.DatasetNameOf(vf.Benchmark))); err != nil {
			return nil, err
		}
	}
	return systems, nil
}

// readVerdictFile reads the verdict file at path (verdictfile.Decode).
func readVerdictFile(path string) (*verdictfile.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	defer f.Close()
	return verdictfile.Decode(f, path)
}
