package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/satint"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// Scorer scores one prediction against the gold answer of its example.
// metrics.Scorer satisfies it through the adapter in env.go.
type Scorer interface {
	Score(ctx context.Context, ex datasets.Example, predSQL string) runstore.Verdict
}

// CandidateScorer is a Scorer that also judges a result's stored
// candidates, whose marks the verdict keeps for pass@k and majority@k: it
// judges a final prediction and its candidates together, executing a
// candidate that is the final prediction once
// (metrics.Scorer.ScoreWithCandidates).
type CandidateScorer interface {
	ScoreWithCandidates(ctx context.Context, ex datasets.Example, predSQL string, sqls []string) (runstore.Verdict, []metrics.CandidateMark)
}

// Env is what the scheduler needs from the outside world: benchmarks,
// model clients and scorers. DefaultEnv wires datasets.Open, runners/llm
// and metrics; tests substitute fakes.
type Env struct {
	// OpenBenchmark loads one benchmark of the spec; cacheDir is the run's
	// cache directory (for databases a loader builds).
	OpenBenchmark func(ctx context.Context, b spec.BenchmarkSpec, cacheDir string) (*datasets.Benchmark, error)
	// NewClient builds the client of the named model for one benchmark.
	// It is called once per (model, benchmark) and shared by all trials.
	NewClient func(ctx context.Context, name string, m spec.ModelSpec, b *datasets.Benchmark, cacheDir string) (llm.Client, error)
	// NewScorer builds the scorer of one benchmark; goldCacheDir is shared
	// by every trial so that gold results are computed once.
	NewScorer func(b *datasets.Benchmark, bs spec.BenchmarkSpec, goldCacheDir string) (Scorer, error)
	// KnownBenchmark, when set, reports whether OpenBenchmark knows the
	// benchmark of a datasets name (BenchmarkSpec.DatasetName), so that
	// a spec naming another is refused at its line before anything is
	// written (Spec.CheckBenchmarks). Nil: no check.
	KnownBenchmark func(name string) bool
	// Prepare, when set, is called once by Run with the run's cache
	// directory, in a goroutine of its own while the benchmarks load, to
	// open ahead what NewClient and NewScorer will need (NewEnv opens the
	// model cache and the gold-result cache there). Run waits for it
	// before it returns. What it fails to open is left to NewClient and
	// NewScorer, which report the failure.
	Prepare func(cacheDir string)
}

// Progress is a snapshot of a run's counters, passed to the progress
// callback after every finished item.
type Progress struct {
	// Total is the number of items this invocation must run (skipped
	// finished items excluded); Skipped counts those.
	Total, Skipped int
	// Done counts items scored normally; Failed items whose runner failed
	// permanently (StatusFailed: scored as wrong, never retried); Errored
	// items left by an infrastructure error (StatusError: pending, retried
	// on resume).
	Done, Failed, Errored int
	// Attempted counts the done and failed items whose gold runs (EX's
	// denominator, metrics.GoldRuns); Correct the correct ones.
	Attempted, Correct int
	Calls, CachedCalls int
	PromptTokens       int
	CompletionTokens   int
	Elapsed            time.Duration
}

// EX is the running execution accuracy, correct / attempted, over the
// items finished so far.
func (p Progress) EX() float64 {
	if p.Attempted == 0 {
		return 0
	}
	return float64(p.Correct) / float64(p.Attempted)
}

