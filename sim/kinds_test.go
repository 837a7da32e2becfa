package sim_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
	"github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/sim"
)

// answersByKind returns the answers rec's client gave, by request kind.
func answersByKind(rec *testkit.Recorder) map[string][]string {
	out := map[string][]string{}
	for _, c := range rec.Log() {
		if c.Err == nil {
			out[c.Req.Responder] = append(out[c.Req.Responder], c.Resp.Choices...)
		}
	}
	return out
}

func loadMini(t *testing.T) *datasets.Benchmark {
	t.Helper()
	return runkit.Mini(t)
}

// TestEveryKindAnswered runs every runner (each ReAct setting) on six mini
// questions under the simulator and checks that every request kind a
// runner sends has a responder, that each kind the runners declare is
// known, and that every answer of a kind parses with the runner's own
// parser for it.
func TestEveryKindAnswered(t *testing.T) {
	declared := []string{
		alphasql.RespKeywords, alphasql.RespRephrase, alphasql.RespSchema, alphasql.RespValues, alphasql.RespFunctions, alphasql.RespSQL, alphasql.RespRevise,
		iesr.RespUnderstand, iesr.RespEquation, iesr.RespSchema, iesr.RespColumns, iesr.RespEntities, iesr.RespSQL, iesr.RespRevise, iesr.RespDiscriminator,
		steinersql.ResponderDecompose, steinersql.ResponderGenerate,
		reactdsl.ResponderTurn, reactdsl.ResponderSQLTurn,
	}
	for _, k := range declared {
		if !slices.Contains(sim.Kinds(), k) {
			t.Errorf("request kind %q declared by a runner has no responder", k)
		}
	}
	b := loadMini(t)
	model, err := sim.New(b, sim.Config{P: 0.6, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rec := &testkit.Recorder{Client: model}
	configs := []struct {
		name   string
		params runners.Params
	}{
		{"direct", nil}, {"cot", nil}, {"sc", runners.Params{"k": 3}},
		{"alphasql", runners.Params{"n_rollout": 3, "value_index_dir": t.TempDir()}},
		{"iesr", runners.Params{"n_rollout": 3}},
		// Algorithm 2's one child per step reaches few actions in three
		// rollouts; expanding every valid action sends every kind.
		{"iesr", runners.Params{"n_rollout": 3, "expansion": "all-actions"}},
		{"steinersql", nil},
		{"react-dsl", runners.Params{"setting": "baseline"}},
		{"react-dsl", runners.Params{"setting": "iterate-sql"}},
		{"react-dsl", runners.Params{"setting": "iterate-dsl"}},
	}
	ctx := context.Background()
	for _, cfg := range configs {
		r, err := runners.New(cfg.name, cfg.params)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(b.Examples); i += 7 {
			ex := b.Examples[i]
			db, err := b.Engine.Open(ctx, ex.DBID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(ctx, runners.Task{Example: ex.WithoutGold(), DB: db, LLM: rec, Seed: 1}); err != nil {
				t.Errorf("%s %v on %s: %v", cfg.name, cfg.params, ex.ID, err)
			}
		}
	}
	parsers := map[string]func(string) error{
		alphasql.RespKeywords:  func(s string) error { _, err := alphasql.ParseKeywords(s); return err },
		alphasql.RespRephrase:  func(s string) error { return okErr(alphasql.ParseRephrase(s)) },
		alphasql.RespSchema:    func(s string) error { _, err := alphasql.ParseSchemaSelection(s); return err },
		alphasql.RespValues:    func(s string) error { _, err := alphasql.ParseValues(s); return err },
		alphasql.RespFunctions: func(s string) error { _, err := alphasql.ParseFunctions(s); return err },
		alphasql.RespSQL:       func(s string) error { return okErr(alphasql.ParseSQL(s)) },
		alphasql.RespRevise:    func(s string) error { return okErr(alphasql.ParseSQL(s)) },
		iesr.RespUnderstand:    func(s string) error { _, err := iesr.ParseState(s); return err },
		iesr.RespSchema:        func(s string) error { _, err := iesr.ParseSelection(s); return err },
		iesr.RespColumns:       func(s string) error { _, err := iesr.ParseColumns(s); return err },
		iesr.RespEntities:      func(s string) error { _, err := iesr.ParseEntities(s); return err },
		iesr.RespSQL:           func(s string) error { return okErr(iesr.ParseSQL(s)) },
		iesr.RespRevise:        func(s string) error { return okErr(iesr.ParseSQL(s)) },
		iesr.RespDiscriminator: func(s string) error { return okErr(iesr.ParseSQL(s)) },
		steinersql.ResponderDecompose: func(s string) error {
			_, err := steinersql.ParseDecomposition(s)
			return err
		},
		reactdsl.ResponderTurn: func(s string) error {
			if calls, errs := reactdsl.ParseCalls(s); len(errs) > 0 {
				return errs[0]
			} else if len(calls) == 0 {
				return okErr(alphasql.ParseSQL(s)) // a raw SQL probe
			}
			return nil
		},
	}
	var seen []string
	for k, answers := range answersByKind(rec) {
		seen = append(seen, k)
		if k != "" && !slices.Contains(sim.Kinds(), k) {
			t.Errorf("runners sent request kind %q; the simulator has no responder for it", k)
		}
		parse := parsers[k]
		if parse == nil {
			continue
		}
		for _, a := range answers {
			if err := parse(a); err != nil {
				t.Errorf("kind %s: answer %q does not parse: %v", k, a, err)
				break
			}
		}
	}
	sort.Strings(seen)
	for _, k := range declared {
		if !slices.Contains(seen, k) && k != iesr.RespEquation {
			t.Errorf("kind %s never sent over the runs; seen %v", k, seen)
		}
	}
}

type parseError string

func (e parseError) Error() string { return string(e) }

func okErr[T any](_ T, ok bool) error {
	if !ok {
		return parseError("not parsed")
	}
	return nil
}
