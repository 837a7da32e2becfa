package mctsql

import (
	"errors"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

var roles = Roles{Select: "SEL", Generate: "GEN", Revise: "REV", End: "END"}

// chain builds a tree whose nodes form one path below the root.
func chain(nodes ...*mcts.Node) *mcts.Tree {
	t := &mcts.Tree{Nodes: []*mcts.Node{{ID: 0, Parent: -1, Action: mcts.RootAction}}}
	for i, n := range nodes {
		n.ID, n.Parent = i+1, i
		t.Nodes = append(t.Nodes, n)
	}
	return t
}

func TestWalk(t *testing.T) {
	sel := map[string][]string{"singer": {"name"}}
	tree := chain(
		&mcts.Node{Action: "A1", Text: "rephrased"},
		&mcts.Node{Action: "SEL", Text: "selected", Info: map[string]any{"selection": sel}},
		&mcts.Node{Action: "GEN", Text: "gen", Info: map[string]any{"sql": "SELECT 1"}},
		&mcts.Node{Action: "REV", Text: "rev", Info: map[string]any{"sql": "SELECT 2"}},
		&mcts.Node{Action: "END", Text: "end", Info: map[string]any{"sql": "SELECT 3"}},
	)
	got := Walk(tree, tree.Nodes[5], roles)
	want := Path{
		Steps:     []Step{{"A1", "rephrased"}, {"SEL", "selected"}, {"GEN", "gen"}, {"REV", "rev"}},
		Selection: sel,
		SQL:       "SELECT 2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %+v, want %+v", got, want)
	}
	if b := got.Before("GEN"); !reflect.DeepEqual(b.Steps, want.Steps[:2]) || b.SQL != "SELECT 2" || b.Selection == nil {
		t.Errorf("Before(GEN) = %+v, want the two steps before generation, the path's SQL and selection", b)
	}
	if len(got.Steps) != 4 {
		t.Errorf("Before changed the path it was called on: %+v", got.Steps)
	}
	if b := got.Before("A9"); len(b.Steps) != 4 {
		t.Errorf("Before(absent action) = %+v, want every step", b)
	}
}

func TestSamplesAndReaders(t *testing.T) {
	resp := &llm.Response{
		Choices:       []string{"cut off", "```sql\nSELECT  a FROM t\n```", "no sql here"},
		FinishReasons: []string{llm.FinishLength, "stop", "stop"},
	}
	var side runners.Trace
	var found runners.Extractions
	ex := Samples(resp, &side, "GEN", func(out string, o *mcts.Output) {
		ReadSQL(&side, &found, o, "GEN", out)
	})
	if ex.Requests != 1 || len(ex.Outputs) != 2 {
		t.Fatalf("Samples: %d requests, %d outputs; want 1 and 2 (the cut sample dropped)", ex.Requests, len(ex.Outputs))
	}
	if o := ex.Outputs[0]; o.Info["sql"] != "SELECT  a FROM t" || o.Key != "sql:SELECT a FROM t" || o.Info["parse_error"] != nil {
		t.Errorf("first output = %+v", o)
	}
	if o := ex.Outputs[1]; o.Info["parse_error"] != "no SQL found" {
		t.Errorf("output without SQL = %+v, want a parse_error", o)
	}
	if side.Counters[runners.CounterCut(runners.RoleReason)] != 1 || side.Counters[runners.CounterParseFailed(runners.RoleReason, "GEN")] != 1 {
		t.Errorf("side counters = %v, want one cut and one parse failure", side.Counters)
	}

	o := mcts.Output{Info: map[string]any{}}
	if ReadJSON(&side, &o, "A3", `{"other": 1}`, "values", nil) != true || o.Info["parse_error"] != nil {
		t.Errorf("ReadJSON of a parsed answer: %+v", o)
	}
	if ReadJSON(&side, &o, "A3", "junk", "values", errors.New("bad json")) || o.Info["parse_error"] != "bad json" {
		t.Errorf("ReadJSON of a failed answer: %+v", o)
	}
	if n := side.Counters[runners.CounterParseFailed(runners.RoleReason, "A3")]; n != 2 {
		t.Errorf("A3 parse failures = %v, want 2 (missing field, bad JSON)", n)
	}
}

