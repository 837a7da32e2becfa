package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/satint"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Scorer scores one prediction against the gold answer of its example.
// metrics.Scorer satisfies it through the adapter in env.go.
type Scorer interface {
	Score(ctx context.Context, ex datasets.Example, predSQL string) Verdict
}

// CandidateScorer is a Scorer that also judges a result's stored
// candidates, whose marks the verdict keeps for pass@k and majority@k: it
// judges a final prediction and its candidates together, executing a
// candidate that is the final prediction once
// (metrics.Scorer.ScoreWithCandidates).
type CandidateScorer interface {
	ScoreWithCandidates(ctx context.Context, ex datasets.Example, predSQL string, sqls []string) (Verdict, []metrics.CandidateMark)
}

// scoreResult is the verdict of res's SQL, with the marks of its
// candidates when sc is a CandidateScorer and the gold runs.
func scoreResult(ctx context.Context, sc Scorer, ex datasets.Example, res *runners.Result) Verdict {
	if cs, ok := sc.(CandidateScorer); ok {
		sqls := make([]string, len(res.Candidates))
		for i, c := range res.Candidates {
			sqls[i] = c.SQL
		}
		v, marks := cs.ScoreWithCandidates(ctx, ex, res.SQL, sqls)
		v.Candidates = marks
		return v
	}
	return sc.Score(ctx, ex, res.SQL)
}

// Env is what the scheduler needs from the outside world: benchmarks,
// model clients and scorers. DefaultEnv wires datasets.Open, runners/llm
// and metrics; tests substitute fakes.
type Env struct {
	// OpenBenchmark loads one benchmark of the spec; cacheDir is the run's
	// cache directory (for databases a loader builds).
	OpenBenchmark func(ctx context.Context, b BenchmarkSpec, cacheDir string) (*datasets.Benchmark, error)
	// NewClient builds the client of the named model for one benchmark.
	// It is called once per (model, benchmark) and shared by all trials.
	NewClient func(ctx context.Context, name string, m ModelSpec, b *datasets.Benchmark, cacheDir string) (llm.Client, error)
	// NewScorer builds the scorer of one benchmark; goldCacheDir is shared
	// by every trial so that gold results are computed once.
	NewScorer func(b *datasets.Benchmark, bs BenchmarkSpec, goldCacheDir string) (Scorer, error)
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
	Shard Shard
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
	store *Store
}

// storeFile is the store's database file, the path an environment failure
// without one of its own names ("" without a store).
func (o Options) storeFile() string {
	if o.store == nil {
		return ""
	}
	return filepath.Join(o.store.Dir(), StoreFile)
}

// Summary is the outcome of Run.
type Summary struct {
	Progress
	Trials int
	// Removed are the trials Options.ReplaceTrials removed; Renamed the
	// stored trials the plan keeps under a new label.
	Removed []RemovedTrial
	Renamed []TrialChange
	// Unselected counts the pending items of the plan's trials that this
	// run did not select: left by an infrastructure error in an earlier
	// run, at questions past Options.Limit or in another Options.Shard.
	// Running the same options again never runs them.
	Unselected int
}

