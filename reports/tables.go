package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/stats"
)

// deltaCell is the comparison's difference in points, signed, with one
// decimal (Comparison.FormatDelta), marked NotSig when it is not
// significant after adjustment.
func deltaCell(c *stats.Comparison) Cell {
	return Cell{Text: c.FormatDelta(1), Value: 100 * c.Delta, HasValue: true, NotSig: !c.Significant()}
}

// ciCell is the comparison's interval in points, "[-3.4, +4.6]".
func ciCell(c *stats.Comparison) Cell { return text(c.FormatCI(1)) }

// pCell is a p-value cell (stats.FormatP); "-" for NaN.
func pCell(p float64) Cell {
	if math.IsNaN(p) {
		return text("-")
	}
	return Cell{Text: stats.FormatP(p), Value: p, HasValue: true}
}

func levelPct(level float64) string { return fmt.Sprintf("%g%%", 100*level) }

func roundTo(v float64, d int) float64 {
	f := math.Pow(10, float64(d))
	return math.Round(v*f) / f
}

// ablationTables builds one table per runner entry that has named
// ablations: rows are configurations, columns backbones; the full
// configuration is the entry's first.
func ablationTables(c *corpus, opt Options) ([]*Table, error) {
	var out []*Table
	var entries []string
	byEntry := map[string][]*system{}
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		k := s.entry + "\x00" + s.bench
		if _, ok := byEntry[k]; !ok {
			entries = append(entries, k)
		}
		byEntry[k] = append(byEntry[k], s)
	}
	for _, k := range entries {
		ss := byEntry[k]
		var configs, backbones []string
		cell := map[string]*system{}
		ablated := false
		for _, s := range ss {
			if !slices.Contains(configs, s.config) {
				configs = append(configs, s.config)
				ablated = ablated || s.variant != ""
			}
			if !slices.Contains(backbones, s.backbone) {
				backbones = append(backbones, s.backbone)
			}
			cell[s.config+"\x00"+s.backbone] = s
		}
		if !ablated || len(configs) < 2 {
			continue
		}
		t := &Table{ID: slugID("ablation", ss[0].head, ss[0].bench)}
		t.Caption = c.caption(fmt.Sprintf("Ablation of %s on %s: EX (%%) and change against the full configuration %q, with %s paired bootstrap CI and Holm-adjusted %s p", ss[0].head, ss[0].bench, configs[0], levelPct(opt.Level), testName(seeded(ss))))
		t.Columns = []Column{{Name: "Configuration"}}
		for _, b := range backbones {
			g := ""
			if len(backbones) > 1 {
				g = b
			}
			t.Columns = append(t.Columns, Column{Group: g, Name: "EX", Numeric: true, Better: Higher},
				Column{Group: g, Name: "Drop", Numeric: true}, Column{Group: g, Name: levelPct(opt.Level) + " CI", Numeric: true},
				Column{Group: g, Name: "p (Holm)", Numeric: true})
		}
		// The family is the table: every configuration against the full
		// one of its backbone (stats.ComparePairs).
		type ref struct {
			row, col int
			s, full  *system
		}
		var pairs [][2]stats.Arm
		var refs []ref
		multi := false
		for _, cfg := range configs {
			row := []Cell{text(cfg)}
			for _, b := range backbones {
				s := cell[cfg+"\x00"+b]
				full := cell[configs[0]+"\x00"+b]
				if s == nil {
					row = append(row, text("-"), text("-"), text("-"), text("-"))
					continue
				}
				acc, _, _ := s.ex()
				row = append(row, pct(acc))
				if full == nil || s == full {
					row = append(row, text("-"), text("-"), text("-"))
					continue
				}
				row = append(row, text("-"), text("-"), text("-"))
				pairs = append(pairs, [2]stats.Arm{{Key: full.name, Outcomes: full.outcomes}, {Key: s.name, Outcomes: s.outcomes}})
				refs = append(refs, ref{len(t.Rows), len(row) - 3, s, full})
				multi = multi || s.multiSeed() || full.multiSeed()
			}
			t.Rows = append(t.Rows, row)
		}
		res, err := stats.ComparePairs(pairs, familyOptions(opt))
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", t.ID, err)
		}
		for i, r := range res {
			if r.Err != nil {
				c.warnings = append(c.warnings, fmt.Sprintf("%s: %s vs %s: %v", t.ID, refs[i].s.name, refs[i].full.name, r.Err))
				continue
			}
			cmp := r.Comparison
			t.Rows[refs[i].row][refs[i].col] = deltaCell(cmp)
			t.Rows[refs[i].row][refs[i].col+1] = ciCell(cmp)
			t.Rows[refs[i].row][refs[i].col+2] = pCell(cmp.PAdj)
		}
		t.Notes = []string{"Drop: EX of the configuration minus EX of the full configuration on the questions both answered, in points.", sigNote(opt, multi)}
		t.MarkBest()
		out = append(out, t)
	}
	return out, nil
}

