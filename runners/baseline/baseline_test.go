package baseline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// fakeDB answers Execute from a table of SQL -> rows; other SQL fails.
type fakeDB struct{ results map[string][][]any }

func (d *fakeDB) ID() string      { return "db" }
func (d *fakeDB) Dialect() string { return "sqlite" }
func (d *fakeDB) Execute(_ context.Context, sql string) (*datasets.ResultSet, error) {
	rows, ok := d.results[sql]
	if !ok {
		return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "no such column"}
	}
	return &datasets.ResultSet{Columns: []string{"c"}, Rows: rows}, nil
}
func (d *fakeDB) Schema(context.Context) (*datasets.Schema, error) {
	return &datasets.Schema{DBID: "db", Tables: []datasets.Table{{Name: "singer", PrimaryKey: []string{"id"},
		Columns: []datasets.Column{{Name: "id", Type: "INTEGER"}, {Name: "name", Type: "TEXT", Examples: []string{"Joe", "Ann"}}}}}}, nil
}
func (d *fakeDB) Fingerprint() string { return "fp" }
func (d *fakeDB) Close() error        { return nil }

// fakeLLM returns the scripted choices (however many samples are asked
// for) or fails with err, and records requests.
func fakeLLM(err error, choices ...string) *testkit.Model {
	var samples []testkit.Sample
	for _, c := range choices {
		samples = append(samples, testkit.Sample{Text: c})
	}
	m := &testkit.Model{Reply: testkit.Fixed(samples...), Usage: llm.Usage{PromptTokens: 100}, TokensPerSample: 10}
	if err != nil {
		m.Reject = func(llm.Request) error { return err }
	}
	return m
}

func task(c llm.Client, db datasets.Database) runners.Task {
	return runners.Task{Example: datasets.Example{ID: "q1", DBID: "db", Question: "How many singers?", Evidence: "singer means a row"}, DB: db, LLM: c, Seed: 3}
}

func TestDirectAndCoT(t *testing.T) {
	for _, name := range []string{"direct", "cot"} {
		t.Run(name, func(t *testing.T) {
			r, err := runners.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := fakeLLM(nil, "Reasoning.\n```sql\nSELECT count(*) FROM singer;\n```")
			res, err := r.Run(context.Background(), task(f, &fakeDB{}))
			if err != nil {
				t.Fatal(err)
			}
			if res.SQL != "SELECT count(*) FROM singer" {
				t.Errorf("SQL = %q; want SELECT count(*) FROM singer", res.SQL)
			}
			if len(f.Requests()) != 1 || f.Requests()[0].Temperature != 0 || f.Requests()[0].Role != "reason" || f.Requests()[0].Answer != llm.AnswerSQL {
				t.Fatalf("requests = %+v; want one reason/sql request at temperature 0", f.Requests())
			}
			p := f.Requests()[0].Messages[1].Content
			for _, want := range []string{"CREATE TABLE", "singer", "How many singers?", "Evidence: singer means a row", "Joe"} {
				if !strings.Contains(p, want) {
					t.Errorf("prompt lacks %q:\n%s", want, p)
				}
			}
			if got := strings.Contains(p, "step by step"); got != (name == "cot") {
				t.Errorf("step-by-step instruction present = %v; want %v", got, name == "cot")
			}
			if u := res.Usage["reason"]; u.Calls != 1 || u.PromptTokens != 100 {
				t.Errorf("usage = %+v; want 1 call, 100 prompt tokens", u)
			}
		})
	}
}

func TestDirectNoSQLIsData(t *testing.T) {
	r, _ := runners.New("direct", nil)
	res, err := r.Run(context.Background(), task(fakeLLM(nil, "I don't know."), &fakeDB{}))
	if err != nil {
		t.Fatalf("err = %v; want nil (a failed prediction is data)", err)
	}
	if res.SQL != "" || res.Note == "" {
		t.Errorf("SQL, Note = %q, %q; want empty SQL and a note", res.SQL, res.Note)
	}
}

func TestInfrastructureErrorPropagates(t *testing.T) {
	r, _ := runners.New("sc", runners.Params{"k": 3})
	boom := errors.New("endpoint down")
	_, err := r.Run(context.Background(), task(fakeLLM(boom), &fakeDB{}))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v; want wrapping %v", err, boom)
	}
}

