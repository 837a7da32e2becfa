package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/reports"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
	"github.com/t2sbench/t2sbench/viewer"
)

func init() {
	register(command{
		name:    "report",
		summary: "write paper-ready tables (terminal, Markdown, LaTeX, CSV) and plots (PNG, SVG, PDF) of run directories",
		run:     runReport,
	})
}

// priceFlags collects repeated --price MODEL=PROMPT:COMPLETION flags.
type priceFlags map[string]metrics.Price

func (p priceFlags) String() string { return "" }

func (p priceFlags) Set(s string) error {
	name, rest, ok := strings.Cut(s, "=")
	in, out, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || name == "" {
		return fmt.Errorf("want MODEL=PROMPT:COMPLETION (USD per 1M tokens), got %q", s)
	}
	pi, err1 := strconv.ParseFloat(in, 64)
	po, err2 := strconv.ParseFloat(out, 64)
	if err1 != nil || err2 != nil || pi < 0 || po < 0 {
		return fmt.Errorf("want non-negative prices in MODEL=PROMPT:COMPLETION, got %q", s)
	}
	p[name] = metrics.Price{PromptPerM: pi, CompletionPerM: po}
	return nil
}

func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("report", "RUN_DIR... [flags]", stderr)
	out := fs.String("out", "", "output directory (default: RUN_DIR/report of the first run)")
	format := fs.String("format", strings.Join(reports.Formats, ","), "comma-separated output formats: md, tex, csv (tables), png (300 dpi), svg, pdf (plots, with plots/captions.md and captions.tex); report.md is always written")
	baseline := fs.String("baseline", "", "label of the system pairwise tests compare against, or of the point of a sweep or grid its points are tested against (default: each benchmark's first system; a sweep's or grid's point at the runner's paper default)")
	seed := fs.Uint64("seed", stats.DefaultSeed, "seed of every bootstrap resampling; each pair draws from PCG(seed, FNV-1a(baseline name NUL system name)), as compare does")
	resamples := fs.Int("B", stats.DefaultResamples, "bootstrap resamples")
	level := fs.Float64("level", stats.DefaultLevel, "confidence level; significance is judged at alpha = 1 - level")
	quiet := fs.Bool("quiet", false, "do not print the tables to the terminal")
	noView := fs.Bool("no-view", false, "do not write the static HTML viewer into OUT/view")
	all := fs.Bool("all-trials", false, allTrialsUsage+"; the HTML viewer shows the spec's trials only")
	prices := priceFlags{}
	fs.Var(prices, "price", "model price as MODEL=PROMPT:COMPLETION in USD per 1M tokens (repeatable)")
	second := addSecondGoldFlags(fs, stderr)

	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: report needs at least one run directory", errUsage)
	}
	formats, err := reports.ParseFormats(*format)
	if err != nil {
		return fmt.Errorf("%w: --format: %v", errUsage, err)
	}
	if *seed == 0 {
		return fmt.Errorf("%w: --seed must not be 0", errUsage)
	}
	if err := second.check("report"); err != nil {
		return err
	}
	var runs []*runstore.RunData
	for _, d := range dirs {
		// The report streams each trial's items from the store (one trial
		// at a time), so that it holds the items of one trial, keeping
		// per item only its wall time and its outcome.
		r, err := runstore.ReadRunStream(d, runstore.ReadOptions{AllTrials: *all})
		if err != nil {
			return err
		}
		defer r.Close()
		writeStaleNote(stderr, r, *all)
		runs = append(runs, r)
	}
	if *out == "" {
		*out = filepath.Join(dirs[0], "report")
	}
	// The specs' price tables are the defaults; --price overrides them.
	merged := map[string]metrics.Price{}
	for _, r := range runs {
		ps, err := r.Prices()
		if err != nil {
			return err
		}
		for m, p := range ps {
			merged[m] = p
		}
	}
	for m, p := range prices {
		merged[m] = p
	}
	ropt := reports.Options{Baseline: *baseline, Seed: *seed, Resamples: *resamples, Level: *level,
		Prices: merged, Labels: benchmarkLabels(dirs[0]), PaperDefaults: paperDefaults(), Commit: binaryCommit()}
	rep, err := reports.Build(runs, ropt)
	if err != nil {
		return err
	}
	if second.set() {
		t, err := reportTwoGold(context.Background(), runs, second)
		if err != nil {
			return err
		}
		rep.Tables = append(rep.Tables, reports.TwoGoldTable(t, runs))
	}
	if !*quiet {
		if err := rep.WriteTerminal(stdout); err != nil {
			return err
		}
	}
	files, err := rep.WriteFiles(*out, formats)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %d tables, %d plots, %d files in %s (index: %s)\n", len(rep.Tables), len(rep.Figures), len(files),
		*out, filepath.Join(*out, reports.ReportFile))
	if !*noView {
		return writeReportView(stderr, dirs, filepath.Join(*out, "view"), merged, ropt)
	}
	return nil
}

// paperDefaults are the default values of the parameters that sweeps and
// grids vary, by runner, as each runner's factory reads the parameters it
// registers as varied (runners.Info.Varied, runners.PaperDefaults).
func paperDefaults() map[string]map[string]float64 { return runners.PaperDefaults() }

// binaryCommit is the commit `run` records and `report` prints
// (codeCommit); tests replace it.
var binaryCommit = codeCommit

// metaCommit is the run-store key of the run's commit (run.go writes it
// without importing reports).
const metaCommit = reports.MetaCommit

// writeReportView writes the static viewer of the runs into dir; its
// comparisons use the report's baseline, seed, resamples and level (opt).
func writeReportView(stderr io.Writer, dirs []string, dir string, prices map[string]metrics.Price, opt reports.Options) error {
	ctx := context.Background()
	v, err := viewer.Open(ctx, dirs, viewer.Options{Benchmark: viewerBenchmarks(dirs[0]), Prices: prices,
		Baseline: opt.Baseline, Seed: opt.Seed, Resamples: opt.Resamples, Level: opt.Level, PaperDefaults: opt.PaperDefaults})
	if err != nil {
		return err
	}
	defer v.Close()
	if err := v.WriteStatic(ctx, dir); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: viewer of %d questions in %s (open %s; --no-view skips it)\n", v.Questions(), dir, filepath.Join(dir, viewer.IndexFile))
	return nil
}

// benchmarkLabels loads a benchmark's questions (as `run` does, building
// the mini databases under the run's cache) for difficulty and reasoning
// types.
func benchmarkLabels(runDir string) reports.LabelSource {
	return func(b spec.BenchmarkSpec) (map[string]reports.QuestionLabels, error) {
		name := b.DatasetName()
		bm, err := datasets.Open(name, b.Data, datasets.LoadOptions{Limit: b.Limit,
			CacheDir: filepath.Join(runDir, "cache", "datasets", b.Name)})
		if err != nil {
			return nil, err
		}
		if bm.Engine != nil {
			defer bm.Engine.Close()
		}
		out := make(map[string]reports.QuestionLabels, len(bm.Examples))
		for _, e := range bm.Examples {
			out[e.ID] = reports.QuestionLabels{Difficulty: e.Difficulty, ReasoningTypes: e.ReasoningTypes}
		}
		return out, nil
	}
}