// mainTable is systems x benchmarks: EX with its interval over the
// attempted questions (gold runs; failed items counted wrong), their
// number n and how many of them failed. When a system has several seeds
// (its replicates), EX is the mean over seeds of each seed's EX, with the
// standard deviation over seeds, the number of seeds, and the cluster
// bootstrap interval over questions (a system with one seed keeps its
// Wilson interval); the per-seed numbers are the appendix (seedTable).
func mainTable(c *corpus, opt Options) *Table {
	var rows []string
	cell := map[string]*system{}
	var all []*system
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		if !slices.Contains(rows, s.row) {
			rows = append(rows, s.row)
		}
		cell[s.row+"\x00"+s.bench] = s
		all = append(all, s)
	}
	if len(rows) == 0 {
		return nil
	}
	multi := seeded(all)
	caption := fmt.Sprintf("Execution accuracy (%%) by system and benchmark, with %s Wilson intervals", levelPct(opt.Level))
	if multi {
		caption = fmt.Sprintf("Execution accuracy (%%) by system and benchmark: mean over seeds, standard deviation and number of seeds, with %s intervals over questions and seeds", levelPct(opt.Level))
	}
	t := &Table{ID: "ex-by-system", Caption: c.caption(caption)}
	t.Columns = []Column{{Name: "System"}}
	// A benchmark whose attempted questions include nondeterministic golds
	// also gets EX over the deterministic ones.
	det := map[string]bool{}
	for _, s := range c.systems {
		if s.done() > 0 && s.tally.Nondet > 0 {
			det[s.bench] = true
		}
	}
	for _, b := range c.benches {
		t.Columns = append(t.Columns, Column{Group: b, Name: "EX", Numeric: true, Better: Higher})
		if multi {
			t.Columns = append(t.Columns, Column{Group: b, Name: "sd", Numeric: true}, Column{Group: b, Name: "seeds", Numeric: true})
		}
		t.Columns = append(t.Columns, Column{Group: b, Name: levelPct(opt.Level) + " CI", Numeric: true}, Column{Group: b, Name: "n", Numeric: true},
			Column{Group: b, Name: "failed", Numeric: true})
		if det[b] {
			t.Columns = append(t.Columns, Column{Group: b, Name: "EX det.", Numeric: true})
		}
	}
	var partial []string
	var excl []excludedOf
	nondet := 0
	for _, r := range rows {
		row := []Cell{text(r)}
		for _, b := range c.benches {
			s := cell[r+"\x00"+b]
			if s == nil {
				row = append(row, text("-"), text("-"), text("-"), text("-"))
				if multi {
					row = append(row, text("-"), text("-"))
				}
				if det[b] {
					row = append(row, text("-"))
				}
				continue
			}
			if s.pending > 0 {
				partial = append(partial, fmt.Sprintf("%s on %s (%d pending)", s.name, b, s.pending))
			}
			excl = append(excl, excludedOf{fmt.Sprintf("%s on %s", s.name, b), metrics.ExcludedText(s.tally.Excluded)})
			acc, _, n := s.ex()
			iv := s.acc.CI
			ci := text(fmt.Sprintf("[%s, %s]", fmtFloat(100*iv.Lo, 1), fmtFloat(100*iv.Hi, 1)))
			row = append(row, pct(acc))
			if multi {
				row = append(row, num(100*s.acc.SD, 1), integer(len(s.seeds)))
				n = s.acc.N
			}
			row = append(row, ci, integer(n), integer(s.tally.Failed))
			if det[b] {
				dex, _, _ := s.tally.DeterministicEX()
				row = append(row, pct(dex))
				nondet += s.tally.Nondet
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.MarkBest()
	exclNote := excludedNote(excl)
	if exclNote != "" || len(partial) > 0 {
		t.Notes = append(t.Notes, "EX = correct / n, n = questions whose gold runs; failed = questions whose method failed, counted wrong.")
	}
	if multi {
		t.Notes = append(t.Notes, fmt.Sprintf("Seeds are replicates: EX is the mean over seeds of each seed's EX, sd their standard deviation (\"-\" for one seed), n the questions, failed summed over seeds. CI: for several seeds a bootstrap resampling questions with all their seeds (percentile, %d resamples, seed %d); for one seed Wilson's. Bold: the best mean. Per-seed EX: table ex-by-seed.",
			opt.Resamples, opt.Seed))
	}
	if exclNote != "" {
		t.Notes = append(t.Notes, exclNote)
	}
	if len(partial) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Partial: EX over the finished items only for %s.", strings.Join(partial, "; ")))
	}
	if nondet > 0 {
		t.Notes = append(t.Notes, "EX det.: EX over the questions whose gold is deterministic; a nondeterministic gold (RAND()/NOW(), ties at a LIMIT, ...) ran beside each prediction, as the official scorers run it.")
	}
	return t
}

// excludedOf is the list of questions whose gold does not run for one
// system on one benchmark, as metrics.ExcludedText writes it.
type excludedOf struct{ who, text string }

// excludedNote is the main table's note on the questions whose gold does
// not run: once when every system has the same, else per system; "" when
// none has any.
func excludedNote(excl []excludedOf) string {
	var parts []string
	same := true
	for _, e := range excl {
		same = same && e.text == excl[0].text
		if e.text != "" {
			parts = append(parts, e.who+": "+e.text)
		}
	}
	switch {
	case len(parts) == 0:
		return ""
	case same && len(excl) > 1:
		return "Not attempted, gold does not run: " + excl[0].text + " (each system)."
	}
	return "Not attempted, gold does not run: " + strings.Join(parts, "; ") + "."
}

// difficultyLevels returns the difficulty levels present among the
// systems' done items, in difficultyOrder, then sorted.
func difficultyLevels(ss []*system) []string {
	set := map[string]bool{}
	for _, s := range ss {
		for d := range s.agg.byLevel {
			if d != "" {
				set[d] = true
			}
		}
	}
	var out []string
	for _, d := range difficultyOrder {
		if set[d] {
			out = append(out, d)
			delete(set, d)
		}
	}
	return append(out, slices.Sorted(maps.Keys(set))...)
}

// breakdownTables builds, per benchmark, EX by difficulty and EX by
// reasoning type (a question counts under each of its types).
func breakdownTables(c *corpus) []*Table {
	var out []*Table
	for _, b := range c.benches {
		ss := c.onBench(b)
		if len(ss) == 0 {
			continue
		}
		if levels := difficultyLevels(ss); len(levels) > 0 {
			t := &Table{ID: slugID("ex-by-difficulty", b), Caption: c.caption(fmt.Sprintf("EX (%%) by difficulty on %s", b))}
			t.Columns = []Column{{Name: "System"}}
			counts := ss[0].agg.firstLevels
			for _, l := range levels {
				t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("%s (n=%d)", l, counts[l]), Numeric: true, Better: Higher})
			}
			t.Columns = append(t.Columns, Column{Name: "overall", Numeric: true, Better: Higher})
			for _, s := range ss {
				row := []Cell{text(s.row)}
				for _, l := range levels {
					acc, _ := s.levelAcc(l)
					row = append(row, pct(acc))
				}
				acc, _, _ := s.ex()
				t.Rows = append(t.Rows, append(row, pct(acc)))
			}
			t.MarkBest()
			out = append(out, t)
		}
		if c.hasTypes[b] {
			types := ss[0].agg.firstTypes
			names := slices.Sorted(maps.Keys(types))
			if len(names) == 0 {
				continue
			}
			t := &Table{ID: slugID("ex-by-reasoning-type", b), Caption: c.caption(fmt.Sprintf("EX (%%) by reasoning type on %s (a question counts under each of its types)", b))}
			t.Columns = []Column{{Name: "System"}}
			for _, ty := range names {
				t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("%s (n=%d)", ty, types[ty]), Numeric: true, Better: Higher})
			}
			for _, s := range ss {
				row := []Cell{text(s.row)}
				for _, ty := range names {
					acc, _ := s.typeAcc(ty)
					row = append(row, pct(acc))
				}
				t.Rows = append(t.Rows, row)
			}
			t.MarkBest()
			out = append(out, t)
		}
	}
	return out
}

