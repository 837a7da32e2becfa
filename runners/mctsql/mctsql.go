// Package mctsql is the Text-to-SQL side of an MCTS problem (runners/mcts)
// that Alpha-SQL and IESR both build on: IESR follows Alpha-SQL's search
// (docs/METHODS.md), so both read a path the same way (its steps, the
// schema selection and the SQL it reached), read each sampled answer of an
// action into a search output the same way (cut samples, parse failures,
// collapsing keys of schema selections, JSON answers and SQL), draw the
// reward's SQL samples the same way, and fall back to the best SQL a
// non-terminal step generated when no terminal has one.
//
// What differs between the methods stays in their runners: the actions,
// prompts and answer formats, the reward's formula, the revision loop and
// the final selection.
package mctsql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Roles names the actions of a method that a path's state is read from.
type Roles struct {
	// Select is the schema selection: its node's Info "selection" narrows
	// the schema of later prompts.
	Select mcts.Action
	// Generate and Revise write SQL (Info "sql"); the reward's context is
	// the steps before Generate.
	Generate, Revise mcts.Action
	// End is the model-free termination, which is not a reasoning step.
	End mcts.Action
}

// Step is one reasoning step on a path.
type Step struct {
	Action mcts.Action
	Text   string
}

// Path is what the steps of a path established.
type Path struct {
	Steps []Step
	// Selection is the last schema selection on the path (nil: none).
	Selection map[string][]string
	// SQL is the SQL of the last generation or revision step.
	SQL string
}

// Walk reads the path from the root to n under the method's roles.
func Walk(t *mcts.Tree, n *mcts.Node, r Roles) Path {
	var s Path
	for _, x := range t.Path(n)[1:] {
		if x.Action == r.End {
			continue
		}
		s.Steps = append(s.Steps, Step{Action: x.Action, Text: x.Text})
		if x.Action == r.Select {
			if sel, ok := x.Info["selection"].(map[string][]string); ok {
				s.Selection = sel
			}
		}
		if x.Action == r.Generate || x.Action == r.Revise {
			s.SQL, _ = x.Info["sql"].(string)
		}
	}
	return s
}

// Before returns the path as it stood before its first step of action a:
// the context the reward resamples the SQL generation in (the schema
// selection and SQL stay those of the whole path).
func (p Path) Before(a mcts.Action) Path {
	var steps []Step
	for _, st := range p.Steps {
		if st.Action == a {
			break
		}
		steps = append(steps, st)
	}
	p.Steps = steps
	return p
}

// StepsText renders steps for a prompt: head, then each step as
// "Step i (name):" and its text, trimmed, followed by gap; "" when there
// are no steps.
func StepsText(steps []Step, head, gap string, names map[mcts.Action]string) string {
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(head)
	for i, s := range steps {
		fmt.Fprintf(&b, "Step %d (%s):\n%s%s", i+1, names[s.Action], strings.TrimSpace(s.Text), gap)
	}
	return b.String()
}

// Transitions is Alpha-SQL's valid-transition table (docs/METHODS.md,
// from the authors' code) over a method's actions: first may open a path
// only; the analyses may follow the root, first or one another, in any
// order; generate may follow any of them; a generated SQL may be revised
// once; end closes a path after generation or revision. In Alpha-SQL's
// actions:
//
//	ROOT: A1 A2 A3 A4 A5    A2: A3 A4 A5    A4: A2 A3 A5    A6: A7
//	A1:   A2 A3 A4 A5       A3: A2 A4 A5    A5: A7 A6
//
// Each list is in that order, the order Search expands the actions in.
func Transitions(first mcts.Action, analyses []mcts.Action, generate, revise, end mcts.Action) map[mcts.Action][]mcts.Action {
	t := map[mcts.Action][]mcts.Action{
		mcts.RootAction: append(append([]mcts.Action{first}, analyses...), generate),
		first:           append(slices.Clone(analyses), generate),
		generate:        {end, revise},
		revise:          {end},
	}
	for _, a := range analyses {
		var next []mcts.Action
		for _, b := range analyses {
			if b != a {
				next = append(next, b)
			}
		}
		t[a] = append(next, generate)
	}
	return t
}

// Revision is the task of a revision prompt: the instruction, then the SQL
// and the feedback of its execution.
func Revision(instruction, sql string, e *runners.Execution) string {
	return instruction + "\n\n【SQL】\n```sql\n" + sql + "\n```\n【Execution feedback】\n" + e.Feedback()
}

