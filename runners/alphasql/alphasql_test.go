package alphasql

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

const fixtureSQL = `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INT);
INSERT INTO singer VALUES (1,'Joe Sharp','Netherlands',52),(2,'Timbaland','United States',32),
 (3,'Justin Brown','France',29),(4,'Rose White','France',41);
`

func fixtureDB(t testing.TB) datasets.Database {
	t.Helper()
	return runkit.DB(t, "concert", fixtureSQL)
}

// scripted answers by responder; SQL kinds cycle through sqls by sample.
func scripted(sqls ...string) *testkit.Model {
	return &testkit.Model{Reply: testkit.PerSample(func(r llm.Request, i int) (testkit.Sample, error) {
		return testkit.Sample{Text: scriptedAnswer(r.Responder, sqls, i)}, nil
	})}
}

// scriptedAnswer is sample i of scripted's answer to responder.
func scriptedAnswer(responder string, sqls []string, i int) string {
	switch responder {
	case RespKeywords:
		return "```json\n{\"keywords\": [\"Frances\", \"France\"]}\n```"
	case RespRephrase:
		return "Conditions:\n- country is France\nQuestion: How many singers are from France?"
	case RespSchema:
		return "```json\n{\"tables\": {\"singer\": [\"country\"]}}\n```"
	case RespValues:
		return "```json\n{\"values\": [{\"column\": \"singer.country\", \"op\": \"=\", \"value\": \"France\"}]}\n```"
	case RespFunctions:
		return "```json\n{\"functions\": [\"COUNT(*)\"]}\n```"
	}
	return "```sql\n" + sqls[i%len(sqls)] + "\n```"
}

func newRunner(t testing.TB, p runners.Params) *Runner {
	t.Helper()
	if p == nil {
		p = runners.Params{}
	}
	if _, ok := p["value_index_dir"]; !ok {
		p["value_index_dir"] = t.TempDir()
	}
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*Runner)
}

func task(c llm.Client, db datasets.Database) runners.Task {
	return runners.Task{Example: datasets.Example{ID: "q1", DBID: "concert", Question: "How many singers are from France?"}, DB: db, LLM: c, Seed: 1}
}

// impliedRequests counts, from the tree alone, the chat requests the
// algorithm implies: one keyword call; per expanded node, one request per
// valid model action not on its path (A7 needs none); one reward request
// per scored terminal. Extra revision rounds (Node.OwnRequests) are added
// by the caller.
func impliedRequests(tr *mcts.Tree, disabled map[mcts.Action]bool) int {
	n := 1
	for _, node := range tr.Nodes {
		if node.Expanded {
			for _, a := range Transitions[node.Action] {
				if a != A7 && !disabled[a] && !tr.OnPath(node, a) {
					n++
				}
			}
		}
		if node.Scored {
			n++
		}
	}
	return n
}

