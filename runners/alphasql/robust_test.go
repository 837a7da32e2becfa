package alphasql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// garbageAnswers are model mistakes a real server returns: each must
// degrade a path, never panic and never fail the run.
var garbageAnswers = map[string]string{
	"empty":        "",
	"refusal":      "I'm sorry, but I can't help with that request.",
	"prose":        "Sure! You should look at the singer table and count the rows.",
	"broken json":  "```json\n{\"tables\": {\"singer\": [\"country\"\n```",
	"wrong shape":  "```json\n{\"tables\": \"singer\", \"values\": 3, \"keywords\": \"France\", \"functions\": {\"a\": 1}}\n```",
	"ghost schema": "```json\n{\"tables\": {\"ghost\": [\"nothing\"]}, \"values\": [{\"column\": \"ghost.x\", \"op\": \"=\", \"value\": null}]}\n```",
	"bad sql":      "```sql\nSELEC name FROM nowhere WHERE\n```",
	"empty fence":  "```sql\n\n```",
	"no choices":   testkit.NoChoices,
}

const franceSQL = "SELECT count(*) FROM singer WHERE country = 'France'"

// faulty answers like scripted with a sensible model, except that the
// responders in bad (all of them when bad holds "*") get answer; answer
// testkit.NoChoices returns no choices at all. fail, when set, names a
// responder whose calls fail as infrastructure errors (testkit.Sabotage).
func faulty(bad map[string]bool, answer, fail string) *testkit.Model {
	good := func(r llm.Request, i int) string { return scriptedAnswer(r.Responder, []string{franceSQL}, i) }
	return &testkit.Model{Reply: testkit.Sabotage(good, bad, answer, fail)}
}

// TestGarbageAnswers feeds every kind of garbage to every action (and to
// all at once): the run must end without error, say why in its trace
// when it has no answer, and still find the right SQL when only one
// action misbehaves (the others carry the search).
func TestGarbageAnswers(t *testing.T) {
	db := fixtureDB(t)
	ctx := context.Background()
	responders := []string{RespKeywords, RespRephrase, RespSchema, RespValues, RespFunctions, RespSQL, RespRevise, "*"}
	for kind, answer := range garbageAnswers {
		for _, resp := range responders {
			t.Run(kind+"/"+resp, func(t *testing.T) {
				f := faulty(map[string]bool{resp: true}, answer, "")
				r := newRunner(t, runners.Params{"n_rollout": 8})
				res, err := r.Run(ctx, task(f, db))
				if err != nil {
					t.Fatalf("Run: %v; want a model mistake to be data, not an error", err)
				}
				var sel *runners.Step
				for i := range res.Trace.Steps {
					if res.Trace.Steps[i].Action == "select" {
						sel = &res.Trace.Steps[i]
					}
				}
				if sel == nil {
					t.Fatal("trace has no select step")
				}
				if res.SQL == "" && res.Note == "" {
					t.Error("no SQL and no note saying why")
				}
				if resp == "*" || resp == RespSQL && answer == testkit.NoChoices {
					// Nothing generated SQL (SQL generation returning no
					// choices leaves no path to a terminal).
					if res.SQL == franceSQL {
						t.Errorf("SQL = %q from a model that only returns garbage", res.SQL)
					}
					return
				}
				rs, err := db.Execute(ctx, res.SQL)
				if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(2) {
					t.Errorf("SQL = %q (rows %v, err %v); want a query giving 2 when only %s misbehaves", res.SQL, rowsOf(rs), err, resp)
				}
			})
		}
	}
}

func rowsOf(rs *datasets.ResultSet) string {
	if rs == nil {
		return "<nil>"
	}
	return fmt.Sprint(rs.Rows)
}

// TestInfrastructureErrors: a failing model call (not a bad answer) stops
// the run with an error naming the responder.
func TestInfrastructureErrors(t *testing.T) {
	db := fixtureDB(t)
	for _, resp := range []string{RespKeywords, RespRephrase, RespSchema, RespValues, RespFunctions, RespSQL} {
		t.Run(resp, func(t *testing.T) {
			f := faulty(nil, "", resp)
			r := newRunner(t, runners.Params{"n_rollout": 8})
			_, err := r.Run(context.Background(), task(f, db))
			if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), resp) {
				t.Errorf("Run error = %v; want the infrastructure error naming %s", err, resp)
			}
		})
	}
}

// TestDeterministic: the same seed and the same answers give the same
// output twice (SQL, candidates, trace).
func TestDeterministic(t *testing.T) {
	db := fixtureDB(t)
	sqls := []string{franceSQL, "SELECT count(*) FROM singer", "SELECT name FROM singer WHERE 1 = 0", "SELECT bad FROM singer"}
	run := func() runners.Result {
		r := newRunner(t, runners.Params{"n_rollout": 12})
		res, err := r.Run(context.Background(), task(scripted(sqls...), db))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.SQL != b.SQL || a.Note != b.Note {
		t.Errorf("runs differ: %q (%s) vs %q (%s)", a.SQL, a.Note, b.SQL, b.Note)
	}
	if len(a.Candidates) != len(b.Candidates) {
		t.Fatalf("candidates: %d vs %d", len(a.Candidates), len(b.Candidates))
	}
	for i := range a.Candidates {
		if a.Candidates[i].SQL != b.Candidates[i].SQL || a.Candidates[i].Score != b.Candidates[i].Score {
			t.Errorf("candidate %d: %+v vs %+v", i, a.Candidates[i], b.Candidates[i])
		}
	}
	if len(a.Trace.Steps) != len(b.Trace.Steps) {
		t.Errorf("trace steps: %d vs %d", len(a.Trace.Steps), len(b.Trace.Steps))
	}
	for k, v := range a.Trace.Counters {
		if b.Trace.Counters[k] != v {
			t.Errorf("counter %s: %v vs %v", k, v, b.Trace.Counters[k])
		}
	}
}

// TestSchemaTextWithoutSelection: a path without a schema selection (none
// made, or one naming no known table, which runners.KnownSelection
// rejects) shows the full schema instead of an empty one.
func TestSchemaTextWithoutSelection(t *testing.T) {
	sch, err := fixtureDB(t).Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := (&question{schema: sch, fullSchema: "FULL"}).schemaText(pathState{})
	if s != "FULL" {
		t.Errorf("schema text without a selection = %q; want the full schema", s)
	}
}
