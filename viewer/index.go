package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/satint"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// DefaultPreviewRows is the number of result rows a preview keeps.
const DefaultPreviewRows = 5

// DefaultPreviewTimeout bounds one preview query. Previews are for the
// eye; a query slower than this is shown as timed out (its verdict, from
// the run, is unaffected).
const DefaultPreviewTimeout = 2 * time.Second

// maxPairs caps the McNemar pairs the index precomputes (every pair of
// trials on one benchmark); past it the page counts discordant questions
// itself and shows no p-value.
const maxPairs = 5000

// Options configure Open.
type Options struct {
	// Benchmark opens the benchmark of a trial for the question text,
	// evidence, gold SQL, difficulty, reasoning types, result previews and
	// schemas. When it is nil or fails, the questions show what the
	// verdicts hold (database, difficulty) and a warning says why.
	Benchmark func(b spec.BenchmarkSpec) (*datasets.Benchmark, error)
	// PreviewRows is the rows kept per preview (default
	// DefaultPreviewRows); PreviewTimeout bounds each preview query
	// (default DefaultPreviewTimeout). NoPreviews skips executing SQL.
	PreviewRows    int
	PreviewTimeout time.Duration
	NoPreviews     bool
	// Prices are USD per million tokens by model name; they override the
	// runs' own price tables.
	Prices map[string]metrics.Price
	// ModelCache is the model cache file (models.db) the calls' messages
	// and answers are read from, for every run; "" reads each run's own
	// (the cache directory it recorded, else <run>/cache).
	ModelCache string
	// Baseline, Seed, Resamples and Level configure the comparisons of
	// systems as report's flags do (stats.DefaultSeed,
	// stats.DefaultResamples and stats.DefaultLevel when zero), so that a
	// report's viewer shows the report's intervals. PaperDefaults are the
	// runners' defaults that sweeps are compared against
	// (runners.PaperDefaults when nil).
	Baseline      string
	Seed          uint64
	Resamples     int
	Level         float64
	PaperDefaults map[string]map[string]float64
}

// Index is the content of data/index.js: everything the overview, the
// questions table and the disagreement view show.
type Index struct {
	Title     string   `json:"title"`
	Simulated bool     `json:"simulated"`
	Runs      []Run    `json:"runs"`
	Trials    []Trial  `json:"trials"`
	Benches   []string `json:"benches"`
	// Outcome codes of Row.Outcome, one character per trial.
	Codes     map[string]string `json:"codes"`
	Questions []Row             `json:"questions"`
	// Comparisons compare each system with its baseline, as compare, the
	// run summary and the report do (runstore.PlanFamilies,
	// stats.CompareFamily); Pairs are McNemar's tests of every two trials
	// of a benchmark, for the disagreement view.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	Pairs       []Pair       `json:"pairs,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
}

// Comparison is one system compared with its baseline: Trials and
// BaseTrials are the two systems' trials (one per seed), the rest is the
// stats.Comparison: questions N, seeds pooled, EX of each, the difference
// with its paired bootstrap interval, the discordant (seed, question)
// pairs B and C, the test and its p, p adjusted by Holm within the family
// of the baseline's comparisons (Family of them).
type Comparison struct {
	System      string  `json:"system"`
	Baseline    string  `json:"baseline"`
	Bench       string  `json:"bench"`
	Trials      []int   `json:"trials"`
	BaseTrials  []int   `json:"base_trials"`
	N           int     `json:"n"`
	Seeds       int     `json:"seeds"`
	AccBaseline float64 `json:"acc_baseline"`
	AccSystem   float64 `json:"acc_system"`
	Delta       float64 `json:"delta"`
	CILo        float64 `json:"ci_lo"`
	CIHi        float64 `json:"ci_hi"`
	Level       float64 `json:"level"`
	B           int     `json:"b"`
	C           int     `json:"c"`
	Test        string  `json:"test"`
	P           float64 `json:"p"`
	PHolm       float64 `json:"p_holm"`
	Family      int     `json:"family"`
	Significant bool    `json:"significant"`
	// Line is the comparison as the run summary prints it
	// (stats.Comparison.FormatLine, one decimal), for the page to show.
	Line string `json:"line,omitempty"`
	// Error says why the system could not be compared (no question in
	// common, other seeds); the numbers are then zero.
	Error string `json:"error,omitempty"`
}