// benchEnv is what Run builds once per benchmark of the plan: the loaded
// benchmark, its scorer, a client per model and its databases.
type benchEnv struct {
	b       *datasets.Benchmark
	scorer  Scorer
	clients map[string]llm.Client
	dbs     *dbCache
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
func Run(ctx context.Context, p *Plan, st *Store, env Env, opt Options) (Summary, error) {
	start := time.Now()
	if opt.Workers <= 0 {
		opt.Workers = p.Spec.Workers
	}
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
	}
	if opt.Retries == 0 {
		opt.Retries = 2
	}
	if opt.Retries < 0 {
		opt.Retries = 0
	}
	if opt.RetryWait == 0 {
		opt.RetryWait = 200 * time.Millisecond
	}
	if opt.CacheDir == "" {
		opt.CacheDir = p.Spec.Cache
	}
	if opt.CacheDir == "" {
		opt.CacheDir = st.Dir() + string(os.PathSeparator) + "cache"
	}
	opt.Secrets = append(append([]string(nil), opt.Secrets...), p.Spec.Secrets()...)
	opt.store = st
	stored, err := readTrials(st.db)
	if err != nil {
		return Summary{}, fmt.Errorf("store %s: %w", st.Dir(), err)
	}
	change := diffPlan(stored, p.Trials)
	if !change.Empty() && !opt.ReplaceTrials {
		return Summary{}, &SpecChangedError{Dir: st.Dir(), Change: change}
	}
	// Finished items whose stored outcome fails its checksum are made
	// pending, so that this run redoes them.
	done, errored, err := st.resumeState(ctx)
	if err != nil {
		return Summary{}, err
	}
	// The items of a trial to be replaced under the same id (a changed
	// tie_aware) are not done: they go with the trial.
	for _, t := range change.Removed() {
		for k := range done {
			if strings.HasPrefix(k, t.ID+"\x00") {
				delete(done, k)
			}
		}
	}

	// The caches the scorers and clients read open while the benchmarks
	// load (Env.Prepare).
	if env.Prepare != nil {
		var prepared sync.WaitGroup
		prepared.Go(func() { env.Prepare(opt.CacheDir) })
		defer prepared.Wait()
	}

	// Load each benchmark once; build scorers, clients and databases.
	benches := map[string]*benchEnv{}
	benchKey := func(b BenchmarkSpec) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s", b.Name, b.Data, b.Split, b.Limit, b.Mode)
	}
	var closers []func()
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}()
	for _, t := range p.Trials {
		k := benchKey(t.Benchmark)
		be := benches[k]
		if be == nil {
			bs := t.Benchmark
			if opt.Limit > 0 && (bs.Limit == 0 || opt.Limit < bs.Limit) {
				bs.Limit = opt.Limit
			}
			b, err := env.OpenBenchmark(ctx, bs, opt.CacheDir)
			if err != nil {
				return Summary{}, fmt.Errorf("benchmark %s: %w", t.Benchmark.Name, err)
			}
			if bs.Limit > 0 && len(b.Examples) > bs.Limit {
				b.Examples = b.Examples[:bs.Limit]
			}
			if b.Engine != nil {
				closers = append(closers, func() { b.Engine.Close() })
			}
			if !opt.AllowMissingDBs {
				reopen := func(dir string) (*datasets.Benchmark, error) {
					o := bs
					o.Data = dir
					return env.OpenBenchmark(ctx, o, opt.CacheDir)
				}
				use := "set data: DIR on benchmark " + t.Benchmark.Name + " in the spec, or pass --benchmark " + t.Benchmark.Name + "=DIR"
				if err := CheckDatabases(b, t.Benchmark.Name, reopen, use); err != nil {
					return Summary{}, err
				}
			}
			sc, err := env.NewScorer(b, bs, goldCacheDir(opt.CacheDir))
			if err != nil {
				return Summary{}, fmt.Errorf("benchmark %s: scorer: %w", t.Benchmark.Name, err)
			}
			if c, ok := sc.(interface{ Close() error }); ok {
				closers = append(closers, func() { c.Close() })
			}
			be = &benchEnv{b: b, scorer: sc, clients: map[string]llm.Client{}, dbs: &dbCache{engine: b.Engine, dbs: map[string]dbEntry{}}}
			closers = append(closers, be.dbs.close)
			benches[k] = be
		}
		names := make([]string, 0, len(t.Roles))
		for _, m := range t.Roles {
			names = append(names, m)
		}
		sort.Strings(names)
		for _, m := range names {
			if be.clients[m] != nil {
				continue
			}
			c, err := env.NewClient(ctx, m, t.Models[m], be.b, opt.CacheDir)
			if err != nil {
				return Summary{}, fmt.Errorf("model %s: %s", m, redact(err.Error(), opt.Secrets))
			}
			if cl, ok := c.(interface{ Close() error }); ok {
				closers = append(closers, func() { cl.Close() })
			}
			be.clients[m] = c
		}
	}

	// Work items in plan order: trial by trial, question by question.
	type work struct {
		trial  *Trial
		runner runners.Runner
		be     *benchEnv
		ex     datasets.Example
		client llm.Client
	}
	var items []work
	var prog Progress
	for _, t := range p.Trials {
		be := benches[benchKey(t.Benchmark)]
		r, err := runners.New(t.Runner, t.Params)
		if err != nil {
			return Summary{}, fmt.Errorf("trial %s: %w", t.Label, err)
		}
		// A role the trial does not bind falls back to the "reason"
		// binding.
		rc := llm.Router{Roles: map[string]llm.Client{}}
		for role, m := range t.Roles {
			rc.Roles[role] = be.clients[m]
		}
		rc.Default = rc.Roles[runners.RoleReason]
		for _, ex := range be.b.Examples {
			if !opt.Shard.Has(t.ID, ex.ID) {
				continue
			}
			delete(errored, itemKey(t.ID, ex.ID))
			if done[itemKey(t.ID, ex.ID)] {
				prog.Skipped++
				continue
			}
			items = append(items, work{trial: t, runner: r, be: be, ex: ex, client: rc})
		}
	}
	prog.Total = len(items)
	// What stays of errored are the pending items this run leaves alone.
	kept := map[string]bool{}
	for _, t := range p.Trials {
		kept[t.ID] = true
	}
	for _, t := range change.Removed() {
		delete(kept, t.ID)
	}
	unselected := 0
	for _, id := range errored {
		if kept[id] {
			unselected++
		}
	}
	// The trials are recorded with the first item committed (or now, when
	// there is none to run): a start that fails a check (benchmarks,
	// scorers, clients, runners) or stops before any item is done (an
	// endpoint answering 401/403/404) leaves no trial behind. Each failed
	// start with another data folder or model name used to add a copy of
	// every trial to status and the reports.
	var putOnce sync.Once
	var putErr error
	var removed []RemovedTrial
	putTrials := func() error {
		putOnce.Do(func() { removed, putErr = st.putPlan(p.Trials, change) })
		return putErr
	}
	if len(items) == 0 {
		if err := putTrials(); err != nil {
			return Summary{}, envOr(err, opt.storeFile())
		}
	}
	meta := map[string]string{"name": p.Spec.Name}
	if abs, err := filepath.Abs(opt.CacheDir); err == nil {
		meta[MetaCacheDir] = abs
	}
	if len(p.Spec.Prices) > 0 {
		raw, err := json.Marshal(p.Spec.Prices)
		if err != nil {
			return Summary{}, fmt.Errorf("prices: %w", err)
		}
		meta[MetaPrices] = string(raw)
	}
	if err := st.SetMeta(meta); err != nil {
		return Summary{}, envOr(err, opt.storeFile())
	}
	if err := st.RecordSlice(opt.Shard, opt.Limit); err != nil {
		return Summary{}, envOr(err, opt.storeFile())
	}
	totals := map[string]string{}
	for _, t := range p.Trials {
		n := 0
		for _, ex := range benches[benchKey(t.Benchmark)].b.Examples {
			if opt.Shard.Has(t.ID, ex.ID) {
				n++
			}
		}
		totals["items:"+t.ID] = strconv.Itoa(n)
	}
	if err := st.SetMeta(totals); err != nil {
		return Summary{}, envOr(err, opt.storeFile())
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		fatal    error
		next     atomic.Int64
		wg       sync.WaitGroup
		progMu   sync.Mutex
		timeout  = time.Duration(p.Spec.Timeout)
		setFatal = func(err error) {
			mu.Lock()
			if fatal == nil {
				fatal = err
			}
			mu.Unlock()
			cancel()
		}
	)
	allowed := opt.MaxFailures.Allowed(len(items))
	report := func(it *Item) {
		progMu.Lock()
		defer progMu.Unlock()
		switch it.Status {
		case StatusDone:
			prog.Done++
		case StatusFailed:
			prog.Failed++
		default:
			prog.Errored++
		}
		if it.Status != StatusError && (it.Verdict == nil || metrics.GoldRuns(metrics.Status(it.Verdict.Status))) {
			prog.Attempted++
			if it.Status == StatusDone && it.Verdict != nil && it.Verdict.Correct {
				prog.Correct++
			}
		}
		if n := prog.Failed + prog.Errored; allowed >= 0 && n > allowed {
			setFatal(fmt.Errorf("%w: %d of %d items failed (%d failed, %d infrastructure errors), more than the limit %s allows (%d); the rest are left pending",
				ErrTooManyFailures, n, len(items), prog.Failed, prog.Errored, opt.MaxFailures, allowed))
		}
		for _, c := range it.Calls {
			prog.Calls++
			if c.Cached {
				prog.CachedCalls++
			}
			prog.PromptTokens = satint.Add(prog.PromptTokens, c.PromptTokens)
			prog.CompletionTokens = satint.Add(prog.CompletionTokens, c.CompletionTokens)
		}
		prog.Elapsed = time.Since(start)
		if opt.Progress != nil {
			opt.Progress(prog)
		}
	}
	// The model caches commit their batches of answers before the store
	// commits its batch of calls naming them (Store.Commit).
	flushCaches := cacheFlusher(benches)
	st.beforeCommit.Store(&flushCaches)
	defer st.beforeCommit.Store(nil)
	// Counters of models served by several endpoints go to the store
	// periodically and at the end.
	rec := newEndpointRecorder(st)
	for _, be := range benches {
		for m, c := range be.clients {
			rec.add(m, c)
		}
	}
	rec.start(EndpointFlushEvery)
	// Damaged cache entries met (and replaced) go to the store after
	// every item and at the end.
	irec := newIntegrityRecorder(st)
	for _, be := range benches {
		for _, c := range be.clients {
			irec.add(c, be.scorer)
		}
		irec.add(nil, be.scorer)
	}
	workers := opt.Workers
	if workers > len(items) {
		workers = len(items)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(items) || ctx.Err() != nil {
					return
				}
				wi := items[i]
				it, ok, err := runItem(ctx, wi.trial, wi.runner, wi.ex, wi.be.dbs, wi.client, wi.be.scorer, timeout, opt)
				if err != nil {
					setFatal(err)
					return
				}
				if !ok {
					return // canceled: not committed, resumed later
				}
				if err := putTrials(); err != nil {
					setFatal(envOr(err, opt.storeFile()))
					return
				}
				if err := st.Commit(it); err != nil {
					setFatal(envOr(err, opt.storeFile()))
					return
				}
				if err := irec.flush(); err != nil {
					setFatal(envOr(err, opt.storeFile()))
					return
				}
				report(it)
			}
		}()
	}
	wg.Wait()
	if err := rec.finish(); err != nil {
		setFatal(envOr(err, opt.storeFile()))
	}
	if err := irec.flush(); err != nil {
		setFatal(envOr(err, opt.storeFile()))
	}
	// A run that ends, is interrupted or stops on a failure commits the
	// batch of items it finished (Store.Flush).
	if err := st.Flush(); err != nil {
		setFatal(envOr(err, opt.storeFile()))
	}
	progMu.Lock()
	prog.Elapsed = time.Since(start)
	sum := Summary{Progress: prog, Trials: len(p.Trials), Removed: removed, Renamed: change.Renamed, Unselected: unselected}
	progMu.Unlock()
	if fatal != nil {
		return sum, fatal
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	return sum, nil
}

