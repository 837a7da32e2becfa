package steinersql

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
)

func cols(names ...string) []datasets.Column {
	out := make([]datasets.Column, len(names))
	for i, n := range names {
		out[i] = datasets.Column{Name: n, Type: "TEXT"}
	}
	return out
}

// TestDependencyOrderPaperExamples runs the dependency analysis on the two
// worked examples of the paper's Appendix D, with the dependencies of
// their part 1b and the attributes of their part 1c as schema columns:
//
//   - Table 8 (Spider2.0-Lite, ga_sessions): "The final average metric
//     requires pageviews, and fullVisitorId. The classification requires
//     transactions and productRevenue. The grouping requires the date (to
//     extract the month) and the classification result. The filtering
//     requires the date." The paper's terminals (1c) are {ga_sessions,
//     totals, hits}; the grouping must come after the classification.
//   - Table 6 (LogicCat, collectors): "The calculation requires
//     installation_altitude and last_temperature. The analysis requires
//     the status, last_temperature, and the calculated pressure." Listed
//     here analysis first, it must be ordered after the calculation;
//     terminals {collectors, readings}.
func TestDependencyOrderPaperExamples(t *testing.T) {
	ga := &datasets.Schema{Tables: []datasets.Table{
		{Name: "ga_sessions", Columns: cols("visitId", "date", "fullVisitorId")},
		{Name: "totals", Columns: cols("visitId", "transactions", "pageviews")},
		{Name: "hits", Columns: cols("visitId", "productRevenue")},
	}}
	coll := &datasets.Schema{Tables: []datasets.Table{
		{Name: "collectors", Columns: cols("collector_id", "status", "installation_altitude_m")},
		{Name: "readings", Columns: cols("collector_id", "timestamp", "temperature_c")},
	}}
	tests := []struct {
		name   string
		s      *datasets.Schema
		deps   Dependencies
		order  []string
		tables []string
		joins  []string
	}{
		{"Table 8", ga, Dependencies{
			{Entity: "final average metric", Requires: []string{"pageviews", "fullVisitorId"}},
			{Entity: "classification", Requires: []string{"transactions", "productRevenue"}},
			{Entity: "grouping", Requires: []string{"ga_sessions.date", "the classification result"}},
			{Entity: "filtering", Requires: []string{"date"}},
		}, []string{"final average metric", "classification", "grouping", "filtering"},
			[]string{"ga_sessions", "hits", "totals"},
			[]string{"ga_sessions -- hits", "ga_sessions -- totals", "hits -- totals"}},
		{"Table 6, listed analysis first", coll, Dependencies{
			{Entity: "shutdown analysis", Requires: []string{"collectors.status", "readings.temperature_c", "the pressure calculation"}},
			{Entity: "pressure calculation", Requires: []string{"collectors.installation_altitude_m", "readings.temperature_c"}},
		}, []string{"pressure calculation", "shutdown analysis"},
			[]string{"collectors", "readings"},
			[]string{"collectors -- readings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := AnalyzeDependencies(tt.s, &Decomposition{Dependencies: tt.deps}, DefaultCorrection)
			if !slices.Equal(g.Order, tt.order) {
				t.Errorf("order: got %v; want %v", g.Order, tt.order)
			}
			if !slices.Equal(g.Tables, tt.tables) {
				t.Errorf("tables: got %v; want %v (the paper's T_req)", g.Tables, tt.tables)
			}
			if !slices.Equal(g.Joins, tt.joins) {
				t.Errorf("joins: got %v; want %v", g.Joins, tt.joins)
			}
			if len(g.Unresolved) > 0 || len(g.Cycle) > 0 {
				t.Errorf("unresolved %v, cycle %v; want none", g.Unresolved, g.Cycle)
			}
		})
	}
}