// pairwiseTables builds, per benchmark family (runstore.PlanFamilies: the
// benchmark's systems against Options.Baseline, else its first system;
// a sweep is represented by its baseline point), ReAct-SQL Table 5's
// delta, CI, b, c and p, plus the Holm-adjusted p over the family.
func pairwiseTables(c *corpus, cs *comparisons, opt Options) []*Table {
	var out []*Table
	for _, f := range cs.families {
		if f.Swept != nil || f.Base < 0 {
			continue
		}
		members := cs.familySystems(&f)
		base := members[0]
		why := ""
		if f.Why == runstore.WhyPaperDefault {
			why = " (the paper's default point)"
		}
		multi := seeded(members)
		t := &Table{ID: slugID("pairwise", f.Benchmark)}
		if multi {
			t.Caption = c.caption(fmt.Sprintf("Pairwise tests against %s%s on %s, seeds pooled: EX difference (points) with %s paired bootstrap CI, b, c and p of the test named", base.row, why, f.Benchmark, levelPct(opt.Level)))
		} else {
			t.Caption = c.caption(fmt.Sprintf("Pairwise tests against %s%s on %s: EX difference (points) with %s paired bootstrap CI, McNemar b, c and p", base.row, why, f.Benchmark, levelPct(opt.Level)))
		}
		t.Columns = append([]Column{{Name: "System"}}, comparisonColumns(opt, multi)...)
		for _, s := range members[1:] {
			cmp := cs.compared(c, t.ID, s, base)
			if cmp == nil {
				continue
			}
			t.Rows = append(t.Rows, append([]Cell{text(s.row)}, comparisonCells(cmp, multi)...))
		}
		if len(t.Rows) == 0 {
			continue
		}
		bc := "b: questions only the baseline answers correctly; c: only the system. Δ = c-b over n."
		if multi {
			bc = "b: (seed, question) pairs only the baseline answers correctly; c: only the system. Δ = (c-b) / (n x seeds)."
		}
		t.Notes = []string{bc, sigNote(opt, multi)}
		t.MarkBest()
		out = append(out, t)
	}
	return out
}

