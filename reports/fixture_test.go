package reports

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// fixtureQuestions is the size of the synthetic benchmark.
const fixtureQuestions = 40

var (
	fixtureLevels = []string{"simple", "moderate", "challenging"}
	fixtureTypes  = []string{"aggregation", "join", "nested", "null"}
)

// fixtureLabels are the synthetic benchmark's labels: difficulty cycles
// over fixtureLevels, question i has types i%4 and (i/4)%4.
func fixtureLabels() map[string]QuestionLabels {
	out := map[string]QuestionLabels{}
	for i := range fixtureQuestions {
		types := []string{fixtureTypes[i%4]}
		if t := fixtureTypes[(i/4)%4]; t != types[0] {
			types = append(types, t)
		}
		out[fmt.Sprintf("q%02d", i)] = QuestionLabels{Difficulty: fixtureLevels[i%3], ReasoningTypes: types}
	}
	return out
}

type fixtureTrial struct {
	label  string
	runner string
	entry  int
	params runners.Params
	model  string
	// p is the chance of a correct answer.
	p        float64
	counters func(r *rand.Rand) map[string]float64
}

// fixtureTrials covers every table and plot: an ablation over two
// backbones, a sweep, a simplex grid, a runner with turn counts and one
// with validation counters.
func fixtureTrials() []fixtureTrial {
	var ts []fixtureTrial
	for _, m := range []string{"simA", "simB"} {
		bonus := 0.0
		if m == "simB" {
			bonus = 0.1
		}
		ts = append(ts,
			fixtureTrial{label: "iesr reason=" + m, runner: "iesr", params: runners.Params{"stage_understanding": true, "validation": true}, model: m, p: 0.7 + bonus},
			fixtureTrial{label: "iesr w/o-understanding reason=" + m, runner: "iesr", params: runners.Params{"stage_understanding": false, "validation": true}, model: m, p: 0.55 + bonus},
			fixtureTrial{label: "iesr w/o-validation reason=" + m, runner: "iesr", params: runners.Params{"stage_understanding": true, "validation": false}, model: m, p: 0.68 + bonus},
		)
	}
	for _, n := range []float64{2, 4, 8} {
		ts = append(ts, fixtureTrial{label: fmt.Sprintf("alphasql n_rollout=%g", n), runner: "alphasql", entry: 1,
			params: runners.Params{"n_rollout": n}, model: "simA", p: 0.4 + 0.05*n})
	}
	ts = append(ts, fixtureTrial{label: "react-dsl", runner: "react-dsl", entry: 2, params: runners.Params{}, model: "simA", p: 0.6,
		counters: func(r *rand.Rand) map[string]float64 { return map[string]float64{"turns": float64(1 + r.IntN(5))} }})
	ts = append(ts, fixtureTrial{label: "steinersql", runner: "steinersql", entry: 3, params: runners.Params{}, model: "simA", p: 0.65,
		counters: func(r *rand.Rand) map[string]float64 {
			c := map[string]float64{"validation.l1": 1}
			if r.Float64() < 0.3 {
				c["validation.l2"] = 1
			}
			if r.Float64() < 0.15 {
				c["validation.l3"] = float64(1 + r.IntN(2))
			}
			return c
		}})
	for _, pt := range spec.SimplexGrid(3, 0.5) {
		ts = append(ts, fixtureTrial{label: fmt.Sprintf("iesr-grid alpha=%g,beta=%g,gamma=%g", pt[0], pt[1], pt[2]), runner: "iesr", entry: 4,
			params: runners.Params{"alpha": pt[0], "beta": pt[1], "gamma": pt[2]}, model: "simA", p: 0.5 + 0.3*pt[0]})
	}
	return ts
}

// writeFixtureRun builds a run directory through bench's store API with
// deterministic outcomes, usage, latencies and trace counters. backend is
// the models' backend ("sim" marks the run simulated).
func writeFixtureRun(t *testing.T, dir, backend string) {
	t.Helper()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	models := map[string]spec.ModelSpec{"simA": {Backend: backend, Model: "model-a", BaseURL: "http://127.0.0.1:1/v1"},
		"simB": {Backend: backend, Model: "model-b", BaseURL: "http://127.0.0.1:1/v1"}}
	labels := fixtureLabels()
	var trials []*spec.Trial
	fts := fixtureTrials()
	for i, ft := range fts {
		trials = append(trials, &spec.Trial{ID: fmt.Sprintf("t%02d", i), Label: ft.label, Runner: ft.runner, Params: ft.params,
			Roles: map[string]string{"reason": ft.model}, Models: map[string]spec.ModelSpec{ft.model: models[ft.model]},
			Benchmark: spec.BenchmarkSpec{Name: "mini"}, Order: i, Entry: ft.entry})
	}
	if err := st.PutTrials(trials); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(map[string]string{"name": "fixture"}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, ft := range fts {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		for q := range fixtureQuestions {
			id := fmt.Sprintf("q%02d", q)
			correct := r.Float64() < ft.p
			status := "wrong"
			if correct {
				status = "correct"
			}
			calls := 1 + r.IntN(3)
			res := &runners.Result{SQL: "SELECT 1", Usage: map[string]runners.RoleUsage{"reason": {Calls: calls,
				PromptTokens: 300 * calls, CompletionTokens: 40*calls + r.IntN(20), Latency: time.Duration(calls) * 250 * time.Millisecond,
				Samples: 2 * calls, Cut: cutOf(q)}}}
			if ft.counters != nil {
				res.Trace.Counters = ft.counters(r)
			}
			it := &runstore.Item{TrialID: trials[i].ID, QuestionID: id, Index: q, Status: runstore.StatusDone,
				Verdict: &runstore.Verdict{Index: q, QuestionID: id, DBID: "db", Difficulty: labels[id].Difficulty, Status: metrics.Status(status), Correct: correct},
				Result:  res, Attempts: 1, Started: start, WallMS: float64(200*calls + r.IntN(100)),
				Calls: []runstore.Call{{Role: "reason", N: 1, PromptTokens: 300, CompletionTokens: 40, LatencyMS: 250}}}
			if err := st.Commit(it); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fixtureOptions are the report options of the golden tests.
func fixtureOptions() Options {
	return Options{Seed: 1, Prices: map[string]metrics.Price{"simA": {PromptPerM: 0.5, CompletionPerM: 1.5}},
		Labels: func(spec.BenchmarkSpec) (map[string]QuestionLabels, error) { return fixtureLabels(), nil }}
}

// cutOf is the fixture's number of answers of question q cut at the token
// limit: one in every seventh question (no random draw, so the other
// golden values keep their stream).
func cutOf(q int) int {
	if q%7 == 0 {
		return 1
	}
	return 0
}