// TestDependencyGraphEdges: operations and quantities become entities with
// their attributes (a constraint edge for a quantity); an ambiguous bare
// column and an unknown name are unresolved; a cycle keeps the given order
// and is reported.
func TestDependencyGraphEdges(t *testing.T) {
	s := &datasets.Schema{Tables: []datasets.Table{
		{Name: "student", Columns: cols("student_id", "name", "enrol_year")},
		{Name: "enrollment", Columns: cols("student_id", "grade")},
	}}
	d := &Decomposition{
		Operations: []Operation{{Function: "avg", Target: "enrolment.grade"}},
		Quantities: []Quantity{{Value: "2021", Operator: ">=", Attribute: "student.enrol_year"}},
		Dependencies: Dependencies{
			{Entity: "a", Requires: []string{"b", "student_id", "nickname"}},
			{Entity: "b", Requires: []string{"a"}},
		},
	}
	g := AnalyzeDependencies(s, d, DefaultCorrection)
	want := []DepEdge{
		{From: "b", To: "a", Kind: "entity"},
		{From: "a", To: "b", Kind: "entity"},
		{From: "enrollment.grade", To: "AVG(enrolment.grade)", Kind: "attribute"},
		{From: "student.enrol_year", To: "student.enrol_year >= 2021", Kind: "constraint"},
	}
	if !slices.Equal(g.Edges, want) {
		t.Errorf("edges: got %+v; want %+v", g.Edges, want)
	}
	if !slices.Equal(g.Unresolved, []string{"student_id", "nickname"}) {
		t.Errorf("unresolved: got %v; want the ambiguous student_id and the unknown nickname", g.Unresolved)
	}
	if !slices.Equal(g.Cycle, []string{"a", "b"}) || !slices.Equal(g.Order, []string{"AVG(enrolment.grade)", "student.enrol_year >= 2021", "a", "b"}) {
		t.Errorf("cycle %v order %v; want a, b after the acyclic entities", g.Cycle, g.Order)
	}
	if !slices.Equal(g.Tables, []string{"enrollment", "student"}) {
		t.Errorf("tables: got %v", g.Tables)
	}
}

// TestParseDependencies: the dependency list as real models write it:
// prose around a fence, a draft object in an unclosed-then-closed <think>
// block followed by the final one, key drift ("Name", "depends_on"), a
// single string where a list is asked, the object-map form, and a
// truncated answer (an error: the runner falls back to lexical linking).
func TestParseDependencies(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want Dependencies
		err  bool
	}{
		{"prose and fence", "Here is the analysis.\n```json\n{\"terminal_tables\":[\"t\"],\"dependencies\":[{\"entity\":\"avg\",\"requires\":[\"t.a\",\"filter\"]},{\"entity\":\"filter\",\"requires\":[\"t.b\"]}]}\n```\nThe average needs the filter first.",
			Dependencies{{Entity: "avg", Requires: []string{"t.a", "filter"}}, {Entity: "filter", Requires: []string{"t.b"}}}, false},
		{"think draft then answer", "<think>Draft: {\"dependencies\":[{\"entity\":\"x\",\"requires\":[]}]}. Better name it avg.</think>\n{\"dependencies\":[{\"entity\":\"avg\",\"requires\":[\"t.a\"]}],\"terminal_tables\":[\"t\"]}",
			Dependencies{{Entity: "avg", Requires: []string{"t.a"}}}, false},
		{"key drift and a single string", `{"Dependencies":[{"Name":"avg","depends_on":"t.a"},{"entity":"f","Inputs":["t.b"],"requires":["t.c"]}],"terminal_tables":"t"}`,
			Dependencies{{Entity: "avg", Requires: []string{"t.a"}}, {Entity: "f", Requires: []string{"t.b", "t.c"}}}, false},
		{"object map", `{"dependencies":{"classification":["totals.transactions","hits.productRevenue"],"grouping":"classification"}}`,
			Dependencies{{Entity: "classification", Requires: []string{"totals.transactions", "hits.productRevenue"}}, {Entity: "grouping", Requires: []string{"classification"}}}, false},
		{"blank entity dropped", `{"dependencies":[{"entity":" ","requires":["t.a"]},{"entity":"k","requires":["", "t.b"]}]}`,
			Dependencies{{Entity: "k", Requires: []string{"t.b"}}}, false},
		{"bare names in the list", `{"dependencies":["classification",{"entity":"grouping","requires":"classification"}],"terminal_tables":["t"]}`,
			Dependencies{{Entity: "classification"}, {Entity: "grouping", Requires: []string{"classification"}}}, false},
		{"prose where the list belongs", `{"dependencies":"the average needs the filter","terminal_tables":["t"]}`, Dependencies{}, false},
		{"truncated", "```json\n{\"operations\":[],\"dependencies\":[{\"entity\":\"avg\",\"requires\":[\"t.", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDecomposition(tt.out)
			if tt.err {
				if err == nil {
					t.Errorf("got %+v; want an error", d)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Dependencies) != len(tt.want) {
				t.Fatalf("got %+v; want %+v", d.Dependencies, tt.want)
			}
			for i := range tt.want {
				if d.Dependencies[i].Entity != tt.want[i].Entity || !slices.Equal(d.Dependencies[i].Requires, tt.want[i].Requires) {
					t.Errorf("entry %d: got %+v; want %+v", i, d.Dependencies[i], tt.want[i])
				}
			}
		})
	}
}

