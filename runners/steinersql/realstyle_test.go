package steinersql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// The tests in this file are written from what real models send
// (instruction-tuned models that wrap JSON and SQL in prose and fences,
// reasoning models whose <think> text the client has already moved to
// Response.Reasoning, answers cut at max_tokens, servers that refuse a
// request with HTTP 400).

// reply is one scripted model answer.
type reply = testkit.Turn

// roleScript is what roleModel answers to each role, in order.
type roleScript struct {
	decompose, generate []reply
}

// roleModel is a fake llm.Client answering each role from its own script
// ("stop" when a reply names no finish reason) and recording every
// request.
type roleModel struct {
	*testkit.Model
	roleScript
}

func newRoleModel(s roleScript) *roleModel {
	return &roleModel{roleScript: s, Model: &testkit.Model{DefaultFinish: llm.FinishStop,
		Reply: testkit.ByRole(map[string][]testkit.Turn{runners.RoleDecompose: s.decompose, runners.RoleReason: s.generate})}}
}

// TestSchemasStrict: every schema the runner can send (Schemas) follows
// strict mode, and every structured request a run sends carries one of
// them, under its name.
func TestSchemasStrict(t *testing.T) {
	for name, s := range Schemas() {
		if err := llm.CheckStrictSchema(s); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	db := runkit.MiniDB(t, "university")
	m := newRoleModel(roleScript{decompose: []reply{{Text: `{"operations":[],"quantities":[],"aggregations":[],"temporal":[],"terminal_tables":["course"]}`}},
		generate: []reply{{Text: "```sql\nSELECT title FROM course WHERE credits > 5\n```"}}})
	r, _ := New(runners.Params{})
	if _, err := r.Run(context.Background(), runners.Task{Example: datasets.Example{ID: "q", DBID: "university", Question: "Which courses have more than 5 credits?"}, DB: db, LLM: m}); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, req := range m.Requests() {
		if req.Answer != llm.AnswerJSON {
			continue
		}
		sent++
		if s, ok := Schemas()[req.SchemaName]; !ok || string(s) != string(req.Schema) {
			t.Errorf("request sends schema %q, which Schemas does not list as sent", req.SchemaName)
		}
	}
	if sent == 0 {
		t.Error("no structured request sent; want Stage 1 to send one")
	}
}

func sameResult(t *testing.T, db datasets.Database, a, b string) bool {
	t.Helper()
	ra, err := db.Execute(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := db.Execute(context.Background(), b)
	return err == nil && ra.SetKey() == rb.SetKey()
}

// TestRealStyles runs mini question 0 end to end: Stage 1 answers with
// prose around a ```json fence, key-case drift and a draft object in its
// reasoning; the first generation is cut at max_tokens inside its SQL
// block (not used, asked again); the second writes prose, a ```sql block
// with a trailing semicolon, and an explanation.
func TestRealStyles(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	m := newRoleModel(roleScript{
		decompose: []reply{{
			Reasoning: `Draft: {"terminal_tables": ["course"]}. No, students and departments.`,
			Text:      "Sure! Here is the decomposition:\n\n```json\n{\n  \"Operations\": [{\"function\": \"COUNT\", \"target\": \"student.student_id\"}],\n  \"quantities\": [],\n  \"aggregations\": [],\n  \"temporal\": [],\n  \"Terminal_Tables\": [\"student\", \"department\"]\n}\n```\n\nLet me know if you need more.",
		}},
		generate: []reply{
			{Reasoning: "Join student with department on major_dept.", Text: "```sql\nSELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.na", Finish: llm.FinishLength},
			{Reasoning: "Now answer briefly.", Text: "The scaffold joins student and department.\n\n```sql\n" + runkit.MiniQ0Gold + ";\n```\n\nThis counts the students whose major is Computer Science."},
		},
	})
	r, _ := New(runners.Params{})
	res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if !sameResult(t, db, runkit.MiniQ0Gold, res.SQL) || res.Note != "" || res.Extraction != sqltext.ReasonSingle {
		t.Errorf("SQL %q note %q extraction %q; want the gold result, no note, found as the single candidate", res.SQL, res.Note, res.Extraction)
	}
	c := res.Trace.Counters
	if c[runners.CounterCut(runners.RoleReason)] != 1 || c[CounterNoSQL] != 1 || c["decompose.parse_error"] != 0 || c["validation.l1"] != 0 || c["validation.pass"] != 1 {
		t.Errorf("counters %v; want one cut generation (no SQL, not an L1 trigger), a usable decomposition, a pass", c)
	}
	if got := res.Trace.Steps[0].Info["terminals"]; fmt.Sprint(got) != "[department student]" {
		t.Errorf("terminals %v; want [department student] from the drifted keys", got)
	}
	if len(m.Requests()) != 3 || m.Requests()[0].MaxTokens != DefaultMaxTokensDecompose || m.Requests()[1].MaxTokens != DefaultMaxTokensReason {
		t.Errorf("%d requests, max_tokens %d/%d; want 3 requests with %d/%d", len(m.Requests()), m.Requests()[0].MaxTokens, m.Requests()[1].MaxTokens, DefaultMaxTokensDecompose, DefaultMaxTokensReason)
	}
	if !strings.Contains(m.Requests()[2].Messages[1].Content, "cut at the token limit") {
		t.Errorf("regeneration prompt lacks the cut explanation:\n%s", m.Requests()[2].Messages[1].Content)
	}
	for i, req := range m.Requests() {
		for _, msg := range req.Messages {
			for _, rp := range append(m.decompose, m.generate...) {
				if rp.Reasoning != "" && strings.Contains(msg.Content, rp.Reasoning) {
					t.Errorf("request %d carries reasoning %q; want reasoning kept out of prompts", i, rp.Reasoning)
				}
			}
		}
	}
	var gen []runners.Step
	for _, s := range res.Trace.Steps {
		if s.Action == "generate" {
			gen = append(gen, s)
		}
	}
	if len(gen) != 2 || gen[0].Info["finish_reason"] != llm.FinishLength || gen[1].Info["reasoning"] != "Now answer briefly." {
		t.Errorf("generate steps %v; want finish reason and reasoning recorded", gen)
	}
	if s := res.Trace.Steps[0]; s.Info["reasoning"] == nil || s.Info["finish_reason"] != llm.FinishStop {
		t.Errorf("decompose step info %v; want reasoning and finish reason", s.Info)
	}
}

// TestNoSQLNote: when no generation holds SQL, the result says so.
func TestNoSQLNote(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	dec := reply{Text: `{"terminal_tables": ["student"]}`}
	for _, tc := range []struct {
		name string
		gen  reply
		note string
	}{
		{"prose only", reply{Text: "There are 4 students in Computer Science."}, NoSQLNote},
		{"cut while thinking", reply{Reasoning: "Let me think about which tables", Finish: llm.FinishLength}, NoSQLNote + " (answer cut at max_tokens)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newRoleModel(roleScript{decompose: []reply{dec}, generate: []reply{tc.gen, tc.gen, tc.gen}})
			r, _ := New(runners.Params{})
			res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
			if err != nil {
				t.Fatal(err)
			}
			if res.Extraction != sqltext.ReasonNone {
				t.Errorf("extraction %q; want %q", res.Extraction, sqltext.ReasonNone)
			}
			if res.SQL != "" || res.Note != tc.note || res.Trace.Counters[CounterNoSQL] != DefaultMaxIterations {
				t.Errorf("SQL %q note %q counters %v; want no SQL, note %q, %d no_sql", res.SQL, res.Note, res.Trace.Counters, tc.note, DefaultMaxIterations)
			}
		})
	}
}

// TestNeverReplacesExecuting: the first query executes but fails level 3
// (it writes "more than 5" as ">= 6"); the re-planned queries do not
// execute. The executing query stays the answer, and so does the way it
// was found (a correction after a draft), not that of the last attempt.
func TestNeverReplacesExecuting(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	first := "SELECT title FROM course WHERE credits >= 6"
	m := newRoleModel(roleScript{decompose: []reply{{Text: `{"terminal_tables": ["course"]}`}}, generate: []reply{
		{Text: "```sql\nSELECT title FROM course\n```\nWait, that ignores the credits. Corrected query:\n```sql\n" + first + "\n```"},
		{Text: "```sql\nSELECT titel FROM course WHERE credits > 5\n```"},
		{Text: "```sql\nSELECT title FROM cours WHERE credits > 5\n```"},
	}})
	r, _ := New(runners.Params{})
	res, err := r.Run(context.Background(), runners.Task{Example: datasets.Example{ID: "q", DBID: "university", Question: "Which courses have more than 5 credits?"}, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.Extraction != sqltext.ReasonLastCorrection {
		t.Errorf("extraction %q; want %q (the kept first attempt's)", res.Extraction, sqltext.ReasonLastCorrection)
	}
	if res.SQL != first || res.Trace.Counters["iterations"] != 3 {
		t.Errorf("SQL %q after %v iterations; want the executing first query after 3", res.SQL, res.Trace.Counters["iterations"])
	}
	if !strings.Contains(res.Note, "executing one") {
		t.Errorf("note %q; want it to say the executing query was kept", res.Note)
	}
}

// TestPercentFactorPasses: "a 20% raise" written as salary * 1.2 passes
// level 3 at the first iteration (it used to be flagged and re-planned).
func TestPercentFactorPasses(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	q := "Which instructors would earn more than 100000 after a 20% raise?"
	sql := "SELECT name FROM instructor WHERE salary * 1.2 > 100000"
	m := newRoleModel(roleScript{decompose: []reply{{Text: `{"quantities": [{"value": 100000, "operator": ">", "attribute": "instructor.salary"}], "terminal_tables": ["instructor"]}`}},
		generate: []reply{{Text: "```sql\n" + sql + "\n```"}}})
	r, _ := New(runners.Params{})
	res, err := r.Run(context.Background(), runners.Task{Example: datasets.Example{ID: "q", DBID: "university", Question: q}, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != sql || res.Trace.Counters["validation.l3"] != 0 || res.Trace.Counters["iterations"] != 1 {
		t.Errorf("SQL %q counters %v; want the query to pass at once", res.SQL, res.Trace.Counters)
	}
}

// TestModelRejection: a request the server refuses permanently (HTTP 400)
// ends the loop with the attempts so far (in Stage 1: the lexical
// fallback); a 503 after retries is a Run error.
func TestModelRejection(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	tooLong := &llm.StatusError{StatusCode: 400, Message: "This model's maximum context length is 8192 tokens."}
	first := "SELECT title FROM course WHERE credits >= 6"
	ex := datasets.Example{ID: "q", DBID: "university", Question: "Which courses have more than 5 credits?"}
	r, _ := New(runners.Params{})

	m := newRoleModel(roleScript{decompose: []reply{{Text: `{"terminal_tables": ["course"]}`}}, generate: []reply{{Text: "```sql\n" + first + "\n```"}, {Err: tooLong}}})
	res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: m})
	if err != nil {
		t.Fatalf("400 at iteration 2: got error %v; want the first query", err)
	}
	if res.SQL != first || res.Trace.Counters[CounterModelErrors] != 1 || !strings.Contains(res.Note, "iteration 2") {
		t.Errorf("SQL %q note %q counters %v; want the first query and the refusal noted", res.SQL, res.Note, res.Trace.Counters)
	}

	m = newRoleModel(roleScript{decompose: []reply{{Err: tooLong}}, generate: []reply{{Text: "```sql\nSELECT title FROM course WHERE credits > 5\n```"}}})
	res, err = r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: m})
	if err != nil || res.SQL == "" || res.Trace.Steps[0].Info["fallback"] == nil {
		t.Errorf("400 in Stage 1: got %v, SQL %q, step %v; want the lexical fallback and a query", err, res.SQL, res.Trace.Steps[0].Info)
	}

	down := &llm.StatusError{StatusCode: 503, Message: "overloaded"}
	m = newRoleModel(roleScript{decompose: []reply{{Text: `{"terminal_tables": ["course"]}`}}, generate: []reply{{Err: down}}})
	if _, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: m}); !errors.Is(err, down) {
		t.Errorf("503: got %v; want a Run error wrapping it", err)
	}
}
