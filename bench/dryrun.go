package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// Token assumptions of the dry run's estimate (t2sbench's choices, stated
// in its output): a prompt is about one token per CharsPerToken characters
// of its text (the rule of thumb of OpenAI's tokenizer documentation for
// English) plus PromptOverheadTokens of instructions, and a completion is
// EstimateCompletionTokens (a short reasoning and a SQL block; a reasoning
// model writes several times more).
const (
	CharsPerToken            = 4
	PromptOverheadTokens     = 200
	EstimateCompletionTokens = 300
)

// DryRunOptions select the work items as Run's Options do.
type DryRunOptions struct {
	Shard spec.Shard
	Limit int
	// Dir is the run directory: items already done there are counted,
	// nothing is created.
	Dir string
	// CacheDir is the shared cache directory (default <Dir>/cache).
	CacheDir string
}

// DryTrial is the plan of one trial.
type DryTrial struct {
	Label, Runner, Benchmark string
	// Questions are the trial's questions after --limit and --shard; Done
	// are those the run directory already holds as done or failed.
	Questions, Done int
	// PerQuestion is the runner's estimate of model requests per
	// question by role (nil when the runner makes none).
	PerQuestion map[string]float64
	// Models binds each role of PerQuestion to a model name.
	Models map[string]string
	// Calls, PromptTokens, CompletionTokens and Cost are the estimates
	// for the questions still to run; Priced is false when a model the
	// trial calls has no price.
	Calls, PromptTokens, CompletionTokens, Cost float64
	Priced                                      bool
	// Measured is true when PerQuestion and the token counts come from
	// the run directory's call log of MeasuredItems finished items (at
	// least MeasuredMin) rather than from the runner's estimate.
	Measured      bool
	MeasuredItems int
	// MeasuredRate is the number of finished items' traces (of the same
	// runner on the same benchmark, MeasuredMin or more) whose measured
	// rate the estimate used (runners.TraceEstimator); 0 when it did not.
	MeasuredRate int
	// CachedSamples counts the model cache's stored answers of the
	// trial's models (by the model name the backend reports): a cheap
	// hint of how much a rerun will find cached, not an exact lookup.
	CachedSamples int
}

// DryRun is the plan of a run before any model is called.
type DryRun struct {
	Name string
	// PlanTrials is the plan's trials; Trials are those planned, all of
	// them unless Interrupted (Ctrl-C) stopped the dry run first.
	PlanTrials  int
	Interrupted bool
	Trials      []DryTrial
	// Notes state the estimate's assumptions.
	Notes []string
}

