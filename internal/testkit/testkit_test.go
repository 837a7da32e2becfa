package testkit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestSQLite builds databases from several scripts, at a default path and
// at a nested one, and reads the rows back.
func TestSQLite(t *testing.T) {
	nested := filepath.Join(t.TempDir(), "database", "shop", "shop.sqlite")
	for _, tc := range []struct {
		name string
		path func(t *testing.T, scripts ...string) string
	}{
		{"temp dir", func(t *testing.T, s ...string) string { return testkit.SQLite(t, s...) }},
		{"nested path", func(t *testing.T, s ...string) string { return testkit.SQLiteAt(t, nested, s...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path(t, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);", "INSERT INTO t VALUES (2), (3);")
			db, err := sql.Open("sqlite3", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n, sum int
			if err := db.QueryRow("SELECT count(*), sum(x) FROM t").Scan(&n, &sum); err != nil || n != 3 || sum != 6 {
				t.Errorf("rows: got count %d, sum %d, %v; want 3, 6 (1 + 2 + 3)", n, sum, err)
			}
		})
	}
}

// TestSQLFile reads a script file whole and builds from it.
func TestSQLFile(t *testing.T) {
	const script = "CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (7);\n"
	file := filepath.Join(t.TempDir(), "f.sql")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	got := testkit.SQLFile(t, file)
	if got != script {
		t.Fatalf("SQLFile(%s) = %q; want %q", file, got, script)
	}
	db, err := sql.Open("sqlite3", testkit.SQLite(t, got))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var x int
	if err := db.QueryRow("SELECT x FROM t").Scan(&x); err != nil || x != 7 {
		t.Errorf("x = %d, %v; want 7", x, err)
	}
}

func req(responder string, n int) llm.Request {
	return llm.Request{Responder: responder, N: n, Messages: []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "【Question】\nHow many?\nmore"}}}
}

