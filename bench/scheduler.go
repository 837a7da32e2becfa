package bench

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// scoreResult is the verdict of res's SQL, with the marks of its
// candidates when sc is a CandidateScorer and the gold runs.
func scoreResult(ctx context.Context, sc Scorer, ex datasets.Example, res *runners.Result) runstore.Verdict {
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

// FailureLimit stops a run early once more items have failed (failed or
// errored) than it allows. The zero value allows any number.
type FailureLimit struct {
	// Count is the number of failures allowed when Fraction is 0.
	Count int
	// Fraction, in (0, 1), allows floor(Fraction * items of the run).
	Fraction float64
	// Set is false for the zero value: no limit.
	Set bool
}

// ParseFailureLimit reads a count ("0", "25") or a fraction of the run's
// items in (0, 1) ("0.1").
func ParseFailureLimit(s string) (FailureLimit, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return FailureLimit{}, fmt.Errorf("failure limit %q: want a count >= 0 or a fraction in (0, 1)", s)
		}
		return FailureLimit{Count: n, Set: true}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f < 1) {
		return FailureLimit{}, fmt.Errorf("failure limit %q: want a count >= 0 or a fraction in (0, 1)", s)
	}
	return FailureLimit{Fraction: f, Set: true}, nil
}

// Allowed returns how many failures the limit allows among total items,
// or -1 for no limit.
func (l FailureLimit) Allowed(total int) int {
	switch {
	case !l.Set:
		return -1
	case l.Fraction > 0:
		return int(math.Floor(l.Fraction * float64(total)))
	}
	return l.Count
}

func (l FailureLimit) String() string {
	switch {
	case !l.Set:
		return "none"
	case l.Fraction > 0:
		return strconv.FormatFloat(l.Fraction, 'g', -1, 64)
	}
	return strconv.Itoa(l.Count)
}