// PlanDryRun loads the plan's benchmarks (no model is built or called),
// counts the work items, reads what the run directory has done (creating
// nothing) and estimates calls, tokens and cost per trial. Requests that
// trials share through the model cache (runners.SharedRequests: the
// points of a grid over weights that only rank answers) are counted for
// the first trial that sends them. When ctx is cancelled (Ctrl-C) it
// returns the trials planned so far, marked Interrupted, with ctx's error.
func PlanDryRun(ctx context.Context, p *spec.Plan, env Env, opt DryRunOptions) (*DryRun, error) {
	cacheDir := opt.CacheDir
	if cacheDir == "" {
		cacheDir = p.Spec.Cache
	}
	if cacheDir == "" {
		cacheDir = filepath.Join(opt.Dir, "cache")
	}
	pl := newDryPlanner(ctx, p, env, opt)
	for _, t := range p.Trials {
		if ctx.Err() != nil {
			return pl.stop()
		}
		if _, err := pl.runnerOf(t); err != nil {
			return nil, err
		}
	}
	if err := pl.readRunDir(); err != nil {
		return nil, err
	}
	var err error
	if pl.cached, err = cachedByModel(ctx, filepath.Join(cacheDir, runstore.ModelCacheFile)); err != nil {
		return nil, err
	}
	loadDir, cleanup, err := dryLoadDir(cacheDir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	pl.loadDir = loadDir
	pl.payFinished()
	for _, t := range p.Trials {
		if ctx.Err() != nil {
			return pl.stop()
		}
		bi, err := pl.benchmark(t)
		if err != nil {
			if ctx.Err() != nil {
				return pl.stop()
			}
			return nil, err
		}
		dt, err := pl.planTrial(t, bi)
		if err != nil {
			return nil, err
		}
		pl.d.Trials = append(pl.d.Trials, dt)
	}
	if pl.shared > 0 {
		pl.d.Notes = append(pl.d.Notes, fmt.Sprintf("shared: %.0f more calls are requests an earlier trial sends alike (parameters they do not depend on, such as a grid's score weights): the model cache answers them, so they are not counted; workers running such trials at once may send some of them", pl.shared))
	}
	return pl.d, nil
}

// dryLoadDir returns the directory the benchmarks' loaders write derived
// files in, and what removes it afterwards. Loaders may write under the
// cache directory; a dry run creates nothing, so a missing one is
// replaced by a scratch one.
func dryLoadDir(cacheDir string) (string, func(), error) {
	if _, err := os.Stat(cacheDir); err == nil {
		return cacheDir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "t2sbench-dryrun-")
	if err != nil {
		return "", nil, fmt.Errorf("dry run: %w", err)
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// dryPlanner is the state of one PlanDryRun.
type dryPlanner struct {
	ctx context.Context
	p   *spec.Plan
	env Env
	opt DryRunOptions
	d   *DryRun
	// builtBy holds the runners, built once per configuration (runner
	// name and parameters): a grid's points differ in parameters the
	// estimates mostly do not read.
	builtBy map[string]dryRunner
	// done holds the item keys the run directory holds as done or
	// failed; doneOf the same questions by trial id.
	done   map[string]bool
	doneOf map[string][]string
	// meas is the run directory's call log by trial id.
	meas map[string]*runstore.Measured
	// traces are the finished items' traces by runner and benchmark, for
	// the runners whose estimate a measured rate improves.
	traces map[string][]runners.Trace
	// cached counts the model cache's answers by model name.
	cached map[string]int
	// loadDir is where the benchmarks' loaders write derived files.
	loadDir string
	benches map[string]*dryBench
	// paid holds, per share key (shareKey), the questions whose requests
	// the model cache already holds or an earlier trial sends: every
	// trial's finished questions, then each trial's questions as it is
	// counted.
	paid map[string]map[string]bool
	// estimates memoizes runners.EstimateCalls by runner configuration
	// and model prior.
	estimates map[string]map[string]float64
	// shared counts the calls left out as requests an earlier trial
	// sends.
	shared float64
}

// dryRunner is a runner built for the dry run, with the configuration key
// it was built under.
type dryRunner struct {
	r   runners.Runner
	key string
}

// dryBench is a benchmark loaded for the dry run.
type dryBench struct {
	b      *datasets.Benchmark
	prompt map[string]float64 // question id -> estimated prompt tokens
}

// newDryPlanner returns the planner of plan p, with nothing read yet.
func newDryPlanner(ctx context.Context, p *spec.Plan, env Env, opt DryRunOptions) *dryPlanner {
	return &dryPlanner{
		ctx: ctx, p: p, env: env, opt: opt,
		d:         &DryRun{Name: p.Spec.Name, PlanTrials: len(p.Trials), Notes: dryRunNotes()},
		builtBy:   map[string]dryRunner{},
		done:      map[string]bool{},
		doneOf:    map[string][]string{},
		traces:    map[string][]runners.Trace{},
		benches:   map[string]*dryBench{},
		paid:      map[string]map[string]bool{},
		estimates: map[string]map[string]float64{},
	}
}

// stop returns the trials planned so far, marked Interrupted.
func (pl *dryPlanner) stop() (*DryRun, error) {
	pl.d.Interrupted = true
	return pl.d, pl.ctx.Err()
}

// runnerOf returns trial t's runner, built once per configuration.
func (pl *dryPlanner) runnerOf(t *spec.Trial) (dryRunner, error) {
	raw, _ := json.Marshal(t.Params)
	k := t.Runner + "\x00" + string(raw)
	if b, ok := pl.builtBy[k]; ok {
		return b, nil
	}
	r, err := runners.New(t.Runner, t.Params)
	if err != nil {
		return dryRunner{}, fmt.Errorf("trial %s: %w", t.Label, err)
	}
	b := dryRunner{r: r, key: k}
	pl.builtBy[k] = b
	return b, nil
}

// readRunDir reads what the run directory has done, if it holds a store:
// the finished items, the call log and, when a runner estimates from
// them, the finished items' traces.
func (pl *dryPlanner) readRunDir() error {
	dir := pl.opt.Dir
	wantTraces := false
	for _, b := range pl.builtBy {
		_, ok := b.r.(runners.TraceEstimator)
		wantTraces = wantTraces || ok
	}
	if _, err := os.Stat(filepath.Join(dir, runstore.StoreFile)); err != nil {
		return nil
	}
	var err error
	if pl.meas, err = runstore.MeasuredCalls(dir); err != nil {
		return err
	}
	r, err := runstore.ReadRun(dir, wantTraces)
	if err != nil {
		return err
	}
	for _, t := range r.Trials {
		for _, it := range t.Items {
			if it.Status == runstore.StatusDone || it.Status == runstore.StatusFailed {
				pl.done[runstore.ItemKey(t.ID, it.QuestionID)] = true
				pl.doneOf[t.ID] = append(pl.doneOf[t.ID], it.QuestionID)
			}
			if wantTraces && it.Status == runstore.StatusDone && it.Result != nil {
				k := traceKey(t.Runner, t.Benchmark)
				pl.traces[k] = append(pl.traces[k], it.Result.Trace)
			}
		}
	}
	return nil
}

// payer returns the questions paid for under share key k.
func (pl *dryPlanner) payer(k string) map[string]bool {
	if pl.paid[k] == nil {
		pl.paid[k] = map[string]bool{}
	}
	return pl.paid[k]
}

// payFinished marks every trial's finished questions paid for under the
// share keys of its roles.
func (pl *dryPlanner) payFinished() {
	for _, t := range pl.p.Trials {
		b, _ := pl.runnerOf(t)
		for _, role := range runnerRoles(t.Runner) {
			k := shareKey(t, b.r, role)
			if k == "" {
				continue
			}
			for _, q := range pl.doneOf[t.ID] {
				pl.payer(k)[q] = true
			}
		}
	}
}

// benchmark returns trial t's benchmark under the options' limit, loaded
// once per name, data, split and limit.
func (pl *dryPlanner) benchmark(t *spec.Trial) (*dryBench, error) {
	bs := t.Benchmark
	if pl.opt.Limit > 0 && (bs.Limit == 0 || pl.opt.Limit < bs.Limit) {
		bs.Limit = pl.opt.Limit
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d", bs.Name, bs.Data, bs.Split, bs.Limit)
	if bi := pl.benches[key]; bi != nil {
		return bi, nil
	}
	b, err := pl.env.OpenBenchmark(pl.ctx, bs, pl.loadDir)
	if err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", bs.Name, err)
	}
	if bs.Limit > 0 && len(b.Examples) > bs.Limit {
		b.Examples = b.Examples[:bs.Limit]
	}
	bi := &dryBench{b: b, prompt: promptTokens(pl.ctx, b)}
	if b.Engine != nil {
		b.Engine.Close()
	}
	pl.benches[key] = bi
	return bi, nil
}

// planTrial estimates trial t on benchmark bi.
func (pl *dryPlanner) planTrial(t *spec.Trial, bi *dryBench) (DryTrial, error) {
	b, err := pl.runnerOf(t)
	if err != nil {
		return DryTrial{}, err
	}
	dt := DryTrial{Label: t.Label, Runner: t.Runner, Benchmark: t.Benchmark.DatasetName(), Models: map[string]string{}, Priced: true}
	ms := pl.meas[t.ID]
	pl.perQuestion(&dt, t, b, ms)
	left := pl.questionsLeft(&dt, t, bi)
	pl.estimateRoles(&dt, t, b, bi, ms, left)
	return dt, nil
}

// perQuestion sets dt's calls per question by role: measured from the
// trial's call log ms when it holds MeasuredMin items or more, else the
// runner's rate measured on the benchmark's traces when it has one, else
// the runner's estimate.
func (pl *dryPlanner) perQuestion(dt *DryTrial, t *spec.Trial, b dryRunner, ms *runstore.Measured) {
	prior := modelPrior(t)
	ekey := fmt.Sprintf("%s\x00%v", b.key, prior)
	pq, ok := pl.estimates[ekey]
	if !ok {
		pq, _ = runners.EstimateCalls(b.r, prior)
		pl.estimates[ekey] = pq
	}
	dt.PerQuestion = maps.Clone(pq)
	if ms != nil {
		dt.MeasuredItems = ms.Items
	}
	if ms != nil && ms.Items >= MeasuredMin {
		dt.Measured = true
		dt.PerQuestion = map[string]float64{}
		for role, n := range ms.Calls {
			dt.PerQuestion[role] = n / float64(ms.Items)
		}
	} else if te, ok := b.r.(runners.TraceEstimator); ok {
		if tr := pl.traces[traceKey(t.Runner, t.Benchmark)]; len(tr) >= MeasuredMin {
			if est, ok := te.EstimateCallsFromTraces(prior, tr); ok {
				dt.PerQuestion, dt.MeasuredRate = est, len(tr)
			}
		}
	}
}

// questionsLeft counts trial t's questions in the shard and those done in
// dt, and returns the ids of those still to run.
func (pl *dryPlanner) questionsLeft(dt *DryTrial, t *spec.Trial, bi *dryBench) []string {
	var left []string
	for _, ex := range bi.b.Examples {
		if !pl.opt.Shard.Has(t.ID, ex.ID) {
			continue
		}
		dt.Questions++
		if pl.done[runstore.ItemKey(t.ID, ex.ID)] {
			dt.Done++
			continue
		}
		left = append(left, ex.ID)
	}
	return left
}

// estimateRoles binds each role of dt.PerQuestion to its model and adds to
// dt the calls, tokens and cost of the questions left, less those an
// earlier trial sends alike, and the model cache's answers of its models.
func (pl *dryPlanner) estimateRoles(dt *DryTrial, t *spec.Trial, b dryRunner, bi *dryBench, ms *runstore.Measured, left []string) {
	seen := map[string]bool{}
	for role, n := range dt.PerQuestion {
		m := t.RoleModel(role)
		dt.Models[role] = m
		sk := shareKey(t, b.r, role)
		count, perCall := 0.0, 0.0
		for _, q := range left {
			if sk != "" {
				if pl.payer(sk)[q] {
					pl.shared += n
					continue
				}
				pl.payer(sk)[q] = true
			}
			count++
			perCall += bi.prompt[q]
		}
		calls := n * count
		dt.Calls += calls
		pt, ct := n*perCall, calls*EstimateCompletionTokens
		if dt.Measured && ms.Calls[role] > 0 {
			pt = calls * ms.Prompt[role] / ms.Calls[role]
			ct = calls * ms.Completion[role] / ms.Calls[role]
		}
		dt.PromptTokens += pt
		dt.CompletionTokens += ct
		if price, ok := pl.p.Spec.Prices[m]; ok {
			dt.Cost += price.Cost(pt, ct)
		} else if calls > 0 {
			dt.Priced = false
		}
		if !seen[m] {
			seen[m] = true
			dt.CachedSamples += pl.cached[cacheModelName(t.Models[m])]
		}
	}
}

// dryRunNotes state the estimate's assumptions.
func dryRunNotes() []string {
	return []string{
		"calls/q: each runner's estimate from its parameters and, for a sim model, its p (runners.CallEstimator; formulas and assumptions in runners/*/estimate.go)",
		fmt.Sprintf("  marked *: measured instead, from the call log of the trial's finished items in the run directory (%d or more)", MeasuredMin),
		fmt.Sprintf("  marked +: the runner's rate measured on the traces of its finished items on the benchmark in the run directory (%d or more; runners.TraceEstimator)", MeasuredMin),
		fmt.Sprintf("tokens: prompt = (schema DDL + question + evidence characters)/%d + %d per call, completion = %d per call (assumptions, not measurements)", CharsPerToken, PromptOverheadTokens, EstimateCompletionTokens),
		"cost: the spec's prices (USD per million tokens) times the token estimate; \"-\" where a model has no price",
		"cached: answers in the model cache from the trial's models (a hint; the cache key also covers the prompt)",
	}
}

// runnerRoles are the roles the runner registered, and reason.
func runnerRoles(name string) []string {
	out := []string{runners.RoleReason}
	info, _ := runners.Lookup(name)
	for _, r := range info.Roles {
		if r.Role != runners.RoleReason {
			out = append(out, r.Role)
		}
	}
	return out
}

// traceKey groups finished items' traces by runner and benchmark.
func traceKey(runner string, b spec.BenchmarkSpec) string {
	return runner + "\x00" + b.Name + "\x00" + b.Data + "\x00" + b.Split
}

// shareKey identifies the requests t sends role: the trial's identity
// (Canon) over what those requests depend on, which is the runner,
// the role with its bound model, the benchmark (whatever its limit), the
// seed and the parameters but runners.IndependentParams. Trials with the
// same key send the role the same requests. It is "" when the runner
// declares no parameter independent of role.
func shareKey(t *spec.Trial, r runners.Runner, role string) string {
	ind := runners.IndependentParams(r, role)
	if len(ind) == 0 {
		return ""
	}
	u := *t
	u.Params = runners.Params{}
	for k, v := range t.Params {
		if !slices.Contains(ind, k) {
			u.Params[k] = v
		}
	}
	u.Roles = map[string]string{role: t.RoleModel(role)}
	u.Benchmark.Limit = 0
	raw, _ := json.Marshal(spec.Canon(&u))
	return string(raw)
}

// modelPrior is what the dry run knows of the model of t's reason role
// (runners.ModelPrior): for a sim model its configured accuracy, the
// role's p (role_p.reason, else p, else DefaultSimP), a fact about that
// model, not a guess; nothing for any other backend (the runners then
// assume their documented defaults).
func modelPrior(t *spec.Trial) runners.ModelPrior {
	m, ok := t.Models[t.Roles[runners.RoleReason]]
	if !ok || m.Backend != "sim" {
		return runners.ModelPrior{}
	}
	if p, ok := m.RoleP[runners.RoleReason]; ok {
		return runners.ModelPrior{Accuracy: p, Known: true}
	}
	if m.P != nil {
		return runners.ModelPrior{Accuracy: *m.P, Known: true}
	}
	return runners.ModelPrior{Accuracy: spec.DefaultSimP, Known: true}
}

// promptTokens estimates the prompt tokens of one call per question: its
// database's DDL (rendered once per database), question and evidence.
func promptTokens(ctx context.Context, b *datasets.Benchmark) map[string]float64 {
	ddl := map[string]int{}
	out := map[string]float64{}
	for _, ex := range b.Examples {
		n, ok := ddl[ex.DBID]
		if !ok && b.Engine != nil {
			if db, err := b.Engine.Open(ctx, ex.DBID); err == nil {
				if s, err := db.Schema(ctx); err == nil {
					n = len(datasets.RenderDDL(s, datasets.RenderOptions{}))
				}
				db.Close()
			}
			ddl[ex.DBID] = n
		}
		out[ex.ID] = float64(n+len(ex.Question)+len(ex.Evidence))/CharsPerToken + PromptOverheadTokens
	}
	return out
}

// MeasuredMin is the number of finished items of a trial from which the
// dry run takes its calls and tokens per question from the run directory's
// call log instead of the runner's estimate (t2sbench's choice: the mean
// of ten questions is already closer to the model's behaviour than an
// assumption about it).
const MeasuredMin = 10

// cacheModelName is the model name the cache records for m's answers.
func cacheModelName(m spec.ModelSpec) string {
	if m.Backend == "sim" {
		return "sim"
	}
	return m.Model
}

// cachedByModel counts the model cache's stored samples by model name,
// reading the cache read-only; a missing cache counts nothing.
func cachedByModel(ctx context.Context, path string) (map[string]int, error) {
	if _, err := os.Stat(path); err != nil {
		return map[string]int{}, nil
	}
	r, err := llm.OpenCacheReader(path)
	if err != nil {
		return nil, fmt.Errorf("model cache: %w", err)
	}
	defer r.Close()
	return r.SamplesByModel(ctx)
}

// Total sums the estimated calls of all trials.
func (d *DryRun) Total() (calls, cost float64, priced bool) {
	priced = true
	for _, t := range d.Trials {
		calls += t.Calls
		cost += t.Cost
		priced = priced && t.Priced
	}
	return calls, cost, priced
}

// Write prints the plan as a table, then totals and the notes.
func (d *DryRun) Write(w io.Writer) {
	if d.Interrupted {
		fmt.Fprintf(w, "dry run of %s: interrupted after %d of %d trials, no model called\n\n", d.Name, len(d.Trials), d.PlanTrials)
	} else {
		fmt.Fprintf(w, "dry run of %s: %d trials, no model called\n\n", d.Name, len(d.Trials))
	}
	cols := []textable.Column{{Name: "trial"}, {Name: "benchmark"}, {Name: "questions"}, {Name: "done"}, {Name: "calls/q (by role)"},
		{Name: "calls"}, {Name: "prompt tok"}, {Name: "compl. tok"}, {Name: "cost USD"}, {Name: "cached"}}
	for i := range cols {
		cols[i].Align = textable.Right
	}
	tab := textable.New(2, cols...)
	tab.Indent = 2
	for _, t := range d.Trials {
		cost := "-"
		if t.Priced {
			cost = fmt.Sprintf("%.2f", t.Cost)
		}
		pq := perRole(t.PerQuestion, t.Models)
		switch {
		case t.Measured:
			pq = "*" + pq
		case t.MeasuredRate > 0:
			pq = "+" + pq
		}
		tab.Row(t.Label, t.Benchmark, fmt.Sprint(t.Questions), fmt.Sprint(t.Done), pq, fmt.Sprintf("%.0f", t.Calls),
			fmt.Sprintf("%.0f", t.PromptTokens), fmt.Sprintf("%.0f", t.CompletionTokens), cost, fmt.Sprint(t.CachedSamples))
	}
	tab.Write(w)
	calls, cost, priced := d.Total()
	c := "-"
	if priced {
		c = fmt.Sprintf("%.2f", cost)
	}
	if d.Interrupted {
		fmt.Fprintf(w, "\ntotal of the %d trials planned: %.0f model calls expected, cost USD %s\n", len(d.Trials), calls, c)
	} else {
		fmt.Fprintf(w, "\ntotal: %.0f model calls expected, cost USD %s\n", calls, c)
	}
	for _, n := range d.Notes {
		fmt.Fprintln(w, "  "+n)
	}
}

// perRole renders "12.3 (reason=gpt 10.0, discriminator=gpt 2.3)".
func perRole(m map[string]float64, models map[string]string) string {
	if m == nil {
		return "no estimate"
	}
	roles := make([]string, 0, len(m))
	total := 0.0
	for r, n := range m {
		roles = append(roles, r)
		total += n
	}
	sort.Strings(roles)
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = fmt.Sprintf("%s=%s %.1f", r, models[r], m[r])
	}
	return fmt.Sprintf("%.1f (%s)", total, strings.Join(parts, ", "))
}
