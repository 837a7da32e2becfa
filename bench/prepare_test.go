package bench

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestRunPrepare calls Env.Prepare once, with the run's cache directory,
// and returns only once it has returned, even when it outlasts the items.
func TestRunPrepare(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(3, 1, nil)
	var calls atomic.Int32
	var finished atomic.Bool
	var dir atomic.Value
	env.Prepare = func(cacheDir string) {
		calls.Add(1)
		dir.Store(cacheDir)
		time.Sleep(50 * time.Millisecond)
		finished.Store(true)
	}
	cache := t.TempDir()
	if _, err := runOnce(t, t.TempDir(), mustPlan(t, runSpec), env, Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("Prepare called %d times; want 1", got)
	}
	if got, _ := dir.Load().(string); got != cache {
		t.Errorf("Prepare given %q; want the cache directory %q", got, cache)
	}
	if !finished.Load() {
		t.Errorf("Run returned before Prepare did")
	}
}
