package iesr

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/mctsql"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// question is the MCTS problem of one task.
type question struct {
	// found remembers how each generated or revised SQL was found in its
	// response, for Result.Extraction.
	found  runners.Extractions
	cfg    *Config
	t      runners.Task
	llm    llm.Client
	schema *datasets.Schema
	// header is the shared prompt head: database, (compressed) schema,
	// question, hint, key information and linked items.
	header   string
	linkSel  map[string][]string // the linking selection (nil: whole schema)
	evidence string
	extra    string // key information and linking hints
	exec     *runners.Executions
	// side collects what the trace reports beside the tree: cut samples
	// and pruned requests (see the package documentation).
	side runners.Trace
	// rewardRequests counts the reward's model requests (a terminal that
	// fails under the paper's reward makes none).
	rewardRequests int
}

// rejected reports whether err is a permanent refusal of one request
// while ctx is live.
func rejected(ctx context.Context, err error) bool {
	return ctx.Err() == nil && runners.ModelRejected(err)
}

// execute runs sql once per question (runners.Executions).
func (q *question) execute(ctx context.Context, sql string) *runners.Execution {
	return q.exec.Run(ctx, sql)
}

// ResultKey is a canonical key of a result as a set of rows (row order and
// duplicates ignored, Python value equality: datasets.ResultSet.SetKey), the
// grouping Alpha-SQL's reward and IESR's agreement use.
func ResultKey(rs *datasets.ResultSet) string { return rs.SetKey() }

// request is one chat request of the runner.
type request struct {
	role, responder string
	prompt          string
	temp            float64
	n               int
	kind            llm.AnswerKind
	schema          json.RawMessage
	schemaName      string
	seed            int64
}

// complete sends r through the metered client.
func (q *question) complete(ctx context.Context, r request) (*llm.Response, error) {
	seed := r.seed
	req := llm.Request{
		Role:        r.role,
		Messages:    []llm.Message{{Role: "system", Content: sqltext.ForDialect(systemPrompt, q.t.Dialect())}, {Role: "user", Content: r.prompt}},
		Temperature: r.temp,
		MaxTokens:   q.cfg.MaxTokens[r.role],
		N:           r.n,
		Seed:        &seed,
		Answer:      r.kind,
		Schema:      r.schema,
		SchemaName:  r.schemaName,
		Responder:   r.responder,
	}
	if r.temp > 0 && r.role == runners.RoleReason {
		req.TopP, req.TopK = q.cfg.TopP, q.cfg.TopK
	}
	resp, err := q.llm.Complete(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.responder, err)
	}
	return resp, nil
}

// taskHeader renders the shared prompt head.
func taskHeader(dbID, schema, question, evidence, extra string) string {
	var b strings.Builder
	b.WriteString("【Database】 " + dbID + "\n" + schema + "\n【Question】\n" + question + "\n")
	if evidence != "" {
		b.WriteString("\n【Hint】\n" + evidence + "\n")
	}
	b.WriteString(extra)
	return b.String()
}

// roles are the actions a path's state is read from.
var roles = mctsql.Roles{Select: A2, Generate: A5, Revise: A6, End: END}

// pathState gathers what the steps of a path established.
type pathState = mctsql.Path

func (q *question) state(t *mcts.Tree, n *mcts.Node) pathState { return mctsql.Walk(t, n, roles) }

// prompt renders a reasoning prompt: the head (with the schema narrowed by
// an A2 selection on the path), the steps and the instruction.
func (q *question) prompt(s pathState, steps []step, instruction string) string {
	head := q.header
	if s.Selection != nil {
		schema := datasets.RenderMSchema(q.schema, datasets.RenderOptions{Tables: s.Selection})
		head = taskHeader(q.t.Example.DBID, schema, q.t.Example.Question, q.evidence, q.extra)
	}
	return head + stepsText(steps) + "\n【Task】\n" + sqltext.ForDialect(instruction, q.t.Dialect())
}

// Actions implements mcts.Problem: the transition table minus removed
// actions.
func (q *question) Actions(_ *mcts.Tree, n *mcts.Node) []mcts.Action {
	return mcts.Next(Transitions, n.Action, q.cfg.Disabled)
}

// Terminal implements mcts.Problem: END closes a path.
func (q *question) Terminal(_ *mcts.Tree, n *mcts.Node) bool { return n.Action == END }

