package iesr

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// reasoningMarker is in every sample's reasoning; it must never reach a
// prompt.
const reasoningMarker = "REASONING-ONLY-51c9"

// realModel answers every request in the styles real models write,
// knowing each question's gold SQL (runkit.GoldModel): reasoning already
// split into Response.Reasoning (holding a wrong draft), prose around
// fenced JSON, numbers where the schema says strings, null for the
// nullable fields, "*" and {table, columns} lists for the schema
// selection, and every third SQL sample cut at max_tokens (finish reason
// "length") after a complete but wrong query.
func realModel(gold map[string]string) *testkit.Model {
	sqlSamples := 0
	return runkit.GoldModel(gold, reasoningMarker, func(responder, gold string, i int) (string, string) {
		return realAnswer(responder, gold, i, &sqlSamples)
	})
}

// realAnswer is sample i of realModel's answer; *sqlSamples counts the
// SQL samples answered so far.
func realAnswer(responder, gold string, i int, sqlSamples *int) (string, string) {
	switch responder {
	case RespUnderstand: // JSON mode with drift: numbers, nulls, a single entity
		return `{"intent": "answer the question", "entities": "Computer Science", "relations": [{"subject": "students", "predicate": "counted in", "object": 2023, "unit": null, "formula": null}], "numbers": [{"value": 2023, "unit": null}], "units": [], "field_patterns": ["student.major_dept"]}`, llm.FinishStop
	case RespVerify: // the echoed state first, then the repaired one; keys in another case
		return "The extracted state was:\n{\"intent\": \"x\"}\nAfter checking the schema:\n```json\n{\"Intent\": \"count students\", \"Entities\": [\"Computer Science\"], \"Relations\": [], \"Numbers\": [2023], \"Units\": [], \"Field_Patterns\": [\"student.major_dept\"], \"Tables\": [\"student\"], \"Operators\": [\"count(*)\", \"equals\"]}\n```", llm.FinishStop
	case RespEquation:
		return "No unit conversion is needed.\nFormula: the value as stored", llm.FinishStop
	case RespSchema:
		switch i % 3 {
		case 0:
			return "Every table may be needed.\n```json\n{\"tables\": \"*\"}\n```", llm.FinishStop
		case 1:
			return `{"tables": [{"table": "ghost", "columns": []}, {"table": "student", "columns": ["*"]}, {"table": "department", "columns": []}, {"table": "course", "columns": []}, {"table": "instructor", "columns": []}, {"table": "enrollment", "columns": []}, {"table": "customer", "columns": []}, {"table": "orders", "columns": []}, {"table": "product", "columns": []}]}`, llm.FinishStop
		}
		return "```json\n{\"tables\": [\"*\"],}\n```", llm.FinishStop
	case RespColumns: // a number where the schema says string
		return "```json\n{\"columns\": [{\"column\": \"student.major_dept\", \"meaning\": 3}]}\n```", llm.FinishStop
	case RespEntities:
		return "Here is the JSON:\n{\"entities\": [{\"mention\": \"2023\", \"column\": \"t.year\", \"value\": 2023}]}\nDone.", llm.FinishStop
	}
	*sqlSamples++
	if *sqlSamples%3 == 0 {
		return "Step 1 ...\n```sql\nSELECT 1\n```\nWait, that ignores the question; let me redo the", llm.FinishLength
	}
	return "Using the analysis above:\n```sql\nSELECT 2\n```\nWait, that ignores the question. Corrected query:\n```sqlite\n" + gold + "\n```", llm.FinishStop
}

func newModel(b *datasets.Benchmark) *testkit.Model { return realModel(runkit.Golds(b)) }