func TestRequestCount(t *testing.T) {
	db := fixtureDB(t)
	ctx := context.Background()
	t.Run("only A5", func(t *testing.T) {
		// ROOT -> A5 (one request, 3 identical samples collapse) -> A7 (no
		// request) -> reward (one request), plus the keyword call: 3 for
		// any number of rollouts (revisits cost nothing).
		const want = "SELECT count(*) FROM singer WHERE country = 'France'"
		f := scripted(want)
		r := newRunner(t, runners.Params{"n_rollout": 6, "disable_actions": []any{"A1", "A2", "A3", "A4", "A6"}})
		res, err := r.Run(ctx, task(f, db))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Trace.Counters["model_requests"]; got != 3 {
			t.Errorf("model requests = %v; want 3", got)
		}
		if res.Trace.Counters["model_requests_implied"] != 3 {
			t.Errorf("implied = %v; want 3", res.Trace.Counters["model_requests_implied"])
		}
		if res.SQL != want {
			t.Errorf("SQL = %q; want %q", res.SQL, want)
		}
	})
	t.Run("three distinct SQLs", func(t *testing.T) {
		// Root: one A5 request gives 3 distinct children; each becomes a
		// terminal after 2 rollouts: 1 + 1 + 3 rewards = 5 with 6 rollouts.
		f := scripted("SELECT count(*) FROM singer WHERE country = 'France'", "SELECT count(*) FROM singer", "SELECT 2")
		r := newRunner(t, runners.Params{"n_rollout": 6, "disable_actions": []any{"A1", "A2", "A3", "A4", "A6"}})
		res, err := r.Run(ctx, task(f, db))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Trace.Counters["model_requests"]; got != 5 {
			t.Errorf("model requests = %v; want 5", got)
		}
		// Groups: {2} holds two SQLs (count France = 2, SELECT 2), {4} one.
		if res.SQL == "SELECT count(*) FROM singer" {
			t.Errorf("SQL = %q; want one of the 2-member group", res.SQL)
		}
	})
	t.Run("all actions", func(t *testing.T) {
		for _, n := range []int{1, 4, 24} {
			f := scripted("SELECT count(*) FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE 1 = 0", "SELECT bad FROM singer")
			r := newRunner(t, runners.Params{"n_rollout": n})
			res, err := r.Run(ctx, task(f, db))
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Trace.Data["tree"].(*mcts.Tree)
			want := impliedRequests(tr, nil)
			for _, node := range tr.Nodes {
				want += node.OwnRequests
			}
			total := f.Calls("")
			if got := res.Trace.Counters["model_requests"]; int(got) != total || total != want || res.Trace.Counters["model_requests_implied"] != float64(want) {
				t.Errorf("n_rollout %d: meter %v, client saw %d, implied by the tree %d, runner's implied %v; want all equal",
					n, got, total, want, res.Trace.Counters["model_requests_implied"])
			}
			if tr.Rollouts != n {
				t.Errorf("rollouts = %d; want %d", tr.Rollouts, n)
			}
			t.Logf("n_rollout %d: %d requests (%d nodes)", n, total, len(tr.Nodes))
		}
	})
}

func TestParams(t *testing.T) {
	r := newRunner(t, nil)
	c := r.Config()
	if c.Rollouts != 24 || c.Expansion != 3 || c.Temperature != 0.8 || c.TopP != 0.8 || c.Reward != 5 || c.Revision != 10 || c.C != 1.414 || c.RewardTemperature != 0.8 ||
		c.RewardDenominator != RewardOverValid {
		t.Errorf("defaults = %+v; want METHODS.md's", c)
	}
	for _, tc := range []struct {
		p    runners.Params
		want string
	}{
		{runners.Params{"n_rollouts": 3}, "params.n_rollouts: unknown parameter"},
		{runners.Params{"n_rollout": 0}, "params.n_rollout"},
		{runners.Params{"disable_actions": []any{"A5"}}, "not removable"},
		{runners.Params{"disable_actions": []any{"A9", "a1"}}, "A9"},
		{runners.Params{"reward_denominator": "all"}, "params.reward_denominator"},
	} {
		_, err := New(tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) err = %v; want containing %q", tc.p, err, tc.want)
		}
	}
	r = newRunner(t, runners.Params{"disable_actions": []any{"a1", "A6"}})
	if !r.Config().Disabled[A1] || !r.Config().Disabled[A6] || r.Config().Disabled[A2] {
		t.Errorf("disabled = %v; want A1 and A6", r.Config().Disabled)
	}
}

func TestDisabledActionsNeverAppear(t *testing.T) {
	db := fixtureDB(t)
	f := scripted("SELECT count(*) FROM singer WHERE country = 'France'", "SELECT 1")
	r := newRunner(t, runners.Params{"n_rollout": 12, "disable_actions": []any{"A2", "A6"}})
	res, err := r.Run(context.Background(), task(f, db))
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace.Data["tree"].(*mcts.Tree)
	for _, n := range tr.Nodes {
		if n.Action == A2 || n.Action == A6 {
			t.Fatalf("node %d has disabled action %s", n.ID, n.Action)
		}
	}
	if f.Calls(RespSchema) != 0 || f.Calls(RespRevise) != 0 {
		t.Errorf("schema-selection calls = %d, revision calls = %d; want none", f.Calls(RespSchema), f.Calls(RespRevise))
	}
}

