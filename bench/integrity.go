package bench

import (
	"slices"
	"sync"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// integrityRecorder adds to the store the damaged cache entries the run's
// model and gold caches meet (llm.CacheStats.Corrupt,
// metrics.GoldCache.Corrupt), as the increments since the run started:
// after every committed item and at the end.
type integrityRecorder struct {
	st     *runstore.Store
	mu     sync.Mutex
	models map[*llm.Cache]int64
	golds  map[*metrics.GoldCache]int
}

// cacheOwner is a client answering from a model cache (llm.CachedClient).
type cacheOwner interface{ Cache() *llm.Cache }

// cacheFlusher returns a function committing the open batch of every
// model cache the clients of benches answer from (cacheOwner), each once.
func cacheFlusher(benches map[string]*benchEnv) func() error {
	var caches []*llm.Cache
	for _, be := range benches {
		for _, c := range be.clients {
			if o, ok := c.(cacheOwner); ok && o.Cache() != nil && !slices.Contains(caches, o.Cache()) {
				caches = append(caches, o.Cache())
			}
		}
	}
	return func() error {
		for _, c := range caches {
			if err := c.Flush(); err != nil {
				return err
			}
		}
		return nil
	}
}

// goldOwner is a scorer reading golds through a gold cache.
type goldOwner interface{ GoldCache() *metrics.GoldCache }

func newIntegrityRecorder(st *runstore.Store) *integrityRecorder {
	return &integrityRecorder{st: st, models: map[*llm.Cache]int64{}, golds: map[*metrics.GoldCache]int{}}
}

// add notes the caches behind client c and scorer sc, once each, with
// their counts now.
func (r *integrityRecorder) add(c llm.Client, sc Scorer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := c.(cacheOwner); ok {
		if mc := o.Cache(); mc != nil {
			if _, seen := r.models[mc]; !seen {
				r.models[mc] = mc.Stats().Corrupt
			}
		}
	}
	if o, ok := sc.(goldOwner); ok {
		if g := o.GoldCache(); g != nil {
			if _, seen := r.golds[g]; !seen {
				r.golds[g] = g.Corrupt()
			}
		}
	}
}

// flush adds the increments since the last flush to the store.
func (r *integrityRecorder) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	counts := map[string]int{}
	for mc, last := range r.models {
		now := mc.Stats().Corrupt
		counts[runstore.MetaSamplesReasked] += int(now - last)
		r.models[mc] = now
	}
	for g, last := range r.golds {
		now := g.Corrupt()
		counts[runstore.MetaGoldsReexecuted] += now - last
		r.golds[g] = now
	}
	if counts[runstore.MetaSamplesReasked] == 0 && counts[runstore.MetaGoldsReexecuted] == 0 {
		return nil
	}
	return r.st.AddIntegrity(counts)
}
