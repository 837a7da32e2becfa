package steinersql

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// byRole is a fake llm.Client that answers Stage 1 with decompose (cut
// at max_tokens when cut is set) and every generation with generate, and
// counts requests.
func byRole(decompose, generate string, cut bool) *testkit.Model {
	return &testkit.Model{Reply: func(_ int, req llm.Request) ([]testkit.Sample, error) {
		if req.Role == runners.RoleDecompose {
			s := testkit.Sample{Text: decompose}
			if cut {
				s.Finish = llm.FinishLength
			}
			return []testkit.Sample{s}, nil
		}
		return []testkit.Sample{{Text: generate}}, nil
	}}
}

// TestGarbageModel feeds Stage 1 and generation the ways a real model
// fails (no JSON, JSON of the wrong shape, empty strings, a refusal, no
// SQL, unknown tables, huge terminal lists) and checks that the runner
// degrades gracefully under every validation mode: no Go error, no panic,
// at most 1 + max_iterations calls, a fallback noted in the trace, and
// either SQL or a note.
func TestGarbageModel(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	ex := datasets.Example{ID: "q", DBID: "university", Question: "How many students are older than 20?"}
	good := "```sql\nSELECT COUNT(*) FROM student WHERE age > 20\n```"
	huge := `{"terminal_tables": ["` + strings.Repeat(`student", "nosuch", "`, 200) + `x"]}`
	cases := []struct {
		name, decompose, generate string
		// wantFallback: Stage 1 output is unusable and the terminals are
		// linked lexically.
		wantFallback bool
		wantSQL      bool
	}{
		{"no-json", "I think the student table.", good, true, true},
		{"empty-decompose", "", good, true, true},
		// (A refusal that contains "with ..." is read as a bare WITH statement
		// by sqltext.Extract; that belongs to sqltext, not to this runner.)
		{"refusal", "I'm sorry, I can't help here.", "I'm sorry, I can't answer this question.", true, false},
		{"wrong-shape", `{"terminal_tables": "student", "operations": 3}`, good, true, true},
		{"null-fields", `{"operations": null, "quantities": [null], "terminal_tables": null}`, good, true, true},
		{"unknown-tables", `{"terminal_tables": ["zzzz", "", "  ", "qqqqqqqq"]}`, good, true, true},
		{"huge-terminals", huge, good, false, true},
		{"no-sql", `{"terminal_tables": ["student"]}`, "The answer is 3.", false, false},
		{"empty-sql", `{"terminal_tables": ["student"]}`, "", false, false},
		{"bad-sql", `{"terminal_tables": ["student"]}`, "```sql\nSELEC COUNT(*) FRM student\n```", false, true},
		{"write-sql", `{"terminal_tables": ["student"]}`, "```sql\nDELETE FROM student\n```", false, true},
	}
	for _, mode := range []string{ValMultilevel, ValSimpleFeedback, ValNone} {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				client := byRole(tc.decompose, tc.generate, false)
				r, err := New(runners.Params{"validation": mode})
				if err != nil {
					t.Fatal(err)
				}
				res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
				if err != nil {
					t.Fatalf("got error %v; want a model mistake recorded as data", err)
				}
				if client.Calls("") > 1+DefaultMaxIterations {
					t.Errorf("got %d calls; want at most %d", client.Calls(""), 1+DefaultMaxIterations)
				}
				if res.SQL == "" && res.Note == "" {
					t.Error("empty SQL without a note")
				}
				if (res.SQL != "") != tc.wantSQL {
					t.Errorf("got SQL %q; want SQL: %v", res.SQL, tc.wantSQL)
				}
				dec := res.Trace.Steps[0]
				if dec.Action != "decompose" {
					t.Fatalf("first step %q; want decompose", dec.Action)
				}
				if _, ok := dec.Info["fallback"]; ok != tc.wantFallback {
					t.Errorf("fallback note %v; want present: %v (info %v)", dec.Info["fallback"], tc.wantFallback, dec.Info)
				}
				if terms, _ := dec.Info["terminals"].([]string); len(terms) == 0 {
					t.Errorf("no terminals after Stage 1 (info %v); want at least one table", dec.Info)
				}
			})
		}
	}
}
