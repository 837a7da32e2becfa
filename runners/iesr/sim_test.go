package iesr

import (
	"context"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
)

// miniEnv loads the bundled mini benchmark and a sim backend over it.
type miniEnv struct {
	b   *datasets.Benchmark
	sim *sim.Model
	dbs map[string]datasets.Database
}

func newMiniEnv(t *testing.T, cfg sim.Config) *miniEnv {
	t.Helper()
	b := runkit.Mini(t)
	model, err := sim.New(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &miniEnv{b: b, sim: model, dbs: map[string]datasets.Database{}}
}

func (e *miniEnv) db(t *testing.T, id string) datasets.Database {
	t.Helper()
	if d, ok := e.dbs[id]; ok {
		return d
	}
	d, err := e.b.Engine.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	e.dbs[id] = d
	return d
}

func (e *miniEnv) task(t *testing.T, ex datasets.Example, c llm.Client) runners.Task {
	return runners.Task{Example: ex.WithoutGold(), DB: e.db(t, ex.DBID), LLM: c, Seed: 0}
}

// roleRec sums, for one role, requests, choices and tokens as the
// backend reported them.
type roleRec struct{ calls, choices, completion, prompt int }

// byRole sums the successful calls of log by role.
func byRole(log []testkit.Call) map[string]*roleRec {
	by := map[string]*roleRec{}
	for _, c := range log {
		if c.Err != nil {
			continue
		}
		x := by[c.Req.Role]
		if x == nil {
			x = &roleRec{}
			by[c.Req.Role] = x
		}
		x.calls++
		x.choices += len(c.Resp.Choices)
		x.completion += c.Resp.Usage.CompletionTokens
		x.prompt += c.Resp.Usage.PromptTokens
	}
	return by
}

// execAccuracy runs runner r on every example and scores with the mini
// benchmark's official comparator.
func execAccuracy(t *testing.T, e *miniEnv, r runners.Runner, exs []datasets.Example) (int, []runners.Result) {
	t.Helper()
	sc, err := metrics.NewScorer(e.b, nil, metrics.ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	var results []runners.Result
	for _, ex := range exs {
		res, err := r.Run(context.Background(), e.task(t, ex, e.sim))
		if err != nil {
			t.Fatalf("%s: %v", ex.ID, err)
		}
		v := sc.Score(context.Background(), ex, res.SQL)
		if v.Correct {
			correct++
		}
		results = append(results, res)
	}
	return correct, results
}
