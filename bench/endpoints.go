package bench

import (
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// EndpointFlushEvery is how often a run adds its endpoint counters to the
// store (and once more at its end), so that a killed run loses at most
// this much of them.
const EndpointFlushEvery = 30 * time.Second

// sharedPool returns the one llm.Pool of model name, built from cfg and
// m's replicas on first use: every benchmark's client of the model shares
// its balancing, ejections and counters.
func sharedPool(mu *sync.Mutex, pools map[string]*llm.Pool, name string, m spec.ModelSpec, cfg llm.OpenAIConfig) (*llm.Pool, error) {
	mu.Lock()
	defer mu.Unlock()
	if p := pools[name]; p != nil {
		return p, nil
	}
	pc := llm.PoolConfig{OpenAIConfig: cfg}
	for _, r := range m.Replicas {
		pc.Replicas = append(pc.Replicas, llm.Endpoint{BaseURL: r.BaseURL, APIKeyEnv: r.APIKeyEnv, MaxConcurrency: r.Concurrency, RPM: r.RPM, TPM: r.TPM})
	}
	p, err := llm.NewPool(pc)
	if err != nil {
		return nil, err
	}
	pools[name] = p
	return p, nil
}

// endpointReporter is a client that counts traffic per endpoint (the
// clients DefaultEnv builds for models with replicas).
type endpointReporter interface {
	EndpointStats() []llm.EndpointStats
}

// pooledClient is the cached client of a pooled model, which reports its
// pool's counters.
type pooledClient struct {
	*llm.CachedClient
	pool *llm.Pool
}

func (c pooledClient) EndpointStats() []llm.EndpointStats { return c.pool.EndpointStats() }

// endpointRecorder adds the increments of the run's endpoint counters to
// the store, periodically and at the end of the run.
type endpointRecorder struct {
	st      *runstore.Store
	sources map[string]endpointReporter // by model name
	mu      sync.Mutex
	last    map[[2]string]llm.EndpointStats
	stop    chan struct{}
	done    chan struct{}
}

func newEndpointRecorder(st *runstore.Store) *endpointRecorder {
	return &endpointRecorder{st: st, sources: map[string]endpointReporter{}, last: map[[2]string]llm.EndpointStats{}}
}

// add notes model's client when it reports endpoint counters; the clients
// of one model on several benchmarks share one pool, reported once.
func (r *endpointRecorder) add(model string, c llm.Client) {
	if er, ok := c.(endpointReporter); ok && r.sources[model] == nil {
		r.sources[model] = er
	}
}

// start flushes every interval until finish.
func (r *endpointRecorder) start(every time.Duration) {
	if len(r.sources) == 0 {
		return
	}
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.flush() // a failed periodic write is retried by the next
			case <-r.stop:
				return
			}
		}
	}()
}

// finish stops the periodic flushes and writes what is left.
func (r *endpointRecorder) finish() error {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	return r.flush()
}

// flush adds the counters' increments since the last flush to the store.
func (r *endpointRecorder) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var delta []runstore.EndpointStat
	next := map[[2]string]llm.EndpointStats{}
	for model, src := range r.sources {
		for _, e := range src.EndpointStats() {
			k := [2]string{model, e.BaseURL}
			next[k] = e
			p := r.last[k]
			if e.Calls == p.Calls && e.Ejections == p.Ejections {
				continue
			}
			d := runstore.EndpointStat{Model: model, Endpoint: e.BaseURL, Calls: e.Calls - p.Calls, Errors: e.Errors - p.Errors,
				Ejections: e.Ejections - p.Ejections, LatencyMSSum: ms(e.LatencySum - p.LatencySum), LatencyMSMax: ms(e.LatencyMax),
				PromptTokens: e.PromptTokens - p.PromptTokens, CompletionTokens: e.CompletionTokens - p.CompletionTokens}
			delta = append(delta, d)
		}
	}
	if err := r.st.AddEndpointStats(delta); err != nil {
		return err
	}
	for k, v := range next {
		r.last[k] = v
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
