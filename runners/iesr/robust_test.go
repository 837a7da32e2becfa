package iesr

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
)

const robustFixtureSQL = `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INT);
INSERT INTO singer VALUES (1,'Joe Sharp','Netherlands',52),(2,'Timbaland','United States',32),
 (3,'Justin Brown','France',29),(4,'Rose White','France',41);
`

func robustDB(t *testing.T) datasets.Database {
	t.Helper()
	return runkit.DB(t, "concert", robustFixtureSQL)
}

const franceSQL = "SELECT count(*) FROM singer WHERE country = 'France'"

// garbageAnswers are model mistakes a real server returns.
var garbageAnswers = map[string]string{
	"empty":        "",
	"refusal":      "I'm sorry, but I can't help with that request.",
	"prose":        "Sure! You should look at the singer table and count the rows.",
	"broken json":  "```json\n{\"intent\": \"count\", \"tables\": {\"singer\": [\n```",
	"wrong shape":  "```json\n{\"intent\": 3, \"relations\": \"x\", \"tables\": \"singer\", \"columns\": 3, \"entities\": {\"a\": 1}}\n```",
	"ghost schema": "```json\n{\"tables\": {\"ghost\": [\"nothing\"]}, \"columns\": [{\"column\": \"ghost.x\"}]}\n```",
	"bad sql":      "```sql\nSELEC name FROM nowhere WHERE\n```",
	"no choices":   testkit.NoChoices,
}

// faulty is a sensible model except for the responders in bad ("*": all),
// which get answer (testkit.NoChoices: no choices); fail names a responder whose
// calls fail as infrastructure errors.
func faulty(bad map[string]bool, answer, fail string) *testkit.Model {
	return &testkit.Model{Reply: testkit.Sabotage(func(r llm.Request, _ int) string { return sensibleAnswer(r.Responder) }, bad, answer, fail)}
}

// sensibleAnswer is a sensible model's answer to responder for the
// question of robustTask.
func sensibleAnswer(responder string) string {
	switch responder {
	case RespUnderstand:
		return "```json\n{\"intent\": \"count singers from France\", \"entities\": [\"France\"], \"relations\": [], \"numbers\": [], \"units\": []}\n```"
	case RespVerify:
		return "```json\n{\"intent\": \"count singers from France\", \"entities\": [\"France\"], \"relations\": [], \"numbers\": [], \"units\": [], \"tables\": [\"singer\"], \"field_patterns\": [\"singer.country\"], \"operators\": [\"COUNT\", \"=\"]}\n```"
	case RespSchema:
		return "```json\n{\"tables\": {\"singer\": [\"country\"]}}\n```"
	case RespColumns:
		return "```json\n{\"columns\": [{\"column\": \"singer.country\", \"meaning\": \"the country\"}]}\n```"
	case RespEntities:
		return "```json\n{\"entities\": [{\"mention\": \"France\", \"column\": \"singer.country\", \"value\": \"France\"}]}\n```"
	case RespEquation:
		return "No computation is needed: count the rows."
	}
	return "```sql\n" + franceSQL + "\n```"
}

func robustTask(c llm.Client, db datasets.Database) runners.Task {
	return runners.Task{Example: datasets.Example{ID: "q1", DBID: "concert", Question: "How many singers are from France?"}, DB: db, LLM: c, Seed: 1}
}

// TestGarbageAnswers feeds every kind of garbage to every model step (and
// to all at once): no error, no panic, a note when there is no SQL, and
// the right SQL when only one step misbehaves.
func TestGarbageAnswers(t *testing.T) {
	db := robustDB(t)
	ctx := context.Background()
	responders := []string{RespUnderstand, RespVerify, RespEquation, RespSchema, RespColumns, RespEntities, RespSQL, RespRevise, RespDiscriminator, "*"}
	r, err := New(runners.Params{"n_rollout": 8})
	if err != nil {
		t.Fatal(err)
	}
	for kind, answer := range garbageAnswers {
		for _, resp := range responders {
			t.Run(kind+"/"+resp, func(t *testing.T) {
				res, err := r.Run(ctx, robustTask(faulty(map[string]bool{resp: true}, answer, ""), db))
				if err != nil {
					t.Fatalf("Run: %v; want a model mistake to be data, not an error", err)
				}
				if res.SQL == "" && res.Note == "" {
					t.Error("no SQL and no note saying why")
				}
				if resp == "*" || resp == RespSQL && answer == testkit.NoChoices {
					if res.SQL == franceSQL {
						t.Errorf("SQL = %q from a model that never wrote it", res.SQL)
					}
					return
				}
				rs, err := db.Execute(ctx, res.SQL)
				if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(2) {
					t.Errorf("SQL = %q (err %v); want a query giving 2 when only %s misbehaves", res.SQL, err, resp)
				}
			})
		}
	}
}

// TestInfrastructureErrors: a failing model call stops the run with an
// error naming the step.
func TestInfrastructureErrors(t *testing.T) {
	db := robustDB(t)
	r, err := New(runners.Params{"n_rollout": 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, resp := range []string{RespUnderstand, RespEquation, RespSchema, RespColumns, RespEntities, RespSQL, RespDiscriminator} {
		t.Run(resp, func(t *testing.T) {
			_, err := r.Run(context.Background(), robustTask(faulty(nil, "", resp), db))
			if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), resp) {
				t.Errorf("Run error = %v; want the infrastructure error naming %s", err, resp)
			}
		})
	}
}
