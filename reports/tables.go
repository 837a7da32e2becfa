package reports

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/stats"
)

// compare pairs a and b on their common questions and compares B with A
// (stats.CompareTable: the paired bootstrap interval of AccB - AccA and
// McNemar's test, exact below stats.ExactBelow discordant questions). The
// bootstrap source is seeded from (Options.Seed, key), so every comparison
// is reproducible on its own; key is pairKey of the two systems.
func compare(a, b map[string]bool, key string, opt Options) (*stats.Comparison, error) {
	p, err := stats.Pair(a, b, true)
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return stats.Compare(p.A, p.B, stats.CompareOptions{Level: opt.Level, Resamples: opt.Resamples,
		Rand: rand.New(rand.NewPCG(opt.Seed, h.Sum64()))})
}

// pairKey seeds the bootstrap of a comparison from the two systems, so
// that the same pair shows the same interval in every table of a report.
func pairKey(a, b *system) string { return a.name + "\x00" + b.name }

// deltaCell is the comparison's difference in points, signed, with one
// decimal (Comparison.FormatDelta).
func deltaCell(c *stats.Comparison) Cell {
	return Cell{Text: c.FormatDelta(1), Value: 100 * c.Delta, HasValue: true}
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

func sigNote(opt Options) string {
	return fmt.Sprintf("~ : not significant at alpha = %g after Holm adjustment (McNemar; exact test below %d discordant questions). CIs: paired bootstrap, %d resamples, seed %d.",
		roundTo(1-opt.Level, 6), stats.ExactBelow, opt.Resamples, opt.Seed)
}

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
		if len(s.done) == 0 {
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
		t.Caption = c.caption(fmt.Sprintf("Ablation of %s on %s: EX (%%) and change against the full configuration %q, with %s paired bootstrap CI and Holm-adjusted McNemar p", ss[0].head, ss[0].bench, configs[0], levelPct(opt.Level)))
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
		type ref struct{ row, col int }
		var family []*stats.Comparison
		var refs []ref
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
				r, err := compare(full.outcomes, s.outcomes, pairKey(full, s), opt)
				if err != nil {
					row = append(row, text("-"), text("-"), text("-"))
					c.warnings = append(c.warnings, fmt.Sprintf("%s: %s vs %s: %v", t.ID, s.name, full.name, err))
					continue
				}
				row = append(row, deltaCell(r), ciCell(r), text(""))
				family = append(family, r)
				refs = append(refs, ref{len(t.Rows), len(row) - 1})
			}
			t.Rows = append(t.Rows, row)
		}
		if err := applyHolm(t, family, refs, func(r ref) (int, int) { return r.row, r.col }); err != nil {
			return nil, err
		}
		t.Notes = []string{"Drop: EX of the configuration minus EX of the full configuration on the questions both answered, in points.", sigNote(opt)}
		t.MarkBest()
		out = append(out, t)
	}
	return out, nil
}

// applyHolm adjusts the family of comparisons (stats.AdjustHolm) and
// writes each adjusted p into its cell; the cell two to the left (the
// difference) is marked NotSig when the difference is not significant
// after adjustment.
func applyHolm[R any](t *Table, family []*stats.Comparison, refs []R, at func(R) (int, int)) error {
	if len(family) == 0 {
		return nil
	}
	if err := stats.AdjustHolm(family); err != nil {
		return fmt.Errorf("reports: %s: %w", t.ID, err)
	}
	for i, r := range refs {
		row, col := at(r)
		t.Rows[row][col] = pCell(family[i].PAdj)
		if !family[i].Significant() {
			t.Rows[row][col-2].NotSig = true
		}
	}
	return nil
}

