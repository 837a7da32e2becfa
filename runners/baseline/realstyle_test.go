package baseline

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// The tests in this file are written from what real models send: prose
// around fences, several candidate queries, <think> text already moved to
// Response.Reasoning by the client (holding a draft query of its own), and
// samples cut at max_tokens.

// sample is one scripted answer.
type sample struct{ text, reasoning, finish string }

// samplesLLM answers every request with its samples (n of them) and
// records the requests.
type samplesLLM struct {
	samples []sample
	reqs    []llm.Request
}

func (f *samplesLLM) Complete(_ context.Context, r llm.Request) (*llm.Response, error) {
	f.reqs = append(f.reqs, r)
	resp := &llm.Response{}
	for _, s := range f.samples {
		finish := s.finish
		if finish == "" {
			finish = llm.FinishStop
		}
		resp.Choices = append(resp.Choices, s.text)
		resp.Reasoning = append(resp.Reasoning, s.reasoning)
		resp.FinishReasons = append(resp.FinishReasons, finish)
	}
	return resp, nil
}

// miniDB opens one database of the bundled mini benchmark, built from its
// .sql script in t.TempDir().
func miniDB(t testing.TB, name string) datasets.Database {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mini", "databases", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".sqlite")
	raw, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := datasets.OpenSQLite(p, name, datasets.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// miniQ0 is question 0 of testdata/mini/questions.json; its gold gives 4
// (university.sql has four Computer Science majors).
var miniQ0 = datasets.Example{ID: "0", DBID: "university", Question: "How many students declared a major in the Computer Science department?"}

const (
	miniQ0Gold = "SELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'"
	// miniQ0Wrong counts every student with a major (a wrong answer that
	// runs).
	miniQ0Wrong = "SELECT COUNT(*) FROM student WHERE major_dept IS NOT NULL"
)

func TestSingleRealStyles(t *testing.T) {
	db := miniDB(t, "university")
	tests := []struct {
		name    string
		s       sample
		wantSQL string
		note    string
		cut     bool
	}{
		{"prose, fence, explanation", sample{text: "To answer this, join student with department.\n\n```sql\n" + miniQ0Gold + ";\n```\n\nThis returns 4."}, miniQ0Gold, "", false},
		{"reasoning holds a draft", sample{reasoning: "Maybe:\n```sql\n" + miniQ0Wrong + "\n```\nNo, filter by name.", text: "```sql\n" + miniQ0Gold + "\n```"}, miniQ0Gold, "", false},
		{"no sql", sample{text: "I need more information about the schema."}, "", NoSQLNote, false},
		{"cut inside the sql", sample{text: "```sql\nSELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer", finish: llm.FinishLength}, "", "cut at max_tokens inside its SQL", true},
		{"cut after the block", sample{text: "```sql\n" + miniQ0Gold + "\n```\nExplanation: the join on major_dept", finish: llm.FinishLength}, miniQ0Gold, "after its SQL block", true},
		{"cut while thinking", sample{reasoning: "Let me consider the tables one by one", finish: llm.FinishLength}, "", NoSQLNote + " (answer cut at max_tokens)", true},
	}
	for _, name := range []string{"direct", "cot"} {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				r, err := runners.New(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				f := &samplesLLM{samples: []sample{tt.s}}
				res, err := r.Run(context.Background(), runners.Task{Example: miniQ0, DB: db, LLM: f})
				if err != nil {
					t.Fatal(err)
				}
				if res.SQL != tt.wantSQL || !strings.Contains(res.Note, tt.note) || tt.note == "" && res.Note != "" {
					t.Errorf("SQL %q note %q; want %q, note containing %q", res.SQL, res.Note, tt.wantSQL, tt.note)
				}
				if got := res.Trace.Counters[CounterCut] == 1; got != tt.cut {
					t.Errorf("cut counted %v; want %v", got, tt.cut)
				}
				st := res.Trace.Steps[0]
				if st.Info["finish_reason"] == nil || tt.s.reasoning != "" && st.Info["reasoning"] != tt.s.reasoning {
					t.Errorf("step info %v; want finish reason and reasoning", st.Info)
				}
				if f.reqs[0].MaxTokens != DefaultMaxTokens {
					t.Errorf("max_tokens %d; want %d", f.reqs[0].MaxTokens, DefaultMaxTokens)
				}
			})
		}
	}
}

// TestSCCutSamplesDoNotVote: two cut samples hold the wrong query in a
// complete block; they do not vote, so the gold query's single clean
// sample wins over the wrong one's single clean sample by coming first.
func TestSCCutSamplesDoNotVote(t *testing.T) {
	db := miniDB(t, "university")
	wrongCut := sample{text: "```sql\n" + miniQ0Wrong + "\n```\nThis counts", finish: llm.FinishLength}
	f := &samplesLLM{samples: []sample{
		wrongCut,
		{reasoning: "Join on major_dept.", text: "Step 1: find the department.\nStep 2: count.\n```sql\n" + miniQ0Gold + "\n```"},
		wrongCut,
		{text: "```sql\n" + miniQ0Wrong + "\n```"},
		{text: "The answer is four."},
	}}
	r, err := runners.New("sc", runners.Params{"k": 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), runners.Task{Example: miniQ0, DB: db, LLM: f})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != miniQ0Gold {
		t.Errorf("SQL %q; want the gold query (cut samples must not vote)", res.SQL)
	}
	c := res.Trace.Counters
	if c[CounterCut] != 2 || c[CounterNoSQL] != 1 || c["valid_samples"] != 2 {
		t.Errorf("counters %v; want 2 cut, 1 without SQL, 2 voting", c)
	}
	for _, st := range res.Trace.Steps {
		if st.Info["finish_reason"] == nil {
			t.Errorf("step %v lacks its finish reason", st.Info)
		}
	}

	f = &samplesLLM{samples: []sample{wrongCut, {text: "No idea."}}}
	r, _ = runners.New("sc", runners.Params{"k": 2})
	res, err = r.Run(context.Background(), runners.Task{Example: miniQ0, DB: db, LLM: f})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "" || !strings.HasPrefix(res.Note, NoSQLNote) || !strings.Contains(res.Note, "1 of 2 samples cut") {
		t.Errorf("SQL %q note %q; want no SQL and the cut explained", res.SQL, res.Note)
	}
}
