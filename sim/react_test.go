package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// reactEnv is a one-question benchmark over testdata/concert.sql, the
// simulator at p = 1, and the open database.
func reactEnv(t *testing.T, ex datasets.Example) (*Model, datasets.Database, *datasets.Benchmark) {
	t.Helper()
	b := concertBenchmark(t, true)
	ex.DBID = "concert_singer"
	b.Examples = []datasets.Example{ex}
	s, err := New(b, Config{P: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Engine.Open(context.Background(), ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	return s, db, b
}

// TestReactSettings runs the three ReAct settings with the simulator at
// p = 1 on a question whose prompt carries everything the gold needs:
// every setting returns the gold result; the DSL loop takes 3 turns
// (explore, build+execute, answer after reading the execute
// observation), the SQL loop 2 (run, FINAL ANSWER), the baseline 1.
func TestReactSettings(t *testing.T) {
	ex := datasets.Example{ID: "q7", Question: "Which singers sang in at least two concerts?",
		GoldSQL: "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.singer_id HAVING count(*) >= 2 ORDER BY T1.name"}
	s, db, b := reactEnv(t, ex)
	sc, err := metrics.NewScorer(b, nil, metrics.ScoreOptions{Mode: metrics.ModeSpider})
	if err != nil {
		t.Fatal(err)
	}
	for setting, turns := range map[string]float64{reactdsl.SettingBaseline: 1, reactdsl.SettingIterateSQL: 2, reactdsl.SettingIterateDSL: 3} {
		t.Run(setting, func(t *testing.T) {
			r, err := runners.New("react-dsl", runners.Params{"setting": setting})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), runners.Task{Example: b.Examples[0].WithoutGold(), DB: db, LLM: s})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Trace.Counters["turns"]; got != turns {
				t.Errorf("turns: got %v; want %v", got, turns)
			}
			if v := sc.Score(context.Background(), b.Examples[0], res.SQL); !v.Correct {
				t.Errorf("answer %q: got a wrong result (%+v); want the gold result", res.SQL, v)
			}
		})
	}
}

// TestReactFallsBack: after the exploration turn, SQL the lifter rejects
// (a WITH query) is sent as a raw ```sql block; the DSL loop runs it as a
// probe and never takes it as an answer, so the episode runs to max_turns
// (1 exploration + 7 probes) and the fallback returns the query, saying so
// in the note.
func TestReactFallsBack(t *testing.T) {
	ex := datasets.Example{ID: "q8", Question: "Names of all singers, through a named subquery?",
		GoldSQL: "WITH f AS (SELECT name FROM singer) SELECT * FROM f"}
	s, db, b := reactEnv(t, ex)
	r, err := runners.New("react-dsl", runners.Params{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), runners.Task{Example: b.Examples[0].WithoutGold(), DB: db, LLM: s})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.SQL, "WITH f AS") || res.Trace.Counters[reactdsl.CounterRawSQL] != reactdsl.DefaultMaxTurns-1 || res.Trace.Counters["answered"] != 0 {
		t.Errorf("got SQL %q counters %v; want the WITH query as the fallback after %d probes, never answered", res.SQL, res.Trace.Counters, reactdsl.DefaultMaxTurns-1)
	}
	if !strings.Contains(res.Note, "executed with rows") {
		t.Errorf("note %q; want the fallback explained", res.Note)
	}
}