// efficiency is one system's cost figures.
type efficiency struct {
	s                        *system
	usage                    metrics.UsageSummary
	lat                      stats.LatencyStats
	hasLat                   bool
	priced                   bool
	callsQ, genQ, promptQ, c float64
	// models binds each role to its model name (usage's fallback included).
	models map[string]string
}

// simulatedRole reports whether the role ran on the sim backend, whose
// latency is not a model's, so that its tokens per second mean nothing.
func (e efficiency) simulatedRole(role string) bool {
	m, ok := e.s.trial.Models[e.models[role]]
	return ok && m.Backend == "sim"
}

func efficiencies(c *corpus, opt Options) []efficiency {
	var out []efficiency
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		models := s.models()
		u, err := s.agg.usage.Summary(opt.Prices, models)
		if err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("efficiency of %s: %v", s.name, err))
			continue
		}
		e := efficiency{s: s, usage: u, models: models, callsQ: u.Total.CallsPerQ, genQ: u.Total.CompletionPerQ, promptQ: u.Total.PromptPerQ,
			priced: u.Total.Priced && len(u.Roles) > 0, c: u.Total.CostPerQ}
		e.lat, e.hasLat = s.agg.lat, s.agg.hasLat
		out = append(out, e)
	}
	return out
}

// efficiencyTables builds the per-system efficiency table and the per-role
// table (calls, tokens, tokens/s, cost).
func efficiencyTables(c *corpus, effs []efficiency) []*Table {
	if len(effs) == 0 {
		return nil
	}
	t := &Table{ID: "efficiency", Caption: c.caption("Efficiency per question: model calls, tokens, wall-clock latency (s) and cost (USD), with the cost of a trial")}
	t.Columns = []Column{{Name: "System"}, {Name: "EX", Numeric: true, Better: Higher}, {Name: "calls/q", Numeric: true, Better: Lower},
		{Name: "samples/q", Numeric: true}, {Name: "prompt tok/q", Numeric: true, Better: Lower}, {Name: "gen tok/q", Numeric: true, Better: Lower},
		{Name: "lat min", Numeric: true, Better: Lower}, {Name: "lat median", Numeric: true, Better: Lower},
		{Name: "lat mean", Numeric: true, Better: Lower}, {Name: "lat max", Numeric: true, Better: Lower},
		{Name: "lat CV", Numeric: true}, {Name: "cost/q", Numeric: true, Better: Lower},
		{Name: "cost/trial", Numeric: true, Better: Lower}}
	anyUnpriced := false
	// runs total each run's trials and cost, for the notes.
	runs := make([]struct {
		trials   int
		cost     float64
		unpriced bool
	}, len(c.runNames))
	for _, e := range effs {
		acc, _, _ := e.s.ex()
		samples := text("-")
		if e.usage.Total.Samples > 0 {
			samples = num(e.usage.Total.SamplesPerQ, 2)
		}
		row := []Cell{text(e.s.name), pct(acc), num(e.callsQ, 2), samples, num(e.promptQ, 0), num(e.genQ, 0)}
		if e.hasLat {
			row = append(row, num(e.lat.Min, 3), num(e.lat.Median, 3), num(e.lat.Mean, 3), num(e.lat.Max, 3), num(e.lat.CV, 2))
		} else {
			row = append(row, text("-"), text("-"), text("-"), text("-"), text("-"))
		}
		run := &runs[e.s.run]
		run.trials += len(e.s.seeds)
		if e.priced {
			// cost/trial: the mean over the system's seeds of one trial's
			// total (Price.Cost of its tokens).
			row = append(row, num(e.c, 5), num(e.usage.Total.Cost/float64(len(e.s.seeds)), 4))
			run.cost += e.usage.Total.Cost
		} else {
			anyUnpriced = true
			run.unpriced = true
			row = append(row, text("-"), text("-"))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Latency is the wall time of a work item; CV = std/mean. Calls and tokens count cached answers at list price, as papers report them. samples/q: answers received per question (one call with n = 8 gives 8; \"-\": not recorded)."}
	if anyUnpriced {
		t.Notes = append(t.Notes, "cost \"-\": no price given for a model (report --price MODEL=PROMPT:COMPLETION, USD per 1M tokens).")
	}
	for i, run := range runs {
		if run.trials == 0 {
			continue
		}
		total := "unknown (a model has no price)"
		if !run.unpriced {
			total = fmt.Sprintf("%s USD", fmtFloat(run.cost, 4))
		}
		t.Notes = append(t.Notes, fmt.Sprintf("Total cost of run %s: %s over %d trials (calls and tokens as above, at the prices of the run's spec or --price).", c.runNames[i], total, run.trials))
	}
	t.MarkBest()
	out := []*Table{t}
	r := &Table{ID: "efficiency-roles", Caption: c.caption("Model usage per role: calls, answers, tokens and generation rate per question")}
	r.Columns = []Column{{Name: "System"}, {Name: "role"}, {Name: "calls/q", Numeric: true}, {Name: "samples/q", Numeric: true},
		{Name: "cut", Numeric: true}, {Name: "prompt tok/q", Numeric: true},
		{Name: "gen tok/q", Numeric: true}, {Name: "tok/s", Numeric: true}, {Name: "cost/q", Numeric: true}}
	anyCut, anySim := false, false
	for _, e := range effs {
		for _, ro := range e.usage.Roles {
			cost := text("-")
			if ro.Priced {
				cost = num(ro.CostPerQ, 5)
			}
			tps := text("-")
			switch {
			case e.simulatedRole(ro.Role):
				tps, anySim = text("sim"), true
			case ro.TokensPerSecond > 0:
				tps = num(ro.TokensPerSecond, 1)
			}
			samples, cut := text("-"), text("-")
			if ro.Samples > 0 {
				samples, cut = num(ro.SamplesPerQ, 2), text(fmt.Sprintf("%d (%.1f%%)", ro.Cut, 100*ro.CutRate))
				anyCut = anyCut || ro.Cut > 0
			}
			r.Rows = append(r.Rows, []Cell{text(e.s.name), text(ro.Role), num(ro.CallsPerQ, 2), samples, cut, num(ro.PromptPerQ, 0), num(ro.CompletionPerQ, 0), tps, cost})
		}
	}
	if len(r.Rows) > 0 {
		r.Notes = []string{"tok/s: completion tokens per second of model-call latency. samples/q: answers received per question (a call with n = 8 gives 8)."}
		if anySim {
			r.Notes = append(r.Notes, "tok/s \"sim\": the role ran on the simulated model, whose latency is not a model's; no rate is shown.")
		}
		if anyCut {
			r.Notes = append(r.Notes, "cut: answers cut at the token limit (finish_reason \"length\"), and their share of all answers; a runner never uses a cut answer as if it were complete.")
		}
		out = append(out, r)
	}
	return out
}

// candidateKs are the k of the candidates table's pass@k and majority@k.
var candidateKs = []int{1, 5, 10}

// candidatesTable tabulates what each system's stored candidate pools
// say (metrics.SummarizeCandidates over its attempted items of every
// seed): pass@k, the share of questions some k drawn candidates answer
// (the unbiased estimator), and majority@k, the share the answer voted by
// the first k answers. Systems without candidate marks are left out; nil
// when none has any.
func candidatesTable(c *corpus) *Table {
	t := &Table{ID: "candidates", Caption: c.caption("Candidate pools: pass@k (unbiased estimator, Chen et al. 2021) and majority@k (%)")}
	t.Columns = []Column{{Name: "System"}, {Name: "EX", Numeric: true, Better: Higher}, {Name: "questions", Numeric: true}, {Name: "pool/q", Numeric: true}}
	for _, k := range candidateKs {
		t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("pass@%d", k), Numeric: true, Better: Higher})
	}
	for _, k := range candidateKs {
		t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("maj@%d", k), Numeric: true, Better: Higher})
	}
	anyShort := false
	for _, s := range c.systems {
		sum := s.agg.cands.Summary()
		if sum.Questions == 0 {
			continue
		}
		acc, _, _ := s.ex()
		row := []Cell{text(s.name), pct(acc), integer(sum.Questions), num(sum.MeanPool, 2)}
		for _, g := range sum.ByK {
			row = append(row, pct(g.PassAtK))
			anyShort = anyShort || g.Short > 0
		}
		for _, g := range sum.ByK {
			row = append(row, pct(g.MajorityAtK))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"Each stored candidate is scored against the gold with the run's EX rule; questions: attempted questions (every seed) whose verdict carries candidate marks. pass@k = 1 - C(n-c,k)/C(n,k) for n candidates of which c are correct; majority@k: the first k candidates vote by execution result (the multiset of rows), the largest group wins, a tie goes to the group seen first, candidates that fail do not vote; an empty result votes like any other, so majority@k can differ from a runner's own selection (Alpha-SQL's discards empty and all-NULL results)."}
	if anyShort {
		t.Notes = append(t.Notes, "A question with n <= k candidates counts pass@n (correct when any candidate is) and votes with all n.")
	}
	t.MarkBest()
	return t
}

