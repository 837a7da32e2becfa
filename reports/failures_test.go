package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestParseFailureTable writes a run whose alphasql and iesr trials have
// parse-failure counters on some questions and a direct trial without
// any, and checks the report's parse-failures table: one row per system,
// role and action, with the answers added up and the questions counted
// over the system's attempted questions.
func TestParseFailureTable(t *testing.T) {
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]spec.ModelSpec{"simA": {Backend: "sim"}}
	trials := []*spec.Trial{
		{ID: "t0", Label: "alphasql", Runner: "alphasql", Roles: map[string]string{"reason": "simA"}, Models: models, Benchmark: spec.BenchmarkSpec{Name: "mini"}, Order: 0},
		{ID: "t1", Label: "iesr", Runner: "iesr", Roles: map[string]string{"reason": "simA"}, Models: models, Benchmark: spec.BenchmarkSpec{Name: "mini"}, Order: 1, Entry: 1},
		{ID: "t2", Label: "direct", Runner: "direct", Roles: map[string]string{"reason": "simA"}, Models: models, Benchmark: spec.BenchmarkSpec{Name: "mini"}, Order: 2, Entry: 2},
	}
	if err := st.PutTrials(trials); err != nil {
		t.Fatal(err)
	}
	// Counters by trial, then question (q00..q03).
	counters := map[string][]map[string]float64{
		"t0": {{"parse_failed.reason.A2": 3, "parse_failed.reason.keywords": 1, "rollouts": 8}, {"parse_failed.reason.A2": 1}, nil, {"parse_failed.reason.A3": 0}},
		"t1": {{"parse_failed.understand.understand": 1}, nil, nil, nil},
		"t2": {nil, nil, nil, nil},
	}
	labels := fixtureLabels()
	for _, tr := range trials {
		for q, c := range counters[tr.ID] {
			id := fmt.Sprintf("q%02d", q)
			it := &runstore.Item{TrialID: tr.ID, QuestionID: id, Index: q, Status: runstore.StatusDone, Attempts: 1, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
				Verdict: &runstore.Verdict{Index: q, QuestionID: id, DBID: "db", Difficulty: labels[id].Difficulty, Status: "correct", Correct: true},
				Result:  &runners.Result{SQL: "SELECT 1", Trace: runners.Trace{Counters: c}}}
			if err := st.Commit(it); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*runstore.RunData{run}, fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	tb := tableByID(t, r, "parse-failures")
	var got []string
	for _, row := range tb.Rows {
		var cells []string
		for _, c := range row {
			cells = append(cells, c.Text)
		}
		got = append(got, strings.Join(cells, " | "))
	}
	// alphasql A2: 3 + 1 answers on q00 and q01, 2 of 4 questions; A3's 0
	// is no row; direct has none.
	want := []string{
		"alphasql | reason | A2 | 4 | 2 | 50.0",
		"alphasql | reason | keywords | 1 | 1 | 25.0",
		"iesr | understand | understand | 1 | 1 | 25.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var b bytes.Buffer
	if err := tb.WriteTerminal(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Structured answers that did not parse, by system, role and action", "(simulated model)", "questions (%)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, b.String())
		}
	}
}