// runItem runs and scores one item. ok is false when ctx was canceled and
// the item must not be committed; fatal is an error that stops the run
// (the item is not committed either).
func runItem(ctx context.Context, t *Trial, r runners.Runner, ex datasets.Example, dbs *dbCache, client llm.Client, sc Scorer, timeout time.Duration, opt Options) (it *Item, ok bool, fatal error) {
	it = &Item{TrialID: t.ID, QuestionID: ex.ID, Index: ex.Index, Started: time.Now()}
	wait := opt.RetryWait
	for attempt := 0; ; attempt++ {
		it.Attempts++
		log := &callLog{Client: client, store: opt.store, trialID: t.ID, questionID: ex.ID, secrets: opt.Secrets}
		ictx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			ictx, cancel = context.WithTimeout(ctx, timeout)
		}
		db, dbErr := dbs.open(ictx, ex.DBID)
		var res runners.Result
		var err error
		var execs *execRecorder
		if dbErr != nil && errors.Is(dbErr, datasets.ErrMissingDB) {
			res = runners.Result{Note: "database unavailable: " + dbErr.Error()}
		} else if dbErr != nil {
			err = &dbOpenError{err: dbErr}
		} else {
			execs = &execRecorder{Database: db}
			res, err = r.Run(ictx, runners.Task{Example: ex.WithoutGold(), DB: execs, LLM: log, Seed: t.Seed})
		}
		timedOut := ictx.Err() != nil && ctx.Err() == nil
		cancel()
		// A full disk, a read-only filesystem or an I/O error under a
		// write of the cache, the call log or the runner's own files
		// stops the run, whatever the runner made of it: the item is
		// not committed, so it stays pending for the resume.
		envErr := log.environment()
		if envErr == nil {
			envErr = err
		}
		if e := environmentFailure(envErr, opt.storeFile()); e != nil {
			return nil, false, e
		}
		if errors.Is(envErr, ErrBatchLost) {
			// The store lost a batch of writes: every later write
			// fails, so the run stops and says why.
			return nil, false, envErr
		}
		if ctx.Err() != nil {
			return nil, false, nil
		}
		it.Calls = log.calls()
		for i := range it.Calls {
			it.Calls[i].Error = redact(it.Calls[i].Error, opt.Secrets)
		}
		if err == nil || timedOut {
			if timedOut {
				it.ErrorClass = "timeout"
				it.Error = fmt.Sprintf("item exceeded the %s timeout", timeout)
				if err != nil {
					it.Error += ": " + redact(err.Error(), opt.Secrets)
				}
				res.Note = strings.TrimSpace(res.Note + " " + it.Error)
			}
			if ga, ok := r.(runners.GoldAnalyzer); ok && db != nil {
				// After Run, with the gold: the runner's analysis table.
				if err := ga.AnalyzeGold(ctx, ex, db, &res); err != nil {
					if res.Trace.Data == nil {
						res.Trace.Data = map[string]any{}
					}
					res.Trace.Data["gold_analysis_error"] = redact(err.Error(), opt.Secrets)
				}
			}
			// The answer is scored and stored as the model gave it:
			// redaction is for error text and display (redact).
			sctx := ctx
			if execs != nil {
				// The statements the runner executed are not run again
				// to score the same texts (metrics.WithExecuted).
				sctx = metrics.WithExecuted(ctx, execs.lookup)
			}
			v := scoreResult(sctx, sc, ex, &res)
			if ctx.Err() != nil {
				return nil, false, nil
			}
			it.Status = StatusDone
			it.Verdict = &v
			it.Result = &res
			it.WallMS = msSince(it.Started)
			return it, true, nil
		}
		it.ErrorClass = Classify(err)
		it.Error = redact(err.Error(), opt.Secrets)
		kind := FailureOf(err)
		// One retry loop: a model call's failure has used the
		// backend's retries already; only what no layer below retried
		// (a database that did not open, a runner's own error) is
		// run again.
		last := attempt >= opt.Retries || llm.IsCallError(err)
		switch {
		case kind == FailureFatal:
			return nil, false, rejected(t, ex.ID, err, opt.Secrets)
		case kind == FailurePermanent || (kind == FailureUnknown && last):
			// The runner failed on this question for good: the item is
			// scored with an empty prediction, so it is wrong when its
			// gold runs and its gold's status is known when not.
			v := sc.Score(ctx, ex, "")
			if ctx.Err() != nil {
				return nil, false, nil
			}
			v.Correct = false
			if metrics.GoldRuns(metrics.Status(v.Status)) {
				v.Status = metrics.StatusPredError
				v.Error = "runner failed (" + it.ErrorClass + "): " + it.Error
			}
			res.Note = strings.TrimSpace(res.Note + " runner failed (" + it.ErrorClass + "): " + it.Error)
			it.Status = StatusFailed
			it.Verdict = &v
			it.Result = &res
			it.WallMS = msSince(it.Started)
			return it, true, nil
		case last:
			it.Status = StatusError
			it.WallMS = msSince(it.Started)
			return it, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, nil
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
