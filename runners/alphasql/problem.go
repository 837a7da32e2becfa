package alphasql

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

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
	found      runners.Extractions
	cfg        Config
	t          runners.Task
	llm        *runners.Meter
	schema     *datasets.Schema
	fullSchema string
	evidence   string
	exec       *runners.Executions
	// side collects what the trace reports beside the tree: cut samples
	// and pruned requests (see the package documentation).
	side runners.Trace
}

// execute runs sql once per question (runners.Executions).
func (q *question) execute(ctx context.Context, sql string) *runners.Execution {
	return q.exec.Run(ctx, sql)
}

// SetKey is a canonical key of a result as a set of rows (order and
// duplicates ignored; datasets.ResultSet.SetKey).
func SetKey(rs *datasets.ResultSet) string { return rs.SetKey() }

// complete makes one chat request.
func (q *question) complete(ctx context.Context, prompt string, temp float64, n int, responder string, kind llm.AnswerKind, seedOffset int64) (*llm.Response, error) {
	seed := q.t.Seed + seedOffset
	req := llm.Request{
		Role:        runners.RoleReason,
		Messages:    []llm.Message{{Role: "system", Content: sqltext.ForDialect(systemPrompt, q.t.Dialect())}, {Role: "user", Content: prompt}},
		Temperature: temp,
		MaxTokens:   q.cfg.MaxTokens,
		N:           n,
		Seed:        &seed,
		Answer:      kind,
		Responder:   responder,
	}
	if temp > 0 {
		req.TopP = q.cfg.TopP
	}
	resp, err := q.llm.Complete(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", responder, err)
	}
	return resp, nil
}

// roles are the actions a path's state is read from.
var roles = mctsql.Roles{Select: A2, Generate: A5, Revise: A6, End: A7}

// pathState gathers what the steps on a path established.
type pathState = mctsql.Path

func (q *question) state(t *mcts.Tree, n *mcts.Node) pathState { return mctsql.Walk(t, n, roles) }

// schemaText renders the schema, restricted to a schema selection when the
// path made one.
func (q *question) schemaText(s pathState) string {
	if s.Selection == nil {
		return q.fullSchema
	}
	return datasets.RenderDDL(q.schema, datasets.RenderOptions{Tables: s.Selection})
}

func (q *question) prompt(s pathState, steps []step, instruction string) string {
	return taskText(q.t.Example.DBID, q.schemaText(s), q.t.Example.Question, q.evidence) + contextText(steps) + "\n" + sqltext.ForDialect(instruction, q.t.Dialect())
}

// Actions implements mcts.Problem: the transition table minus disabled
// actions.
func (q *question) Actions(_ *mcts.Tree, n *mcts.Node) []mcts.Action {
	return mcts.Next(Transitions, n.Action, q.cfg.Disabled)
}

// Terminal implements mcts.Problem: A7 ends a path.
func (q *question) Terminal(_ *mcts.Tree, n *mcts.Node) bool { return n.Action == A7 }

