package bench

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// failQuestion fails every request about one question with a broken
// connection (an infrastructure error: the item stays pending).
type failQuestion struct {
	llm.Client
	question string
}

func (f failQuestion) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if strings.Contains(req.Messages[len(req.Messages)-1].Content, f.question) {
		return nil, fmt.Errorf("fake: %w", syscall.ECONNRESET)
	}
	return f.Client.Complete(ctx, req)
}

// TestUnselectedPending: an item left pending by an infrastructure error
// at a question past this run's Limit (or in another Shard) is counted in
// Summary.Unselected: running the same options again never runs it.
func TestUnselectedPending(t *testing.T) {
	t.Parallel()
	const yml = "name: u\nbenchmarks: [{name: fake}]\nmodels: {m: {backend: sim}}\nroles: {reason: m}\nrunners: [{name: direct}]\n"
	env, _ := testEnv(6, 1, func(c llm.Client) llm.Client { return failQuestion{c, "question number 4?"} })
	dir := t.TempDir()
	p := mustPlan(t, yml)
	opt := Options{RetryWait: time.Millisecond, Retries: 1}
	cases := []struct {
		name              string
		limit             int
		shard             spec.Shard
		errored, unselect int
	}{
		{name: "whole run", errored: 1},
		{name: "limit past the question", limit: 3, unselect: 1},
		{name: "limit over it", limit: 5, errored: 1},
		{name: "its shard", shard: shardOf(t, p.Trials[0].ID, "q004", true), errored: 1},
		{name: "another shard", shard: shardOf(t, p.Trials[0].ID, "q004", false), unselect: 1},
	}
	// One store, the cases in order: the subtests are not parallel.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := opt
			o.Limit, o.Shard = c.limit, c.shard
			sum, err := runOnce(t, dir, p, env, o)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Errored != c.errored || sum.Unselected != c.unselect {
				t.Errorf("errored %d, unselected %d; want %d, %d", sum.Errored, sum.Unselected, c.errored, c.unselect)
			}
		})
	}
}

// shardOf returns a shard of 2 that holds item (trial, question), or one
// that does not.
func shardOf(t *testing.T, trial, question string, holds bool) spec.Shard {
	t.Helper()
	for i := 0; i < 2; i++ {
		if s := (spec.Shard{I: i, N: 2}); s.Has(trial, question) == holds {
			return s
		}
	}
	t.Fatal("no shard")
	return spec.Shard{}
}

// TestReplaceUnderSameID: tie_aware, a scoring rule the trial id leaves
// out, is refused when it changes; ReplaceTrials reruns the trials under
// their own ids, and the new items and calls stay.
func TestReplaceUnderSameID(t *testing.T) {
	t.Parallel()
	const yml = "name: u\nbenchmarks: [{name: fake%s}]\nmodels: {m: {backend: sim}}\nroles: {reason: m}\nrunners: [{name: direct}]\n"
	env, _ := testEnv(4, 0.5, nil)
	dir := t.TempDir()
	if _, err := runOnce(t, dir, mustPlan(t, fmt.Sprintf(yml, "")), env, Options{}); err != nil {
		t.Fatal(err)
	}
	tie := mustPlan(t, fmt.Sprintf(yml, ", tie_aware: true"))
	if _, err := runOnce(t, dir, tie, env, Options{}); err == nil || !strings.Contains(err.Error(), `trial "direct": benchmark tie_aware changed false -> true`) {
		t.Fatalf("run with tie_aware: %v; want a refusal naming tie_aware", err)
	}
	sum, err := runOnce(t, dir, tie, env, Options{ReplaceTrials: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 4 || len(sum.Removed) != 1 || sum.Removed[0].Items != 4 || sum.Removed[0].Calls != 4 {
		t.Errorf("done %d, removed %+v; want 4 items rerun, the old trial's 4 items and 4 calls removed", sum.Done, sum.Removed)
	}
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, it := range r.Trials[0].Items {
		calls += len(it.Calls)
	}
	if len(r.Trials) != 1 || !r.Trials[0].Benchmark.TieAware || len(r.Trials[0].Items) != 4 || calls != 4 || r.CallLog.Calls != 4 {
		t.Errorf("stored: %d trials (tie_aware %v), %d items, %d calls of items, %d in the log; want 1 (true), 4, 4, 4",
			len(r.Trials), len(r.Trials) > 0 && r.Trials[0].Benchmark.TieAware, len(r.Trials[0].Items), calls, r.CallLog.Calls)
	}
}
