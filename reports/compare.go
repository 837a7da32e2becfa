package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/stats"
)

// comparisons are the report's comparisons of systems with their
// baselines, planned and computed once (planComparisons) and formatted by
// every table and figure that shows one.
type comparisons struct {
	// systems are the corpus's systems with attempted items, the indexes
	// of families.
	systems []*system
	// families are runstore.PlanFamilies of systems.
	families []runstore.Family
	// of maps a system to its comparison with its family's baseline.
	of map[*system]*runstore.SystemComparison
}

// familyOptions are the stats.FamilyOptions of every comparison of the
// report: its seed, resamples and level, the questions both systems have
// under every seed.
func familyOptions(opt Options) stats.FamilyOptions {
	return stats.FamilyOptions{Level: opt.Level, Resamples: opt.Resamples, Seed: opt.Seed, Intersect: true}
}

// planComparisons decides each system's baseline and family
// (runstore.PlanFamilies: the benchmark's first system or Options.Baseline;
// the points of a sweep or grid against the runner's paper default point,
// Options.PaperDefaults) and compares them (stats.CompareFamilies, the
// systems named by their report names).
func planComparisons(c *corpus, opt Options) (*comparisons, error) {
	cs := &comparisons{}
	var refs []runstore.SystemRef
	var arms []stats.Arm
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		ref := runstore.SystemRef{Names: []string{s.name, s.row}, Benchmark: s.bench, Runner: s.trial.Runner, Params: s.trial.Params}
		if k, swept := runstore.SweepOf(&s.trial.Trial); k != "" {
			// Sweeps of different runs are different sweeps.
			ref.Sweep, ref.Swept = s.entry+"\x00"+k, swept
		}
		cs.systems = append(cs.systems, s)
		refs = append(refs, ref)
		arms = append(arms, stats.Arm{Key: s.name, Outcomes: s.outcomes})
	}
	cs.families = runstore.PlanFamilies(refs, opt.Baseline, opt.PaperDefaults)
	byIndex, err := stats.CompareFamilies(cs.families, arms, familyOptions(opt))
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	cs.of = map[*system]*runstore.SystemComparison{}
	for i, sc := range byIndex {
		cs.of[cs.systems[i]] = sc
	}
	return cs, nil
}

// compared returns s's comparison with base for table id, or nil after it
// adds a warning to c saying why there is none (bench's error, or no
// comparison planned).
func (cs *comparisons) compared(c *corpus, id string, s, base *system) *stats.Comparison {
	sc := cs.of[s]
	if sc != nil && sc.Err == nil {
		return sc.Comparison
	}
	err := fmt.Errorf("not compared")
	if sc != nil {
		err = sc.Err
	}
	c.warnings = append(c.warnings, fmt.Sprintf("%s: %s vs %s: %v", id, s.name, base.name, err))
	return nil
}

// sweepFamily returns the family of a sweep or grid whose points include
// s, nil when s is no such point.
func (cs *comparisons) sweepFamily(s *system) *runstore.Family {
	i := slices.Index(cs.systems, s)
	if i < 0 {
		return nil
	}
	for fi := range cs.families {
		f := &cs.families[fi]
		if f.Swept != nil && (f.Base == i || slices.Contains(f.Members, i)) {
			return f
		}
	}
	return nil
}

// familySystems returns the systems of family f, its baseline first.
func (cs *comparisons) familySystems(f *runstore.Family) []*system {
	out := []*system{cs.systems[f.Base]}
	for _, i := range f.Members {
		out = append(out, cs.systems[i])
	}
	return out
}

// seeded reports whether any system of ss has several seeds.
func seeded(ss []*system) bool {
	return slices.ContainsFunc(ss, func(s *system) bool { return s.multiSeed() })
}

// testName names the test of a family's comparisons for a caption or a
// note: McNemar when every system has one seed, else the sign-flip test.
func testName(multi bool) string {
	if multi {
		return "sign-flip test over questions"
	}
	return "McNemar"
}

// sigNote is the note under a table of comparisons: what ~ means, which
// test gave p, and how the intervals were drawn.
func sigNote(opt Options, multi bool) string {
	if !multi {
		return fmt.Sprintf("~ : not significant at alpha = %g after Holm adjustment (McNemar; exact test below %d discordant questions). CIs: paired bootstrap, %d resamples, seed %d.",
			roundTo(1-opt.Level, 6), stats.ExactBelow, opt.Resamples, opt.Seed)
	}
	return fmt.Sprintf("~ : not significant at alpha = %g after Holm adjustment. Seeds are replicates: b and c count discordant (seed, question) pairs; p is the exact sign-flip test over questions (test %s; McNemar's for a system with one seed). CIs: paired bootstrap resampling questions with all their seeds, %d resamples, seed %d.",
		roundTo(1-opt.Level, 6), stats.TestSignFlip, opt.Resamples, opt.Seed)
}

