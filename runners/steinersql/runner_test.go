package steinersql

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// scripted answers request i with replies[i] and records the requests.
func scripted(replies ...string) *testkit.Model {
	return &testkit.Model{Reply: testkit.Replies(replies...), Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}
}

func TestParams(t *testing.T) {
	for _, tt := range []struct {
		p    runners.Params
		want string
	}{
		{runners.Params{"path_algorithm": "dijkstra"}, "params.path_algorithm"},
		{runners.Params{"validation": "strict"}, "params.validation"},
		{runners.Params{"alpha": 1.5}, "params.alpha"},
		{runners.Params{"max_iterations": 0}, "params.max_iterations"},
		{runners.Params{"navigaton": false}, "params.navigaton: unknown parameter"},
		{runners.Params{"edge_cost": "product"}, "params.edge_cost"},
		{runners.Params{"l2_direction": "both"}, "params.l2_direction"},
		{runners.Params{"replan_feedback": "sql"}, "params.replan_feedback"},
	} {
		if _, err := runners.New("steinersql", tt.p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v; want an error naming %s", tt.p, err, tt.want)
		}
	}
	r, err := New(runners.Params{})
	if err != nil || r.alg != AlgSteiner || r.validation != ValMultilevel || r.maxIter != 3 || r.weights != (Weights{0.4, 0.4, 0.2}) ||
		r.edgeCost != EdgeCostPaper || r.l2Direction != L2ScaffoldInQuery || r.replanFB != FeedbackScaffold {
		t.Errorf("defaults: got %v %+v", err, r)
	}
}

const decompStudentEnrollment = `{"operations":[{"function":"COUNT","target":"enrollment.course_id"}],"quantities":[],"aggregations":["per student"],"temporal":[],"terminal_tables":["student","enrolment"]}`

// TestReplanLoop: the first query reads a table outside the scaffold
// (level 2, stray table, under l2_direction: query_in_scaffold); the runner
// adds it to the terminals, re-plans and accepts the second query, whose
// prompt carries the violations (replan_feedback: violations). The trace
// records the reason, the re-plan and the per-question trigger counters.
func TestReplanLoop(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	client := scripted(
		"```json\n"+decompStudentEnrollment+"\n```",
		"```sql\nSELECT s.name, d.name, COUNT(e.course_id) FROM student s JOIN enrollment e ON e.student_id = s.student_id JOIN department d ON d.dept_id = s.major_dept GROUP BY s.student_id\n```",
		"```sql\nSELECT s.name, d.name, COUNT(e.course_id) FROM student s JOIN enrollment e ON e.student_id = s.student_id JOIN department d ON d.dept_id = s.major_dept GROUP BY s.student_id, d.name\n```",
	)
	ex := datasets.Example{ID: "q", DBID: "university", Question: "How many courses does each student take, with the student's department?"}
	r, _ := New(runners.Params{"l2_direction": L2QueryInScaffold, "replan_feedback": FeedbackViolations})
	res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	if len(client.Requests()) != 3 {
		t.Fatalf("requests: got %d; want 3 (decompose, generate, regenerate)", len(client.Requests()))
	}
	if q := client.Requests()[0]; q.Role != runners.RoleDecompose || q.Answer != llm.AnswerJSON || q.Responder != ResponderDecompose || len(q.Schema) == 0 {
		t.Errorf("stage 1 request: role %s answer %s responder %s", q.Role, q.Answer, q.Responder)
	}
	sys := client.Requests()[1].Messages[0].Content
	for _, part := range []string{"## 1. Role", "## 2. Critical requirements", "## 3. Relations", "## 4. Optimal query plan", "## 5. Guidelines", "Structured examples", "Compute COUNT(enrollment.course_id)", scaffoldLine + "enrollment, student"} {
		if !strings.Contains(sys, part) {
			t.Errorf("generation prompt lacks %q:\n%s", part, sys)
		}
	}
	if !strings.Contains(client.Requests()[2].Messages[1].Content, "stray-table") || !strings.Contains(client.Requests()[2].Messages[0].Content, scaffoldLine+"department, enrollment, student") {
		t.Errorf("re-planned prompt lacks the feedback or the new scaffold:\n%s\n%s", client.Requests()[2].Messages[0].Content, client.Requests()[2].Messages[1].Content)
	}
	if !strings.Contains(res.SQL, "GROUP BY s.student_id, d.name") {
		t.Errorf("final SQL %q; want the second query", res.SQL)
	}
	c := res.Trace.Counters
	if c["validation.l2"] != 1 || c["validation.l3"] != 1 || c["replans"] != 1 || c["validation.pass"] != 1 || c["terminals.corrected"] != 1 || c["validation.l2.corrected"] != 1 {
		t.Errorf("counters: got %v", c)
	}
	found := false
	for _, s := range res.Trace.Steps {
		if s.Action == "validate" && s.Info["pass"] == false {
			found = strings.Contains(strings.Join(s.Info["reasons"].([]string), " "), "department")
		}
	}
	if !found {
		t.Error("no validate step names the stray table department")
	}
	if res.Usage[runners.RoleReason].Calls != 2 || res.Usage[runners.RoleDecompose].Calls != 1 {
		t.Errorf("usage: got %+v", res.Usage)
	}
}

