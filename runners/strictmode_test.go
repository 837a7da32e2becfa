package runners_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/alphasql"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/steinersql"
)

// instance builds a value that satisfies a strict-mode JSON schema: every
// property present, the first non-null type of a nullable field, the first
// enum value, one item per array.
func instance(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if alts, ok := schema["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && m["type"] != "null" {
				return instance(m)
			}
		}
		return nil
	}
	typ := schema["type"]
	if list, ok := typ.([]any); ok {
		typ = nil
		for _, x := range list {
			if x != "null" {
				typ = x
				break
			}
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, p := range props {
			if m, ok := p.(map[string]any); ok {
				out[k] = instance(m)
			}
		}
		return out
	case "array":
		if it, ok := schema["items"].(map[string]any); ok {
			return []any{instance(it)}
		}
		return []any{}
	case "string":
		return "student"
	case "number", "integer":
		return 1
	case "boolean":
		return false
	}
	return nil
}

// strictServer answers a json_schema request with an instance of its
// schema and any other request with prose, a JSON object naming every
// table, and a fenced query over the mini university database.
func strictServer(t *testing.T) *fakeopenai.Server {
	return fakeopenai.New(t, fakeopenai.Options{Responder: func(r *fakeopenai.Request, s fakeopenai.Sample) fakeopenai.Choice {
		if rf := r.ResponseFormat; rf != nil && rf.Type == "json_schema" {
			var sch map[string]any
			if err := json.Unmarshal(rf.Schema, &sch); err != nil {
				return fakeopenai.Choice{Content: "{}"}
			}
			b, _ := json.Marshal(instance(sch))
			return fakeopenai.Choice{Content: string(b)}
		}
		return fakeopenai.Choice{
			ReasoningContent: "The question asks for a count of students.",
			Content:          "Here is my answer.\n```json\n{\"tables\": \"*\", \"keywords\": [\"student\"], \"columns\": []}\n```\n```sql\nSELECT COUNT(*) FROM student\n```",
		}
	}})
}

// TestStrictModeEndToEnd runs IESR, SteinerSQL and Alpha-SQL against a
// server that enforces OpenAI's strict-mode schema rules and answers a
// non-conforming schema with OpenAI's 400 error body. Every structured
// request must be accepted as strict: no schema is rejected (the backend
// would record a fallback to json_object), and every JSON answer is made
// under strict mode. A control request with a map-typed property shows the
// server does reject what breaks the rules.
func TestStrictModeEndToEnd(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	var ex datasets.Example
	for _, e := range b.Examples {
		if e.DBID == "university" {
			ex = e
			break
		}
	}
	if ex.ID == "" {
		t.Fatal("mini has no university question")
	}
	db, err := b.Engine.Open(ctx, ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	build := map[string]func() (runners.Runner, error){
		"iesr":       func() (runners.Runner, error) { return iesr.New(runners.Params{"n_rollout": 4}) },
		"alphasql":   func() (runners.Runner, error) { return alphasql.New(runners.Params{"n_rollout": 4}) },
		"steinersql": func() (runners.Runner, error) { return steinersql.New(runners.Params{}) },
	}
	wantSchemas := map[string]bool{"iesr": true, "steinersql": true, "alphasql": false}
	for _, name := range []string{"iesr", "steinersql", "alphasql"} {
		t.Run(name, func(t *testing.T) {
			srv := strictServer(t)
			backend, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "strict-model", MaxRetries: -1, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			rec := &testkit.Recorder{Client: backend}
			r, err := build[name]()
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(ctx, runners.Task{Example: ex.WithoutGold(), DB: db, LLM: rec, Seed: 1})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if strings.TrimSpace(res.SQL) == "" {
				t.Errorf("no SQL (note %q)", res.Note)
			}
			strict := 0
			for _, req := range srv.Requests() {
				if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.Strict {
					strict++
				}
			}
			if wantSchemas[name] && strict == 0 {
				t.Errorf("no strict json_schema request sent; want the runner's structured calls strict")
			}
			if !wantSchemas[name] && strict != 0 {
				t.Errorf("%d strict json_schema requests; want none (reasoning actions are plain text)", strict)
			}
			st := backend.Stats()
			if st.SchemaFallbacks != 0 || st.StructuredDegrades != 0 || st.Structured != llm.StructuredStrict {
				t.Errorf("stats %+v; want no schema rejected and the endpoint still strict", st)
			}
			i := 0
			for _, c := range rec.Log() {
				if c.Err != nil || c.Req.Answer != llm.AnswerJSON {
					continue
				}
				if m := c.Resp.Structured; m != llm.StructuredStrict {
					t.Errorf("JSON answer %d made under %q; want strict", i, m)
				}
				i++
			}
			t.Logf("%s: %d requests, %d strict json_schema, SQL %q", name, srv.Calls(), strict, res.SQL)
		})
	}

	// Control: the same server rejects a map-typed property, and the
	// backend falls back for that request and records it.
	srv := strictServer(t)
	backend, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "strict-model", MaxRetries: -1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	bad := json.RawMessage(`{"type":"object","properties":{"tables":{"type":"object","additionalProperties":{"type":"string"}}},"required":["tables"],"additionalProperties":false}`)
	resp, err := backend.Complete(ctx, llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: "tables?"}}, Answer: llm.AnswerJSON, Schema: bad, SchemaName: "bad"})
	if err != nil {
		t.Fatalf("control request: %v", err)
	}
	if st := backend.Stats(); st.SchemaFallbacks != 1 || resp.Structured == llm.StructuredStrict {
		t.Errorf("control: stats %+v, answer made under %q; want the map-typed schema rejected once and answered as json_object", st, resp.Structured)
	}
}
