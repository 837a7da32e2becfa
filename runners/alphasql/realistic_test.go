package alphasql

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// reasoningMarker is in every sample's reasoning; it must never reach a
// prompt.
const reasoningMarker = "REASONING-ONLY-7f3a"

// realModel answers every request in the styles real models write,
// knowing each question's gold SQL (runkit.GoldModel): reasoning already
// split into Response.Reasoning (holding a wrong draft), prose before and
// after fenced JSON, JSON-mode objects, numbers as strings, trailing
// commas, "*" and plain lists for the schema selection, and every third
// SQL sample cut at max_tokens (finish_reason "length") after a complete
// but wrong query.
func realModel(gold map[string]string) *testkit.Model {
	return runkit.GoldModel(gold, reasoningMarker, realAnswer)
}

func realAnswer(responder, gold string, i int) (string, string) {
	switch responder {
	case RespKeywords: // Qwen: prose, fenced JSON, a number as a number
		return "The question mentions a few values.\n\n```json\n{\"keywords\": [\"Computer Science\", 2023]}\n```\n\nThese may be stored in the database.", llm.FinishStop
	case RespRephrase:
		return "Conditions:\n- as the question states\nQuestion: " + gold, llm.FinishStop
	case RespSchema: // "*", a plain list, or an object, by sample
		switch i % 3 {
		case 0:
			return "All tables may be needed.\n```json\n{\"tables\": \"*\"}\n```", llm.FinishStop
		case 1:
			return "Here is the JSON object:\n\n{\"tables\": [\"ghost\", \"student\", \"department\", \"course\", \"instructor\", \"enrollment\", \"customer\", \"orders\", \"product\"],}\n", llm.FinishStop
		}
		return "{\"Tables\": {\"*\": []}}", llm.FinishStop
	case RespValues: // Llama: no fence, trailing comma, number as string
		return "Here is the JSON:\n{\"values\": [{\"column\": \"t.c\", \"op\": \"=\", \"value\": \"3\",},]}\nLet me know if you need more.", llm.FinishStop
	case RespFunctions: // GPT-4o JSON mode
		return `{"functions":["COUNT(*)"]}`, llm.FinishStop
	}
	if i%3 == 2 {
		return "Sub-question 1 ...\n```sql\nSELECT 1\n```\nWait, that ignores the question; let me redo the", llm.FinishLength
	}
	return "Divide and conquer: sub-questions, pseudo SQL, assembly.\n```sql\nSELECT 2\n```\nWait, that ignores the question. Corrected query:\n```sqlite\n" + gold + "\n```", llm.FinishStop
}

// TestRealModelStylesOnMini runs the runner end to end on the mini
// benchmark's first questions against a model answering in real-model
// styles: every question gets the gold SQL's result, cut samples are
// counted and never used, reasoning is kept in the tree and never
// reaches a prompt, no request asks for structured output, and the result
// records that its SQL was found as a correction of a draft.
func TestRealModelStylesOnMini(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	exs := b.Examples[:6]
	m := realModel(runkit.Golds(b))
	r := newRunner(t, runners.Params{"n_rollout": 6})
	cuts := 0.0
	for _, e := range exs {
		db, err := b.Engine.Open(ctx, e.DBID)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(ctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: m, Seed: 1})
		if err != nil {
			t.Fatalf("%s: Run: %v", e.ID, err)
		}
		got, gerr := db.Execute(ctx, res.SQL)
		want, werr := db.Execute(ctx, e.GoldSQL)
		if gerr != nil || werr != nil || got.SetKey() != want.SetKey() {
			t.Errorf("%s: SQL %q (err %v); want the gold's result (%s)", e.ID, res.SQL, gerr, e.GoldSQL)
		}
		if res.Extraction != sqltext.ReasonLastCorrection {
			t.Errorf("%s: extraction %q; want %q", e.ID, res.Extraction, sqltext.ReasonLastCorrection)
		}
		cuts += res.Trace.Counters["cut."+runners.RoleReason]
		tree := res.Trace.Data["tree"].(*mcts.Tree)
		withReasoning := 0
		for _, n := range tree.Nodes {
			if strings.Contains(fmt.Sprint(n.Info["reasoning"]), reasoningMarker) {
				withReasoning++
			}
			if n.Info["finish_reason"] == llm.FinishLength {
				t.Errorf("%s: node %d holds a cut answer", e.ID, n.ID)
			}
			if sql, _ := n.Info["sql"].(string); sql == "SELECT 1" {
				t.Errorf("%s: node %d took the SQL of a cut answer", e.ID, n.ID)
			}
		}
		if withReasoning == 0 {
			t.Errorf("%s: no tree node records the model's reasoning", e.ID)
		}
	}
	if cuts == 0 {
		t.Errorf("cut.%s = 0; want the cut samples counted", runners.RoleReason)
	}
	for _, p := range m.Prompts() {
		if strings.Contains(p, reasoningMarker) {
			t.Fatalf("a prompt carries the model's reasoning:\n%s", p)
		}
	}
	for _, req := range m.Requests() {
		if req.Answer == llm.AnswerJSON || len(req.Schema) > 0 {
			t.Errorf("request %s asks for structured output (%s, schema %s); want plain text", req.Responder, req.Answer, req.Schema)
		}
	}
}

// schemas returns every JSON schema this runner can send: none, since every
// request is plain text whose trailing JSON is parsed leniently
// (TestSentSchemas checks what a run really sends against this).
func schemas() map[string]json.RawMessage { return map[string]json.RawMessage{} }

