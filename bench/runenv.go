package bench

import (
	"context"
	"fmt"
	"sort"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
)

// benchEnv is what Run builds once per benchmark of the plan: the loaded
// benchmark, its scorer, a client per model and its databases.
type benchEnv struct {
	b       *datasets.Benchmark
	scorer  Scorer
	clients map[string]llm.Client
	dbs     *dbCache
}

// runEnv is the environment of one Run: each benchmark of its plan loaded
// once (by benchKey), with its scorer, databases and a client per model
// its trials bind. close releases what it opened, last opened first.
type runEnv struct {
	benches map[string]*benchEnv
	closers []func()
}

// benchKey names a benchmark of the plan: trials whose benchmarks agree on
// it share one benchEnv.
func benchKey(b spec.BenchmarkSpec) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s", b.Name, b.Data, b.Split, b.Limit, b.Mode)
}

// bench is the environment of the benchmark b.
func (e *runEnv) bench(b spec.BenchmarkSpec) *benchEnv { return e.benches[benchKey(b)] }

// close releases what the environment opened, in reverse order.
func (e *runEnv) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	e.closers = nil
}

// openRunEnv loads each benchmark of the plan's trials once and builds its
// scorer, its databases and a client per model the trials bind (once per
// model and benchmark, in the order of the model names). A benchmark that
// does not load, whose databases are mostly missing (CheckDatabases,
// unless opt.AllowMissingDBs), a scorer or a client that cannot be built
// is an error naming it, and what was opened so far is closed.
func openRunEnv(ctx context.Context, p *spec.Plan, env Env, opt Options) (*runEnv, error) {
	e := &runEnv{benches: map[string]*benchEnv{}}
	for _, t := range p.Trials {
		be := e.bench(t.Benchmark)
		if be == nil {
			var err error
			if be, err = e.openBench(ctx, t.Benchmark, env, opt); err != nil {
				e.close()
				return nil, err
			}
			e.benches[benchKey(t.Benchmark)] = be
		}
		if err := e.openClients(ctx, t, be, env, opt); err != nil {
			e.close()
			return nil, err
		}
	}
	return e, nil
}

// openBench loads the benchmark spec (cut to opt.Limit questions when
// that is fewer), checks its databases and builds its scorer.
func (e *runEnv) openBench(ctx context.Context, bspec spec.BenchmarkSpec, env Env, opt Options) (*benchEnv, error) {
	bs := bspec
	if opt.Limit > 0 && (bs.Limit == 0 || opt.Limit < bs.Limit) {
		bs.Limit = opt.Limit
	}
	b, err := env.OpenBenchmark(ctx, bs, opt.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", bspec.Name, err)
	}
	if bs.Limit > 0 && len(b.Examples) > bs.Limit {
		b.Examples = b.Examples[:bs.Limit]
	}
	if b.Engine != nil {
		e.closers = append(e.closers, func() { b.Engine.Close() })
	}
	if !opt.AllowMissingDBs {
		reopen := func(dir string) (*datasets.Benchmark, error) {
			o := bs
			o.Data = dir
			return env.OpenBenchmark(ctx, o, opt.CacheDir)
		}
		use := "set data: DIR on benchmark " + bspec.Name + " in the spec, or pass --benchmark " + bspec.Name + "=DIR"
		if err := CheckDatabases(b, bspec.Name, reopen, use); err != nil {
			return nil, err
		}
	}
	sc, err := env.NewScorer(b, bs, goldCacheDir(opt.CacheDir))
	if err != nil {
		return nil, fmt.Errorf("benchmark %s: scorer: %w", bspec.Name, err)
	}
	if c, ok := sc.(interface{ Close() error }); ok {
		e.closers = append(e.closers, func() { c.Close() })
	}
	be := &benchEnv{b: b, scorer: sc, clients: map[string]llm.Client{}, dbs: &dbCache{engine: b.Engine, dbs: map[string]dbEntry{}}}
	e.closers = append(e.closers, be.dbs.close)
	return be, nil
}

// openClients builds the client of each model trial t binds that be has
// none of yet, in the order of the model names.
func (e *runEnv) openClients(ctx context.Context, t *spec.Trial, be *benchEnv, env Env, opt Options) error {
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
			return fmt.Errorf("model %s: %s", m, redact(err.Error(), opt.Secrets))
		}
		if cl, ok := c.(interface{ Close() error }); ok {
			e.closers = append(e.closers, func() { cl.Close() })
		}
		be.clients[m] = c
	}
	return nil
}
