package viewer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// hostileModel answers every sample with payload in the answer, the
// reasoning and the finish reason.
type hostileModel struct{}

func (hostileModel) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	return &llm.Response{Model: "m", Choices: []string{"answer " + payload}, Reasoning: []string{"think " + payload},
		FinishReasons: []string{payload}}, nil
}

// hostileCall makes a call with payload in its messages (text and role)
// and answers through the run's model cache and returns its cache key.
func hostileCall(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := llm.OpenCache(filepath.Join(dir, "cache", runstore.ModelCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := llm.Cached(hostileModel{}, c, llm.Ident{Backend: "sim", Model: payload}).Complete(context.Background(),
		llm.Request{Role: "reason", Messages: []llm.Message{{Role: "system", Content: "system " + payload}, {Role: payload, Content: "prompt " + payload}}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.CacheKey
}

// payload is what a hostile or broken model, question or label could
// hold: a script element, an element with an event handler, and an
// attribute injection. Rendered as text, none of it runs; any of it run
// would set the document's title to "pwned".
const payload = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">" onmouseover="document.title='pwned'`

// injectionRun writes a run store by hand whose run name, trial label,
// verdict, SQL, note, trace and call log all carry payload, and whose model
// cache holds a call with payload in its messages and answer.
func injectionRun(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trials := []*spec.Trial{
		{ID: "t1", Label: "a " + payload, Runner: "react-dsl", Roles: map[string]string{"reason": "sim"},
			Models: map[string]spec.ModelSpec{"sim": {Backend: "sim"}}, Benchmark: spec.BenchmarkSpec{Name: "hostile"}},
		{ID: "t2", Label: "b", Runner: "direct", Roles: map[string]string{"reason": "sim"},
			Models: map[string]spec.ModelSpec{"sim": {Backend: "sim"}}, Benchmark: spec.BenchmarkSpec{Name: "hostile"}, Order: 1},
	}
	if err := st.PutTrials(trials); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(map[string]string{"name": "run " + payload, "items:t1": "1", "items:t2": "1"}); err != nil {
		t.Fatal(err)
	}
	key := hostileCall(t, dir)
	for i, tr := range trials {
		it := &runstore.Item{TrialID: tr.ID, QuestionID: "q1", Status: runstore.StatusDone, Attempts: 1, Started: time.Now(),
			Verdict: &runstore.Verdict{QuestionID: "q1", DBID: "db " + payload, Status: "ok", Correct: i == 1, Error: "err " + payload},
			Result: &runners.Result{SQL: "SELECT '" + payload + "'", Note: "note " + payload,
				Candidates: []runners.Candidate{{SQL: "SELECT 1 -- " + payload, Score: 1, Parts: map[string]float64{"x": 1}, Group: payload}},
				Trace: runners.Trace{Steps: []runners.Step{{Action: "turn", Role: "reason", Input: "prompt " + payload, Output: "answer " + payload,
					Info: map[string]any{"turn": 1, "calls": 1, "observation": "error: " + payload, "reasoning": "think " + payload, "finish_reason": payload}}},
					Counters: map[string]float64{payload: 1}}},
			Calls: []runstore.Call{{Role: "reason " + payload, N: 1, PromptTokens: 3, CompletionTokens: 4, Error: payload},
				{Role: "reason", N: 1, PromptTokens: 3, CompletionTokens: 4, CacheKey: key}}}
		if err := st.Commit(it); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hostileBenchmark is the benchmark of injectionRun: one question whose
// text, evidence and gold carry payload (no database, so no previews).
func hostileBenchmark(spec.BenchmarkSpec) (*datasets.Benchmark, error) {
	return &datasets.Benchmark{Name: "hostile", Examples: []datasets.Example{{ID: "q1", DBID: "db " + payload,
		Question: "question " + payload, Evidence: "evidence " + payload, GoldSQL: "SELECT '" + payload + "'",
		Difficulty: payload, ReasoningTypes: []string{payload}}}}, nil
}
