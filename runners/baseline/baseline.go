package baseline

import (
	"context"
	"fmt"
	"strings"
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
	// DefaultMaxTokens bounds each completion, reasoning tokens included
	// (t2sbench's choice). It is sized for reasoning models (DeepSeek-R1,
	// Qwen3, o-series), which think for thousands of tokens before the
	// ```sql block and would be cut at the earlier default of 1024.
	DefaultMaxTokens = 8192
)

// Notes and trace counters.
const (
	// NoSQLNote is Result.Note when the answer holds no SQL.
	NoSQLNote = "no SQL in response"
	// CounterNoSQL counts samples without SQL.
	CounterNoSQL = "no_sql"
)

// sampleStep is the trace step of sample i of resp: its answer, reasoning
// and finish reason.
func sampleStep(action string, resp *llm.Response, i int) runners.Step {
	st := runners.Step{Action: action, Role: runners.RoleReason, Info: runners.SampleInfo(resp, i)}
	if i < len(resp.Choices) {
		st.Output = resp.Choices[i]
	}
	return st
}

// finishedBeforeCut reports whether sql, extracted from an answer cut at
// the token limit, was complete before the cut: a closing fence follows it.
func finishedBeforeCut(answer, sql string) bool {
	i := strings.LastIndex(answer, sql)
	if i < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(answer[i+len(sql):], " \t\r\n;"), "```")
}

func init() {
	runners.RegisterInfo(runners.Info{
		Name:      "direct",
		New:       func(r *runners.Reader) (runners.Runner, error) { return newSingle("direct", r) },
		Paper:     "baseline: one answer at temperature 0",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "writes the SQL"}},
		Ablations: "evidence: false",
	})
	runners.RegisterInfo(runners.Info{
		Name:      "cot",
		New:       func(r *runners.Reader) (runners.Runner, error) { return newSingle("cot", r) },
		Paper:     "baseline: reasoning step by step, then the SQL, at temperature 0",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "reasons and writes the SQL"}},
		Ablations: "evidence: false",
	})
	runners.RegisterInfo(runners.Info{
		Name:      "sc",
		New:       newSC,
		Paper:     "baseline: self-consistency, k samples in one request, the largest execution-result group wins",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "samples k answers"}},
		Ablations: "evidence: false; sweep k",
		Varied:    []string{"k", "temperature"},
	})
}

// single is the direct or cot runner.
type single struct {
	name      string
	maxTokens int
	evidence  bool
}

func newSingle(name string, r *runners.Reader) (runners.Runner, error) {
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
		Role:        runners.RoleReason,
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
	step := sampleStep("generate", resp, 0)
	step.Input = prompt
	res.Trace.Add(step)
	cut := resp.Cut(0)
	if cut {
		res.Trace.Count(runners.CounterCut(runners.RoleReason), 1)
	}
	e := sqltext.ExtractSQL(out)
	sql, ok := e.SQL, e.Found()
	switch {
	case !ok:
		res.Trace.Count(CounterNoSQL, 1)
		res.Note = NoSQLNote
		if cut {
			res.Note += " (answer cut at max_tokens)"
		}
	case cut && !finishedBeforeCut(out, sql):
		// A query cut mid-way may still run and give a wrong answer
		// that looks like the model's: it is not taken.
		res.Trace.Count(CounterNoSQL, 1)
		res.Note = NoSQLNote + " (answer cut at max_tokens inside its SQL)"
	default:
		res.SQL = sql
		res.Candidates = []runners.Candidate{{SQL: sql, Score: 1}}
		if cut {
			res.Note = "answer cut at max_tokens after its SQL block, which is used"
		}
	}
	res.Extraction = e.ReasonFor(res.SQL)
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

func newSC(r *runners.Reader) (runners.Runner, error) {
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
		Role:        runners.RoleReason,
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
	// Samples often agree on the text: each distinct SQL is executed
	// once and its key reused by the samples that repeat it.
	type keyed struct {
		key string
		err error
	}
	execs := map[string]keyed{}
	firstSQL := ""
	cuts := 0
	var found runners.Extractions
	// Samples that repeat an earlier one's text extract as it did, and
	// note nothing new once one of them was noted.
	extracted := map[string]sqltext.Extraction{}
	noted := map[string]bool{}
	for i, out := range resp.Choices {
		e, done := extracted[out]
		if !done {
			e = sqltext.ExtractSQL(out)
			extracted[out] = e
		}
		sql, ok := e.SQL, e.Found()
		step := sampleStep("sample", resp, i)
		step.Info["index"] = i
		if resp.Cut(i) {
			// A cut sample does not vote: its query may be unfinished,
			// and even a complete one was not the model's whole answer.
			cuts++
			res.Trace.Count(runners.CounterCut(runners.RoleReason), 1)
			step.Info["error"] = "cut at max_tokens: not voting"
			res.Trace.Add(step)
			continue
		}
		if !ok {
			res.Trace.Count(CounterNoSQL, 1)
			step.Info["error"] = NoSQLNote
			res.Trace.Add(step)
			continue
		}
		if !noted[out] {
			found.Note(e)
			noted[out] = true
		}
		if firstSQL == "" {
			firstSQL = sql
		}
		c := runners.Candidate{SQL: sql}
		x, seen := execs[sql]
		if !seen {
			x.key, x.err = execKey(ctx, t.DB, sql)
			if ctx.Err() != nil {
				return runners.Result{}, ctx.Err()
			}
			execs[sql] = x
		}
		key, execErr := x.key, x.err
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
	case cuts > 0:
		res.Note = fmt.Sprintf("%s: %d of %d samples cut at max_tokens, the others without SQL", NoSQLNote, cuts, len(resp.Choices))
	default:
		res.Note = NoSQLNote
	}
	res.Extraction = found.Of(res.SQL)
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
