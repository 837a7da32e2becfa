package reactdsl

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// scripted is a fake llm.Client answering turn i with replies[i] and
// recording the requests.
func scripted(replies ...string) *testkit.Model {
	return &testkit.Model{Reply: testkit.Replies(replies...), Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}
}

func newRunner(t *testing.T, p runners.Params) runners.Runner {
	t.Helper()
	r, err := runners.New("react-dsl", p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParams(t *testing.T) {
	if _, err := runners.New("react-dsl", runners.Params{"setting": "iterate"}); err == nil || !strings.Contains(err.Error(), "params.setting") {
		t.Errorf("bad setting: got %v; want an error naming params.setting", err)
	}
	if _, err := runners.New("react-dsl", runners.Params{"max_turn": 3}); err == nil || !strings.Contains(err.Error(), "params.max_turn: unknown parameter") {
		t.Errorf("unknown key: got %v; want an unknown-parameter error", err)
	}
	if _, err := runners.New("react-dsl", runners.Params{"max_turns": 0}); err == nil {
		t.Error("max_turns 0: got nil error; want out of range")
	}
	r, err := New(runners.Params{})
	if err != nil || r.Setting() != SettingIterateDSL || r.maxTurns != DefaultMaxTurns {
		t.Errorf("defaults: got %v %+v; want iterate-dsl with 8 turns", err, r)
	}
}

func TestLoopScripted(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "How many singers are from France?"}
	client := scripted(
		"```dsl\nr1 = table_ref(\"singer\")\ndistinct_values(r1, \"contry\")\n```",
		"```dsl\ndistinct_values(r1, \"country\")\nr2 = filter_expr(r1, \"country = 'France'\")\nr3 = select_columns(r2, [\"count(*)\"])\nexecute(r3)\n```",
		"```dsl\nanswer(r3)\n```",
	)
	res, err := newRunner(t, runners.Params{}).Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Trace.Counters["turns"]; got != 3 {
		t.Errorf("turns: got %v; want 3", got)
	}
	if got := res.Trace.Counters["dsl_error.UnknownColumn"]; got != 1 {
		t.Errorf("UnknownColumn errors: got %v; want 1", got)
	}
	rs, err := db.Execute(context.Background(), res.SQL)
	if err != nil || flat(rs) != "4" {
		t.Errorf("answer %q gives %v %v; want 4 French singers", res.SQL, flat(rs), err)
	}
	// The model saw the typed error and the execute result.
	obs := client.Requests()[1].Messages[len(client.Requests()[1].Messages)-1].Content
	if !strings.Contains(obs, "UnknownColumn") || !strings.Contains(obs, "singer.country") {
		t.Errorf("turn-2 observation %q; want UnknownColumn suggesting singer.country", obs)
	}
	obs = client.Requests()[2].Messages[len(client.Requests()[2].Messages)-1].Content
	if !strings.Contains(obs, "execute(r3) -> 1 row") || !strings.Contains(obs, "France") {
		t.Errorf("turn-3 observation %q; want the execute result and the distinct values", obs)
	}
	for _, r := range client.Requests() {
		if r.Role != runners.RoleReason || r.Answer != llm.AnswerDSL || r.Responder != ResponderTurn {
			t.Errorf("request role/answer/responder = %s/%s/%s; want reason/dsl/%s", r.Role, r.Answer, r.Responder, ResponderTurn)
		}
	}
	if res.Usage[runners.RoleReason].Calls != 3 {
		t.Errorf("usage: got %+v; want 3 reason calls", res.Usage)
	}
}

func TestLoopShapingFallback(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "Oldest singer?"}
	client := scripted(
		"```dsl\nr1 = table_ref(\"singer\")\nr2 = order_by(r1, [\"age DESC\"])\nr3 = limit(r2, 1)\nr4 = select_columns(r3, [\"name\"])\nexecute(r4)\n```",
		"I think that is it.",
	)
	res, err := newRunner(t, runners.Params{"max_turns": 2}).Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Counters["shaped_fallback"] != 1 || res.Trace.Counters["turns"] != 2 {
		t.Errorf("counters %v; want shaped_fallback 1 and 2 turns", res.Trace.Counters)
	}
	rs, err := db.Execute(context.Background(), res.SQL)
	if err != nil || flat(rs) != "Joe Sharp" {
		t.Errorf("shaped answer %q gives %q %v; want Joe Sharp", res.SQL, flat(rs), err)
	}
}

func TestBudgetStopsLoop(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "x"}
	client := scripted("```dsl\nr1 = table_ref(\"singer\")\n```", "```dsl\nr2 = table_ref(\"concert\")\n```", "x")
	res, err := newRunner(t, runners.Params{}).Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client, Budget: runners.Budget{MaxCalls: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(client.Requests()) != 2 || res.SQL == "" {
		t.Errorf("got %d calls, SQL %q; want 2 calls and the last relation as the shaped answer", len(client.Requests()), res.SQL)
	}
}
