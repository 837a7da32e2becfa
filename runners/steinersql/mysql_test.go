package steinersql

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/runners"
)

// logicCatDB opens LogicCat database id through this package's own
// read-only account (internal/mysqltest); it skips without a server.
func logicCatDB(t *testing.T, id string) datasets.Database {
	return mysqltest.LogicCatDB(t, "t2s_ro_steinersql", id)
}

// TestLogicCatMySQL runs the runner on LogicCat's bike database (MariaDB):
// the statistics queries run in the MySQL dialect, the FK edges of
// BicycleRider -> Bicycle come out with measured statistics, a misspelt
// terminal is corrected, validation reads tables lexically, a query that
// joins a table outside the scaffold is caught at level 2 (l2_direction:
// query_in_scaffold) and re-planned
// with that table as a terminal, and the same query then passes.
func TestLogicCatMySQL(t *testing.T) {
	db := logicCatDB(t, "bike")
	client := scripted(
		`{"operations":[{"function":"AVG","target":"BicycleRider.RiderWeight"}],"quantities":[],"aggregations":["per manufacturer"],"temporal":[],"terminal_tables":["Bicycle","BicycleRidr"]}`,
		"```sql\nSELECT b.Manufacturer, AVG(r.RiderWeight) FROM Bicycle b JOIN BicycleRider r ON r.BicycleID = b.BicycleID JOIN BicyclePerformance p ON p.BicycleID = b.BicycleID GROUP BY b.Manufacturer\n```",
		"```sql\nSELECT b.Manufacturer, AVG(r.RiderWeight) FROM Bicycle b JOIN BicycleRider r ON r.BicycleID = b.BicycleID JOIN BicyclePerformance p ON p.BicycleID = b.BicycleID GROUP BY b.Manufacturer\n```",
		"```sql\nSELECT 1\n```",
	)
	r, err := New(runners.Params{"l2_direction": L2QueryInScaffold, "replan_feedback": FeedbackViolations})
	if err != nil {
		t.Fatal(err)
	}
	ex := datasets.Example{ID: "q", DBID: "bike", Question: "What is the average rider weight per bicycle manufacturer?"}
	res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := res.Trace.Data["scaffold"].(*Scaffold)
	if !ok {
		t.Fatalf("no scaffold in the trace: %v", res.Trace.Data)
	}
	// BicycleRidr is corrected; the stray table the first query joined
	// becomes a terminal of the re-plan (UpdateTerminals).
	if strings.Join(sc.Terminals, ",") != "Bicycle,BicyclePerformance,BicycleRider" {
		t.Errorf("terminals %v; want Bicycle, BicyclePerformance, BicycleRider", sc.Terminals)
	}
	found := false
	for _, e := range sc.Edges {
		if e.A == "Bicycle" && e.B == "BicycleRider" {
			found = true
			if !e.FK || e.Stats.Err != "" || e.Stats.DistinctA == 0 || e.Stats.Matching == 0 {
				t.Errorf("edge %+v; want an FK edge with measured statistics", e)
			}
		}
	}
	if !found {
		t.Errorf("scaffold edges %+v; want Bicycle -- BicycleRider", sc.Edges)
	}
	if len(client.Requests()) != 3 || res.Trace.Counters["replans"] != 1 || res.Trace.Counters["validation.pass"] != 1 {
		t.Errorf("requests %d, counters %v; want 3 requests, one re-plan, a pass", len(client.Requests()), res.Trace.Counters)
	}
	if !strings.Contains(client.Requests()[2].Messages[1].Content, "BicyclePerformance") {
		t.Errorf("re-plan feedback does not name the stray table:\n%s", client.Requests()[2].Messages[1].Content)
	}
	for _, s := range res.Trace.Steps {
		if s.Action == "validate" {
			if rs, _ := s.Info["read"].(ReadSet); rs.Method != "lexical" {
				t.Errorf("read set method %q; want lexical on MySQL", rs.Method)
			}
		}
	}
	rs, err := db.Execute(context.Background(), res.SQL)
	if err != nil || len(rs.Rows) == 0 {
		t.Errorf("final SQL %q: %v rows, %v; want rows", res.SQL, rs, err)
	}
}

// TestLogicCatMySQLGraphs builds the schema graph of every LogicCat
// database on MySQL: every statistics query runs (no Stats.Err), every
// cost part lies in [0, 1], and every declared foreign key is an edge.
func TestLogicCatMySQLGraphs(t *testing.T) {
	logicCatDB(t, "bike")
	mysqlImports := mysqltest.Imported()
	if len(mysqlImports) < 40 {
		t.Fatalf("got %d imported databases; want the 45 LogicCat dumps", len(mysqlImports))
	}
	ctx := context.Background()
	edges := 0
	for _, imp := range mysqlImports {
		db := logicCatDB(t, imp.Schema)
		s, err := db.Schema(ctx)
		if err != nil {
			t.Fatalf("%s: %v", imp.Schema, err)
		}
		g, err := BuildGraph(ctx, s, NewStatsCache("").Func(db, DefaultStatSample), GraphOptions{Weights: Weights{DefaultAlpha, DefaultBeta, DefaultGamma}, Tau: DefaultTau})
		if err != nil {
			t.Fatalf("%s: %v", imp.Schema, err)
		}
		for _, e := range g.Edges {
			edges++
			if e.Stats.Err != "" {
				t.Errorf("%s: %s: statistics failed: %s", imp.Schema, e.On(), e.Stats.Err)
			}
			for _, x := range []float64{e.Connect, e.Sem, e.Stat} {
				if x < 0 || x > 1 {
					t.Errorf("%s: %s: cost part %v outside [0, 1]", imp.Schema, e.On(), x)
				}
			}
		}
		for _, fk := range s.ForeignKeys {
			u, ok1 := g.ID(fk.FromTable)
			v, ok2 := g.ID(fk.ToTable)
			if _, ok := g.Edge(u, v); ok1 && ok2 && u != v && !ok {
				t.Errorf("%s: foreign key %s.%s -> %s has no edge", imp.Schema, fk.FromTable, fk.FromColumn, fk.ToTable)
			}
		}
	}
	t.Logf("%d databases, %d edges", len(mysqlImports), edges)
}
