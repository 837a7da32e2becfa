package baseline

import (
	"context"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// The tests in this file are written from what real models send: prose
// around fences, several candidate queries, <think> text already moved to
// Response.Reasoning by the client (holding a draft query of its own), and
// samples cut at max_tokens.

// sample is one scripted answer.
type sample = testkit.Sample

// samplesLLM answers every request with its samples (however many are
// asked for; "stop" when a sample names no finish reason) and records the
// requests.
func samplesLLM(samples []sample) *testkit.Model {
	return &testkit.Model{Reply: testkit.Fixed(samples...), DefaultFinish: llm.FinishStop}
}

// runSC runs sc with one vote per sample on runkit.MiniQ0 against db, the
// model answering with samples (samplesLLM).
func runSC(t *testing.T, db datasets.Database, samples []sample) runners.Result {
	t.Helper()
	r, err := runners.New("sc", runners.Params{"k": len(samples)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: samplesLLM(samples)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// miniQ0Wrong counts every student with a major: a wrong answer to
// runkit.MiniQ0 that runs.
const miniQ0Wrong = "SELECT COUNT(*) FROM student WHERE major_dept IS NOT NULL"

func TestSingleRealStyles(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	tests := []struct {
		name    string
		s       sample
		wantSQL string
		note    string
		cut     bool
	}{
		{"prose, fence, explanation", sample{Text: "To answer this, join student with department.\n\n```sql\n" + runkit.MiniQ0Gold + ";\n```\n\nThis returns 4."}, runkit.MiniQ0Gold, "", false},
		{"reasoning holds a draft", sample{Reasoning: "Maybe:\n```sql\n" + miniQ0Wrong + "\n```\nNo, filter by name.", Text: "```sql\n" + runkit.MiniQ0Gold + "\n```"}, runkit.MiniQ0Gold, "", false},
		{"no sql", sample{Text: "I need more information about the schema."}, "", NoSQLNote, false},
		{"cut inside the sql", sample{Text: "```sql\nSELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer", Finish: llm.FinishLength}, "", "cut at max_tokens inside its SQL", true},
		{"cut after the block", sample{Text: "```sql\n" + runkit.MiniQ0Gold + "\n```\nExplanation: the join on major_dept", Finish: llm.FinishLength}, runkit.MiniQ0Gold, "after its SQL block", true},
		{"cut while thinking", sample{Reasoning: "Let me consider the tables one by one", Finish: llm.FinishLength}, "", NoSQLNote + " (answer cut at max_tokens)", true},
	}
	for _, name := range []string{"direct", "cot"} {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				r, err := runners.New(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				f := samplesLLM([]sample{tt.s})
				res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: f})
				if err != nil {
					t.Fatal(err)
				}
				if res.SQL != tt.wantSQL || !strings.Contains(res.Note, tt.note) || tt.note == "" && res.Note != "" {
					t.Errorf("SQL %q note %q; want %q, note containing %q", res.SQL, res.Note, tt.wantSQL, tt.note)
				}
				if got := res.Trace.Counters[runners.CounterCut(runners.RoleReason)] == 1; got != tt.cut {
					t.Errorf("cut counted %v; want %v", got, tt.cut)
				}
				st := res.Trace.Steps[0]
				if st.Info["finish_reason"] == nil || tt.s.Reasoning != "" && st.Info["reasoning"] != tt.s.Reasoning {
					t.Errorf("step info %v; want finish reason and reasoning", st.Info)
				}
				if f.Requests()[0].MaxTokens != DefaultMaxTokens {
					t.Errorf("max_tokens %d; want %d", f.Requests()[0].MaxTokens, DefaultMaxTokens)
				}
			})
		}
	}
}

// TestSCCutSamplesDoNotVote: two cut samples hold the wrong query in a
// complete block; they do not vote, so the gold query's single clean
// sample wins over the wrong one's single clean sample by coming first.
func TestSCCutSamplesDoNotVote(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	wrongCut := sample{Text: "```sql\n" + miniQ0Wrong + "\n```\nThis counts", Finish: llm.FinishLength}
	f := samplesLLM([]sample{
		wrongCut,
		{Reasoning: "Join on major_dept.", Text: "Step 1: find the department.\nStep 2: count.\n```sql\n" + runkit.MiniQ0Gold + "\n```"},
		wrongCut,
		{Text: "```sql\n" + miniQ0Wrong + "\n```"},
		{Text: "The answer is four."},
	})
	r, err := runners.New("sc", runners.Params{"k": 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: f})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != runkit.MiniQ0Gold {
		t.Errorf("SQL %q; want the gold query (cut samples must not vote)", res.SQL)
	}
	c := res.Trace.Counters
	if c[runners.CounterCut(runners.RoleReason)] != 2 || c[CounterNoSQL] != 1 || c["valid_samples"] != 2 {
		t.Errorf("counters %v; want 2 cut, 1 without SQL, 2 voting", c)
	}
	for _, st := range res.Trace.Steps {
		if st.Info["finish_reason"] == nil {
			t.Errorf("step %v lacks its finish reason", st.Info)
		}
	}

	f = samplesLLM([]sample{wrongCut, {Text: "No idea."}})
	r, _ = runners.New("sc", runners.Params{"k": 2})
	res, err = r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: f})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "" || !strings.HasPrefix(res.Note, NoSQLNote) || !strings.Contains(res.Note, "1 of 2 samples cut") {
		t.Errorf("SQL %q note %q; want no SQL and the cut explained", res.SQL, res.Note)
	}
}

// TestSCExtractionOfRepeatedText: a sample that repeats a cut sample's
// text word for word votes, and the final SQL it gives keeps the reason
// it was extracted for, as when no cut sample came before it.
func TestSCExtractionOfRepeatedText(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	text := "```sql\n" + runkit.MiniQ0Gold + "\n```"
	for _, tc := range []struct {
		name    string
		samples []sample
	}{
		{"alone", []sample{{Text: text}}},
		{"after the same text cut", []sample{{Text: text, Finish: llm.FinishLength}, {Text: text}}},
		{"twice", []sample{{Text: text}, {Text: text}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runSC(t, db, tc.samples)
			want := sqltext.ExtractSQL(text).Reason
			if res.SQL != runkit.MiniQ0Gold || res.Extraction != want {
				t.Errorf("SQL %q extraction %q; want the gold query and %q", res.SQL, res.Extraction, want)
			}
		})
	}
}
