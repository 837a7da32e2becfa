package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

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
	writeFirstErrors(&buf, &RunData{Dir: dir})
	out := buf.String()
	for _, line := range []string{
		"first error of each class:",
		"  failed bad_request (2 items; first: trial a question q3): HTTP 400: This model's maximum context length is 8192 tokens",
		"    next: the server refused the request as invalid (often a prompt over the model's context length",
		"  failed weird (1 items; first: trial a question q5): something odd",
		"  pending server_error (1 items; first: trial a question q4): HTTP 503: overloaded, key [REDACTED]",
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
	writeFirstErrors(&buf, &RunData{Dir: t.TempDir()})
	if buf.Len() != 0 {
		t.Errorf("no store: got %q; want nothing", buf.String())
	}
}

// TestRejected checks the error of a run stopped by an endpoint's 401,
// 403 or 404: it is ErrRejected, names the spec's model (also when the
// endpoint is one of its replicas), keeps the server's message without
// the key, and says what to change.
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
			[]string{"model qwen (http://a:8000/v1, model \"Qwen/Qwen2.5-7B\") answered HTTP 404 on trial direct question q7: model 'Qwen/Qwen2.5-7B' not found",
				"set models.qwen.model to a name the server serves (GET http://a:8000/v1/models lists them)", "rerun the same command to resume"}},
		{"401 on a replica", &llm.StatusError{StatusCode: 401, Message: "Incorrect API key provided: sk-secret-key-123", BaseURL: "http://b:8000/v1", Model: "Qwen/Qwen2.5-7B"},
			[]string{"model qwen (http://b:8000/v1", "HTTP 401", "Incorrect API key provided: [REDACTED]", "check that models.qwen.api_key_env names the environment variable"}},
		{"403 of an unknown endpoint", &llm.StatusError{StatusCode: 403, Message: "forbidden", BaseURL: "http://c/v1", Model: "x"},
			[]string{"the model (http://c/v1, model \"x\") answered HTTP 403", "check that the api_key_env of the model served at http://c/v1 names"}},
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