// TestSwitchesChangeBehaviour: dependency_analysis changes the Stage 1
// request (schema, instruction), T_req (a table only an attribute names)
// and the plan's order; attribute_check changes the calls made (a query
// whose SELECT attribute the question does not name is regenerated) and
// the counters.
func TestSwitchesChangeBehaviour(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	ex := datasets.Example{ID: "q", DBID: "university", Question: "What are the names of students enrolled in 2021?"}
	// The final entity first, its filter after it; the filter reads an
	// attribute of department, which terminal_tables does not list.
	decomp := `{"operations":[],"quantities":[{"value":"2021","operator":"=","attribute":"student.enrol_year"}],"aggregations":[],"temporal":[],` +
		`"dependencies":[{"entity":"student names","requires":["student.name","enrolment filter"]},{"entity":"enrolment filter","requires":["student.enrol_year","department.building"]}],"terminal_tables":["student"]}`
	wrong := "```sql\nSELECT birth_date FROM student WHERE enrol_year = 2021\n```"
	right := "```sql\nSELECT name FROM student WHERE enrol_year = 2021\n```"
	run := func(p runners.Params, replies ...string) (*testkit.Model, runners.Result) {
		t.Helper()
		client := scripted(replies...)
		r, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		return client, res
	}

	// department is now a terminal the query leaves out: level 2 asks
	// again (up to max_iterations).
	c, res := run(runners.Params{"attribute_check": false}, decomp, right, right, right)
	if c.Requests()[0].SchemaName != SchemaDecompositionDeps || !strings.Contains(c.Requests()[0].Messages[1].Content, "computational dependencies") {
		t.Errorf("dependency_analysis on: schema %q; want %q and the instruction", c.Requests()[0].SchemaName, SchemaDecompositionDeps)
	}
	plan := c.Requests()[1].Messages[0].Content
	i, j := strings.Index(plan, "Compute enrolment filter"), strings.Index(plan, "Compute student names")
	if i < 0 || j < 0 || i > j {
		t.Errorf("plan: want the filter computed before the names it feeds:\n%s", plan)
	}
	if res.Trace.Counters[CounterDepTerminals] != 1 || !strings.Contains(plan, "department") {
		t.Errorf("counters %v; want department added to T_req by its attribute", res.Trace.Counters)
	}

	c, res = run(runners.Params{"attribute_check": false, "dependency_analysis": false}, decomp, right)
	plan = c.Requests()[1].Messages[0].Content
	if c.Requests()[0].SchemaName != SchemaDecomposition || strings.Contains(c.Requests()[0].Messages[1].Content, "computational dependencies") ||
		strings.Contains(plan, "dependency order") || res.Trace.Counters[CounterDepTerminals] != 0 {
		t.Errorf("dependency_analysis off: schema %q, counters %v, plan:\n%s", c.Requests()[0].SchemaName, res.Trace.Counters, plan)
	}

	// attribute_check: on, the wrong attribute is caught and regenerated
	// (replan_feedback: violations shows the check in the retry prompt).
	dec2 := `{"operations":[],"quantities":[],"aggregations":[],"temporal":[],"dependencies":[],"terminal_tables":["student"]}`
	c, res = run(runners.Params{"replan_feedback": FeedbackViolations}, dec2, wrong, right)
	if len(c.Requests()) != 3 || res.SQL != "SELECT name FROM student WHERE enrol_year = 2021" ||
		res.Trace.Counters[CounterAttributes] != 1 || res.Trace.Counters["validation.l2"] != 1 || !strings.Contains(c.Requests()[2].Messages[1].Content, CheckAttributes) {
		t.Errorf("attribute_check on: %d requests, SQL %q, counters %v; want 3, the second query, the check counted", len(c.Requests()), res.SQL, res.Trace.Counters)
	}
	c, res = run(runners.Params{"attribute_check": false}, dec2, wrong, right)
	if _, has := res.Trace.Counters[CounterAttributes]; len(c.Requests()) != 2 || has || res.Trace.Counters["validation.pass"] != 1 {
		t.Errorf("attribute_check off: %d requests, counters %v; want 2 and no attribute counter", len(c.Requests()), res.Trace.Counters)
	}
}
