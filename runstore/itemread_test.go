package runstore

import (
	"context"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners"
)

// TestItemReader reads back single items and the call log of a store
// written through Commit and CallStarted/CallFinished.
func TestItemReader(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	items := []*Item{
		{TrialID: "a", QuestionID: "q1", Index: 0, Status: StatusDone, Attempts: 1, Started: time.Now(),
			Verdict: &Verdict{QuestionID: "q1", Status: "ok", Correct: true}, Result: &runners.Result{SQL: "SELECT 1",
				Trace: runners.Trace{Steps: []runners.Step{{Action: "generate", Output: "x"}}}},
			Calls: []Call{{Role: "reason", N: 1, PromptTokens: 10, CompletionTokens: 2, LatencyMS: 1.5}, {Role: "reason", N: 4, Cached: true, PromptTokens: 10, CompletionTokens: 8}}},
		{TrialID: "b", QuestionID: "q1", Index: 0, Status: StatusFailed, ErrorClass: "model_rejected", Error: "400", Attempts: 1,
			Calls: []Call{{Role: "judge", N: 1, Error: "400"}}},
		{TrialID: "a", QuestionID: "q2", Index: 1, Status: StatusDone, Attempts: 1, Result: &runners.Result{SQL: "SELECT 2"},
			Calls: []Call{{Role: "reason", N: 1, PromptTokens: 5, CompletionTokens: 1}}},
	}
	for _, it := range items {
		if err := st.Commit(it); err != nil {
			t.Fatal(err)
		}
	}
	// A call of an item never committed, left in flight.
	if _, err := st.CallStarted("b", "q2", Call{Role: "reason", N: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	r, err := OpenItemReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	it, ok, err := r.Item(ctx, "a", "q1")
	if err != nil || !ok || it.Result == nil || it.Result.SQL != "SELECT 1" || len(it.Result.Trace.Steps) != 1 || it.Verdict == nil || !it.Verdict.Correct {
		t.Fatalf("Item(a, q1) = %+v, %v, %v; want the committed item with its result and verdict", it, ok, err)
	}
	it, ok, err = r.Item(ctx, "b", "q1")
	if err != nil || !ok || it.Status != StatusFailed || it.ErrorClass != "model_rejected" || it.Result != nil {
		t.Errorf("Item(b, q1) = %+v, %v, %v; want the failed item without result", it, ok, err)
	}
	if _, ok, err := r.Item(ctx, "b", "q2"); ok || err != nil {
		t.Errorf("Item(b, q2) ok %v err %v; want not found, no error", ok, err)
	}
	calls, err := r.QuestionCalls(ctx, "q1")
	if err != nil {
		t.Fatal(err)
	}
	if len(calls["a"]) != 2 || calls["a"][1].N != 4 || !calls["a"][1].Cached || len(calls["b"]) != 1 || calls["b"][0].Error != "400" {
		t.Errorf("QuestionCalls(q1) = %+v; want a's two calls in order and b's failed call", calls)
	}
	calls, _ = r.QuestionCalls(ctx, "q2")
	if len(calls["b"]) != 1 || !calls["b"][0].Sent {
		t.Errorf("QuestionCalls(q2)[b] = %+v; want the call in flight, marked sent", calls["b"])
	}
	var n int
	if err := r.EachCall(ctx, func(ItemCall) error { n++; return nil }); err != nil || n != 5 {
		t.Errorf("EachCall saw %d calls (%v); want 5", n, err)
	}
	u, err := r.CallUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]RoleCalls{
		"a": {"reason": {Calls: 3, Cached: 1, PromptTokens: 25, CompletionTokens: 11, LatencyMS: 1.5}},
		"b": {"judge": {Calls: 1}, "reason": {Calls: 1, Sent: 1}},
	}
	for tr, roles := range want {
		for role, w := range roles {
			if got := u[tr][role]; got != w {
				t.Errorf("CallUsage[%s][%s] = %+v; want %+v", tr, role, got, w)
			}
		}
	}
}