// TestSentSchemas records the requests of a run with every action and
// checks that each schema sent is among schemas() and conforms to
// OpenAI's strict-mode rules (llm.CheckStrictSchema).
func TestSentSchemas(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	m := realModel(runkit.Golds(b))
	e := b.Examples[0]
	db, err := b.Engine.Open(ctx, e.DBID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: m, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	known := schemas()
	seen := map[string]bool{}
	for _, r := range m.Requests() {
		seen[r.Responder] = true
		if len(r.Schema) == 0 {
			continue
		}
		if _, ok := known[r.SchemaName]; !ok {
			t.Errorf("%s sent schema %q, not listed by schemas()", r.Responder, r.SchemaName)
		}
	}
	for _, want := range []string{RespKeywords, RespRephrase, RespSchema, RespValues, RespFunctions, RespSQL, RespRevise} {
		if !seen[want] {
			t.Errorf("no %s request in the run; want every action exercised", want)
		}
	}
	for name, s := range known {
		if err := llm.CheckStrictSchema(s); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

// TestParseRealModelAnswers reads the JSON actions' answers in the shapes
// real models give them.
func TestParseRealModelAnswers(t *testing.T) {
	sel := []struct {
		name, out string
		want      map[string][]string
	}{
		{"object after reasoning prose", "The count needs singer only.\n```json\n{\"tables\": {\"singer\": [\"country\"]}}\n```", map[string][]string{"singer": {"country"}}},
		{"list of tables", `{"tables": ["singer", "concert"]}`, map[string][]string{"singer": {}, "concert": {}}},
		{"star", "```json\n{\"tables\": \"*\"}\n```", map[string][]string{AllTables: {}}},
		{"table.column list", `{"tables": ["singer.country", "singer.name"]}`, map[string][]string{"singer": {"country", "name"}}},
	}
	for _, tc := range sel {
		got, err := ParseSchemaSelection(tc.out)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSchemaSelection(%s): got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := ParseSchemaSelection(`{"tables": []}`); err == nil {
		t.Errorf("ParseSchemaSelection(empty list): got nil error; want one")
	}
	kw, err := ParseKeywords("Keywords:\n{\"keywords\": \"France\"}")
	if err != nil || !reflect.DeepEqual(kw, []string{"France"}) {
		t.Errorf("ParseKeywords(single string): got %v, %v; want [France]", kw, err)
	}
	kw, err = ParseKeywords(`{"keywords": ["1990", 1990, "France",]}`)
	if err != nil || !reflect.DeepEqual(kw, []string{"1990", "France"}) {
		t.Errorf("ParseKeywords(number, duplicate, trailing comma): got %v, %v; want [1990 France]", kw, err)
	}
	vs, err := ParseValues(`{"values": [{"column": "singer.age", "op": ">", "value": 30}]}`)
	if err != nil || len(vs) != 1 || vs[0].Value != 30.0 {
		t.Errorf("ParseValues(number value): got %v, %v; want one condition with value 30", vs, err)
	}
	fs, err := ParseFunctions(`{"functions": "COUNT(*)"}`)
	if err != nil || !reflect.DeepEqual(fs, []string{"COUNT(*)"}) {
		t.Errorf("ParseFunctions(single string): got %v, %v; want [COUNT(*)]", fs, err)
	}
	sch, err := fixtureDB(t).Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all, err := runners.KnownSelection(sch, map[string][]string{AllTables: {}})
	if err != nil || !reflect.DeepEqual(all, map[string][]string{"singer": {}}) {
		t.Errorf("runners.KnownSelection(*): got %v, %v; want every table whole", all, err)
	}
}

// TestRejectedRequestsPrune: a model server's permanent refusal of a
// request (HTTP 400, e.g. a prompt over the context window deep in the
// tree) prunes that branch and the search goes on to the best SQL so far;
// a server failure after retries (503) or a cancelled context fails the
// run so that the item can be resumed.
func TestRejectedRequestsPrune(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	e := b.Examples[0]
	db, err := b.Engine.Open(ctx, e.DBID)
	if err != nil {
		t.Fatal(err)
	}
	tooLong := &llm.StatusError{StatusCode: 400, Message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."}
	prompt := func(r llm.Request) string { return r.Messages[len(r.Messages)-1].Content }
	tests := []runkit.RejectCase{
		{Name: "deep prompts and revisions rejected", Reject: func(r llm.Request) error {
			if strings.Contains(prompt(r), "Step 2 (") || r.Responder == RespRevise {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "keyword call rejected", Reject: func(r llm.Request) error {
			if r.Responder == RespKeywords {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "every reward rejected", Reject: func(r llm.Request) error {
			if strings.Contains(prompt(r), "self-consistency sample") {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "every request rejected", Reject: func(llm.Request) error { return tooLong }, WantSQL: false, WantErr: false},
		{Name: "server error after retries", Reject: func(r llm.Request) error {
			if r.Responder == RespSQL {
				return fmt.Errorf("%w", &llm.StatusError{StatusCode: 503})
			}
			return nil
		}, WantSQL: false, WantErr: true},
	}
	runkit.RejectedPrune(t, db, e, tests, func() *testkit.Model { return realModel(map[string]string{e.Question: e.GoldSQL}) }, func(t *testing.T, c llm.Client) (runners.Result, error) {
		return newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: c, Seed: 1})
	})
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	m := realModel(map[string]string{e.Question: e.GoldSQL})
	if _, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(cctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: m, Seed: 1}); err == nil {
		t.Errorf("Run with a cancelled context: got nil error; want one")
	}
}