// Expand implements mcts.Problem: one request with n = k samples per
// action; A7 copies the SQL without a model call; A6 revises further
// rounds (one request each) while a revised SQL still fails, up to
// N_revision rounds in all.
func (q *question) Expand(ctx context.Context, t *mcts.Tree, n *mcts.Node, a mcts.Action, k int) (mcts.Expansion, error) {
	s := q.state(t, n)
	if a == A7 {
		return mctsql.End("Terminate with the SQL:\n", s.SQL), nil
	}
	var (
		prompt    string
		responder string
		kind      = llm.AnswerText
	)
	switch a {
	case A1:
		prompt, responder = q.prompt(s, s.Steps, instructions[A1]), RespRephrase
	// A2, A3 and A4 reason before their JSON: plain-text requests whose
	// trailing JSON object is parsed (structured output would forbid the
	// reasoning the prompts ask for).
	case A2:
		prompt, responder = q.prompt(s, s.Steps, instructions[A2]), RespSchema
	case A3:
		prompt, responder = q.prompt(s, s.Steps, instructions[A3]), RespValues
	case A4:
		prompt, responder = q.prompt(s, s.Steps, instructions[A4]), RespFunctions
	case A5:
		prompt, responder, kind = q.prompt(s, s.Steps, instructions[A5]), RespSQL, llm.AnswerSQL
	case A6:
		prompt, responder, kind = q.revisionPrompt(ctx, s, s.SQL), RespRevise, llm.AnswerSQL
	default:
		return mcts.Expansion{}, fmt.Errorf("unknown action %q", a)
	}
	resp, err := q.complete(ctx, prompt, q.cfg.Temperature, k, responder, kind, 0)
	if err != nil {
		return mcts.Expansion{}, err
	}
	ex := mctsql.Samples(resp, &q.side, a, func(out string, o *mcts.Output) {
		switch a {
		case A1:
			if key, ok := ParseRephrase(out); ok {
				o.Key = key
			} else {
				o.Info["parse_error"] = "no 'Question:' line"
				q.side.ParseFailed(runners.RoleReason, string(a))
			}
		case A2:
			sel, err := ParseSchemaSelection(out)
			mctsql.ReadSelection(&q.side, o, a, q.schema, sel, err)
		case A3:
			vs, err := ParseValues(out)
			if mctsql.ReadJSON(&q.side, o, a, out, "values", err) {
				o.Info["values"] = vs
				o.Key = "values:" + valuesKey(vs)
			}
		case A4:
			fs, err := ParseFunctions(out)
			if mctsql.ReadJSON(&q.side, o, a, out, "functions", err) {
				o.Info["functions"] = fs
				o.Key = "functions:" + functionsKey(fs)
			}
		case A5, A6:
			mctsql.ReadSQL(&q.side, &q.found, o, a, out)
		}
	})
	if a == A6 {
		if err := q.reviseMore(ctx, s, &ex); err != nil {
			return mcts.Expansion{}, err
		}
	}
	return ex, nil
}

func (q *question) revisionPrompt(ctx context.Context, s pathState, sql string) string {
	return q.prompt(s, s.Steps, mctsql.Revision(instructions[A6], sql, q.execute(ctx, sql)))
}

// reviseMore continues the revision loop for every distinct revised SQL
// that still fails (error, empty or all-NULL result): one request (n = 1)
// per further round, at most N_revision rounds counting the first.
func (q *question) reviseMore(ctx context.Context, s pathState, ex *mcts.Expansion) error {
	done := map[string]mcts.Output{} // first-round key -> revised output
	var outs []mcts.Output
	for _, o := range ex.Outputs {
		firstKey := o.Key
		if r, dup := done[firstKey]; dup {
			// The same first-round SQL revises the same way; the tree
			// collapses it into the first one's child.
			r.Requests = 0
			outs = append(outs, r)
			continue
		}
		rounds := 1
		sql, _ := o.Info["sql"].(string)
		var history []string
		for rounds < q.cfg.Revision && sql != "" && !q.execute(ctx, sql).Valid {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			history = append(history, sql)
			resp, err := q.complete(ctx, q.revisionPrompt(ctx, s, sql), q.cfg.Temperature, 1, RespRevise, llm.AnswerSQL, int64(rounds))
			if err != nil {
				if ctx.Err() == nil && runners.ModelRejected(err) {
					// Keep the revision so far (the branch goes on).
					q.side.Reject(runners.RoleReason, string(A6), err)
					break
				}
				return err
			}
			rounds++
			o.Requests++
			out := ""
			if len(resp.Choices) > 0 {
				out = resp.Choices[0]
			}
			if resp.Cut(0) {
				q.side.Cut(resp, 0, runners.RoleReason, string(A6))
				break
			}
			next, ok := q.found.Extract(out)
			if !ok {
				q.side.ParseFailed(runners.RoleReason, string(A6))
			}
			if !ok || next == sql {
				o.Text = out
				break
			}
			sql, o.Text = next, out
		}
		o.Info["sql"] = sql
		o.Info["revision_rounds"] = rounds
		if len(history) > 0 {
			o.Info["revised_from"] = history
		}
		o.Key = "sql:" + sqltext.Normalise(sql)
		done[firstKey] = o
		outs = append(outs, o)
	}
	ex.Outputs = outs
	return nil
}