// Options configure a run.
type Options struct {
	// Workers bounds the items in flight (default: the spec's, else
	// DefaultWorkers).
	Workers int
	// Shard restricts the run to a slice of the items.
	Shard spec.Shard
	// Limit keeps the first Limit questions of every benchmark (0: the
	// spec's limits).
	Limit int
	// Retries is how often an item is retried after an infrastructure
	// error (or an unclassified runner error) before it is recorded: as
	// StatusError, pending for resume, or as StatusFailed (default 2).
	// A failed model call (llm.IsCallError) is never retried here: the
	// model's backend is the one retry loop of a call (the model spec's
	// max_retries), and retrying the item would multiply its budget and
	// rerun every call of the item that succeeded.
	Retries int
	// RetryWait is the wait before a retry (default 200ms, doubled each
	// time).
	RetryWait time.Duration
	// Progress, when set, is called after every finished item, from one
	// goroutine at a time.
	Progress func(Progress)
	// Secrets are strings (API keys) redacted from every error text and
	// log line before it reaches the store, when they could be secrets
	// (llm.IsSecret). Model answers, traces included, are stored as the
	// model gave them.
	Secrets []string
	// CacheDir is the shared cache directory (default <run>/cache).
	CacheDir string
	// MaxFailures stops the run once more items of this invocation have
	// failed or errored than it allows; Run then returns an error wrapping
	// ErrTooManyFailures. The zero value sets no limit.
	MaxFailures FailureLimit
	// AllowMissingDBs runs a benchmark even when the databases of most of
	// its questions are missing (CheckDatabases); by default Run refuses
	// with a *MissingDataError before it creates any trial.
	AllowMissingDBs bool
	// ReplaceTrials lets Run take a plan whose trials differ from those
	// the store holds: the stored trials that changed identity or are no
	// longer in the plan are removed, with their items, results and calls,
	// when the plan is recorded (Summary.Removed). Without it Run refuses
	// such a plan with a *SpecChangedError before it writes anything.
	ReplaceTrials bool

	// store is the run store Run writes the call log to as calls happen.
	store *runstore.Store
}

// storeFile is the store's database file, the path an environment failure
// without one of its own names ("" without a store).
func (o Options) storeFile() string {
	if o.store == nil {
		return ""
	}
	return filepath.Join(o.store.Dir(), runstore.StoreFile)
}

// Summary is the outcome of Run.
type Summary struct {
	Progress
	Trials int
	// Removed are the trials Options.ReplaceTrials removed; Renamed the
	// stored trials the plan keeps under a new label.
	Removed []runstore.RemovedTrial
	Renamed []runstore.TrialChange
	// Unselected counts the pending items of the plan's trials that this
	// run did not select: left by an infrastructure error in an earlier
	// run, at questions past Options.Limit or in another Options.Shard.
	// Running the same options again never runs them.
	Unselected int
}

// Run executes the plan's work items that the store does not hold as done,
// with a bounded worker pool. Every finished item is scored and committed
// in a batch (Store.Commit, BatchItems), which Run flushes before it
// returns, however it stops. Canceling ctx stops the run cleanly: items in
// flight are not committed and a later Run resumes them. Run returns ctx's error when
// canceled, and an error for infrastructure failures that stop the run
// (store writes, benchmark loading, a model endpoint that rejects the
// credentials or does not know the model: HTTP 401, 403, 404); item
// failures are recorded as data (see Failure), and past opt.MaxFailures
// the run stops with ErrTooManyFailures.
//
// Run works in three parts: it opens each benchmark of the plan once with
// its scorer, databases and clients (openRunEnv), lists the items to run
// (planItems), and runs them in a pool of opt.Workers (runPool) that
// share the run's state (runState).
func Run(ctx context.Context, p *spec.Plan, st *runstore.Store, env Env, opt Options) (Summary, error) {
	start := time.Now()
	opt = opt.withDefaults(p.Spec, st)
	change, err := st.DiffPlan(p.Trials)
	if err != nil {
		return Summary{}, err
	}
	if !change.Empty() && !opt.ReplaceTrials {
		return Summary{}, &runstore.SpecChangedError{Dir: st.Dir(), Change: change}
	}
	// Finished items whose stored outcome fails its checksum are made
	// pending, so that this run redoes them.
	done, errored, err := st.ResumeState(ctx)
	if err != nil {
		return Summary{}, err
	}
	// The caches the scorers and clients read open while the benchmarks
	// load (Env.Prepare).
	if env.Prepare != nil {
		var prepared sync.WaitGroup
		prepared.Go(func() { env.Prepare(opt.CacheDir) })
		defer prepared.Wait()
	}
	e, err := openRunEnv(ctx, p, env, opt)
	if err != nil {
		return Summary{}, err
	}
	defer e.close()
	work, err := planItems(p, e, opt.Shard, change, done, errored)
	if err != nil {
		return Summary{}, err
	}
	s := newRunState(p, st, change, opt, work, start)
	if len(work.items) == 0 {
		if err := s.putTrials(); err != nil {
			return Summary{}, envOr(err, opt.storeFile())
		}
	}
	if err := recordRunMeta(st, p.Spec, opt, work.totals); err != nil {
		return Summary{}, err
	}
	return s.run(ctx, e, work.items)
}

