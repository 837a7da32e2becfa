package bench

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runPool calls each item once, never more than workers at a time.
func TestRunPoolBound(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {20, 3}, {7, 1}} {
		var inFlight, most atomic.Int64
		calls := make([]atomic.Int64, tc.n)
		err := runPool(context.Background(), tc.n, tc.workers, func(_ context.Context, i int) error {
			now := inFlight.Add(1)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			calls[i].Add(1)
			inFlight.Add(-1)
			return nil
		})
		if err != nil {
			t.Errorf("n %d, workers %d: err = %v; want nil", tc.n, tc.workers, err)
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n %d, workers %d: item %d called %d times; want 1", tc.n, tc.workers, i, c)
			}
		}
		if m := most.Load(); m > int64(tc.workers) {
			t.Errorf("n %d, workers %d: %d calls in flight; want at most %d", tc.n, tc.workers, m, tc.workers)
		}
	}
}

// The first error cancels the calls in flight, starts no further call and
// is runPool's.
func TestRunPoolStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	const n, workers, failing = 100, 2, 5
	var mu sync.Mutex
	var started []int
	done := make(chan error, 1)
	go func() {
		done <- runPool(context.Background(), n, workers, func(ctx context.Context, i int) error {
			mu.Lock()
			started = append(started, i)
			mu.Unlock()
			switch {
			case i == 0:
				// In flight until the failure cancels it.
				<-ctx.Done()
				return nil
			case i == failing:
				return boom
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Errorf("err = %v; want %v", err, boom)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runPool did not return: the failure did not cancel the call in flight")
	}
	for _, i := range started {
		if i > failing+workers {
			t.Errorf("item %d started after item %d failed (started %v)", i, failing, started)
		}
	}
}

// A canceled ctx starts no call and is not an error of the pool.
func TestRunPoolCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	err := runPool(ctx, 10, 3, func(context.Context, int) error { calls.Add(1); return nil })
	if err != nil || calls.Load() != 0 {
		t.Errorf("err = %v, %d calls; want nil, 0", err, calls.Load())
	}
}