// Expand implements mcts.Problem: one request with n = k samples per
// action; END copies the path's SQL without a model call.
func (q *question) Expand(ctx context.Context, t *mcts.Tree, n *mcts.Node, a mcts.Action, k int) (mcts.Expansion, error) {
	s := q.state(t, n)
	if a == END {
		return mctsql.End("Final SQL:\n", s.SQL), nil
	}
	r := request{role: runners.RoleReason, temp: q.cfg.Temperature, n: k, kind: llm.AnswerText, seed: q.t.Seed}
	switch a {
	case A1:
		r.prompt, r.responder = q.prompt(s, s.Steps, instructions[A1]), RespEquation
	case A2:
		r.prompt, r.responder, r.kind, r.schema, r.schemaName = q.prompt(s, s.Steps, instructions[A2]), RespSchema, llm.AnswerJSON, selectionSchema, schemaSelection
	case A3:
		r.prompt, r.responder, r.kind, r.schema, r.schemaName = q.prompt(s, s.Steps, instructions[A3]), RespColumns, llm.AnswerJSON, columnsSchema, schemaColumns
	case A4:
		r.prompt, r.responder, r.kind, r.schema, r.schemaName = q.prompt(s, s.Steps, instructions[A4]), RespEntities, llm.AnswerJSON, entitiesSchema, schemaEntities
	case A5:
		r.prompt, r.responder, r.kind = q.prompt(s, s.Steps, instructions[A5]), RespSQL, llm.AnswerSQL
	case A6:
		r.prompt = q.prompt(s, s.Steps, mctsql.Revision(instructions[A6], s.SQL, q.execute(ctx, s.SQL)))
		r.responder, r.kind = RespRevise, llm.AnswerSQL
	default:
		return mcts.Expansion{}, fmt.Errorf("unknown action %q", a)
	}
	resp, err := q.complete(ctx, r)
	if err != nil {
		return mcts.Expansion{}, err
	}
	return mctsql.Samples(resp, &q.side, a, func(out string, o *mcts.Output) {
		switch a {
		case A1:
			o.Key = "equation:" + strings.Join(strings.Fields(strings.ToLower(out)), " ")
		case A2:
			sel, err := ParseSelection(out)
			mctsql.ReadSelection(&q.side, o, a, q.schema, sel, err)
		case A3:
			cs, err := ParseColumns(out)
			if mctsql.ReadJSON(&q.side, o, a, out, "columns", err) {
				o.Key = "columns:" + canonicalJSON(cs)
			}
		case A4:
			es, err := ParseEntities(out)
			if mctsql.ReadJSON(&q.side, o, a, out, "entities", err) {
				o.Key = "entities:" + canonicalJSON(es)
			}
		case A5, A6:
			mctsql.ReadSQL(&q.side, &q.found, o, a, out)
		}
	}), nil
}

// Reward implements mcts.Problem: the terminal-only self-consistency
// reward of equation 5 (following Alpha-SQL). K SQLs are resampled in one
// request under the same terminal context (the steps before SQL
// generation), with a seed of their own for each scoring of the terminal
// (mcts.Node.Rolls), so that a terminal scored again draws new samples.
// The reward is the share of the K samples whose execution result equals
// the terminal SQL's (a sample that is cut, has no SQL or fails agrees
// with nothing). Under RewardPaper (Algorithm 2, EvaluateReward) it is 0,
// with no samples drawn, when the terminal SQL fails to execute, and two
// empty results, or two NULL results, are equal results. Under
// RewardAlphaSQL it is 0 unless the terminal SQL executes to a valid
// (non-empty, non-NULL) result.
func (q *question) Reward(ctx context.Context, t *mcts.Tree, n *mcts.Node) (float64, error) {
	s := q.state(t, n)
	term := q.execute(ctx, s.SQL)
	paper := q.cfg.RewardRule != RewardAlphaSQL
	if n.Info == nil {
		n.Info = map[string]any{}
	}
	if paper && term.Err != nil {
		n.Info["reward_agree"] = 0
		return 0, nil
	}
	before := s.Before(A5)
	resp, err := q.complete(ctx, request{role: runners.RoleReason, responder: RespSQL, kind: llm.AnswerSQL,
		prompt: q.prompt(before, before.Steps, rewardInstruction), temp: q.cfg.RewardTemperature, n: q.cfg.Reward,
		seed: q.t.Seed + 1<<20 + int64(n.Rolls)<<10})
	if err != nil {
		return 0, err
	}
	q.rewardRequests++
	outs := mctsql.RewardSQLs(resp, &q.side)
	samples := make([]*runners.Execution, len(outs))
	for i, sql := range outs {
		samples[i] = q.execute(ctx, sql)
	}
	r, agree := RewardOf(q.cfg.RewardRule, term, samples, q.cfg.Reward)
	n.Info["reward_agree"] = agree
	return r, nil
}

// RewardOf is the terminal reward of a terminal execution term against
// the executions of its resampled SQLs (those that are cut or have no SQL
// left out) out of k drawn, under rule (RewardPaper or RewardAlphaSQL):
// the reward and the number of agreeing samples.
//
//   - paper: 0 when term failed; else agree/k, where a sample agrees when
//     it executes and its result equals term's as a set of rows (two empty
//     results are equal, and so are two all-NULL results).
//   - alphasql: 0 unless term is valid (non-empty, non-NULL); else agree/k
//     as above (a valid result never equals an empty one).
func RewardOf(rule string, term *runners.Execution, samples []*runners.Execution, k int) (float64, int) {
	if term.Err != nil || rule == RewardAlphaSQL && !term.Valid {
		return 0, 0
	}
	agree := 0
	for _, e := range samples {
		if e.Err == nil && e.Key == term.Key {
			agree++
		}
	}
	if k < 1 {
		return 0, agree
	}
	return float64(agree) / float64(k), agree
}
