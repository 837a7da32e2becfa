package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
)

// report counts each committed item by its outcome and calls, passes the
// counters to the progress callback, and says when the failed items are
// more than the limit allows.
func TestRunStateReport(t *testing.T) {
	var seen []Progress
	opt := Options{MaxFailures: FailureLimit{Count: 1, Set: true}, Progress: func(p Progress) { seen = append(seen, p) }}
	p := mustPlan(t, runSpec)
	s := newRunState(p, nil, &runstore.PlanChange{}, opt, itemPlan{items: make([]workItem, 4), skipped: 2}, time.Now())
	correct := &runstore.Verdict{Status: metrics.Status("correct"), Correct: true}
	wrong := &runstore.Verdict{Status: metrics.StatusPredError}
	for i, tc := range []struct {
		it      *runstore.Item
		tooMany bool
	}{
		{&runstore.Item{Status: runstore.StatusDone, Verdict: correct, Calls: []runstore.Call{{Cached: true, PromptTokens: 10, CompletionTokens: 2}, {PromptTokens: 5}}}, false},
		{&runstore.Item{Status: runstore.StatusFailed, Verdict: wrong}, false},
		{&runstore.Item{Status: runstore.StatusError}, true},
	} {
		err := s.report(tc.it)
		if got := errors.Is(err, ErrTooManyFailures); got != tc.tooMany {
			t.Errorf("item %d: err = %v; want too many failures %v", i, err, tc.tooMany)
		}
	}
	got := s.summary().Progress
	want := Progress{Total: 4, Skipped: 2, Done: 1, Failed: 1, Errored: 1, Attempted: 2, Correct: 1,
		Calls: 2, CachedCalls: 1, PromptTokens: 15, CompletionTokens: 2, Elapsed: got.Elapsed}
	if got != want {
		t.Errorf("progress %+v; want %+v", got, want)
	}
	if len(seen) != 3 || seen[2].Errored != 1 {
		t.Errorf("progress callback saw %+v; want 3 calls, the last with 1 errored", seen)
	}
}