// TestRealModelStylesOnMini runs the runner end to end on the mini
// benchmark's first questions against a model answering in real-model
// styles: every question gets the gold SQL's result, cut samples are
// counted by role and never used, reasoning is kept in the trace and never
// reaches a prompt, and the result records that its SQL was found as a
// correction of a draft.
func TestRealModelStylesOnMini(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	m := newModel(b)
	r, err := New(runners.Params{"n_rollout": 6})
	if err != nil {
		t.Fatal(err)
	}
	cuts := map[string]float64{}
	for _, e := range b.Examples[:6] {
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
			t.Errorf("%s: SQL %q (err %v, note %q); want the gold's result (%s)", e.ID, res.SQL, gerr, res.Note, e.GoldSQL)
		}
		if res.Extraction != sqltext.ReasonLastCorrection {
			t.Errorf("%s: extraction %q; want %q", e.ID, res.Extraction, sqltext.ReasonLastCorrection)
		}
		for _, role := range []string{runners.RoleReason, runners.RoleDiscriminator} {
			cuts[role] += res.Trace.Counters["cut."+role]
		}
		if st := res.Trace.Steps[0]; st.Action != "understand" || st.Info["parse_error"] != nil ||
			!strings.Contains(fmt.Sprint(st.Info["reasoning"]), reasoningMarker) || st.Info["finish_reason"] != llm.FinishStop {
			t.Errorf("%s: understand step %+v; want a parsed state with its reasoning and finish reason", e.ID, st)
		}
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
			if n.Action == A3 || n.Action == A4 || n.Action == A2 {
				if pe, ok := n.Info["parse_error"]; ok {
					t.Errorf("%s: node %d (%s) parse error %v; want the drifting JSON read", e.ID, n.ID, n.Action, pe)
				}
			}
		}
		if withReasoning == 0 {
			t.Errorf("%s: no tree node records the model's reasoning", e.ID)
		}
	}
	for _, role := range []string{runners.RoleReason, runners.RoleDiscriminator} {
		if cuts[role] == 0 {
			t.Errorf("cut.%s = 0; want the cut samples counted", role)
		}
	}
	for _, p := range m.Prompts() {
		if strings.Contains(p, reasoningMarker) {
			t.Fatalf("a prompt carries the model's reasoning:\n%s", p)
		}
	}
}