// ErrTooManyFailures is returned (wrapped) by Run when it stopped early
// because more items failed than Options.MaxFailures allows.
var ErrTooManyFailures = errors.New("too many failed items")

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
func Run(ctx context.Context, p *spec.Plan, st *runstore.Store, env Env, opt Options) (Summary, error) {
	start := time.Now()
	if opt.Workers <= 0 {
		opt.Workers = p.Spec.Workers
	}
	if opt.Workers <= 0 {
		opt.Workers = spec.DefaultWorkers
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
	benchKey := func(b spec.BenchmarkSpec) string {
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
		trial  *spec.Trial
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
			delete(errored, runstore.ItemKey(t.ID, ex.ID))
			if done[runstore.ItemKey(t.ID, ex.ID)] {
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
	var removed []runstore.RemovedTrial
	putTrials := func() error {
		putOnce.Do(func() { removed, putErr = st.PutPlan(p.Trials, change) })
		return putErr
	}
	if len(items) == 0 {
		if err := putTrials(); err != nil {
			return Summary{}, envOr(err, opt.storeFile())
		}
	}
	meta := map[string]string{"name": p.Spec.Name}
	if abs, err := filepath.Abs(opt.CacheDir); err == nil {
		meta[runstore.MetaCacheDir] = abs
	}
	if len(p.Spec.Prices) > 0 {
		raw, err := json.Marshal(p.Spec.Prices)
		if err != nil {
			return Summary{}, fmt.Errorf("prices: %w", err)
		}
		meta[runstore.MetaPrices] = string(raw)
	}
	// Each trial's number of items goes with the rest, in one commit.
	for _, t := range p.Trials {
		n := 0
		for _, ex := range benches[benchKey(t.Benchmark)].b.Examples {
			if opt.Shard.Has(t.ID, ex.ID) {
				n++
			}
		}
		meta["items:"+t.ID] = strconv.Itoa(n)
	}
	if err := st.SetMeta(meta); err != nil {
		return Summary{}, envOr(err, opt.storeFile())
	}
	if err := st.RecordSlice(opt.Shard, opt.Limit); err != nil {
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
	report := func(it *runstore.Item) {
		progMu.Lock()
		defer progMu.Unlock()
		switch it.Status {
		case runstore.StatusDone:
			prog.Done++
		case runstore.StatusFailed:
			prog.Failed++
		default:
			prog.Errored++
		}
		if it.Status != runstore.StatusError && (it.Verdict == nil || metrics.GoldRuns(metrics.Status(it.Verdict.Status))) {
			prog.Attempted++
			if it.Status == runstore.StatusDone && it.Verdict != nil && it.Verdict.Correct {
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
	st.BeforeCommit(flushCaches)
	defer st.BeforeCommit(nil)
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
func runItem(ctx context.Context, t *spec.Trial, r runners.Runner, ex datasets.Example, dbs *dbCache, client llm.Client, sc Scorer, timeout time.Duration, opt Options) (it *runstore.Item, ok bool, fatal error) {
	it = &runstore.Item{TrialID: t.ID, QuestionID: ex.ID, Index: ex.Index, Started: time.Now()}
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
		if errors.Is(envErr, runstore.ErrBatchLost) {
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
			it.Status = runstore.StatusDone
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
			it.Status = runstore.StatusFailed
			it.Verdict = &v
			it.Result = &res
			it.WallMS = msSince(it.Started)
			return it, true, nil
		case last:
			it.Status = runstore.StatusError
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

// execRecorderCells bounds the cells (rows times columns) of the results
// one item's execRecorder keeps.
const execRecorderCells = 1 << 16

// execRecorder is the database a runner is given for one item: it keeps
// the result of each statement the runner executed successfully, by text,
// so that scoring the item judges those texts on them
// (metrics.WithExecuted) instead of executing them again. Results past
// execRecorderCells in all are not kept.
type execRecorder struct {
	datasets.Database

	mu      sync.Mutex
	results map[string]*datasets.ResultSet
	cells   int
}

// Execute executes sql on the item's database and keeps its result.
func (r *execRecorder) Execute(ctx context.Context, sql string) (*datasets.ResultSet, error) {
	rs, err := r.Database.Execute(ctx, sql)
	if err != nil || rs == nil {
		return rs, err
	}
	n := resultCells(rs)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.results[sql]; ok {
		r.cells -= resultCells(old)
	} else if r.results == nil {
		r.results = map[string]*datasets.ResultSet{}
	}
	if r.cells+n > execRecorderCells {
		delete(r.results, sql)
		return rs, nil
	}
	r.results[sql] = rs
	r.cells += n
	return rs, nil
}

// resultCells is the size of rs that execRecorderCells bounds: its rows
// times its columns (at least one).
func resultCells(rs *datasets.ResultSet) int {
	return len(rs.Rows) * max(len(rs.Columns), 1)
}

// lookup is the recorder's metrics.ExecutedFunc: the kept result of sql
// when db is the handle the runner's statements ran on.
func (r *execRecorder) lookup(db datasets.Database, sql string) (*datasets.ResultSet, bool) {
	if !metrics.SameDatabase(db, r.Database) {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rs, ok := r.results[sql]
	return rs, ok
}

// dbOpenError is a failure to open an example's database other than a
// missing one: an infrastructure error.
type dbOpenError struct{ err error }

func (e *dbOpenError) Error() string { return "open database: " + e.err.Error() }
func (e *dbOpenError) Unwrap() error { return e.err }

// Failure is what a runner error means for its item: the outcome of its
// class (llm.HandlingOf(Classify(err)).Outcome).
type Failure int

const (
	// FailureInfra: an infrastructure failure, class of outcome
	// llm.OutcomeTransient (network, timeout with HTTP 408, rate_limited,
	// server_error after the client's retries, malformed, canceled,
	// deadline), or a database that does not open. The item is left
	// pending (StatusError) for resume; an item whose failure is not a
	// model call's (which the backend retried) is retried first.
	FailureInfra Failure = iota
	// FailurePermanent: the server refused the request, class of outcome
	// llm.OutcomeRefused (bad_request: HTTP 400 or 422, or any status
	// whose message refuses the request, such as a prompt over the context
	// length or a rejected schema; http_<code>: any other 4xx). The item
	// is recorded as failed at once and counts as wrong.
	FailurePermanent
	// FailureFatal: the endpoint rejects the credentials or does not know
	// the model, class of outcome llm.OutcomeFatal (auth: HTTP 401, 403;
	// not_found: HTTP 404): every item would fail the same way, so the
	// run stops and the item stays pending.
	FailureFatal
	// FailureUnknown: any other error of the runner (its own error, a
	// simulator error; class "runner"). The item is retried like an
	// infrastructure error (unless the error is a model call's), then
	// recorded as failed: it counts as wrong.
	FailureUnknown
)

// FailureOf is what a runner error means for its item: the llm.Outcome of
// its class (Classify), read from types only; a database that does not
// open (other than a missing one) is infrastructure whatever its class.
func FailureOf(err error) Failure {
	var dbe *dbOpenError
	if errors.As(err, &dbe) {
		return FailureInfra
	}
	switch llm.HandlingOf(Classify(err)).Outcome {
	case llm.OutcomeTransient:
		return FailureInfra
	case llm.OutcomeRefused:
		return FailurePermanent
	case llm.OutcomeFatal:
		return FailureFatal
	}
	return FailureUnknown
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// Classify names the class of a runner error, by its type only (errors.As
// and errors.Is), never by its message: the class llm.ErrorClass gives it
// (an HTTP status by llm.Classify, whoever's client returned it; a
// timeout, a broken or refused connection, a cut stream, the context's
// errors; llm.ClassOther for a model call's failure of no other class),
// "network" for a bad database connection (driver.ErrBadConn), else
// ClassRunner.
func Classify(err error) string {
	c := llm.ErrorClass(err)
	switch {
	case c != llm.ClassOther && c != "":
		return c
	case llm.IsCallError(err):
		return llm.ClassOther
	case errors.Is(err, driver.ErrBadConn):
		return llm.ClassNetwork
	}
	return runstore.ClassRunner
}

// redact replaces in s (an error text, a log line, stored request
// metadata) each of secrets that could be a secret (llm.IsSecret: at
// least llm.MinSecretLen characters, not a placeholder such as EMPTY). It
// is never applied to a model's answer, which is scored and stored as the
// server sent it; commands hide a secret echoed in an answer when they
// display or export it (RunData.Redactor).
func redact(s string, secrets []string) string {
	return llm.NewRedactor(secrets...).Redact(s)
}

// callLog records every request of one item. With a store, a call that
// sends a request to a server is written to the store's call log
// (CallStarted) and committed before the request leaves (the model
// cache's llm.WithBeforeSend hook), and completed when it returns
// (CallFinished), so that the log counts every call a server saw even
// when the item is never committed (a kill, a cancellation, a retried
// attempt). A call that cannot be logged is not sent. A call that sends
// nothing (a cache hit, a model in the process) is written once, complete,
// when it returns (CallDone). The writes join the open batch: a kill may
// leave the calls of its last BatchWait marked sent although they were
// answered.
type callLog struct {
	llm.Client
	store               *runstore.Store
	trialID, questionID string
	secrets             []string

	mu  sync.Mutex
	log []runstore.Call
	// env is the first environment failure (a full disk, a read-only
	// filesystem, an I/O error) or lost batch (ErrBatchLost) of a call:
	// of the client (its cache's write) or of the call log's own writes.
	// runItem stops the run with it whatever the runner made of the
	// call's error.
	env error
}

// noteEnv records err when it is an environment failure or a lost batch
// of the store's writes (ErrBatchLost), and returns it.
func (l *callLog) noteEnv(err error) error {
	if err != nil && (isEnvironment(err) || errors.Is(err, runstore.ErrBatchLost)) {
		l.mu.Lock()
		if l.env == nil {
			l.env = err
		}
		l.mu.Unlock()
	}
	return err
}

// environment returns the first environment failure of the item's calls.
func (l *callLog) environment() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.env
}

func (l *callLog) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // never sent: not a call
	}
	c := runstore.Call{Role: req.Role, N: req.Samples()}
	var (
		id       int64
		started  bool  // the call's row is written, marked sent
		startErr error // the row could not be written: nothing was sent
	)
	if l.store != nil {
		// A request the model cache cannot answer goes to a server only
		// once its call row is on disk (Store.CallStarted).
		ctx = llm.WithBeforeSend(ctx, func() error {
			if !started {
				var err error
				if id, err = l.store.CallStarted(l.trialID, l.questionID, c); err != nil {
					startErr = l.noteEnv(fmt.Errorf("call log: %w", err))
					return startErr
				}
				started = true
			}
			if err := l.store.Flush(); err != nil {
				return fmt.Errorf("call log: %w", err)
			}
			return nil
		})
	}
	resp, err := l.Client.Complete(ctx, req)
	if startErr != nil {
		return nil, startErr
	}
	if err != nil {
		l.noteEnv(err)
		c.Error = redact(err.Error(), l.secrets)
	} else {
		c.Cached = resp.Cached
		c.PromptTokens = resp.Usage.PromptTokens
		c.CompletionTokens = resp.Usage.CompletionTokens
		c.LatencyMS = float64(resp.Latency.Microseconds()) / 1000
		c.CacheKey = resp.CacheKey
	}
	if l.store != nil {
		var ferr error
		if started {
			ferr = l.store.CallFinished(id, c)
		} else {
			ferr = l.store.CallDone(l.trialID, l.questionID, c)
		}
		if ferr != nil {
			return nil, l.noteEnv(fmt.Errorf("call log: %w", ferr))
		}
		c.MarkLogged()
	}
	l.mu.Lock()
	l.log = append(l.log, c)
	l.mu.Unlock()
	return resp, err
}

// Embed forwards to the underlying client when it computes embeddings.
func (l *callLog) Embed(ctx context.Context, role string, texts []string) ([][]float32, llm.Usage, error) {
	e, ok := l.Client.(llm.Embedder)
	if !ok {
		return nil, llm.Usage{}, fmt.Errorf("the model bound to role %q does not compute embeddings", role)
	}
	return e.Embed(ctx, role, texts)
}

func (l *callLog) calls() []runstore.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]runstore.Call(nil), l.log...)
}

// dbCache opens each database once and shares the handle.
type dbCache struct {
	engine datasets.Engine
	mu     sync.Mutex
	dbs    map[string]dbEntry
}

type dbEntry struct {
	db  datasets.Database
	err error
}

func (c *dbCache) open(ctx context.Context, id string) (datasets.Database, error) {
	if c.engine == nil {
		return nil, fmt.Errorf("database %s: no engine: %w", id, datasets.ErrMissingDB)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.dbs[id]; ok {
		return e.db, e.err
	}
	db, err := c.engine.Open(ctx, id)
	if err != nil && !errors.Is(err, datasets.ErrMissingDB) {
		return nil, err // transient: do not cache
	}
	c.dbs[id] = dbEntry{db: db, err: err}
	return db, err
}

func (c *dbCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.dbs {
		if e.db != nil {
			e.db.Close()
		}
	}
	c.dbs = map[string]dbEntry{}
}