// Reward implements mcts.Problem: the self-consistency reward. N_reward
// SQLs are resampled in one request from the terminal's reasoning context
// (the steps before its SQL generation); the reward is rewardShare of the
// samples that are valid (execute with a non-null value) and give the same
// result set as the terminal's SQL.
func (q *question) Reward(ctx context.Context, t *mcts.Tree, n *mcts.Node) (float64, error) {
	s := q.state(t, n)
	before := s.Before(A5)
	resp, err := q.complete(ctx, q.prompt(before, before.Steps, rewardInstruction), q.cfg.RewardTemperature, q.cfg.Reward, RespSQL, llm.AnswerSQL, 1<<20)
	if err != nil {
		return 0, err
	}
	term := q.execute(ctx, s.SQL)
	agree, valid := 0, 0
	for _, sql := range mctsql.RewardSQLs(resp, &q.side) {
		e := q.execute(ctx, sql)
		if !e.Valid {
			continue
		}
		valid++
		if term.Valid && e.Key == term.Key {
			agree++
		}
	}
	if n.Info == nil {
		n.Info = map[string]any{}
	}
	n.Info["reward_valid_samples"] = valid
	n.Info["reward_agree"] = agree
	return rewardShare(agree, valid, q.cfg.Reward, term.Valid, q.cfg.RewardDenominator), nil
}

// rewardShare is the reward of a terminal whose agree of valid reward
// samples (of n drawn) give its result: agree/valid under RewardOverValid
// (the released code; also the empty string), agree/n under RewardOverN;
// 0 when the terminal's own result is invalid or no sample is valid. When
// the terminal's result is the largest group of the valid samples, the
// RewardOverValid value is METHODS.md's "share of valid samples in the
// majority result group".
func rewardShare(agree, valid, n int, termValid bool, denominator string) float64 {
	if !termValid || valid == 0 {
		return 0
	}
	if denominator == RewardOverN {
		return float64(agree) / float64(n)
	}
	return float64(agree) / float64(valid)
}

// group is one execution-result group of terminal SQLs.
type group struct {
	key     string
	sqls    []string // distinct, in terminal order
	members int      // terminals in the group
	reward  float64  // summed terminal rewards
	fastest time.Duration
	timed   bool   // fastest is the minimum over timeRuns executions
	best    string // the SQL of the most terminals, ties to the first
	count   map[string]int
	valid   bool
}

// timeRuns is how many times each query of two equally large groups is
// executed again to compare their speed. The minimum is kept: load (other
// workers, a garbage collection) only ever adds time, so the minimum of a
// few runs is what the query costs, and the choice rarely depends on the
// machine's load.
const timeRuns = 5

// minTime returns the least execution time of g's queries over timeRuns
// further executions each (once per group; the first measurement counts
// too).
func (q *question) minTime(ctx context.Context, g *group) time.Duration {
	if g.timed || q.t.DB == nil {
		return g.fastest
	}
	for _, sql := range g.sqls {
		for range timeRuns {
			rs, err := q.t.DB.Execute(ctx, sql)
			if err != nil {
				break
			}
			g.fastest = min(g.fastest, rs.Elapsed)
		}
	}
	g.timed = true
	return g.fastest
}