// TestAblationPrompts: without navigation the prompt has no scaffold and
// shows the whole schema; without the graph module it lists direct FKs;
// without structured examples they are gone; without validation there is
// one generation even for a failing query.
func TestAblationPrompts(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	ex := datasets.Example{ID: "q", DBID: "university", Question: "How many students are there?"}
	bad := "```sql\nSELECT nme FROM student\n```"
	run := func(p runners.Params, replies ...string) (*testkit.Model, runners.Result) {
		client := scripted(replies...)
		r, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
		if err != nil {
			t.Fatalf("%v: %v\n%+v", p, err, res.Trace.Steps)
		}
		return client, res
	}
	c, _ := run(runners.Params{"navigation": false, "validation": "none"}, `{"operations":[],"quantities":[],"aggregations":[],"temporal":[],"terminal_tables":["student"]}`, bad)
	sys, user := c.Requests()[1].Messages[0].Content, c.Requests()[1].Messages[1].Content
	if strings.Contains(sys, scaffoldLine) || strings.Contains(sys, "## 4.") || !strings.Contains(user, "CREATE TABLE `department`") {
		t.Errorf("w/o navigation prompt:\n%s\n%s", sys, user)
	}
	c, res := run(runners.Params{"decomposition": false, "graph_module": false, "structured_examples": false}, "```sql\nSELECT COUNT(*) FROM student\n```")
	sys = c.Requests()[0].Messages[0].Content
	if c.Requests()[0].Role != runners.RoleReason || strings.Contains(sys, "Structured examples") || !strings.Contains(sys, "Foreign keys among these tables") {
		t.Errorf("w/o decomposition/graph/examples prompt:\n%s", sys)
	}
	if res.Trace.Counters["validation.pass"] != 1 {
		t.Errorf("counters %v; want a pass", res.Trace.Counters)
	}
	c, res = run(runners.Params{"validation": "none"}, `{}`, bad)
	if len(c.Requests()) != 2 || res.SQL != "SELECT nme FROM student" {
		t.Errorf("w/o validation: %d requests, SQL %q; want 2 and the unvalidated query", len(c.Requests()), res.SQL)
	}
	// simple-feedback: the execution error goes back, no re-plan.
	c, res = run(runners.Params{"validation": "simple-feedback"}, `{}`, bad, "```sql\nSELECT name FROM student\n```")
	if len(c.Requests()) != 3 || !strings.Contains(c.Requests()[2].Messages[1].Content, "no such column") || res.Trace.Counters["validation.l1"] != 1 || res.Trace.Counters["replans"] != 0 {
		t.Errorf("simple-feedback: %d requests, counters %v", len(c.Requests()), res.Trace.Counters)
	}
}

// TestReplanFeedback: the first query fails level 3 (d.name is not
// grouped) and reads department outside the scaffold, so the runner
// re-plans with department as a terminal. What the retry sends the model,
// by replan_feedback:
//
//   - scaffold (Algorithm 2): the prompt built on the new scaffold alone;
//     the user message is the first one's (schema, question), with no
//     previous query and no violation list;
//   - violations: the same scaffold, plus the previous query and the
//     violations (ungrouped-column).
func TestReplanFeedback(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	first := "SELECT s.name, d.name, COUNT(e.course_id) FROM student s JOIN enrollment e ON e.student_id = s.student_id JOIN department d ON d.dept_id = s.major_dept GROUP BY s.student_id"
	second := "SELECT s.name, d.name, COUNT(e.course_id) FROM student s JOIN enrollment e ON e.student_id = s.student_id JOIN department d ON d.dept_id = s.major_dept GROUP BY s.student_id, d.name"
	ex := datasets.Example{ID: "q", DBID: "university", Question: "How many courses does each student take, with the student's department?"}
	for _, tt := range []struct {
		mode     string
		previous bool // the retry shows the previous query and violations
	}{
		{FeedbackScaffold, false},
		{FeedbackViolations, true},
		{"", false}, // the default is scaffold
	} {
		t.Run("replan_feedback="+tt.mode, func(t *testing.T) {
			client := scripted("```json\n"+decompStudentEnrollment+"\n```", "```sql\n"+first+"\n```", "```sql\n"+second+"\n```")
			p := runners.Params{}
			if tt.mode != "" {
				p["replan_feedback"] = tt.mode
			}
			r, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
			if err != nil {
				t.Fatal(err)
			}
			reqs := client.Requests()
			if len(reqs) != 3 || res.SQL != second || res.Trace.Counters["replans"] != 1 {
				t.Fatalf("got %d requests, SQL %q, counters %v; want 3, the second query, one re-plan", len(reqs), res.SQL, res.Trace.Counters)
			}
			sys, user := reqs[2].Messages[0].Content, reqs[2].Messages[1].Content
			if !strings.Contains(sys, scaffoldLine+"department, enrollment, student") {
				t.Errorf("retry system prompt lacks the new scaffold:\n%s", sys)
			}
			shows := strings.Contains(user, "Your previous query") || strings.Contains(user, first) || strings.Contains(user, "ungrouped-column")
			if shows != tt.previous {
				t.Errorf("retry user message shows the previous query/violations: got %v; want %v:\n%s", shows, tt.previous, user)
			}
			if tt.previous && !(strings.Contains(user, first) && strings.Contains(user, "ungrouped-column")) {
				t.Errorf("violations retry lacks the previous query or the violation:\n%s", user)
			}
			// Under scaffold the user message is the first generation's
			// but for the schema text, which follows the scaffold.
			if !tt.previous {
				want := reqs[1].Messages[1].Content
				if got := stripSchema(user); got != stripSchema(want) {
					t.Errorf("scaffold retry user message, schema aside:\n%s\nwant:\n%s", got, stripSchema(want))
				}
			}
		})
	}
}

// stripSchema drops the schema text of a generation user message (it
// changes with the scaffold), keeping what follows it.
func stripSchema(user string) string {
	if i := strings.Index(user, "\nQuestion: "); i >= 0 {
		return user[i:]
	}
	return user
}