// turnsTables builds ReAct-SQL Table 6 (accuracy and average turns by
// difficulty) for systems whose traces count "turns".
func turnsTables(c *corpus) []*Table {
	var out []*Table
	for _, b := range c.benches {
		var ss []*system
		for _, s := range c.onBench(b) {
			if _, _, has := s.counter(runners.CounterTurns); has {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		levels := append(difficultyLevels(ss), "overall")
		t := &Table{ID: slugID("ex-and-turns-by-difficulty", b), Caption: c.caption(fmt.Sprintf("EX (%%) and average turns by difficulty on %s", b))}
		t.Columns = []Column{{Name: "System"}}
		for _, l := range levels {
			t.Columns = append(t.Columns, Column{Group: l, Name: "EX", Numeric: true, Better: Higher}, Column{Group: l, Name: "turns", Numeric: true, Better: Lower})
		}
		for _, s := range ss {
			row := []Cell{text(s.row)}
			for _, l := range levels {
				acc, n := s.levelAcc(l)
				sum := s.agg.turns[l]
				if l == "overall" {
					acc, n = s.agg.all.acc()
					sum = s.agg.turnsAll
				}
				avg := math.NaN()
				if n > 0 {
					avg = sum / float64(n)
				}
				row = append(row, pct(acc), num(avg, 2))
			}
			t.Rows = append(t.Rows, row)
		}
		t.MarkBest()
		out = append(out, t)
	}
	return out
}

// validationRates returns, per system with "validation.*" counters, the
// share of its questions on which each counter is positive.
func validationRates(c *corpus) (names []string, systems []*system, rates map[*system]map[string]float64) {
	set := map[string]bool{}
	rates = map[*system]map[string]float64{}
	for _, s := range c.systems {
		ns := s.counterNames(runners.ValidationPrefix)
		if len(ns) == 0 {
			continue
		}
		systems = append(systems, s)
		rates[s] = map[string]float64{}
		for _, n := range ns {
			set[n] = true
			_, k, _ := s.counter(n)
			rates[s][n] = float64(k) / float64(s.done())
		}
	}
	names = slices.Sorted(maps.Keys(set))
	return names, systems, rates
}

// validationTable tabulates validation trigger rates.
func validationTable(c *corpus) *Table {
	names, systems, rates := validationRates(c)
	if len(systems) == 0 {
		return nil
	}
	t := &Table{ID: "validation-rates", Caption: c.caption("Validation counters: share (%) of questions on which each counter is positive (lN: level N fired; lN.corrected: it fired and the final query passed; pass: the final query passed)")}
	t.Columns = []Column{{Name: "System"}}
	for _, n := range names {
		t.Columns = append(t.Columns, Column{Name: strings.TrimPrefix(n, runners.ValidationPrefix), Numeric: true})
	}
	for _, s := range systems {
		row := []Cell{text(s.name)}
		for _, n := range names {
			if v, ok := rates[s][n]; ok {
				row = append(row, pct(v))
			} else {
				row = append(row, pct(0))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
