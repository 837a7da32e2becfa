package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestFirstErrors commits failed and pending items of several classes
// and checks that the summary prints, per status and class, the count,
// the first item's error (redacted) and what to do next.
func TestFirstErrors(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const key = "sk-abcdefghijklmnop1234"
	items := []*Item{
		{TrialID: "a", QuestionID: "q1", Status: StatusDone, Attempts: 1, Started: t0},
		// q3 of bad_request started first: its error is the first.
		{TrialID: "a", QuestionID: "q2", Index: 1, Status: StatusFailed, ErrorClass: "bad_request", Error: "HTTP 400: second", Attempts: 1, Started: t0.Add(2 * time.Second)},
		{TrialID: "a", QuestionID: "q3", Index: 2, Status: StatusFailed, ErrorClass: "bad_request", Error: "HTTP 400: This model's maximum context length is 8192 tokens", Attempts: 1, Started: t0.Add(time.Second)},
		{TrialID: "a", QuestionID: "q4", Index: 3, Status: StatusError, ErrorClass: "server_error", Error: "HTTP 503: overloaded, key " + key, Attempts: 3, Started: t0},
		{TrialID: "a", QuestionID: "q5", Index: 4, Status: StatusFailed, ErrorClass: "weird", Error: "something odd", Attempts: 1, Started: t0},
	}
	for _, it := range items {
		if err := st.Commit(it); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	got, err := FirstErrors(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []ClassError{
		{Status: StatusFailed, Class: "bad_request", Count: 2, Trial: "a", Question: "q3", Error: "HTTP 400: This model's maximum context length is 8192 tokens"},
		{Status: StatusFailed, Class: "weird", Count: 1, Trial: "a", Question: "q5", Error: "something odd"},
		{Status: StatusError, Class: "server_error", Count: 1, Trial: "a", Question: "q4", Error: "HTTP 503: overloaded, key " + key},
	}
	if len(got) != len(want) {
		t.Fatalf("FirstErrors = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("class %d: got %+v; want %+v", i, got[i], want[i])
		}
	}

	var buf bytes.Buffer
	writeFailures(&buf, &RunData{Dir: dir})
	out := buf.String()
	for _, line := range []string{
		"first error of each class:",
		"  failed bad_request (2 items; first: trial a question q3): HTTP 400: This model's maximum context length is 8192 tokens",
		"    next: the server refused the request as invalid (often a prompt over the model's context length",
		"  failed weird (1 item; first: trial a question q5): something odd",
		"  pending server_error (1 item; first: trial a question q4): HTTP 503: overloaded, key [REDACTED]",
		"    next: the server failed (HTTP 5xx): check its log and load; lower workers or the model's concurrency; then rerun the same command to retry them",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("summary lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, key) {
		t.Errorf("summary shows the API key:\n%s", out)
	}
	// A class without advice prints no "next" line after its error.
	if strings.Contains(out, "something odd\n    next:") {
		t.Errorf("class weird got advice:\n%s", out)
	}

	// A RunData without a store prints nothing.
	buf.Reset()
	writeFailures(&buf, &RunData{Dir: t.TempDir()})
	if buf.Len() != 0 {
		t.Errorf("no store: got %q; want nothing", buf.String())
	}
}

// TestRejected checks the error of a run stopped by an endpoint's 401,
// 403 or 404: it is ErrRejected, names the class and the spec's model
// (also when the endpoint is one of its replicas), keeps the server's
// message without the key, and says what to change.
func TestRejected(t *testing.T) {
	tr := &Trial{Label: "direct", Models: map[string]ModelSpec{
		"sim":  {Backend: "sim"},
		"qwen": {Backend: "openai", BaseURL: "http://a:8000/v1", Model: "Qwen/Qwen2.5-7B", Replicas: []ReplicaSpec{{BaseURL: "http://b:8000/v1"}}},
	}}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"404 wrong name", &llm.StatusError{StatusCode: 404, Message: "model 'Qwen/Qwen2.5-7B' not found", BaseURL: "http://a:8000/v1", Model: "Qwen/Qwen2.5-7B"},
			[]string{"model qwen (http://a:8000/v1, model \"Qwen/Qwen2.5-7B\") answered HTTP 404 (not_found) on trial direct question q7: model 'Qwen/Qwen2.5-7B' not found",
				"set models.qwen.model to a name the server serves (GET http://a:8000/v1/models lists them)", "rerun the same command to resume"}},
		{"401 on a replica", &llm.StatusError{StatusCode: 401, Message: "Incorrect API key provided: sk-secret-key-123", BaseURL: "http://b:8000/v1", Model: "Qwen/Qwen2.5-7B"},
			[]string{"model qwen (http://b:8000/v1", "HTTP 401 (auth)", "Incorrect API key provided: [REDACTED]", "check that models.qwen.api_key_env names the environment variable"}},
		{"403 of an unknown endpoint", &llm.StatusError{StatusCode: 403, Message: "forbidden", BaseURL: "http://c/v1", Model: "x"},
			[]string{"the model (http://c/v1, model \"x\") answered HTTP 403 (auth)", "check that the api_key_env of the model served at http://c/v1 names"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rejected(tr, "q7", tt.err, []string{"sk-secret-key-123"})
			if !errors.Is(err, ErrRejected) {
				t.Errorf("errors.Is(%v, ErrRejected) = false; want true", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error shows the key:\n%s", err)
			}
		})
	}
}

// birdTree writes a BIRD mini-dev layout under a new folder: the question
// file in mini_dev/ over databases db0..db3 (question i on db i%4, n
// questions) and the databases named in present under dev_databases/.
func birdTree(t *testing.T, n int, present ...string) string {
	t.Helper()
	root := t.TempDir()
	var qs []string
	for i := range n {
		qs = append(qs, fmt.Sprintf(`{"question_id": %d, "db_id": "db%d", "question": "q%d?", "SQL": "SELECT 1", "difficulty": "simple"}`, i, i%4, i))
	}
	if err := os.MkdirAll(filepath.Join(root, "mini_dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mini_dev", "mini_dev_sqlite.json"), []byte("["+strings.Join(qs, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range present {
		d := filepath.Join(root, "dev_databases", db)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		// An empty file is an empty SQLite database.
		if err := os.WriteFile(filepath.Join(d, db+".sqlite"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCheckDatabases: a data folder where the databases of more than half
// of the questions are missing is refused, naming the folder, the counts
// and, when a folder above holds the databases, that folder.
func TestCheckDatabases(t *testing.T) {
	all := birdTree(t, 8, "db0", "db1", "db2", "db3")
	half := birdTree(t, 8, "db0", "db1")
	one := birdTree(t, 8, "db0")
	open := func(dir string) (*datasets.Benchmark, error) {
		return datasets.Open("bird-minidev", dir, datasets.LoadOptions{})
	}
	tests := []struct {
		name string
		data string
		// missing is -1 when the check passes.
		missing    int
		fix        string
		fixMissing int
		text       []string
	}{
		{"every database there", all, -1, "", 0, nil},
		{"half missing: scored", half, -1, "", 0, nil},
		{"the mini_dev folder instead of the root", filepath.Join(all, "mini_dev"), 8, all, 0, []string{
			"benchmark bird-minidev: the databases of 8 of 8 questions are missing in the data folder " + filepath.Join(all, "mini_dev") + " (4 of 4 databases missing: db0, db1, db2, db3); they would score missing_db and EX would cover no question, so the benchmark is not scored",
			"likely fix: pass --data " + all + " (that folder holds the databases of all 8 questions)",
			"pass --allow-missing-db"}},
		{"the mini_dev folder, root partial", filepath.Join(half, "mini_dev"), 8, half, 4, []string{
			"likely fix: pass --data " + half + " (that folder holds the databases of 4 of the 8 questions)"}},
		{"most missing, no better folder", one, 6, "", 0, []string{
			"the databases of 6 of 8 questions are missing in the data folder " + one + " (3 of 4 databases missing: db1, db2, db3); they would score missing_db and EX would cover only the other 2 questions",
			"next: pass --data DIR, with DIR the benchmark's root folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := open(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Engine.Close()
			err = CheckDatabases(b, "bird-minidev", open, "pass --data DIR")
			if tt.missing < 0 {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			var me *MissingDataError
			if !errors.As(err, &me) || !errors.Is(err, ErrMissingData) {
				t.Fatalf("got %v; want a *MissingDataError", err)
			}
			if me.Missing != tt.missing || me.Questions != 8 || me.Fix != tt.fix || me.FixMissing != tt.fixMissing {
				t.Errorf("got missing %d of %d, fix %q (%d still missing); want %d of 8, fix %q (%d)", me.Missing, me.Questions, me.Fix, me.FixMissing, tt.missing, tt.fix, tt.fixMissing)
			}
			for _, w := range tt.text {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%s", w, err)
				}
			}
		})
	}
}

// TestParseFailuresSummary: the parse-failure counters of the stored
// results are added up per trial and counter, with the items they occur
// in, and printed one line per trial in plan order; other counters and
// zero counts are left out.
func TestParseFailuresSummary(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutTrials([]*Trial{{ID: "t2", Label: "iesr", Order: 1}, {ID: "t1", Label: "alphasql", Order: 0}, {ID: "t3", Label: "direct", Order: 2}}); err != nil {
		t.Fatal(err)
	}
	res := func(c map[string]float64) *runners.Result { return &runners.Result{Trace: runners.Trace{Counters: c}} }
	items := []*Item{
		{TrialID: "t1", QuestionID: "q1", Status: StatusDone, Attempts: 1, Result: res(map[string]float64{"parse_failed.reason.A2": 3, "parse_failed.reason.keywords": 1, "rollouts": 8})},
		{TrialID: "t1", QuestionID: "q2", Status: StatusDone, Attempts: 1, Result: res(map[string]float64{"parse_failed.reason.A2": 2, "parse_failed.reason.A3": 0})},
		{TrialID: "t1", QuestionID: "q3", Status: StatusDone, Attempts: 1, Result: res(nil)},
		{TrialID: "t2", QuestionID: "q1", Status: StatusDone, Attempts: 1, Result: res(map[string]float64{"parse_failed.understand.understand": 1})},
		{TrialID: "t3", QuestionID: "q1", Status: StatusDone, Attempts: 1, Result: res(map[string]float64{"turns": 1})},
		{TrialID: "t3", QuestionID: "q2", Status: StatusError, Attempts: 1},
	}
	for _, it := range items {
		if err := st.Commit(it); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	got, err := ParseFailures(dir)
	if err != nil {
		t.Fatal(err)
	}
	// alphasql: A2 3+2 in q1 and q2, keywords 1 in q1; A3's 0 left out.
	want := []ParseFailure{
		{Trial: "alphasql", Counter: "reason.A2", Count: 5, Items: 2},
		{Trial: "alphasql", Counter: "reason.keywords", Count: 1, Items: 1},
		{Trial: "iesr", Counter: "understand.understand", Count: 1, Items: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseFailures = %+v; want %+v", got, want)
	}
	var buf bytes.Buffer
	writeParseFailures(&buf, &RunData{Dir: dir})
	wantText := "structured answers that did not parse, by trial (role.action: answers, in how many items; the method went on without them):\n" +
		"  alphasql: reason.A2 5 (in 2 items), reason.keywords 1 (in 1 item)\n" +
		"  iesr: understand.understand 1 (in 1 item)\n"
	if buf.String() != wantText {
		t.Errorf("summary:\n%s\nwant:\n%s", buf.String(), wantText)
	}
}
