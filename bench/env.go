package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// cacheBatchAnswers is the most answers the model cache commits in
// one batch (llm.Cache.SetBatch); its batches last at most runstore.BatchWait
// too, and Run commits one before each of the store's, so that in
// practice a batch holds the answers of the last BatchWait (about
// 3,600 in the paper-scale spec). Only the answers of a model in
// the process (sim) wait in a batch; a server's answer is committed
// as it arrives. A kill loses the open batch's answers, which are
// computed again when next needed.
const cacheBatchAnswers = 8192

// goldCacheDir is the gold-result cache's directory inside cache
// directory cacheDir.
func goldCacheDir(cacheDir string) string { return cacheDir + string(os.PathSeparator) + "gold" }

// CacheUse is how a run uses the model cache.
type CacheUse int

const (
	// CacheReadWrite answers from the cache and stores what it lacks.
	CacheReadWrite CacheUse = iota
	// CacheRefresh asks the models for every call and replaces the
	// cached answers (run --refresh-cache).
	CacheRefresh
	// CacheOff neither reads nor writes the cache (run --no-cache).
	CacheOff
)

// EnvOptions configure NewEnv.
type EnvOptions struct {
	// Cache is how clients use the model cache.
	Cache CacheUse
	// Notify receives one-line notices of the clients, such as a model
	// server whose identity changed since the cached answers (see
	// llm.Cached); nil drops them.
	Notify func(string)
}

// DefaultEnv is NewEnv with the default options.
func DefaultEnv() (Env, func() error) { return NewEnv(EnvOptions{}) }

// NewEnv wires the real world: datasets.Open for benchmarks, runners/llm
// for models (every client wrapped in the shared response cache
// <cache>/models.db, so that a rerun, a resume or a replay costs no model
// calls) and metrics.Scorer with a gold-result cache shared by all trials.
// The returned close function releases the caches.
func NewEnv(o EnvOptions) (Env, func() error) {
	w := &world{
		o:     o,
		sims:  map[*datasets.Benchmark]map[string]llm.Client{},
		pools: map[string]*llm.Pool{},
		golds: map[string]*metrics.GoldCache{},
	}
	env := Env{
		Prepare:        w.prepare,
		KnownBenchmark: func(name string) bool { _, ok := datasets.Lookup(name); return ok },
		OpenBenchmark:  w.openBenchmark,
		NewClient:      w.newClient,
		NewScorer:      w.newScorer,
	}
	return env, w.close
}

// world is the state behind NewEnv's Env: the model cache, the gold-result
// caches, and the clients shared across trials.
type world struct {
	o     EnvOptions
	mu    sync.Mutex // guards sims and pools
	sims  map[*datasets.Benchmark]map[string]llm.Client
	pools map[string]*llm.Pool
	// The caches have locks of their own, so that Env.Prepare opens
	// both at once.
	cacheMu sync.Mutex
	cache   *llm.Cache
	goldMu  sync.Mutex
	golds   map[string]*metrics.GoldCache
}

// prepare opens the model cache and the gold-result cache of cacheDir at
// once.
func (w *world) prepare(cacheDir string) {
	var wg sync.WaitGroup
	wg.Go(func() { w.openCache(cacheDir) })
	wg.Go(func() { w.goldCache(goldCacheDir(cacheDir)) })
	wg.Wait()
}