// Run is one run directory.
type Run struct {
	Dir  string `json:"dir"`
	Name string `json:"name"`
	// Spec is the configuration the run stored: meta "spec" when a run
	// recorded its spec's text, else every trial's stored configuration
	// rendered as YAML (SpecStored false).
	Spec       string `json:"spec"`
	SpecStored bool   `json:"spec_stored"`
	// Call log totals, every call included (also those of items never
	// committed).
	Calls            int `json:"calls"`
	Cached           int `json:"cached"`
	Sent             int `json:"sent"`
	Loose            int `json:"loose"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ModelCache is the model cache file the calls' messages and answers
	// are read from, "" when there is none.
	ModelCache string `json:"model_cache,omitempty"`
}

// Trial is one trial's summary.
type Trial struct {
	Label   string            `json:"label"`
	Run     int               `json:"run"`
	ID      string            `json:"id"`
	Runner  string            `json:"runner"`
	Bench   string            `json:"bench"`
	Seed    int64             `json:"seed"`
	Roles   map[string]string `json:"roles,omitempty"`
	Params  map[string]any    `json:"params,omitempty"`
	Done    int               `json:"done"`
	Failed  int               `json:"failed"`
	Pending int               `json:"pending"`
	// Attempted and Correct are EX's one denominator and numerator;
	// EX = Correct / Attempted with its 95% Wilson interval.
	Attempted int     `json:"attempted"`
	Correct   int     `json:"correct"`
	EX        float64 `json:"ex"`
	CILo      float64 `json:"ci_lo"`
	CIHi      float64 `json:"ci_hi"`
	Partial   bool    `json:"partial"`
	// Excluded counts questions whose gold does not run, by status.
	Excluded map[string]int `json:"excluded,omitempty"`
	// FailedBy counts failed (and, under "error:", pending after an
	// infrastructure error) items by error class.
	FailedBy map[string]int `json:"failed_by,omitempty"`
	// Usage is the call log of the trial by role.
	Usage []RoleUsage `json:"usage"`
	Total RoleUsage   `json:"total"`
}

// RoleUsage is one role's calls from the call log, priced when the role's
// model has a price.
type RoleUsage struct {
	Role             string   `json:"role"`
	Model            string   `json:"model,omitempty"`
	Calls            int      `json:"calls"`
	Cached           int      `json:"cached"`
	Sent             int      `json:"sent,omitempty"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	LatencyMS        float64  `json:"latency_ms"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// Row is one question of the questions table. Outcome holds one character
// per trial (Index.Codes), Status the verdict's status (or the item's
// status when it has no verdict) per trial.
type Row struct {
	N          int      `json:"n"`
	Bench      string   `json:"b"`
	ID         string   `json:"id"`
	DB         string   `json:"db"`
	Difficulty string   `json:"d,omitempty"`
	Types      []string `json:"rt,omitempty"`
	Question   string   `json:"q,omitempty"`
	Outcome    string   `json:"o"`
	Status     []string `json:"s"`
}

// Outcome codes.
const (
	codeCorrect  = 'C'
	codeWrong    = 'W'
	codeFailed   = 'F'
	codeExcluded = 'X'
	codePending  = 'P'
	codeNone     = '.'
)

var codeNames = map[string]string{
	"C": "correct", "W": "wrong", "F": "failed (counted wrong)", "X": "gold does not run (not attempted)",
	"P": "pending", ".": "not in this trial's benchmark",
}

// Pair is McNemar's test of two trials on the questions both attempted:
// B counts questions only A got right, C those only B got right.
type Pair struct {
	A     int     `json:"a"`
	B     int     `json:"b"`
	N     int     `json:"n"`
	OnlyA int     `json:"only_a"`
	OnlyB int     `json:"only_b"`
	P     float64 `json:"p"`
	Test  string  `json:"test"`
}

// cell is one trial's outcome of a question as buildIndex gathers it:
// its code (0 when the trial has no item of it, codeFinished until the
// trial's outcomes are known) and its status.
type cell struct {
	code   byte
	failed bool
	status string
}

// codeFinished marks a done or failed item whose outcome code waits for
// its trial's outcomes.
const codeFinished = 1

// rowState is a question's row as buildIndex gathers it: besides what the
// index shows, its index in its benchmark (for ordering) and one cell per
// trial.
type rowState struct {
	Row
	index int
	cells []cell
}

// indexRows gathers the index's rows from the runs' items, streamed one
// trial at a time and never held (addTrial).
type indexRows struct {
	nTrials int
	rows    map[questionRef]*rowState
	order   []questionRef // in the order first met
	// statuses holds the handful of status strings, stored once each.
	statuses map[string]string
	touched  []*rowState
}

// newIndexRows returns empty rows of an index of nTrials trials.
func newIndexRows(nTrials int) *indexRows {
	return &indexRows{nTrials: nTrials, rows: map[questionRef]*rowState{}, statuses: map[string]string{}}
}

// intern returns s, stored once.
func (x *indexRows) intern(s string) string {
	if v, ok := x.statuses[s]; ok {
		return v
	}
	x.statuses[s] = s
	return s
}

// addTrial streams the verdicts of trial t of run r, the gi-th trial of
// the index, into the rows (their cells gi) and tr (its summary and the
// failures by class), and returns the trial's outcomes.
func (x *indexRows) addTrial(r *runstore.RunData, t *runstore.RunTrial, gi int, tr *Trial) (runstore.Outcomes, error) {
	bk := t.Benchmark.Key()
	acc := runstore.NewOutcomeAcc(false)
	x.touched = x.touched[:0]
	if err := r.EachVerdict(t, func(it *runstore.Item) error {
		k := questionRef{bk, it.QuestionID}
		row, ok := x.rows[k]
		if !ok {
			row = &rowState{Row: Row{Bench: bk, ID: it.QuestionID}, index: it.Index, cells: make([]cell, x.nTrials)}
			x.rows[k] = row
			x.order = append(x.order, k)
		}
		// The outcome map shares the row's question id.
		it.QuestionID = row.ID
		if it.Verdict != nil {
			if row.DB == "" {
				row.DB = it.Verdict.DBID
			}
			if row.Difficulty == "" {
				row.Difficulty = it.Verdict.Difficulty
			}
		}
		acc.Add(it)
		switch it.Status {
		case runstore.StatusFailed:
			addCount(&tr.FailedBy, it.ErrorClass)
		case runstore.StatusError:
			addCount(&tr.FailedBy, "error:"+it.ErrorClass)
		}
		c := cell{code: codePending, status: x.intern(it.Status)}
		if it.Verdict != nil && it.Verdict.Status != "" {
			c.status = x.intern(string(it.Verdict.Status))
		}
		switch it.Status {
		case runstore.StatusDone, runstore.StatusFailed:
			// Resolved once the trial's outcomes are known.
			c.code, c.failed = codeFinished, it.Status == runstore.StatusFailed
		}
		row.cells[gi] = c
		x.touched = append(x.touched, row)
		return nil
	}); err != nil {
		return runstore.Outcomes{}, fmt.Errorf("viewer: %w", err)
	}
	o := acc.Outcomes(r.Totals[t.ID])
	s := acc.Summary(t.Label, o)
	tr.Done, tr.Failed, tr.Pending, tr.Attempted = s.Done, s.Failed, s.Pending, s.Attempted
	tr.Correct, tr.EX, tr.CILo, tr.CIHi, tr.Partial = s.Correct, s.EX, s.CILo, s.CIHi, s.Partial
	for st, n := range s.Excluded {
		if tr.Excluded == nil {
			tr.Excluded = map[string]int{}
		}
		tr.Excluded[string(st)] = n
	}
	for _, row := range x.touched {
		c := &row.cells[gi]
		if c.code != codeFinished {
			continue
		}
		correct, attempted := o.Correct[row.ID]
		switch {
		case !attempted:
			c.code = codeExcluded
		case c.failed:
			c.code = codeFailed
		case correct:
			c.code = codeCorrect
		default:
			c.code = codeWrong
		}
	}
	return o, nil
}

// questionRef locates a question: its benchmark and id, and the trials
// (global indexes) that run on its benchmark.
type questionRef struct {
	bench string
	id    string
}

// benchSource is one benchmark as the viewer opened it (b nil when it
// could not be opened).
type benchSource struct {
	b   *datasets.Benchmark
	ex  map[string]*datasets.Example
	err error
}

// trialRef is where a trial's items live.
type trialRef struct {
	run   int
	id    string
	bench string
}

// buildIndex reads the runs' verdicts and call totals (no traces).
func (v *Viewer) buildIndex(ctx context.Context, runs []*runstore.RunData) error {
	idx := &Index{Codes: maps.Clone(codeNames)}
	var names []string
	labelCount := map[string]int{}
	for _, r := range runs {
		names = append(names, r.Name())
		idx.Simulated = idx.Simulated || r.Simulated
		for _, t := range r.Trials {
			labelCount[t.Label]++
		}
	}
	// The title ends as the report's does (runstore.TitleNote).
	idx.Title = strings.Join(names, " + ") + runstore.TitleNote(runs...)
	nTrials := 0
	for _, r := range runs {
		nTrials += len(r.Trials)
	}
	rows := newIndexRows(nTrials)
	var outcomes []map[string]bool
	gi := 0
	for ri, r := range runs {
		sp, stored := runSpec(r)
		idx.Runs = append(idx.Runs, Run{Dir: r.Dir, Name: r.Name(), Spec: sp, SpecStored: stored, Calls: r.CallLog.Calls,
			Cached: r.CallLog.Cached, Sent: r.CallLog.Sent, Loose: r.CallLog.Loose, PromptTokens: r.CallLog.PromptTokens,
			CompletionTokens: r.CallLog.CompletionTokens})
		if note := r.StaleNote(false); note != "" {
			idx.Warnings = append(idx.Warnings, note)
		}
		for _, l := range r.BadCounts {
			idx.Warnings = append(idx.Warnings, r.Name()+": "+l)
		}
		if src := v.runs[ri]; src.cache != nil {
			idx.Runs[ri].ModelCache = src.cachePath
		} else if r.CallLog.Calls > 0 {
			idx.Warnings = append(idx.Warnings, r.Name()+": "+src.cacheErr+": the model calls show no messages or answers")
		}
		usage, err := v.runs[ri].reader.CallUsage(ctx)
		if err != nil {
			return err
		}
		prices := map[string]metrics.Price{}
		if ps, err := r.Prices(); err != nil {
			idx.Warnings = append(idx.Warnings, err.Error())
		} else {
			for m, p := range ps {
				prices[m] = p
			}
		}
		for m, p := range v.opt.Prices {
			prices[m] = p
		}
		// The comparisons are compareSystems', over every run.
		for ti := range r.Trials {
			t := &r.Trials[ti]
			bk := t.Benchmark.Key()
			label := t.Label
			if labelCount[label] > 1 && len(runs) > 1 {
				label = names[ri] + ": " + label
			}
			tr := Trial{Label: label, Run: ri, ID: t.ID, Runner: t.Runner, Bench: bk, Seed: t.Seed, Roles: t.Roles,
				Params: t.Params}
			o, err := rows.addTrial(r, t, gi, &tr)
			if err != nil {
				return err
			}
			tr.Usage, tr.Total = trialUsage(usage[t.ID], t, prices)
			idx.Trials = append(idx.Trials, tr)
			v.trials = append(v.trials, trialRef{run: ri, id: t.ID, bench: bk})
			outcomes = append(outcomes, o.Correct)
			if !slices.Contains(idx.Benches, bk) {
				idx.Benches = append(idx.Benches, bk)
			}
			gi++
		}
	}
	benchRank := map[string]int{}
	for i, b := range idx.Benches {
		benchRank[b] = i
	}
	order := rows.order
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.bench != b.bench {
			return benchRank[a.bench] < benchRank[b.bench]
		}
		if ra, rb := rows.rows[a].index, rows.rows[b].index; ra != rb {
			return ra < rb
		}
		return a.id < b.id
	})
	// Labels from the benchmarks.
	for _, bk := range idx.Benches {
		src := v.benches[bk]
		if src == nil {
			continue
		}
		if src.err != nil {
			idx.Warnings = append(idx.Warnings, fmt.Sprintf("benchmark %s: %v; questions show only what the verdicts hold (no question text, gold SQL or result previews)", bk, src.err))
		}
	}
	for n, k := range order {
		row := rows.rows[k]
		row.N = n
		if src := v.benches[k.bench]; src != nil && src.ex != nil {
			if e, ok := src.ex[k.id]; ok {
				row.Question, row.Types = e.Question, e.ReasoningTypes
				if e.Difficulty != "" {
					row.Difficulty = e.Difficulty
				}
				if e.DBID != "" {
					row.DB = e.DBID
				}
			}
		}
		var o strings.Builder
		row.Status = make([]string, len(idx.Trials))
		for ti, tr := range v.trials {
			if tr.bench != k.bench {
				o.WriteByte(codeNone)
				continue
			}
			c := row.cells[ti]
			if c.code == 0 {
				o.WriteByte(codePending)
				row.Status[ti] = "pending"
				continue
			}
			o.WriteByte(c.code)
			row.Status[ti] = c.status
		}
		row.Outcome = o.String()
		row.cells = nil
		idx.Questions = append(idx.Questions, row.Row)
		v.questions = append(v.questions, k)
	}
	cmps, err := v.compareSystems(runs, names, labelCount, outcomes)
	if err != nil {
		return err
	}
	idx.Comparisons = cmps
	// McNemar pairs of two trials (stats.ComparePairs, one pair each, no
	// interval).
	for a := 0; a < len(idx.Trials) && len(idx.Pairs) < maxPairs; a++ {
		for b := a + 1; b < len(idx.Trials) && len(idx.Pairs) < maxPairs; b++ {
			if idx.Trials[a].Bench != idx.Trials[b].Bench {
				continue
			}
			res, err := stats.ComparePairs([][2]stats.Arm{{{Key: idx.Trials[a].Label, Outcomes: stats.Single(outcomes[a])},
				{Key: idx.Trials[b].Label, Outcomes: stats.Single(outcomes[b])}}}, stats.FamilyOptions{Intersect: true, NoInterval: true})
			if err != nil || res[0].Err != nil {
				continue
			}
			c := res[0].Comparison
			idx.Pairs = append(idx.Pairs, Pair{A: a, B: b, N: c.N, OnlyA: c.B, OnlyB: c.C, P: c.P, Test: c.Test})
		}
	}
	v.index = idx
	return nil
}

// compareSystems compares every system of the runs with its baseline as
// the report does: the trials of a run that differ only in their seed are
// one system (runstore.Systems), named as the report names it (prefixed by
// its run when two runs share a label); runstore.PlanFamilies picks the
// baselines and stats.CompareFamilies compares, with the options' seed,
// resamples and level. outcomes are the trials' outcome maps in the
// order of the index's trials.
func (v *Viewer) compareSystems(runs []*runstore.RunData, names []string, labelCount map[string]int, outcomes []map[string]bool) ([]Comparison, error) {
	type sys struct {
		name, bench string
		trials      []int
	}
	var systems []sys
	var refs []runstore.SystemRef
	var arms []stats.Arm
	first := 0
	for ri, r := range runs {
		for _, s := range runstore.Systems(r.Trials) {
			t := &r.Trials[s.Trials[0]]
			name := s.Label
			if labelCount[t.Label] > 1 && len(runs) > 1 {
				name = names[ri] + ": " + s.Label
			}
			ref := s.Ref(r.Trials)
			ref.Names = []string{name, s.Label}
			if ref.Sweep != "" {
				ref.Sweep = fmt.Sprint(ri) + "\x00" + ref.Sweep
			}
			var global []int
			for _, ti := range s.Trials {
				global = append(global, first+ti)
			}
			systems = append(systems, sys{name: name, bench: s.Benchmark, trials: global})
			refs = append(refs, ref)
			arms = append(arms, stats.Arm{Key: name, Outcomes: s.Replicates(outcomes[first:])})
		}
		first += len(r.Trials)
	}
	defaults := v.opt.PaperDefaults
	if defaults == nil {
		defaults = runners.PaperDefaults()
	}
	fams := runstore.PlanFamilies(refs, v.opt.Baseline, defaults)
	byIndex, err := stats.CompareFamilies(fams, arms, stats.FamilyOptions{Seed: v.opt.Seed, Resamples: v.opt.Resamples, Level: v.opt.Level, Intersect: true})
	if err != nil {
		return nil, fmt.Errorf("viewer: %w", err)
	}
	var out []Comparison
	for _, f := range fams {
		for _, i := range f.Members {
			sc := byIndex[i]
			if sc == nil {
				continue
			}
			s, b := systems[i], systems[sc.Base]
			c := Comparison{System: s.name, Baseline: b.name, Bench: s.bench, Trials: s.trials, BaseTrials: b.trials}
			if sc.Err != nil {
				c.Error = sc.Err.Error()
			} else {
				x := sc.Comparison
				c.N, c.Seeds, c.AccBaseline, c.AccSystem, c.Delta = x.N, x.Seeds, x.AccA, x.AccB, x.Delta
				c.CILo, c.CIHi, c.Level, c.B, c.C, c.Test = x.CI.Lo, x.CI.Hi, x.CI.Level, x.B, x.C, x.Test
				c.P, c.PHolm, c.Family, c.Significant = x.P, x.PAdj, x.Family, x.Significant()
				c.Line = x.FormatLine(1)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func addCount(m *map[string]int, k string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}

// trialUsage turns a trial's call-log totals into per-role usage, priced
// by the role's model (a role the trial does not bind ran on its reason
// model, as the scheduler falls back).
func trialUsage(byRole map[string]runstore.RoleCalls, t *runstore.RunTrial, prices map[string]metrics.Price) ([]RoleUsage, RoleUsage) {
	roles := make([]string, 0, len(byRole))
	for r := range byRole {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	total := RoleUsage{Role: "total"}
	priced := len(roles) > 0
	var cost float64
	var out []RoleUsage
	for _, role := range roles {
		c := byRole[role]
		model, ok := t.Roles[role]
		if !ok {
			model = t.Roles[runners.RoleReason]
		}
		u := RoleUsage{Role: role, Model: model, Calls: c.Calls, Cached: c.Cached, Sent: c.Sent, PromptTokens: c.PromptTokens,
			CompletionTokens: c.CompletionTokens, LatencyMS: c.LatencyMS}
		if p, ok := prices[role]; ok {
			u.CostUSD = price(p, c)
		} else if p, ok := prices[model]; ok {
			u.CostUSD = price(p, c)
		}
		if u.CostUSD == nil {
			priced = false
		} else {
			cost += *u.CostUSD
		}
		total.Calls += c.Calls
		total.Cached += c.Cached
		total.Sent += c.Sent
		total.PromptTokens = satint.Add(total.PromptTokens, c.PromptTokens)
		total.CompletionTokens = satint.Add(total.CompletionTokens, c.CompletionTokens)
		total.LatencyMS += c.LatencyMS
		out = append(out, u)
	}
	if priced {
		total.CostUSD = &cost
	}
	return out, total
}

// price is metrics.SummarizeUsage's cost: every call, cached or not, at
// list price.
func price(p metrics.Price, c runstore.RoleCalls) *float64 {
	v := (float64(c.PromptTokens)*p.PromptPerM + float64(c.CompletionTokens)*p.CompletionPerM) / 1e6
	return &v
}

// runSpec returns the run's spec text when the run stored one (meta
// "spec"), else each trial's stored configuration as YAML, empty values
// left out.
func runSpec(r *runstore.RunData) (string, bool) {
	if s := r.Meta["spec"]; s != "" {
		return s, true
	}
	var trials []any
	for _, t := range r.Trials {
		raw, err := json.Marshal(t.Trial)
		if err != nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			continue
		}
		delete(m, "id")
		delete(m, "order")
		// The identity only names what the label shows (spec.Identity).
		delete(m, "identity")
		trials = append(trials, prune(m))
	}
	doc := map[string]any{"name": r.Meta["name"], "trials": trials}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", false
	}
	return "# The spec file is not stored in run.db; these are the trials' stored configurations.\n" + string(out), false
}

// prune drops empty values (nil, "", 0, false, empty maps and lists) of a
// decoded JSON value.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if p := prune(e); !empty(p) {
				out[k] = p
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, prune(e))
		}
		return out
	}
	return v
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case float64:
		return x == 0
	case bool:
		return !x
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

var errNoQuestion = errors.New("no such question")