// selectFinal groups the terminals' SQLs by execution result and picks the
// largest valid group (ties: the group with a clearly faster query, i.e.
// more than 20% and 1 ms faster by the least of several executions
// (minTime), so that timing noise rarely flips the choice; then the larger
// summed reward; then the smaller SQL text); it
// falls back to groups with empty or all-NULL results, then to any
// extracted SQL, and notes why. Within the chosen group it returns the SQL
// most terminals reached (ties to the first), not the fastest, so that the
// answer does not depend on timing.
func (q *question) selectFinal(ctx context.Context, t *mcts.Tree, res *runners.Result) {
	groups := map[string]*group{}
	var order []*group
	var failed []string
	for _, n := range t.Terminals() {
		sql, _ := n.Info["sql"].(string)
		if sql == "" {
			continue
		}
		e := q.execute(ctx, sql)
		if e.Err != nil {
			failed = append(failed, sql)
			continue
		}
		g := groups[e.Key]
		if g == nil {
			g = &group{key: e.Key, valid: e.Valid, fastest: e.Result.Elapsed, best: sql, count: map[string]int{}}
			groups[e.Key] = g
			order = append(order, g)
		}
		g.members++
		g.reward += n.Reward
		g.count[sql]++
		if g.count[sql] > g.count[g.best] {
			g.best = sql
		}
		if !slices.Contains(g.sqls, sql) {
			g.sqls = append(g.sqls, sql)
			g.fastest = min(g.fastest, e.Result.Elapsed)
		}
	}
	total := 0
	for _, g := range order {
		total += g.members
	}
	better := func(a, b *group) bool {
		if a.members != b.members {
			return a.members > b.members
		}
		fa, fb := float64(q.minTime(ctx, a)), float64(q.minTime(ctx, b))
		if math.Abs(fa-fb) > float64(time.Millisecond) && math.Abs(fa-fb) > 0.2*math.Max(fa, fb) {
			return fa < fb
		}
		if a.reward != b.reward {
			return a.reward > b.reward
		}
		return a.best < b.best
	}
	pick := func(valid bool) *group {
		var best *group
		for _, g := range order {
			if g.valid == valid && (best == nil || better(g, best)) {
				best = g
			}
		}
		return best
	}
	chosen := pick(true)
	info := map[string]any{"groups": len(order), "terminals": len(t.Terminals()), "failed_sqls": len(failed)}
	switch {
	case chosen != nil:
	case pick(false) != nil:
		chosen = pick(false)
		res.Note = "no terminal SQL gave a non-empty, non-NULL result; chose the largest group of empty or NULL results"
	case len(failed) > 0:
		res.SQL = failed[0]
		res.Note = "no terminal SQL executed; returned the first terminal SQL"
	default:
		// No terminal has SQL (its paths were pruned or cut): fall back to
		// the best SQL the tree generated, the first that executes to a
		// valid result, else the first at all.
		res.SQL = mctsql.BestNodeSQL(ctx, t, q.exec)
		if res.SQL != "" {
			res.Note = "no terminal produced SQL; returned the best SQL a non-terminal step generated"
			res.Candidates = append(res.Candidates, runners.Candidate{SQL: res.SQL})
		} else {
			res.Note = "no terminal produced SQL"
		}
	}
	if chosen != nil {
		res.SQL = chosen.best
		info["chosen_group_size"] = chosen.members
	}
	for _, g := range order {
		for _, sql := range g.sqls {
			res.Candidates = append(res.Candidates, runners.Candidate{SQL: sql, Score: float64(g.members) / float64(max(total, 1)),
				Parts: map[string]float64{"group_size": float64(g.members), "reward_sum": g.reward}, Group: datasets.ShortKey(g.key)})
		}
	}
	for _, sql := range failed {
		res.Candidates = append(res.Candidates, runners.Candidate{SQL: sql})
	}
	if res.Note != "" {
		info["note"] = res.Note
	}
	res.Trace.Add(runners.Step{Action: "select", Output: res.SQL, Info: info})
	res.Extraction = q.found.Of(res.SQL)
}