// openCache returns the model cache in dir, opened once; nil when the
// options turn the cache off.
func (w *world) openCache(dir string) (*llm.Cache, error) {
	if w.o.Cache == CacheOff {
		return nil, nil // a nil cache: the clients neither read nor write one
	}
	w.cacheMu.Lock()
	defer w.cacheMu.Unlock()
	if w.cache != nil {
		return w.cache, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c, err := llm.OpenCache(filepath.Join(dir, runstore.ModelCacheFile))
	if err != nil {
		return nil, err
	}
	// Answers of a model in the process (sim) are committed in
	// batches, as the store's items are (BatchItems); a server's
	// answer is committed as it arrives. Run commits the cache's
	// batch before each of the store's.
	if err := c.SetBatch(cacheBatchAnswers, runstore.BatchWait); err != nil {
		c.Close()
		return nil, err
	}
	w.cache = c
	return c, nil
}

// goldCache returns the gold-result cache in dir, opened once.
func (w *world) goldCache(dir string) (*metrics.GoldCache, error) {
	w.goldMu.Lock()
	defer w.goldMu.Unlock()
	if g := w.golds[dir]; g != nil {
		return g, nil
	}
	g, err := metrics.NewGoldCache(dir)
	if err != nil {
		return nil, err
	}
	w.golds[dir] = g
	return g, nil
}

// openBenchmark loads benchmark b, with its derived files under cacheDir.
func (w *world) openBenchmark(_ context.Context, b spec.BenchmarkSpec, cacheDir string) (*datasets.Benchmark, error) {
	name := b.DatasetName()
	opt := datasets.LoadOptions{Limit: b.Limit, CacheDir: filepath.Join(cacheDir, "datasets", b.Name),
		SQLite: datasets.SQLiteOptions{MaxBytes: b.MaxResultMB << 20}}
	if b.MySQL != nil {
		cfg, err := b.MySQL.Config()
		if err != nil {
			return nil, fmt.Errorf("benchmark %s: %w", name, err)
		}
		cfg.MaxBytes = b.MaxResultMB << 20
		opt.MySQL = cfg
	} else if datasets.NeedsServer(name) {
		cfg, err := mysqlFromEnviron(name)
		if err != nil {
			return nil, err
		}
		cfg.MaxBytes = b.MaxResultMB << 20
		opt.MySQL = cfg
	}
	return datasets.Open(name, b.Data, opt)
}

// mysqlFromEnviron is the server of benchmark name when its spec names
// none: T2SBENCH_RO_DSN and T2SBENCH_RO_PASSWORD are what `datasets
// load-mysql` prints; the T2SBENCH_MYSQL_* names are the deprecated ones.
func mysqlFromEnviron(name string) (*datasets.MySQLConfig, error) {
	dsn := os.Getenv("T2SBENCH_RO_DSN")
	if dsn == "" {
		dsn = os.Getenv("T2SBENCH_MYSQL_DSN")
	}
	if dsn == "" {
		return nil, fmt.Errorf("benchmark %s: its gold SQL is MySQL dialect and runs on a MySQL/MariaDB server: set T2SBENCH_RO_DSN and T2SBENCH_RO_PASSWORD (t2sbench datasets load-mysql prints them) or give the benchmark a mysql entry (t2sbench help spec), or use logiccat-sqlite", name)
	}
	pw := ""
	for _, env := range []string{"T2SBENCH_RO_PASSWORD", "T2SBENCH_MYSQL_PASSWORD"} {
		if pw == "" && os.Getenv(env) != "" {
			pw = env
		}
	}
	return &datasets.MySQLConfig{DSN: dsn, PasswordEnv: pw}, nil
}

// newClient returns model name's client for benchmark b, wrapped in the
// model cache of cacheDir.
func (w *world) newClient(_ context.Context, name string, m spec.ModelSpec, b *datasets.Benchmark, cacheDir string) (llm.Client, error) {
	c, err := w.openCache(cacheDir)
	if err != nil {
		return nil, fmt.Errorf("model cache: %w", err)
	}
	opts := []llm.CacheOption{llm.WithNotify(w.o.Notify)}
	if w.o.Cache == CacheRefresh {
		opts = append(opts, llm.WithRefresh())
	}
	switch m.Backend {
	case "openai":
		return w.openAIClient(name, m, c, append(opts, llm.WithRedact(m.Secrets()...)))
	case "sim":
		return w.simClient(name, m, b, c, append(opts, llm.InProcess()))
	}
	return nil, fmt.Errorf("unknown backend %q", m.Backend)
}

// openAIClient returns a client of the openai model m (a pool shared by
// name when it has replicas) wrapped in cache c.
func (w *world) openAIClient(name string, m spec.ModelSpec, c *llm.Cache, opts []llm.CacheOption) (llm.Client, error) {
	cfg := llm.OpenAIConfig{
		BaseURL: m.BaseURL, Model: m.Model, APIKeyEnv: m.APIKeyEnv,
		Timeout: m.Timeout.D(), MaxRetries: m.MaxRetries, MaxConcurrency: m.Concurrency,
		RPM: m.RPM, TPM: m.TPM,
		MaxTokens: m.MaxTokens, MaxTokensParam: m.MaxTokensParam, Structured: m.Structured,
		MaxResponseBytes: m.MaxResponseBytes, MaxChoiceBytes: m.MaxChoiceBytes,
	}
	if len(m.Replicas) > 0 {
		p, err := sharedPool(&w.mu, w.pools, name, m, cfg)
		if err != nil {
			return nil, err
		}
		return pooledClient{llm.Cached(p, c, p.Ident(), opts...), p}, nil
	}
	oc, err := llm.NewOpenAI(cfg)
	if err != nil {
		return nil, err
	}
	return llm.Cached(oc, c, oc.Ident(), opts...), nil
}

// simClient returns the sim model name of benchmark b, built once per
// benchmark and wrapped in cache c.
func (w *world) simClient(name string, m spec.ModelSpec, b *datasets.Benchmark, c *llm.Cache, opts []llm.CacheOption) (llm.Client, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sims[b] == nil {
		w.sims[b] = map[string]llm.Client{}
	}
	if s := w.sims[b][name]; s != nil {
		return s, nil
	}
	s, ident, err := newSim(b, m)
	if err != nil {
		return nil, err
	}
	cc := llm.Cached(s, c, ident, opts...)
	w.sims[b][name] = cc
	return cc, nil
}

// newScorer returns benchmark b's scorer over the gold-result cache in
// goldDir.
func (w *world) newScorer(b *datasets.Benchmark, bs spec.BenchmarkSpec, goldDir string) (Scorer, error) {
	g, err := w.goldCache(goldDir)
	if err != nil {
		return nil, err
	}
	sc, err := metrics.NewScorer(b, g, metrics.ScoreOptions{Mode: metrics.Mode(bs.Mode), TieAware: bs.TieAware})
	if err != nil {
		return nil, err
	}
	return scorerAdapter{sc}, nil
}

// close releases the caches.
func (w *world) close() error {
	var errs []error
	w.cacheMu.Lock()
	if w.cache != nil {
		errs = append(errs, w.cache.Close())
		w.cache = nil
	}
	w.cacheMu.Unlock()
	w.goldMu.Lock()
	for _, g := range w.golds {
		errs = append(errs, g.Close())
	}
	clear(w.golds)
	w.goldMu.Unlock()
	return errors.Join(errs...)
}

// scorerAdapter is the scheduler's scorer over a metrics.Scorer.
type scorerAdapter struct{ s *metrics.Scorer }

func (a scorerAdapter) Score(ctx context.Context, ex datasets.Example, pred string) runstore.Verdict {
	return a.s.Score(ctx, ex, pred)
}

// ScoreWithCandidates judges a prediction and its candidates together
// (metrics.Scorer.ScoreWithCandidates).
func (a scorerAdapter) ScoreWithCandidates(ctx context.Context, ex datasets.Example, pred string, sqls []string) (runstore.Verdict, []metrics.CandidateMark) {
	return a.s.ScoreWithCandidates(ctx, ex, pred, sqls)
}

// GoldCache returns the gold cache the scorer reads through.
func (a scorerAdapter) GoldCache() *metrics.GoldCache { return a.s.GoldCache() }

// Close releases the scorer's databases.
func (a scorerAdapter) Close() error {
	if c, ok := any(a.s).(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}