// TestRevisionLoop: a failing SQL is revised in further rounds up to
// n_revision in all, and the rounds are counted.
func TestRevisionLoop(t *testing.T) {
	db := fixtureDB(t)
	f := scripted("SELECT bad FROM singer")
	r := newRunner(t, runners.Params{"n_rollout": 3, "n_revision": 4, "disable_actions": []any{"A1", "A2", "A3", "A4"}})
	res, err := r.Run(context.Background(), task(f, db))
	if err != nil {
		t.Fatal(err)
	}
	// The scripted model repeats the same SQL, so the loop stops after the
	// second round (no change); the request count still matches.
	if f.Calls(RespRevise) != 2 {
		t.Errorf("revision requests = %d; want 2 (first round, one more that changed nothing)", f.Calls(RespRevise))
	}
	if res.Trace.Counters["model_requests"] != res.Trace.Counters["model_requests_implied"] {
		t.Errorf("requests %v != implied %v", res.Trace.Counters["model_requests"], res.Trace.Counters["model_requests_implied"])
	}
	if res.SQL != "SELECT bad FROM singer" || !strings.Contains(res.Note, "no terminal SQL executed") {
		t.Errorf("SQL, note = %q, %q; want the failing SQL with a note", res.SQL, res.Note)
	}
}

func TestSelectFinal(t *testing.T) {
	db := fixtureDB(t)
	mk := func(sqls ...string) *mcts.Tree {
		tr := &mcts.Tree{Nodes: []*mcts.Node{{ID: 0, Parent: -1, Action: mcts.RootAction}}}
		for i, s := range sqls {
			tr.Nodes = append(tr.Nodes, &mcts.Node{ID: i + 1, Parent: 0, Action: A7, Terminal: true, Visits: 1, Info: map[string]any{"sql": s}})
		}
		return tr
	}
	tests := []struct {
		name     string
		sqls     []string
		want     string
		wantNote string
	}{
		// {2} holds two SQLs (each reached once): the first is returned.
		{"largest group", []string{"SELECT 1", "SELECT count(*) FROM singer WHERE country = 'France'", "SELECT 2"}, "SELECT count(*) FROM singer WHERE country = 'France'", ""},
		{"most frequent SQL in group", []string{"SELECT 1", "SELECT count(*) FROM singer WHERE country = 'France'", "SELECT 2", "SELECT 2"}, "SELECT 2", ""},
		{"set semantics", []string{"SELECT country FROM singer WHERE age < 45", "SELECT DISTINCT country FROM singer WHERE age < 40", "SELECT 5"}, "", ""},
		{"empty fallback", []string{"SELECT name FROM singer WHERE 1 = 0", "SELECT bad"}, "SELECT name FROM singer WHERE 1 = 0", "empty or NULL"},
		{"null is not valid", []string{"SELECT NULL", "SELECT bad"}, "SELECT NULL", "empty or NULL"},
		{"nothing executes", []string{"SELECT bad", "SELECT worse"}, "SELECT bad", "no terminal SQL executed"},
		{"no SQL", []string{""}, "", "no terminal produced SQL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &question{t: runners.Task{DB: db}, exec: runners.NewExecutions(db)}
			var res runners.Result
			q.selectFinal(context.Background(), mk(tt.sqls...), &res)
			if tt.want != "" && res.SQL != tt.want {
				t.Errorf("SQL = %q; want %q", res.SQL, tt.want)
			}
			if tt.name == "set semantics" && res.SQL == "SELECT 5" {
				t.Errorf("SQL = %q; the two country queries form one group ({United States, France} as a set)", res.SQL)
			}
			if !strings.Contains(res.Note, tt.wantNote) || (tt.wantNote == "" && res.Note != "") {
				t.Errorf("note = %q; want %q", res.Note, tt.wantNote)
			}
		})
	}
}