// comparisonCells are the cells of one comparison in the column order of
// the pairwise and sweep tables: n, [seeds,] EX base, EX, then testCells.
func comparisonCells(c *stats.Comparison, withSeeds bool) []Cell {
	cells := []Cell{integer(c.N)}
	if withSeeds {
		cells = append(cells, integer(max(1, c.Seeds)))
	}
	return append(append(cells, pct(c.AccA), pct(c.AccB)), testCells(c)...)
}

// comparisonColumns are the columns of comparisonCells.
func comparisonColumns(opt Options, withSeeds bool) []Column {
	cols := []Column{{Name: "n", Numeric: true}}
	if withSeeds {
		cols = append(cols, Column{Name: "seeds", Numeric: true})
	}
	cols = append(cols, Column{Name: "EX base", Numeric: true}, Column{Name: "EX", Numeric: true, Better: Higher})
	return append(cols, testColumns(opt)...)
}

// testCells are the cells of a comparison from its difference on, as
// every table and figure data shows them: Δ (deltaCell, marked when not
// significant), CI, b, c, test, p and p (Holm).
func testCells(c *stats.Comparison) []Cell {
	return []Cell{deltaCell(c), ciCell(c), integer(c.B), integer(c.C), text(c.Test), pCell(c.P), pCell(c.PAdj)}
}

// untested are testCells' places for a system without a comparison: "-".
func untested() []Cell {
	return []Cell{text("-"), text("-"), text("-"), text("-"), text("-"), text("-"), text("-")}
}

// testColumns are the columns of testCells.
func testColumns(opt Options) []Column {
	return []Column{{Name: "Δ", Numeric: true}, {Name: levelPct(opt.Level) + " CI", Numeric: true}, {Name: "b", Numeric: true},
		{Name: "c", Numeric: true}, {Name: "test"}, {Name: "p", Numeric: true}, {Name: "p (Holm)", Numeric: true}}
}

// pointName is a sweep or grid point's settings, "n_rollout=8" or
// "alpha=0.4,beta=0.2,gamma=0.4".
func pointName(s *system) string {
	var kv []string
	id := s.trial.Identity
	if id == nil {
		return s.row
	}
	for _, st := range id.Sweep {
		kv = append(kv, st.String())
	}
	for _, st := range id.Point {
		kv = append(kv, st.String())
	}
	return strings.Join(kv, ",")
}

// sweepTables builds one table per sweep or grid with a baseline point:
// every point against it (the family Holm adjusts over), with the points'
// EX.
func sweepTables(c *corpus, cs *comparisons, opt Options) []*Table {
	var out []*Table
	for _, f := range cs.families {
		if f.Swept == nil || f.Base < 0 {
			continue
		}
		points := cs.familySystems(&f)
		base := points[0]
		multi := seeded(points)
		id := []string{"sweep"}
		id = append(id, f.Swept...)
		id = append(id, base.head, base.variant)
		if strings.Contains(base.backbone, "=") {
			id = append(id, base.backbone)
		}
		t := &Table{ID: slugID(append(id, f.Benchmark)...)}
		series := base.head
		if base.variant != "" {
			series += " " + base.variant
		}
		if strings.Contains(base.backbone, "=") {
			series += ", " + base.backbone
		}
		t.Caption = c.caption(fmt.Sprintf("Sweep of %s of %s on %s: each point against %s (%s), EX (%%), difference (points) with %s paired bootstrap CI, b, c and %s p, Holm over the sweep",
			strings.Join(f.Swept, ", "), series, f.Benchmark, pointName(base), f.Why, levelPct(opt.Level), testName(multi)))
		t.Columns = append([]Column{{Name: "Point"}}, comparisonColumns(opt, multi)...)
		baseRow := []Cell{text(pointName(base) + " (baseline)"), integer(base.acc.N)}
		if multi {
			baseRow = append(baseRow, integer(len(base.seeds)))
		}
		acc, _, _ := base.ex()
		baseRow = append(append(baseRow, pct(acc), pct(acc)), untested()...)
		t.Rows = append(t.Rows, baseRow)
		for _, s := range points[1:] {
			cmp := cs.compared(c, t.ID, s, base)
			if cmp == nil {
				continue
			}
			t.Rows = append(t.Rows, append([]Cell{text(pointName(s))}, comparisonCells(cmp, multi)...))
		}
		t.Notes = []string{"b: questions only the baseline point answers correctly; c: only the point. Δ = c-b over n.", sigNote(opt, multi)}
		t.MarkBest()
		out = append(out, t)
	}
	return out
}