// mainTable is systems x benchmarks: EX with its Wilson interval over the
// attempted questions (gold runs; failed items counted wrong), their
// number n and how many of them failed.
func mainTable(c *corpus, opt Options) *Table {
	var rows []string
	cell := map[string]*system{}
	for _, s := range c.systems {
		if len(s.done) == 0 {
			continue
		}
		if !slices.Contains(rows, s.row) {
			rows = append(rows, s.row)
		}
		cell[s.row+"\x00"+s.bench] = s
	}
	if len(rows) == 0 {
		return nil
	}
	t := &Table{ID: "ex-by-system", Caption: c.caption(fmt.Sprintf("Execution accuracy (%%) by system and benchmark, with %s Wilson intervals", levelPct(opt.Level)))}
	t.Columns = []Column{{Name: "System"}}
	// A benchmark whose attempted questions include nondeterministic golds
	// also gets EX over the deterministic ones.
	det := map[string]bool{}
	for _, s := range c.systems {
		if len(s.done) > 0 && s.tally.Nondet > 0 {
			det[s.bench] = true
		}
	}
	for _, b := range c.benches {
		t.Columns = append(t.Columns, Column{Group: b, Name: "EX", Numeric: true, Better: Higher},
			Column{Group: b, Name: levelPct(opt.Level) + " CI", Numeric: true}, Column{Group: b, Name: "n", Numeric: true},
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
				if det[b] {
					row = append(row, text("-"))
				}
				continue
			}
			if s.pending > 0 {
				partial = append(partial, fmt.Sprintf("%s on %s (%d pending)", s.name, b, s.pending))
			}
			excl = append(excl, excludedOf{fmt.Sprintf("%s on %s", s.name, b), metrics.ExcludedText(s.tally.Excluded)})
			acc, k, n := s.ex()
			iv, err := stats.Wilson(k, n, opt.Level)
			ci := text("-")
			if err == nil {
				ci = text(fmt.Sprintf("[%s, %s]", fmtFloat(100*iv.Lo, 1), fmtFloat(100*iv.Hi, 1)))
			}
			row = append(row, pct(acc), ci, integer(n), integer(s.tally.Failed))
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
		for i := range s.done {
			if d := s.difficulty(s.done[i].QuestionID, &s.done[i]); d != "" {
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

// groupAcc is accuracy over a subset of questions.
func groupAcc(s *system, in func(i int) bool) (float64, int) {
	k, n := 0, 0
	for i, it := range s.done {
		if in(i) {
			n++
			if it.Verdict.Correct {
				k++
			}
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return float64(k) / float64(n), n
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
			counts := levelCounts(ss[0], levels)
			for _, l := range levels {
				t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("%s (n=%d)", l, counts[l]), Numeric: true, Better: Higher})
			}
			t.Columns = append(t.Columns, Column{Name: "overall", Numeric: true, Better: Higher})
			for _, s := range ss {
				row := []Cell{text(s.row)}
				for _, l := range levels {
					acc, _ := groupAcc(s, func(i int) bool { return s.difficulty(s.done[i].QuestionID, &s.done[i]) == l })
					row = append(row, pct(acc))
				}
				acc, _, _ := s.ex()
				t.Rows = append(t.Rows, append(row, pct(acc)))
			}
			t.MarkBest()
			out = append(out, t)
		}
		if c.hasTypes[b] {
			types := map[string]int{}
			for _, it := range ss[0].done {
				for _, ty := range ss[0].labels[it.QuestionID].ReasoningTypes {
					types[ty]++
				}
			}
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
					acc, _ := groupAcc(s, func(i int) bool { return slices.Contains(s.labels[s.done[i].QuestionID].ReasoningTypes, ty) })
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

func levelCounts(s *system, levels []string) map[string]int {
	out := map[string]int{}
	for i := range s.done {
		out[s.difficulty(s.done[i].QuestionID, &s.done[i])]++
	}
	return out
}

// pairwiseTables compares every system of a benchmark with the baseline
// (Options.Baseline, else the benchmark's first system): ReAct-SQL
// Table 5's delta, CI, b, c and p, plus the Holm-adjusted p over the
// table's family.
func pairwiseTables(c *corpus, opt Options) ([]*Table, error) {
	var out []*Table
	for _, b := range c.benches {
		ss := c.onBench(b)
		if len(ss) < 2 {
			continue
		}
		base, why := pairwiseBaseline(ss, opt)
		t := &Table{ID: slugID("pairwise", b), Caption: c.caption(fmt.Sprintf("Pairwise tests against %s%s on %s: EX difference (points) with %s paired bootstrap CI, McNemar b, c and p", base.row, why, b, levelPct(opt.Level)))}
		t.Columns = []Column{{Name: "System"}, {Name: "n", Numeric: true}, {Name: "EX base", Numeric: true}, {Name: "EX", Numeric: true, Better: Higher},
			{Name: "Δ", Numeric: true}, {Name: levelPct(opt.Level) + " CI", Numeric: true}, {Name: "b", Numeric: true}, {Name: "c", Numeric: true},
			{Name: "test"}, {Name: "p", Numeric: true}, {Name: "p (Holm)", Numeric: true}}
		var family []*stats.Comparison
		var rows []int
		for _, s := range ss {
			if s == base {
				continue
			}
			r, err := compare(base.outcomes, s.outcomes, pairKey(base, s), opt)
			if err != nil {
				c.warnings = append(c.warnings, fmt.Sprintf("%s: %s vs %s: %v", t.ID, s.name, base.name, err))
				continue
			}
			t.Rows = append(t.Rows, []Cell{text(s.row), integer(r.N), pct(r.AccA), pct(r.AccB), deltaCell(r), ciCell(r),
				integer(r.B), integer(r.C), text(r.Test), pCell(r.P), text("")})
			family = append(family, r)
			rows = append(rows, len(t.Rows)-1)
		}
		if len(t.Rows) == 0 {
			continue
		}
		// The Δ column is six left of p (Holm); applyHolm marks col-2, so
		// mark Δ here instead.
		if len(family) > 0 {
			if err := stats.AdjustHolm(family); err != nil {
				return nil, fmt.Errorf("reports: %s: %w", t.ID, err)
			}
			for i, r := range rows {
				t.Rows[r][10] = pCell(family[i].PAdj)
				t.Rows[r][4].NotSig = !family[i].Significant()
			}
		}
		t.Notes = []string{"b: questions only the baseline answers correctly; c: only the system. Δ = c-b over n.", sigNote(opt)}
		t.MarkBest()
		out = append(out, t)
	}
	return out, nil
}

// pairwiseBaseline returns the system pairwise tests of a benchmark
// compare against: the one Options.Baseline names, else, when the first
// system is a point of a sweep or simplex grid, the point of that entry at
// the runner's paper default (the grid's first point is a degenerate
// corner such as alpha = beta = 0), else the first system. why is "" or a
// parenthesised reason for the caption.
func pairwiseBaseline(ss []*system, opt Options) (base *system, why string) {
	for _, s := range ss {
		if opt.Baseline != "" && (s.name == opt.Baseline || s.row == opt.Baseline) {
			return s, ""
		}
	}
	first := ss[0]
	defs := opt.PaperDefaults[first.trial.Runner]
	if len(defs) == 0 || variantOf(first) != "" {
		return first, ""
	}
	var group []*system
	for _, s := range ss {
		if s.entry == first.entry && s.backbone == first.backbone && variantOf(s) == "" {
			group = append(group, s)
		}
	}
	params, numeric := varyingParams(group)
	if len(params) == 0 || !numeric {
		return first, ""
	}
	for _, k := range params {
		if _, ok := defs[k]; !ok {
			return first, ""
		}
	}
	for _, s := range group {
		at := true
		for _, k := range params {
			v, _ := runners.Number(s.trial.Params[k])
			at = at && math.Abs(v-defs[k]) < 1e-6
		}
		if at {
			return s, " (the paper's default point)"
		}
	}
	return first, ""
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
		if len(s.done) == 0 {
			continue
		}
		per, models := s.usage()
		u, err := metrics.SummarizeUsage(per, opt.Prices, models)
		if err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("efficiency of %s: %v", s.name, err))
			continue
		}
		e := efficiency{s: s, usage: u, models: models, callsQ: u.Total.CallsPerQ, genQ: u.Total.CompletionPerQ, promptQ: u.Total.PromptPerQ,
			priced: u.Total.Priced && len(u.Roles) > 0, c: u.Total.CostPerQ}
		var secs []float64
		for _, it := range s.done {
			secs = append(secs, it.WallMS/1000)
		}
		if l, err := stats.Latency(secs, math.Inf(1)); err == nil {
			e.lat, e.hasLat = l, true
		}
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
	t := &Table{ID: "efficiency", Caption: c.caption("Efficiency per question: model calls, tokens, wall-clock latency (s) and cost (USD)")}
	t.Columns = []Column{{Name: "System"}, {Name: "EX", Numeric: true, Better: Higher}, {Name: "calls/q", Numeric: true, Better: Lower},
		{Name: "samples/q", Numeric: true}, {Name: "prompt tok/q", Numeric: true, Better: Lower}, {Name: "gen tok/q", Numeric: true, Better: Lower},
		{Name: "lat min", Numeric: true, Better: Lower}, {Name: "lat median", Numeric: true, Better: Lower},
		{Name: "lat mean", Numeric: true, Better: Lower}, {Name: "lat max", Numeric: true, Better: Lower},
		{Name: "lat CV", Numeric: true}, {Name: "cost/q", Numeric: true, Better: Lower}}
	anyUnpriced := false
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
		if e.priced {
			row = append(row, num(e.c, 5))
		} else {
			anyUnpriced = true
			row = append(row, text("-"))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Latency is the wall time of a work item; CV = std/mean. Calls and tokens count cached answers at list price, as papers report them. samples/q: answers received per question (one call with n = 8 gives 8; \"-\": not recorded)."}
	if anyUnpriced {
		t.Notes = append(t.Notes, "cost \"-\": no price given for a model (report --price MODEL=PROMPT:COMPLETION, USD per 1M tokens).")
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

// turnsTables builds ReAct-SQL Table 6 (accuracy and average turns by
// difficulty) for systems whose traces count "turns".
func turnsTables(c *corpus) []*Table {
	var out []*Table
	for _, b := range c.benches {
		var ss []*system
		for _, s := range c.onBench(b) {
			if _, has := s.counter(runners.CounterTurns); has {
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
			turns, _ := s.counter(runners.CounterTurns)
			row := []Cell{text(s.row)}
			for _, l := range levels {
				in := func(i int) bool {
					return l == "overall" || s.difficulty(s.done[i].QuestionID, &s.done[i]) == l
				}
				acc, n := groupAcc(s, in)
				sum := 0.0
				for i := range s.done {
					if in(i) {
						sum += turns[i]
					}
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
			vals, _ := s.counter(n)
			k := 0
			for _, v := range vals {
				if v > 0 {
					k++
				}
			}
			rates[s][n] = float64(k) / float64(len(vals))
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