func TestSCVote(t *testing.T) {
	db := &fakeDB{results: map[string][][]any{
		"SELECT a": {{int64(1)}, {int64(2)}},
		"SELECT b": {{int64(2)}, {float64(1)}}, // same multiset as a (1 == 1.0, order ignored)
		"SELECT c": {{int64(3)}},
		"SELECT d": {{int64(4)}},
		"SELECT e": {{int64(4)}},
	}}
	tests := []struct {
		name    string
		choices []string
		want    string
		note    bool
	}{
		{"majority", []string{"```sql\nSELECT c\n```", "```sql\nSELECT a\n```", "```sql\nSELECT b\n```"}, "SELECT a", false},
		{"tie goes to earliest", []string{"```sql\nSELECT c\n```", "```sql\nSELECT d\n```", "```sql\nSELECT e\n```", "```sql\nSELECT a\n```"}, "SELECT d", false},
		{"one-one tie earliest", []string{"```sql\nSELECT c\n```", "```sql\nSELECT d\n```"}, "SELECT c", false},
		{"invalid excluded", []string{"```sql\nSELECT bad\n```", "```sql\nSELECT bad\n```", "```sql\nSELECT bad\n```", "```sql\nSELECT c\n```"}, "SELECT c", false},
		{"all invalid falls back", []string{"nothing", "```sql\nSELECT bad\n```"}, "SELECT bad", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := runners.New("sc", runners.Params{"k": len(tt.choices), "temperature": 0.7})
			if err != nil {
				t.Fatal(err)
			}
			f := fakeLLM(nil, tt.choices...)
			res, err := r.Run(context.Background(), task(f, db))
			if err != nil {
				t.Fatal(err)
			}
			if res.SQL != tt.want || (res.Note != "") != tt.note {
				t.Errorf("SQL = %q (note %q); want %q (note %v)", res.SQL, res.Note, tt.want, tt.note)
			}
			if len(f.Requests()) != 1 || f.Requests()[0].N != len(tt.choices) || f.Requests()[0].Temperature != 0.7 {
				t.Errorf("requests = %d, n=%d, T=%v; want one request with n=%d, T=0.7", len(f.Requests()), f.Requests()[0].N, f.Requests()[0].Temperature, len(tt.choices))
			}
		})
	}
}

func TestParams(t *testing.T) {
	tests := []struct {
		name    string
		p       runners.Params
		wantErr string
	}{
		{"sc", runners.Params{"k": 5}, ""},
		{"sc", runners.Params{"k": 0}, "params.k"},
		{"sc", runners.Params{"n_rollout": 3}, "params.n_rollout: unknown"},
		{"direct", runners.Params{"k": 3}, "params.k: unknown"},
		{"cot", runners.Params{"evidence": "yes"}, "params.evidence"},
	}
	for _, tt := range tests {
		_, err := runners.New(tt.name, tt.p)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("New(%s, %v) err = %v; want containing %q", tt.name, tt.p, err, tt.wantErr)
		}
	}
}

// countDB is a fakeDB that counts the executions of each SQL text.
type countDB struct {
	*fakeDB
	runs map[string]int
}

func (d *countDB) Execute(ctx context.Context, sql string) (*datasets.ResultSet, error) {
	d.runs[sql]++
	return d.fakeDB.Execute(ctx, sql)
}

// TestSCExecutesEachSQLOnce: samples that repeat a text (one that runs,
// one that fails) execute it once, and every sample still votes as before:
// "SELECT a" three times against "SELECT c" twice.
func TestSCExecutesEachSQLOnce(t *testing.T) {
	db := &countDB{fakeDB: &fakeDB{results: map[string][][]any{"SELECT a": {{int64(1)}}, "SELECT c": {{int64(3)}}}}, runs: map[string]int{}}
	choices := []string{"```sql\nSELECT c\n```", "```sql\nSELECT a\n```", "```sql\nSELECT bad\n```", "```sql\nSELECT a\n```", "```sql\nSELECT c\n```", "```sql\nSELECT bad\n```", "```sql\nSELECT a\n```"}
	r, err := runners.New("sc", runners.Params{"k": len(choices)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), task(fakeLLM(nil, choices...), db))
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT a" || len(res.Candidates) != len(choices) {
		t.Errorf("SQL %q with %d candidates; want SELECT a with %d", res.SQL, len(res.Candidates), len(choices))
	}
	for _, q := range []string{"SELECT a", "SELECT bad", "SELECT c"} {
		if db.runs[q] != 1 {
			t.Errorf("%s executed %d times; want 1", q, db.runs[q])
		}
	}
	for i, c := range res.Candidates {
		if want := c.SQL != "SELECT bad"; (c.Group != "") != want {
			t.Errorf("candidate %d (%s): group %q; want a group %v", i, c.SQL, c.Group, want)
		}
	}
}
