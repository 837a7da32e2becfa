// Package runkit holds the test fixtures of runners and of the code that
// runs them over datasets: SQLite databases opened as datasets.Database
// (DB, DBWith, MiniDB), the bundled mini benchmark (Mini), a model that
// knows the golds and answers in the styles of real models (GoldModel),
// and the checks several runners' tests share (ParseFailed,
// MalformedCounted, RejectedPrune). It builds on package testkit; it
// imports datasets and runners, so the own tests of those two packages
// use testkit directly.
package runkit

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// DB builds a SQLite database from scripts (see testkit.SQLite) and opens
// it as database id with default options; it is closed when the test
// ends.
func DB(t testing.TB, id string, scripts ...string) datasets.Database {
	t.Helper()
	return DBWith(t, id, datasets.SQLiteOptions{}, scripts...)
}

// DBWith is DB with the options opt.
func DBWith(t testing.TB, id string, opt datasets.SQLiteOptions, scripts ...string) datasets.Database {
	t.Helper()
	path := testkit.SQLiteAt(t, filepath.Join(t.TempDir(), id+".sqlite"), scripts...)
	db, err := datasets.OpenSQLite(path, id, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// MiniDB opens database name of the bundled mini benchmark, built from its
// script testdata/mini/databases/<name>.sql in t.TempDir().
func MiniDB(t testing.TB, name string) datasets.Database {
	t.Helper()
	return DB(t, name, testkit.SQLFile(t, filepath.Join(testenv.RepoRoot(), "testdata", "mini", "databases", name+".sql")))
}

// Mini loads the bundled mini benchmark with its databases built in
// t.TempDir(); its engine is closed when the test ends.
func Mini(t testing.TB) *datasets.Benchmark {
	t.Helper()
	b, err := datasets.LoadMini("", datasets.LoadOptions{CacheDir: filepath.Join(t.TempDir(), "mini")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Engine.Close() })
	return b
}

// MalformedAnswers are structured (JSON) answers as real models get them
// wrong, by kind: prose without the JSON object, JSON cut short although
// the server said stop, a fenced object under keys the prompt did not ask
// for, and a reasoning block followed by prose. They are about the
// singers of France, the question of the runners' concert fixtures.
var MalformedAnswers = map[string]string{
	"prose":             "The question asks about singers from France, so the singer table and its country column matter.",
	"truncated json":    "Let me think.\n```json\n{\"tables\": {\"singer\": [\"coun",
	"fenced wrong keys": "```json\n{\"answer\": [\"singer\"], \"reasoning\": \"country filter\"}\n```",
	"think then prose":  "<think>The user wants a count of French singers.</think>\nThe singer table holds it.",
}

// ParseFailed returns the sum of the parse-failure counters names
// (runners.ParseFailedPrefix + role + "." + action) in counters, and
// reports an error for every other parse-failure counter present: with no
// names, it checks that no answer failed to parse.
func ParseFailed(t testing.TB, counters map[string]float64, names ...string) float64 {
	t.Helper()
	sum := 0.0
	for _, name := range names {
		sum += counters[name]
	}
	for name, v := range counters {
		if strings.HasPrefix(name, runners.ParseFailedPrefix) && !slices.Contains(names, name) {
			if len(names) == 0 {
				t.Errorf("counter %s = %v; want no parse failure", name, v)
			} else {
				t.Errorf("counter %s = %v; want only %v", name, v, names)
			}
		}
	}
	return sum
}

// QuestionLabel is the label of the question's line in the runners'
// prompts.
const QuestionLabel = "【Question】\n"

// Golds maps each question of b to its gold SQL, for GoldModel.
func Golds(b *datasets.Benchmark) map[string]string {
	m := map[string]string{}
	for _, e := range b.Examples {
		m[e.Question] = e.GoldSQL
	}
	return m
}

// GoldModel is a model that knows each question's gold SQL (gold maps
// question to SQL) and answers in the styles of real models: it finds the
// question in the request's last prompt (the line after QuestionLabel),
// fails the call for an unknown question, and answers sample i with the
// text and finish reason answer(responder, gold, i) gives, with a
// reasoning that holds a wrong draft and marker returned apart (as
// servers that split reasoning do), so that a test can check that
// reasoning never reaches a prompt.
func GoldModel(gold map[string]string, marker string, answer func(responder, gold string, i int) (text, finish string)) *testkit.Model {
	return &testkit.Model{Reply: func(_ int, r llm.Request) ([]testkit.Sample, error) {
		q := testkit.PromptLine(r, QuestionLabel)
		g, ok := gold[q]
		if !ok {
			return nil, fmt.Errorf("gold model: unknown question %q", q)
		}
		out := make([]testkit.Sample, 0, r.Samples())
		for i := range r.Samples() {
			text, finish := answer(r.Responder, g, i)
			out = append(out, testkit.Sample{Text: text, Finish: finish, Reasoning: "Let me think. A first draft: SELECT * FROM ghost; " + marker})
		}
		return out, nil
	}}
}

// ParseFailTarget is a responder whose answers a parse-failure test makes
// malformed, with the counters every sample asked of it must be counted
// under.
type ParseFailTarget struct {
	Responder string
	Counters  []string
}

// MalformedCounted checks a runner's parse-failure counters against every
// kind of MalformedAnswers and every target, each in a subtest
// "<kind>/<responder>": run runs the runner with the client
// model(target.Responder, answer), a sensible model except that the
// target's responder answers answer, and every sample asked of that
// responder must be counted exactly once under the target's counters,
// with no other parse-failure counter set (see ParseFailed).
func MalformedCounted(t *testing.T, targets []ParseFailTarget, model func(responder, answer string) *testkit.Model, run func(t *testing.T, c llm.Client) runners.Result) {
	t.Helper()
	for kind, answer := range MalformedAnswers {
		for _, tg := range targets {
			t.Run(kind+"/"+tg.Responder, func(t *testing.T) {
				c := model(tg.Responder, answer)
				res := run(t, c)
				got := ParseFailed(t, res.Trace.Counters, tg.Counters...)
				if want := float64(c.Samples(tg.Responder)); want == 0 || got != want {
					t.Errorf("%v = %v; want %v (every sample of %s)", tg.Counters, got, want, tg.Responder)
				}
			})
		}
	}
}

// RejectCase is a way a model server refuses requests, for RejectedPrune:
// Reject is set on the model; WantSQL says whether the run must still
// reach the gold's result, WantErr whether it must fail instead (an
// infrastructure failure, after which the item is resumed).
type RejectCase struct {
	Name    string
	Reject  func(llm.Request) error
	WantSQL bool
	WantErr bool
}

// RejectedPrune checks that a search runner prunes the branches whose
// requests a server refuses: for each case, in a subtest, run runs the
// runner on example e over db with a model from newModel whose Reject is
// the case's. The run must fail exactly when WantErr; otherwise it must
// count the refused requests under "pruned", reach the gold's result
// exactly when WantSQL, and say in its note why it has no SQL.
func RejectedPrune(t *testing.T, db datasets.Database, e datasets.Example, cases []RejectCase, newModel func() *testkit.Model, run func(t *testing.T, c llm.Client) (runners.Result, error)) {
	t.Helper()
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			m := newModel()
			m.Reject = tc.Reject
			res, err := run(t, m)
			if tc.WantErr {
				if err == nil {
					t.Fatalf("Run: got nil error; want the infrastructure failure")
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v; want rejected requests pruned", err)
			}
			if res.Trace.Counters[runners.CounterPruned] == 0 {
				t.Errorf("pruned counter = 0; want the rejected requests counted")
			}
			got, gerr := db.Execute(ctx, res.SQL)
			want, _ := db.Execute(ctx, e.GoldSQL)
			correct := gerr == nil && got.SetKey() == want.SetKey()
			if correct != tc.WantSQL {
				t.Errorf("SQL %q correct = %v (note %q); want %v", res.SQL, correct, res.Note, tc.WantSQL)
			}
			if !tc.WantSQL && res.Note == "" {
				t.Errorf("no SQL and no note saying why")
			}
		})
	}
}

// MiniQ0 is question 0 of the bundled mini benchmark
// (testdata/mini/questions.json), without its gold; MiniQ0Gold is its
// gold SQL, which gives 3 (testdata/mini/databases/university.sql has
// three students whose major is Computer Science).
var MiniQ0 = datasets.Example{ID: "0", DBID: "university", Question: "How many students declared a major in the Computer Science department?"}

// MiniQ0Gold is the gold SQL of MiniQ0.
const MiniQ0Gold = "SELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'"