// withDefaults fills in what o leaves unset: the workers of spec, else
// DefaultWorkers; 2 retries (none when Retries < 0) 200ms apart at first;
// the cache directory of spec, else <run>/cache. It adds the credentials
// spec's models and servers are given (Spec.Secrets) to the secrets and
// makes st the store the call log is written to.
func (o Options) withDefaults(sp *spec.Spec, st *runstore.Store) Options {
	if o.Workers <= 0 {
		o.Workers = sp.Workers
	}
	if o.Workers <= 0 {
		o.Workers = spec.DefaultWorkers
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.RetryWait == 0 {
		o.RetryWait = 200 * time.Millisecond
	}
	if o.CacheDir == "" {
		o.CacheDir = sp.Cache
	}
	if o.CacheDir == "" {
		o.CacheDir = st.Dir() + string(os.PathSeparator) + "cache"
	}
	o.Secrets = append(append([]string(nil), o.Secrets...), sp.Secrets()...)
	o.store = st
	return o
}

// recordRunMeta records in st what a run's readers need to know of it:
// the spec's name and prices, the cache directory, the slice of the items
// opt selects (Store.RecordSlice) and the items of each trial it selects,
// totals by trial id.
func recordRunMeta(st *runstore.Store, sp *spec.Spec, opt Options, totals map[string]int) error {
	meta := map[string]string{"name": sp.Name}
	if abs, err := filepath.Abs(opt.CacheDir); err == nil {
		meta[runstore.MetaCacheDir] = abs
	}
	if len(sp.Prices) > 0 {
		raw, err := json.Marshal(sp.Prices)
		if err != nil {
			return fmt.Errorf("prices: %w", err)
		}
		meta[runstore.MetaPrices] = string(raw)
	}
	// Each trial's number of items goes with the rest, in one commit.
	for id, n := range totals {
		meta["items:"+id] = strconv.Itoa(n)
	}
	if err := st.SetMeta(meta); err != nil {
		return envOr(err, opt.storeFile())
	}
	if err := st.RecordSlice(opt.Shard, opt.Limit); err != nil {
		return envOr(err, opt.storeFile())
	}
	return nil
}

// runState is what the items of one Run share while they run: the store
// they are committed to, the trials recorded with the first of them, and
// the run's counters and failure limit.
type runState struct {
	trials  []*spec.Trial
	st      *runstore.Store
	change  *runstore.PlanChange
	opt     Options
	timeout time.Duration
	start   time.Time
	// allowed is the number of failed items opt.MaxFailures allows
	// (FailureLimit.Allowed), -1 for any.
	allowed    int
	unselected int
	// irec records the damaged cache entries met, after every item.
	irec *integrityRecorder

	putOnce sync.Once
	putErr  error
	removed []runstore.RemovedTrial

	progMu sync.Mutex
	prog   Progress
}

func newRunState(p *spec.Plan, st *runstore.Store, change *runstore.PlanChange, opt Options, work itemPlan, start time.Time) *runState {
	s := &runState{trials: p.Trials, st: st, change: change, opt: opt, timeout: time.Duration(p.Spec.Timeout), start: start,
		allowed: opt.MaxFailures.Allowed(len(work.items)), unselected: work.unselected}
	s.prog.Total = len(work.items)
	s.prog.Skipped = work.skipped
	return s
}

// putTrials records the plan's trials (Store.PutPlan), once: with the
// first item committed, or at the start when there is none to run. A
// start that fails a check (benchmarks, scorers, clients, runners) or
// stops before any item is done (an endpoint answering 401/403/404)
// leaves no trial behind, where each failed start with another data
// folder or model name would add a copy of every trial to status and the
// reports.
func (s *runState) putTrials() error {
	s.putOnce.Do(func() { s.removed, s.putErr = s.st.PutPlan(s.trials, s.change) })
	return s.putErr
}

// run runs the items with a pool of opt.Workers (runPool), commits and
// reports each that finishes (runOne) and, however the run stops, flushes
// what the store and its recorders hold. It returns the run's summary and
// the error that stopped it: the first fatal one, else ctx's.
func (s *runState) run(ctx context.Context, e *runEnv, items []workItem) (Summary, error) {
	// The model caches commit their batches of answers before the store
	// commits its batch of calls naming them (Store.Commit).
	flushCaches := cacheFlusher(e.benches)
	s.st.BeforeCommit(flushCaches)
	defer s.st.BeforeCommit(nil)
	// Counters of models served by several endpoints go to the store
	// periodically and at the end.
	rec := newEndpointRecorder(s.st)
	for _, be := range e.benches {
		for m, c := range be.clients {
			rec.add(m, c)
		}
	}
	rec.start(EndpointFlushEvery)
	// Damaged cache entries met (and replaced) go to the store after
	// every item and at the end.
	s.irec = newIntegrityRecorder(s.st)
	for _, be := range e.benches {
		for _, c := range be.clients {
			s.irec.add(c, be.scorer)
		}
		s.irec.add(nil, be.scorer)
	}
	fatal := runPool(ctx, len(items), s.opt.Workers, func(ctx context.Context, i int) error {
		return s.runOne(ctx, items[i])
	})
	// A run that ends, is interrupted or stops on a failure commits the
	// batch of items it finished (Store.Flush).
	for _, flush := range []func() error{rec.finish, s.irec.flush, s.st.Flush} {
		if err := flush(); err != nil && fatal == nil {
			fatal = envOr(err, s.opt.storeFile())
		}
	}
	sum := s.summary()
	if fatal != nil {
		return sum, fatal
	}
	return sum, ctx.Err()
}

// runOne runs item w (runItem), commits it and reports it. It returns an
// error that stops the run; an item ctx cancels is not committed, and a
// later Run resumes it.
func (s *runState) runOne(ctx context.Context, w workItem) error {
	it, ok, err := runItem(ctx, w.trial, w.runner, w.ex, w.be.dbs, w.client, w.be.scorer, s.timeout, s.opt)
	if err != nil || !ok {
		return err
	}
	if err := s.putTrials(); err != nil {
		return envOr(err, s.opt.storeFile())
	}
	if err := s.st.Commit(it); err != nil {
		return envOr(err, s.opt.storeFile())
	}
	if err := s.irec.flush(); err != nil {
		return envOr(err, s.opt.storeFile())
	}
	return s.report(it)
}

// report counts the committed item it and passes the counters to
// opt.Progress. It returns an error wrapping ErrTooManyFailures when the
// run's failed items are now more than opt.MaxFailures allows.
func (s *runState) report(it *runstore.Item) error {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	p := &s.prog
	switch it.Status {
	case runstore.StatusDone:
		p.Done++
	case runstore.StatusFailed:
		p.Failed++
	default:
		p.Errored++
	}
	if it.Status != runstore.StatusError && (it.Verdict == nil || metrics.GoldRuns(metrics.Status(it.Verdict.Status))) {
		p.Attempted++
		if it.Status == runstore.StatusDone && it.Verdict != nil && it.Verdict.Correct {
			p.Correct++
		}
	}
	var err error
	if n := p.Failed + p.Errored; s.allowed >= 0 && n > s.allowed {
		err = fmt.Errorf("%w: %d of %d items failed (%d failed, %d infrastructure errors), more than the limit %s allows (%d); the rest are left pending",
			ErrTooManyFailures, n, p.Total, p.Failed, p.Errored, s.opt.MaxFailures, s.allowed)
	}
	for _, c := range it.Calls {
		p.Calls++
		if c.Cached {
			p.CachedCalls++
		}
		p.PromptTokens = satint.Add(p.PromptTokens, c.PromptTokens)
		p.CompletionTokens = satint.Add(p.CompletionTokens, c.CompletionTokens)
	}
	p.Elapsed = time.Since(s.start)
	if s.opt.Progress != nil {
		s.opt.Progress(*p)
	}
	return err
}

// summary is the run's outcome so far.
func (s *runState) summary() Summary {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	s.prog.Elapsed = time.Since(s.start)
	return Summary{Progress: s.prog, Trials: len(s.trials), Removed: s.removed, Renamed: s.change.Renamed, Unselected: s.unselected}
}

// runPool calls do(ctx, i) for each i in [0, n), in order, from at most
// workers goroutines that each take the next i when their call returns,
// and returns once every call it started has returned. The first error a
// call returns cancels the ctx the calls are given and is runPool's; once
// that ctx ends no further call starts.
func runPool(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range min(max(workers, 1), n) {
		g.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return nil
				}
				if err := do(ctx, i); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}