// TestSentSchemas records the requests of a run with every stage and
// checks that each schema sent is the one schemas() lists under its name,
// that every structured action was exercised, and that every schema
// conforms to OpenAI's strict-mode rules (llm.CheckStrictSchema).
func TestSentSchemas(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	m := newModel(b)
	e := b.Examples[0]
	db, err := b.Engine.Open(ctx, e.DBID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(runners.Params{"n_rollout": 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: m, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	known := schemas()
	sent := map[string]bool{}
	for _, req := range m.Requests() {
		if len(req.Schema) == 0 {
			if req.Answer == llm.AnswerJSON {
				t.Errorf("%s asks for JSON without a schema", req.Responder)
			}
			continue
		}
		sent[req.SchemaName] = true
		if s, ok := known[req.SchemaName]; !ok || !bytes.Equal(s, req.Schema) {
			t.Errorf("%s sent schema %q, not the one schemas() lists under that name", req.Responder, req.SchemaName)
		}
	}
	for name := range known {
		if !sent[name] {
			t.Errorf("schema %s never sent; want every structured request exercised", name)
		}
	}
	for name, s := range known {
		if err := llm.CheckStrictSchema(s); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

// TestParseSelectionShapes reads A2 answers in the shapes models give.
func TestParseSelectionShapes(t *testing.T) {
	tests := []struct {
		name, out string
		want      map[string][]string
	}{
		{"strict-mode list", `{"tables": [{"table": "singer", "columns": ["country"]}]}`, map[string][]string{"singer": {"country"}}},
		{"object of tables", "```json\n{\"tables\": {\"singer\": [\"country\"]}}\n```", map[string][]string{"singer": {"country"}}},
		{"names", `{"tables": ["singer"]}`, map[string][]string{"singer": {}}},
		{"star", `{"tables": "*"}`, map[string][]string{AllTables: {}}},
	}
	for _, tc := range tests {
		got, err := ParseSelection(tc.out)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSelection(%s): got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := ParseSelection(`{"tables": []}`); err == nil {
		t.Errorf("ParseSelection(empty): got nil error; want one")
	}
	es, err := ParseEntities(`{"entities": [{"mention": "1990", "column": "t.y", "value": 1990}]}`)
	if err != nil || len(es) != 1 || es[0].Value != "1990" {
		t.Errorf("ParseEntities(number value): got %v, %v; want value \"1990\"", es, err)
	}
}

// TestRejectedRequestsPrune: a model server's permanent refusal of a
// request (HTTP 400, e.g. a prompt over the context window deep in the
// tree) prunes that branch or loses that completion and the run goes on
// to the best SQL so far; a server failure after retries (503) fails the
// run so that the item can be resumed.
func TestRejectedRequestsPrune(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	e := b.Examples[0]
	db, err := b.Engine.Open(ctx, e.DBID)
	if err != nil {
		t.Fatal(err)
	}
	tooLong := &llm.StatusError{StatusCode: 400, Message: "This model's maximum context length is 8192 tokens."}
	prompt := func(r llm.Request) string { return r.Messages[len(r.Messages)-1].Content }
	tests := []runkit.RejectCase{
		{Name: "deep prompts rejected", Reject: func(r llm.Request) error {
			if strings.Contains(prompt(r), "Step 2 (") && r.Role == runners.RoleReason {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "understanding rejected", Reject: func(r llm.Request) error {
			if r.Role == runners.RoleUnderstand {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "discriminator and rewards rejected", Reject: func(r llm.Request) error {
			if r.Role == runners.RoleDiscriminator || strings.Contains(prompt(r), rewardInstruction) {
				return tooLong
			}
			return nil
		}, WantSQL: true, WantErr: false},
		{Name: "every request rejected", Reject: func(llm.Request) error { return tooLong }, WantSQL: false, WantErr: false},
		{Name: "server error after retries", Reject: func(r llm.Request) error {
			if r.Responder == RespSQL {
				return &llm.StatusError{StatusCode: 503}
			}
			return nil
		}, WantSQL: false, WantErr: true},
	}
	runkit.RejectedPrune(t, db, e, tests, func() *testkit.Model { return newModel(b) }, func(t *testing.T, c llm.Client) (runners.Result, error) {
		r, err := New(runners.Params{"n_rollout": 8})
		if err != nil {
			t.Fatal(err)
		}
		return r.Run(ctx, runners.Task{Example: e.WithoutGold(), DB: db, LLM: c, Seed: 1})
	})
}

// TestMaxTokensParams: per-role defaults, max_tokens as the default of
// every role, a role's own key winning, and range errors.
func TestMaxTokensParams(t *testing.T) {
	tests := []struct {
		p    runners.Params
		want map[string]int
	}{
		{runners.Params{}, map[string]int{runners.RoleUnderstand: 4096, runners.RoleReason: 8192, runners.RoleDiscriminator: 8192}},
		{runners.Params{"max_tokens": 2048}, map[string]int{runners.RoleUnderstand: 2048, runners.RoleReason: 2048, runners.RoleDiscriminator: 2048}},
		{runners.Params{"max_tokens": 2048, "max_tokens_reason": 16384}, map[string]int{runners.RoleUnderstand: 2048, runners.RoleReason: 16384, runners.RoleDiscriminator: 2048}},
	}
	for _, tc := range tests {
		r, err := New(tc.p)
		if err != nil {
			t.Fatalf("New(%v): %v", tc.p, err)
		}
		if got := r.(*Runner).Config().MaxTokens; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("New(%v) max tokens = %v; want %v", tc.p, got, tc.want)
		}
	}
	if _, err := New(runners.Params{"max_tokens_discriminator": 8}); err == nil || !strings.Contains(err.Error(), "params.max_tokens_discriminator") {
		t.Errorf("New(max_tokens_discriminator 8): got %v; want a range error naming the key", err)
	}
}