func TestReadSelection(t *testing.T) {
	schema := &datasets.Schema{Tables: []datasets.Table{{Name: "Singer", Columns: []datasets.Column{{Name: "Name"}, {Name: "Age"}}}}}
	var side runners.Trace
	o := mcts.Output{Info: map[string]any{}}
	ReadSelection(&side, &o, "SEL", schema, map[string][]string{"singer": {"age", "nope"}}, nil)
	if o.Key != "selection:singer(age)" || !reflect.DeepEqual(o.Info["selection"], map[string][]string{"Singer": {"Age"}}) {
		t.Errorf("known selection: %+v", o)
	}
	o = mcts.Output{Info: map[string]any{}}
	ReadSelection(&side, &o, "SEL", schema, map[string][]string{"ghost": nil}, nil)
	if o.Key != "" || o.Info["parse_error"] == nil {
		t.Errorf("a selection naming no table of the schema: %+v, want a parse_error and no key", o)
	}
	if len(side.Counters) != 0 {
		t.Errorf("a parsed selection counted a parse failure: %v", side.Counters)
	}
}

func TestRewardSQLs(t *testing.T) {
	resp := &llm.Response{
		Choices:       []string{"SELECT 1", "```sql\nSELECT 2\n```", "nothing", "```sql\nSELECT 3\n```"},
		FinishReasons: []string{llm.FinishLength, "stop", "stop", "stop"},
	}
	var side runners.Trace
	got := RewardSQLs(resp, &side)
	if !reflect.DeepEqual(got, []string{"SELECT 2", "SELECT 3"}) {
		t.Errorf("RewardSQLs = %q", got)
	}
	if side.Counters[runners.CounterParseFailed(runners.RoleReason, "reward")] != 1 || len(side.Steps) != 1 {
		t.Errorf("side = %+v, want one parse failure and one cut step", side)
	}
}

// TestTransitions holds the table to Alpha-SQL's, list order included
// (the order Search expands actions in).
func TestTransitions(t *testing.T) {
	got := Transitions("A1", []mcts.Action{"A2", "A3", "A4"}, "A5", "A6", "A7")
	want := map[mcts.Action][]mcts.Action{
		mcts.RootAction: {"A1", "A2", "A3", "A4", "A5"},
		"A1":            {"A2", "A3", "A4", "A5"},
		"A2":            {"A3", "A4", "A5"},
		"A3":            {"A2", "A4", "A5"},
		"A4":            {"A2", "A3", "A5"},
		"A5":            {"A7", "A6"},
		"A6":            {"A7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Transitions = %v, want %v", got, want)
	}
}

func TestRevision(t *testing.T) {
	e := &runners.Execution{Err: errors.New("no such column: x")}
	got := Revision("Fix it.", "SELECT x", e)
	want := "Fix it.\n\n【SQL】\n```sql\nSELECT x\n```\n【Execution feedback】\n" + e.Feedback()
	if got != want || e.Feedback() == "" {
		t.Errorf("Revision = %q, want %q", got, want)
	}
}

func TestStepsText(t *testing.T) {
	names := map[mcts.Action]string{"A1": "Rephrase", "A5": "SQL"}
	steps := []Step{{"A1", "  rephrased \n"}, {"A5", "SELECT 1"}}
	if got, want := StepsText(steps, "HEAD\n", "\n\n", names), "HEAD\nStep 1 (Rephrase):\nrephrased\n\nStep 2 (SQL):\nSELECT 1\n\n"; got != want {
		t.Errorf("StepsText = %q, want %q", got, want)
	}
	if got := StepsText(nil, "HEAD\n", "\n", names); got != "" {
		t.Errorf("StepsText of no steps = %q, want none (not even the head)", got)
	}
}