// TestModel checks each way of scripting a Model: the choices, reasoning
// and finish reasons of the responses, the errors, and what it records.
func TestModel(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	type call struct {
		req       llm.Request
		choices   []string
		reasoning []string
		finish    []string
		err       error
	}
	tests := []struct {
		name  string
		model *testkit.Model
		calls []call
	}{
		{"replies", &testkit.Model{Reply: testkit.Replies("a", "b")}, []call{
			{req: req("x", 1), choices: []string{"a"}},
			{req: req("x", 1), choices: []string{"b"}},
			{req: req("x", 1), err: testkit.ErrScriptExhausted},
		}},
		{"looping", &testkit.Model{Reply: testkit.Looping("a", "b")}, []call{
			{req: req("x", 1), choices: []string{"a"}},
			{req: req("x", 1), choices: []string{"b"}},
			{req: req("x", 1), choices: []string{"b"}},
		}},
		{"turns", &testkit.Model{Reply: testkit.Turns(testkit.Turn{Text: "a", Reasoning: "r", Finish: llm.FinishLength}, testkit.Turn{Err: boom}), DefaultFinish: llm.FinishStop}, []call{
			{req: req("x", 1), choices: []string{"a"}, reasoning: []string{"r"}, finish: []string{llm.FinishLength}},
			{req: req("x", 1), err: boom},
			{req: req("x", 1), err: testkit.ErrScriptExhausted},
		}},
		{"by role", &testkit.Model{Reply: testkit.ByRole(map[string][]testkit.Turn{"a": {{Text: "a1"}, {Text: "a2"}}, "b": {{Text: "b1"}}})}, []call{
			{req: llm.Request{Role: "a"}, choices: []string{"a1"}},
			{req: llm.Request{Role: "b"}, choices: []string{"b1"}},
			{req: llm.Request{Role: "a"}, choices: []string{"a2"}},
			{req: llm.Request{Role: "b"}, err: testkit.ErrScriptExhausted},
		}},
		{"text per sample", &testkit.Model{Reply: testkit.Text("t"), DefaultFinish: llm.FinishStop}, []call{
			{req: req("x", 3), choices: []string{"t", "t", "t"}, finish: []string{"stop", "stop", "stop"}},
		}},
		{"fixed ignores n", &testkit.Model{Reply: testkit.Fixed(testkit.Sample{Text: "a"}, testkit.Sample{Text: "b"})}, []call{
			{req: req("x", 5), choices: []string{"a", "b"}},
		}},
		{"no choices", &testkit.Model{Reply: testkit.Fixed()}, []call{
			{req: req("x", 2), choices: nil},
		}},
		{"reject", &testkit.Model{Reply: testkit.Text("ok"), Reject: func(r llm.Request) error {
			if r.Responder == "bad" {
				return boom
			}
			return nil
		}}, []call{
			{req: req("bad", 1), err: boom},
			{req: req("good", 1), choices: []string{"ok"}},
		}},
		{"sabotage", &testkit.Model{Reply: testkit.Sabotage(func(r llm.Request, i int) string { return r.Responder + fmt.Sprint(i) }, map[string]bool{"bad": true}, "junk", "down")}, []call{
			{req: req("good", 2), choices: []string{"good0", "good1"}},
			{req: req("bad", 2), choices: []string{"junk", "junk"}},
			{req: req("down", 1), err: testkit.ErrConnRefused},
		}},
		{"sabotage no choices", &testkit.Model{Reply: testkit.Sabotage(func(llm.Request, int) string { return "ok" }, map[string]bool{"*": true}, testkit.NoChoices, "")}, []call{
			{req: req("any", 3), choices: nil},
		}},
		{"per sample error", &testkit.Model{Reply: testkit.PerSample(func(_ llm.Request, i int) (testkit.Sample, error) {
			if i == 1 {
				return testkit.Sample{}, boom
			}
			return testkit.Sample{Text: "s"}, nil
		})}, []call{
			{req: req("x", 1), choices: []string{"s"}},
			{req: req("x", 2), err: boom},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, c := range tc.calls {
				resp, err := tc.model.Complete(ctx, c.req)
				if c.err != nil {
					if !errors.Is(err, c.err) {
						t.Errorf("call %d: got error %v; want %v", i, err, c.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if !reflect.DeepEqual(resp.Choices, c.choices) || !reflect.DeepEqual(resp.Reasoning, c.reasoning) || !reflect.DeepEqual(resp.FinishReasons, c.finish) {
					t.Errorf("call %d: got choices %q reasoning %q finish %q; want %q %q %q", i, resp.Choices, resp.Reasoning, resp.FinishReasons, c.choices, c.reasoning, c.finish)
				}
			}
			if got := len(tc.model.Requests()); got != len(tc.calls) {
				t.Errorf("recorded %d requests; want %d (every call, failed ones included)", got, len(tc.calls))
			}
		})
	}
}

// TestModelRecords checks the counts and the usage a Model reports.
func TestModelRecords(t *testing.T) {
	ctx := context.Background()
	m := &testkit.Model{Reply: testkit.Text("x"), Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 1}, TokensPerSample: 10}
	for _, r := range []llm.Request{req("a", 1), req("a", 4), req("b", 0)} {
		resp, err := m.Complete(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		// CompletionTokens = 1 + 10 per sample.
		if want := 1 + 10*r.Samples(); resp.Usage.PromptTokens != 100 || resp.Usage.CompletionTokens != want {
			t.Errorf("usage %+v; want 100 prompt, %d completion tokens", resp.Usage, want)
		}
	}
	for _, tc := range []struct {
		responder      string
		calls, samples int
	}{{"", 3, 6}, {"a", 2, 5}, {"b", 1, 1}, {"c", 0, 0}} {
		if got := m.Calls(tc.responder); got != tc.calls {
			t.Errorf("Calls(%q) = %d; want %d", tc.responder, got, tc.calls)
		}
		if got := m.Samples(tc.responder); got != tc.samples {
			t.Errorf("Samples(%q) = %d; want %d", tc.responder, got, tc.samples)
		}
	}
	if got := len(m.Prompts()); got != 6 {
		t.Errorf("%d prompts; want 6 (two messages in each of three requests)", got)
	}
}

// TestRecorder counts what another client was asked and passes its
// answers through.
func TestRecorder(t *testing.T) {
	r := &testkit.Recorder{Client: &testkit.Model{Reply: testkit.Text("y")}}
	resp, err := r.Complete(context.Background(), req("a", 2))
	if err != nil || !reflect.DeepEqual(resp.Choices, []string{"y", "y"}) {
		t.Fatalf("got %v, %v; want the wrapped client's two samples", resp, err)
	}
	if r.Calls("a") != 1 || r.Samples("a") != 2 || r.Calls("b") != 0 {
		t.Errorf("Calls(a), Samples(a), Calls(b) = %d, %d, %d; want 1, 2, 0", r.Calls("a"), r.Samples("a"), r.Calls("b"))
	}
	if log := r.Log(); len(log) != 1 || log[0].Req.Responder != "a" || log[0].Resp != resp || log[0].Err != nil {
		t.Errorf("log %+v; want the one call with its response", log)
	}
}

// TestModelLog records each call's answer: the response, or the error of
// Reject or Reply.
func TestModelLog(t *testing.T) {
	boom := errors.New("boom")
	m := &testkit.Model{Reply: testkit.Replies("a"), Reject: func(r llm.Request) error {
		if r.Responder == "no" {
			return boom
		}
		return nil
	}}
	ctx := context.Background()
	resp, _ := m.Complete(ctx, req("yes", 1))
	m.Complete(ctx, req("no", 1))
	m.Complete(ctx, req("yes", 1)) // past the script
	log := m.Log()
	if len(log) != 3 || log[0].Resp != resp || log[0].Err != nil || log[1].Err != boom || !errors.Is(log[2].Err, testkit.ErrScriptExhausted) || log[2].Resp != nil {
		t.Errorf("log %+v; want the response, the refusal, the exhausted script", log)
	}
}

func TestPromptLine(t *testing.T) {
	for _, tc := range []struct {
		req   llm.Request
		label string
		want  string
	}{
		{req("x", 1), "【Question】\n", "How many?"},
		{req("x", 1), "missing", ""},
		{llm.Request{}, "【Question】\n", ""},
	} {
		if got := testkit.PromptLine(tc.req, tc.label); got != tc.want {
			t.Errorf("PromptLine(%q) = %q; want %q", tc.label, got, tc.want)
		}
	}
}
