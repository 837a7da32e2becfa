package baseline

import (
	"context"
	"fmt"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Defaults. METHODS.md fixes sc as "k samples at temperature T" without
// values; k = 8 and T = 0.8 are t2sbench's defaults (T = 0.8 matches the
// sampling temperature Alpha-SQL's code uses for expansion).
const (
	DefaultSCK           = 8
	DefaultSCTemperature = 0.8
	// DefaultMaxTokens bounds each completion.
	DefaultMaxTokens = 1024
	// RoleReason is the model role every baseline uses.
	RoleReason = "reason"
)

func init() {
	runners.Register("direct", func(p runners.Params) (runners.Runner, error) { return newSingle("direct", p) })
	runners.Register("cot", func(p runners.Params) (runners.Runner, error) { return newSingle("cot", p) })
	runners.Register("sc", newSC)
}

// single is the direct or cot runner.
type single struct {
	name      string
	maxTokens int
	evidence  bool
}

func newSingle(name string, p runners.Params) (runners.Runner, error) {
	r := runners.NewReader(p)
	s := &single{
		name:      name,
		maxTokens: r.Int("max_tokens", DefaultMaxTokens, 16, 65536),
		evidence:  r.Bool("evidence", true),
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Name returns "direct" or "cot".
func (s *single) Name() string { return s.name }

// Run asks the model once at temperature 0 and extracts the SQL.
func (s *single) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	m := runners.NewMeter(t.LLM)
	prompt, err := Prompt(ctx, t, s.name == "cot", s.evidence)
	if err != nil {
		return runners.Result{}, err
	}
	seed := t.Seed
	resp, err := m.Complete(ctx, llm.Request{
		Role:        RoleReason,
		Messages:    []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: prompt}},
		Temperature: 0,
		MaxTokens:   s.maxTokens,
		Seed:        &seed,
		Answer:      llm.AnswerSQL,
	})
	if err != nil {
		return runners.Result{}, fmt.Errorf("%s: %w", s.name, err)
	}
	res := runners.Result{Usage: m.Usage()}
	out := ""
	if len(resp.Choices) > 0 {
		out = resp.Choices[0]
	}
	res.Trace.Add(runners.Step{Action: "generate", Role: RoleReason, Input: prompt, Output: out})
	if sql, ok := sqltext.Extract(out); ok {
		res.SQL = sql
		res.Candidates = []runners.Candidate{{SQL: sql, Score: 1}}
	} else {
		res.Note = "no SQL found in the model output"
	}
	res.Wall = time.Since(start)
	return res, nil
}

// sc is the self-consistency runner.
type sc struct {
	k         int
	temp      float64
	maxTokens int
	evidence  bool
}

func newSC(p runners.Params) (runners.Runner, error) {
	r := runners.NewReader(p)
	s := &sc{
		k:         r.Int("k", DefaultSCK, 1, 128),
		temp:      r.Float("temperature", DefaultSCTemperature, 0, 2),
		maxTokens: r.Int("max_tokens", DefaultMaxTokens, 16, 65536),
		evidence:  r.Bool("evidence", true),
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Name returns "sc".
func (s *sc) Name() string { return "sc" }

// Run samples k answers in one request, executes each and returns the SQL
// of the earliest sample in the largest execution-result group.
func (s *sc) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	m := runners.NewMeter(t.LLM)
	prompt, err := Prompt(ctx, t, true, s.evidence)
	if err != nil {
		return runners.Result{}, err
	}
	seed := t.Seed
	resp, err := m.Complete(ctx, llm.Request{
		Role:        RoleReason,
		Messages:    []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: prompt}},
		Temperature: s.temp,
		MaxTokens:   s.maxTokens,
		N:           s.k,
		Seed:        &seed,
		Answer:      llm.AnswerSQL,
	})
	if err != nil {
		return runners.Result{}, fmt.Errorf("sc: %w", err)
	}
	res := runners.Result{}
	type group struct {
		first, size int
	}
	groups := map[string]*group{}
	firstSQL := ""
	for i, out := range resp.Choices {
		sql, ok := sqltext.Extract(out)
		step := runners.Step{Action: "sample", Role: RoleReason, Output: out, Info: map[string]any{"index": i}}
		if !ok {
			step.Info["error"] = "no SQL found"
			res.Trace.Add(step)
			continue
		}
		if firstSQL == "" {
			firstSQL = sql
		}
		c := runners.Candidate{SQL: sql}
		key, execErr := execKey(ctx, t.DB, sql)
		if ctx.Err() != nil {
			return runners.Result{}, ctx.Err()
		}
		if execErr != nil {
			step.Info["error"] = execErr.Error()
			c.Group = ""
		} else {
			c.Group = key
			g := groups[key]
			if g == nil {
				g = &group{first: len(res.Candidates)}
				groups[key] = g
			}
			g.size++
		}
		res.Trace.Add(step)
		res.Candidates = append(res.Candidates, c)
	}
	valid := 0
	for _, g := range groups {
		valid += g.size
	}
	best := -1
	bestSize := 0
	for _, g := range groups {
		if g.size > bestSize || (g.size == bestSize && g.first < best) {
			best, bestSize = g.first, g.size
		}
	}
	for i := range res.Candidates {
		if g := groups[res.Candidates[i].Group]; g != nil && res.Candidates[i].Group != "" {
			res.Candidates[i].Score = float64(g.size) / float64(len(resp.Choices))
			res.Candidates[i].Group = datasets.ShortKey(res.Candidates[i].Group)
		}
	}
	res.Trace.Count("samples", float64(len(resp.Choices)))
	res.Trace.Count("valid_samples", float64(valid))
	res.Trace.Count("groups", float64(len(groups)))
	switch {
	case best >= 0:
		res.SQL = res.Candidates[best].SQL
	case firstSQL != "":
		res.SQL = firstSQL
		res.Note = "no sample executed; returned the first extracted SQL"
	default:
		res.Note = "no SQL found in any sample"
	}
	res.Usage = m.Usage()
	res.Wall = time.Since(start)
	return res, nil
}

// execKey executes sql and returns a canonical key of its result as a
// multiset of rows (row order ignored).
func execKey(ctx context.Context, db datasets.Database, sql string) (string, error) {
	if db == nil {
		return "", fmt.Errorf("no database")
	}
	rs, err := db.Execute(ctx, sql)
	if err != nil {
		return "", err
	}
	return ResultKey(rs), nil
}

// ResultKey is a canonical key of a result set as a multiset of rows
// (datasets.ResultSet.BagKey: row order ignored, Python value equality).
func ResultKey(rs *datasets.ResultSet) string { return rs.BagKey() }