// End is the expansion of the model-free termination: one output that
// keeps the path's SQL, its text label followed by the SQL.
func End(label, sql string) mcts.Expansion {
	return mcts.Expansion{Outputs: []mcts.Output{{Text: label + sql, Key: sql, Info: map[string]any{"sql": sql}}}}
}

// Samples turns the answers of one request for action a into the outputs
// of its expansion: a sample cut at max_tokens is recorded in side and
// dropped; every other one becomes an output holding the answer and its
// SampleInfo, which read then fills in from the answer (key, parsed
// fields).
func Samples(resp *llm.Response, side *runners.Trace, a mcts.Action, read func(out string, o *mcts.Output)) mcts.Expansion {
	ex := mcts.Expansion{Requests: 1}
	for i, out := range resp.Choices {
		if resp.Cut(i) {
			side.Cut(resp, i, runners.RoleReason, string(a))
			continue
		}
		o := mcts.Output{Text: out, Info: runners.SampleInfo(resp, i)}
		read(out, &o)
		ex.Outputs = append(ex.Outputs, o)
	}
	return ex
}

// ReadSelection fills o from a schema-selection answer that parsed to sel
// (err: it did not): the selection kept to the schema's tables and columns
// (runners.KnownSelection) and a key equal for equal selections, else a
// parse_error. An answer that did not parse counts as a parse failure of
// a in side.
func ReadSelection(side *runners.Trace, o *mcts.Output, a mcts.Action, schema *datasets.Schema, sel map[string][]string, err error) {
	if err != nil {
		side.ParseFailed(runners.RoleReason, string(a))
	} else {
		sel, err = runners.KnownSelection(schema, sel)
	}
	if err != nil {
		o.Info["parse_error"] = err.Error()
		return
	}
	o.Info["selection"] = sel
	o.Key = "selection:" + runners.SelectionKey(sel)
}

// ReadJSON notes in side and o how reading the JSON answer out of action a
// went (err: it did not parse) and reports whether it was read. An answer
// that did not parse, or has no field (a lenient decode reads an answer
// that never gave it as empty), counts as a parse failure of a; one that
// did not parse gets a parse_error.
func ReadJSON(side *runners.Trace, o *mcts.Output, a mcts.Action, out, field string, err error) bool {
	if err != nil || !jsontext.HasKey(out, field) {
		side.ParseFailed(runners.RoleReason, string(a))
	}
	if err != nil {
		o.Info["parse_error"] = err.Error()
		return false
	}
	return true
}

// ReadSQL fills o from a SQL generation or revision answer out of action
// a: the SQL found (noted in found, for Result.Extraction) and a key equal
// for equally normalised SQL. An answer with no SQL counts as a parse
// failure of a and gets a parse_error.
func ReadSQL(side *runners.Trace, found *runners.Extractions, o *mcts.Output, a mcts.Action, out string) {
	sql, ok := found.Extract(out)
	if !ok {
		o.Info["parse_error"] = "no SQL found"
		side.ParseFailed(runners.RoleReason, string(a))
	}
	o.Info["sql"] = sql
	o.Key = "sql:" + sqltext.Normalise(sql)
}

// RewardSQLs returns the SQL of each of the reward's samples in resp, in
// order: a sample cut at max_tokens, or one with no SQL, is recorded in
// side (under "reward") and left out.
func RewardSQLs(resp *llm.Response, side *runners.Trace) []string {
	var sqls []string
	for i, out := range resp.Choices {
		if resp.Cut(i) {
			side.Cut(resp, i, runners.RoleReason, "reward")
			continue
		}
		sql, ok := sqltext.Extract(out)
		if !ok {
			side.ParseFailed(runners.RoleReason, "reward")
			continue
		}
		sqls = append(sqls, sql)
	}
	return sqls
}

// BestNodeSQL is the fallback when no terminal has SQL (its paths were
// pruned or cut): the first SQL a non-terminal node generated that
// executes to a valid result, else the first at all ("" when none).
func BestNodeSQL(ctx context.Context, tree *mcts.Tree, exec *runners.Executions) string {
	best := ""
	for _, n := range tree.Nodes {
		sql, _ := n.Info["sql"].(string)
		if sql == "" || n.Terminal {
			continue
		}
		if best == "" || exec.Run(ctx, sql).Valid && !exec.Run(ctx, best).Valid {
			best = sql
		}
	}
	return best
}