// seedTable is the appendix of per-seed numbers when some system has
// several seeds: each seed's EX with its Wilson interval, n and failed
// items, systems x benchmarks as the main table. Nothing is bolded: the
// main table ranks systems by their mean over seeds.
func seedTable(c *corpus, opt Options) *Table {
	var ss []*system
	for _, s := range c.systems {
		if s.done() > 0 {
			ss = append(ss, s)
		}
	}
	if !seeded(ss) {
		return nil
	}
	t := &Table{ID: "ex-by-seed", Caption: c.caption(fmt.Sprintf("Appendix: execution accuracy (%%) of each seed, with %s Wilson intervals", levelPct(opt.Level)))}
	t.Columns = []Column{{Name: "System"}, {Name: "seed", Numeric: true}}
	for _, b := range c.benches {
		t.Columns = append(t.Columns, Column{Group: b, Name: "EX", Numeric: true}, Column{Group: b, Name: levelPct(opt.Level) + " CI", Numeric: true},
			Column{Group: b, Name: "n", Numeric: true}, Column{Group: b, Name: "failed", Numeric: true})
	}
	type key struct {
		row  string
		seed int64
	}
	var rows []key
	cell := map[string]seedRun{}
	for _, s := range ss {
		for _, sr := range s.seeds {
			k := key{s.row, sr.seed}
			if !slices.Contains(rows, k) {
				rows = append(rows, k)
			}
			cell[fmt.Sprintf("%s\x00%d\x00%s", s.row, sr.seed, s.bench)] = sr
		}
	}
	for _, k := range rows {
		row := []Cell{text(k.row), integer(int(k.seed))}
		for _, b := range c.benches {
			sr, ok := cell[fmt.Sprintf("%s\x00%d\x00%s", k.row, k.seed, b)]
			if !ok || sr.tally.Attempted == 0 {
				row = append(row, text("-"), text("-"), text("-"), text("-"))
				continue
			}
			ci := text("-")
			if iv, err := stats.Wilson(sr.tally.Correct, sr.tally.Attempted, opt.Level); err == nil {
				ci = text(fmt.Sprintf("[%s, %s]", fmtFloat(100*iv.Lo, 1), fmtFloat(100*iv.Hi, 1)))
			}
			row = append(row, pct(sr.tally.EX()), ci, integer(sr.tally.Attempted), integer(sr.tally.Failed))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"One row per system and seed; the main table (ex-by-system) gives each system's mean over seeds. Not bolded: no seed is singled out."}
	return t
}

// sweepTests returns the comparisons of the points of ss, a sweep or
// grid, with its baseline point (the family runstore.PlanFamilies made of
// it): the baseline, how it was chosen, and each tested point's
// comparison. base is nil when the sweep has no baseline.
func sweepTests(cs *comparisons, ss []*system) (base *system, why string, tests map[*system]*stats.Comparison) {
	tests = map[*system]*stats.Comparison{}
	if len(ss) == 0 {
		return nil, "", tests
	}
	f := cs.sweepFamily(ss[0])
	if f == nil || f.Base < 0 {
		return nil, "", tests
	}
	base, why = cs.systems[f.Base], f.Why
	for _, i := range f.Members {
		if sc := cs.of[cs.systems[i]]; sc != nil && sc.Comparison != nil {
			tests[cs.systems[i]] = sc.Comparison
		}
	}
	return base, why, tests
}

// figData collects the numbers a figure draws, one row per point, for the
// CSV written beside the plot (Figure.Data): the point's own columns, then
// n, seeds (when a point has several) and its comparison with its
// baseline formatted as the tables format it.
type figData struct {
	opt   Options
	lead  []string
	multi bool
	rows  [][]Cell
}

func figureData(opt Options, lead []string, multi bool) *figData {
	return &figData{opt: opt, lead: lead, multi: multi}
}

// addPoint adds the point of system s: its lead cells, and its comparison
// c (nil when it has none; isBase marks the baseline).
func (d *figData) addPoint(lead []Cell, s *system, c *stats.Comparison, isBase bool) {
	row := append(slices.Clone(lead), integer(s.acc.N))
	if d.multi {
		row = append(row, integer(len(s.seeds)))
	}
	switch {
	case c != nil:
		row = append(append(row, text("")), testCells(c)...)
	case isBase:
		row = append(append(row, text("baseline")), untested()...)
	default:
		row = append(append(row, text("not tested")), untested()...)
	}
	d.rows = append(d.rows, row)
}

// table is the data as a Table named after its figure.
func (d *figData) table(id, title string) *Table {
	t := &Table{ID: id, Caption: "Data of the figure: " + title}
	for _, n := range d.lead {
		t.Columns = append(t.Columns, Column{Name: n, Numeric: n != "System" && n != "Series"})
	}
	t.Columns = append(t.Columns, Column{Name: "n", Numeric: true})
	if d.multi {
		t.Columns = append(t.Columns, Column{Name: "seeds", Numeric: true})
	}
	t.Columns = append(append(t.Columns, Column{Name: "role"}), testColumns(d.opt)...)
	t.Rows = d.rows
	return t
}

// pairwiseFigures draws, per benchmark family, each system's EX
// difference from the baseline with its paired bootstrap interval (a
// forest plot): the comparisons of the pairwise table, not recomputed.
// Its data (Figure.Data) are the table's numbers.
func pairwiseFigures(c *corpus, cs *comparisons, opt Options) ([]*Figure, error) {
	var out []*Figure
	for _, f := range cs.families {
		if f.Swept != nil || f.Base < 0 {
			continue
		}
		members := cs.familySystems(&f)
		base := members[0]
		multi := seeded(members)
		data := figureData(opt, []string{"System"}, multi)
		data.addPoint([]Cell{text(base.row)}, base, nil, true)
		var d xyErr
		var names, differ []string
		var drawn []*system
		for _, s := range members[1:] {
			sc := cs.of[s]
			if sc == nil || sc.Comparison == nil {
				continue
			}
			cmp := sc.Comparison
			data.addPoint([]Cell{text(s.row)}, s, cmp, false)
			d.XYs = append(d.XYs, plotter.XY{X: float64(len(names)), Y: 100 * cmp.Delta})
			d.YErrors = append(d.YErrors, struct{ Low, High float64 }{100 * (cmp.Delta - cmp.CI.Lo), 100 * (cmp.CI.Hi - cmp.Delta)})
			names, drawn = append(names, s.row), append(drawn, s)
			if cmp.Significant() {
				differ = append(differ, s.row)
			}
		}
		if len(names) == 0 {
			continue
		}
		fig := &Figure{ID: slugID("pairwise-delta", f.Benchmark),
			Title: c.caption(fmt.Sprintf("EX difference against %s on %s (points)", base.row, f.Benchmark)),
			width: vg.Length(math.Max(6, 1.5+0.7*float64(len(names)))) * vg.Inch, height: 4.5 * vg.Inch}
		p := newPlot("", "Δ EX (points)")
		p.Add(newHLine(0))
		if _, err := c.addSystemPoints(fig, p, drawn, d); err != nil {
			return nil, err
		}
		p.NominalX(names...)
		if len(names) > 3 {
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
		}
		found := "none does"
		if len(differ) > 0 {
			found = strings.Join(differ, ", ")
		}
		fig.N = fmt.Sprintf("n = %d questions (paired)", len(base.seeds[0].correct))
		fig.CI = fmt.Sprintf("%s paired bootstrap CI of the difference", levelPct(opt.Level))
		fig.Note = fmt.Sprintf("Differs from %s after Holm over the %d comparisons (%s, alpha = %g): %s.",
			base.row, len(names), testName(multi), roundTo(1-opt.Level, 6), found)
		fig.plot = p
		fig.Data = data.table(fig.ID, fig.Title)
		out = append(out, fig)
	}
	return out, nil
}

// comparisonFact is the Setup section's account of every comparison of
// the report: baselines, which test gave each p, Holm's families and how
// the intervals were drawn.
func comparisonFact(opt Options) string {
	return fmt.Sprintf("Comparisons (pairwise, sweep and ablation tables and their plots): a system's seeds are replicates; each system is compared with its baseline (the first system of its benchmark, or report --baseline; the points of a sweep or grid with the runner's paper default point) on the questions both attempted under every seed. "+
		"p comes from the test the column test names: McNemar's for systems run under one seed (exact when b+c < %d, else chi-square with continuity correction), the exact sign-flip test over questions for several seeds. "+
		"Holm adjusts p within each table's family. CIs: paired bootstrap resampling questions with every seed of a question (percentile, %d resamples, seed %d); each pair draws from PCG(seed, FNV-1a-64(baseline name, NUL, system name)), so that `t2sbench compare`, the run summary and the viewer show the same interval.",
		stats.ExactBelow, opt.Resamples, opt.Seed)
}
