package runkit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// recordingTB is a testing.TB that keeps the messages of Errorf.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestParseFailed(t *testing.T) {
	counters := map[string]float64{"parse_failed.reason.A1": 2, "parse_failed.reason.A5": 3, "model_requests": 9}
	for _, tc := range []struct {
		name    string
		names   []string
		want    float64
		wantErr int // other parse-failure counters reported
	}{
		{"both named", []string{"parse_failed.reason.A1", "parse_failed.reason.A5"}, 5, 0},
		{"one named", []string{"parse_failed.reason.A5"}, 3, 1},
		{"absent name", []string{"parse_failed.reason.A5", "parse_failed.reason.A9"}, 3, 1},
		{"none named", nil, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			if got := runkit.ParseFailed(rec, counters, tc.names...); got != tc.want {
				t.Errorf("ParseFailed = %v; want %v", got, tc.want)
			}
			if len(rec.errs) != tc.wantErr {
				t.Errorf("reported %q; want %d errors (model_requests is no parse failure)", rec.errs, tc.wantErr)
			}
		})
	}
}

// TestDB opens a fixture database and a mini benchmark database.
func TestDB(t *testing.T) {
	ctx := context.Background()
	db := runkit.DB(t, "concert", "CREATE TABLE singer (name TEXT); INSERT INTO singer VALUES ('a'), ('b');")
	rs, err := db.Execute(ctx, "SELECT count(*) FROM singer")
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(2) || db.ID() != "concert" {
		t.Errorf("fixture: id %q, rows %v, %v; want concert with 2 singers", db.ID(), rs, err)
	}
	uni := runkit.MiniDB(t, "university")
	s, err := uni.Schema(ctx)
	if err != nil || len(s.Tables) == 0 {
		t.Errorf("mini university schema: %v, %v; want its tables", s, err)
	}
}

// TestGoldModel answers a mini question with its gold, in the styles the
// answer function gives, with the marker in the reasoning only.
func TestGoldModel(t *testing.T) {
	b := runkit.Mini(t)
	e := b.Examples[0]
	m := runkit.GoldModel(runkit.Golds(b), "MARK", func(responder, gold string, i int) (string, string) {
		return fmt.Sprintf("%s %d: %s", responder, i, gold), llm.FinishStop
	})
	prompt := "Schema ...\n" + runkit.QuestionLabel + e.Question + "\nAnswer in SQL."
	resp, err := m.Complete(context.Background(), llm.Request{Responder: "r", N: 2, Messages: []llm.Message{{Role: "user", Content: prompt}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 2 || resp.Choices[1] != "r 1: "+e.GoldSQL || strings.Contains(resp.Choices[0], "MARK") || !strings.Contains(resp.ReasoningOf(0), "MARK") {
		t.Errorf("got choices %q reasoning %q; want two gold answers, the marker in reasoning only", resp.Choices, resp.Reasoning)
	}
	if _, err := m.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Content: runkit.QuestionLabel + "unknown?"}}}); err == nil {
		t.Errorf("unknown question: got nil error; want one")
	}
}

// TestMalformedCounted runs the check over a fake runner that asks the
// target responder for three samples and counts each once.
func TestMalformedCounted(t *testing.T) {
	targets := []runkit.ParseFailTarget{{Responder: "a", Counters: []string{"parse_failed.reason.a"}}}
	var runs int
	model := func(_, answer string) *testkit.Model { return &testkit.Model{Reply: testkit.Text(answer)} }
	runkit.MalformedCounted(t, targets, model, func(t *testing.T, c llm.Client) runners.Result {
		runs++
		resp, err := c.Complete(context.Background(), llm.Request{Responder: "a", N: 3})
		if err != nil {
			t.Fatal(err)
		}
		return runners.Result{Trace: runners.Trace{Counters: map[string]float64{"parse_failed.reason.a": float64(len(resp.Choices))}}}
	})
	if runs != len(runkit.MalformedAnswers) {
		t.Errorf("%d runs; want one per malformed answer (%d)", runs, len(runkit.MalformedAnswers))
	}
}

// TestMiniQ0 checks MiniQ0 and its gold against the bundled mini
// benchmark, and the gold's answer against its database: 3, counted by
// hand from the student rows of testdata/mini/databases/university.sql.
func TestMiniQ0(t *testing.T) {
	b := runkit.Mini(t)
	e := b.Examples[0]
	if e.ID != runkit.MiniQ0.ID || e.DBID != runkit.MiniQ0.DBID || e.Question != runkit.MiniQ0.Question || e.GoldSQL != runkit.MiniQ0Gold {
		t.Errorf("mini question 0 = %+v; want %+v with gold %q", e, runkit.MiniQ0, runkit.MiniQ0Gold)
	}
	rs, err := runkit.MiniDB(t, "university").Execute(context.Background(), runkit.MiniQ0Gold)
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(3) {
		t.Errorf("gold result %v, %v; want 3", rs, err)
	}
}
