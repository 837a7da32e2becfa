package runstore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
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
	if err := st.PutTrials([]*spec.Trial{{ID: "t2", Label: "iesr", Order: 1}, {ID: "t1", Label: "alphasql", Order: 0}, {ID: "t3", Label: "direct", Order: 2}}); err != nil {
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