func TestParsers(t *testing.T) {
	sel, err := ParseSchemaSelection("I need singer.\n```json\n{\"tables\": {\"singer\": [\"Name\", \"age\"]}}\n```")
	if err != nil || len(sel["singer"]) != 2 {
		t.Fatalf("selection = %v, %v", sel, err)
	}
	if runners.SelectionKey(sel) != runners.SelectionKey(map[string][]string{"Singer": {"AGE", "name"}}) {
		t.Error("selection keys should ignore case and order")
	}
	if _, err := ParseSchemaSelection("no json here"); err == nil {
		t.Error("want an error for an answer without JSON")
	}
	kw, err := ParseKeywords(`Sure: {"keywords": ["France", " france ", "", "Joe"]}`)
	if err != nil || fmt.Sprint(kw) != "[France Joe]" {
		t.Errorf("keywords = %v, %v; want [France Joe]", kw, err)
	}
	vs, err := ParseValues("```json\n{\"values\": [{\"column\": \"singer.age\", \"op\": \">\", \"value\": 40}]}\n```")
	if err != nil || len(vs) != 1 || vs[0].Value != float64(40) {
		t.Errorf("values = %v, %v", vs, err)
	}
	if k, ok := ParseRephrase("Conditions:\n- x\nQuestion:  How   many?"); !ok || k != "conditions: - x question: how many?" {
		t.Errorf("rephrase key = %q, %v", k, ok)
	}
	if _, ok := ParseRephrase("just text"); ok {
		t.Error("want no key without a Question: line")
	}
}

// TestRewardDenominator scores one terminal (ROOT -> A5 -> A7, its SQL
// counting the French singers: 2) against constructed sets of N_reward = 5
// reward samples, run on the fixture database. A sample is valid when it
// executes with a non-null value; the reward is the agreeing samples over
// the valid ones (reward_denominator: valid, the released code's) or over
// N_reward (n_reward). Expected values by hand:
//
//	2 agree, 1 disagrees (4 singers), 2 invalid (error, NULL only): valid 2/3, n_reward 2/5
//	1 agrees, 4 invalid (error, empty, NULL only, error):           valid 1/1, n_reward 1/5
//	every sample invalid:                                            0 either way
//	3 agree, 2 disagree, none invalid:                               3/5 either way
//	the terminal's own SQL returns no row (invalid):                 0 either way
func TestRewardDenominator(t *testing.T) {
	db := fixtureDB(t)
	const (
		france = "SELECT count(*) FROM singer WHERE country = 'France'"
		all    = "SELECT count(*) FROM singer"
		bad    = "SELECT bad FROM singer"
		empty  = "SELECT name FROM singer WHERE 1 = 0"
		null   = "SELECT NULL"
	)
	for _, tt := range []struct {
		name           string
		terminal       string
		samples        []string
		valid, nReward float64
	}{
		{"invalid samples", france, []string{france, all, bad, france, null}, 2.0 / 3, 2.0 / 5},
		{"one valid sample", france, []string{bad, empty, null, france, bad}, 1, 1.0 / 5},
		{"no valid sample", france, []string{bad, empty, null, bad, empty}, 0, 0},
		{"all valid", france, []string{france, all, france, all, france}, 3.0 / 5, 3.0 / 5},
		{"invalid terminal", empty, []string{empty, empty, france, france, france}, 0, 0},
	} {
		for _, mode := range []string{RewardOverValid, RewardOverN, ""} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				f := scripted(tt.samples...)
				q := &question{cfg: Config{Reward: 5, RewardTemperature: 0.8, TopP: 0.8, MaxTokens: 256, RewardDenominator: mode},
					t: task(f, db), llm: runners.NewMeter(f), exec: runners.NewExecutions(db)}
				tree := &mcts.Tree{Nodes: []*mcts.Node{
					{ID: 0, Parent: -1, Action: mcts.RootAction},
					{ID: 1, Parent: 0, Action: A5, Info: map[string]any{"sql": tt.terminal}},
					{ID: 2, Parent: 1, Action: A7},
				}}
				got, err := q.Reward(context.Background(), tree, tree.Nodes[2])
				if err != nil {
					t.Fatal(err)
				}
				want := tt.valid // the empty mode is valid
				if mode == RewardOverN {
					want = tt.nReward
				}
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("reward: got %.4f; want %.4f", got, want)
				}
			})
		}
	}
}
