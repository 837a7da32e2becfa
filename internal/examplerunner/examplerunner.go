// Package examplerunner is the example runner of docs/adding-a-runner.md,
// added by following that guide: one package whose init registers it.
// Only tests link it (a blank import in its end-to-end test stands for the
// line in cmd/t2sbench/runners.go), so `t2sbench help runners` does not
// list it.
//
// The method: one request to the reason role with the schema as DDL and
// the question, at temperature 0, the SQL taken from the answer.
package examplerunner

import (
	"context"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Name is the runner's name in a spec (runners[].name).
const Name = "example"

// DefaultMaxTokens is the token limit of the request: t2sbench's choice,
// room for a short reasoning and one query.
const DefaultMaxTokens = 1024

// CounterNoSQL counts answers that held no SQL.
const CounterNoSQL = "no_sql"

func init() {
	runners.RegisterInfo(runners.Info{
		Name:      Name,
		New:       New,
		Paper:     "example: one answer at temperature 0 (docs/adding-a-runner.md)",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "writes the SQL"}},
		Ablations: "schema: false",
		Varied:    []string{"max_tokens"},
	})
}

// Runner is the example method.
type Runner struct {
	maxTokens int
	schema    bool
}

// New builds the runner from its spec parameters, read through r:
// max_tokens (the request's token limit) and schema (show the schema in
// the prompt).
func New(r *runners.Reader) (runners.Runner, error) {
	x := &Runner{maxTokens: r.Int("max_tokens", DefaultMaxTokens, 16, 65536), schema: r.Bool("schema", true)}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return x, nil
}

// Name returns "example".
func (x *Runner) Name() string { return Name }

// Run answers one question. A missing SQL is data (Note, counter); only a
// failed model call is an error, wrapped with the runner's name.
func (x *Runner) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	return runners.Metered(ctx, t, x.run)
}

func (x *Runner) run(ctx context.Context, t runners.Task) (runners.Result, error) {
	var b strings.Builder
	if x.schema && t.DB != nil {
		s, err := t.DB.Schema(ctx)
		if err != nil {
			return runners.Result{}, fmt.Errorf("example: schema of %s: %w", t.Example.DBID, err)
		}
		fmt.Fprintf(&b, "Database schema (%s):\n%s\n", t.Dialect(), datasets.RenderDDL(s, datasets.RenderOptions{}))
	}
	fmt.Fprintf(&b, "Question: %s\n\nAnswer with only the %s query in a ```sql block.\n", t.Example.Question, t.Dialect())
	prompt := b.String()
	seed := t.Seed
	resp, err := t.LLM.Complete(ctx, llm.Request{
		Role:        runners.RoleReason,
		Messages:    []llm.Message{{Role: "user", Content: prompt}},
		Temperature: 0,
		MaxTokens:   x.maxTokens,
		Seed:        &seed,
		Answer:      llm.AnswerSQL,
	})
	if err != nil {
		return runners.Result{}, fmt.Errorf("example: %w", err)
	}
	var res runners.Result
	out := ""
	if len(resp.Choices) > 0 {
		out = resp.Choices[0]
	}
	info := runners.SampleInfo(resp, 0)
	res.Trace.Add(runners.Step{Action: "generate", Role: runners.RoleReason, Input: prompt, Output: out, Info: info})
	if resp.Cut(0) {
		res.Trace.Cut(resp, 0, runners.RoleReason, "generate")
		res.Note = "answer cut at max_tokens"
		res.Extraction = sqltext.ReasonNone
		return res, nil
	}
	// The extraction's reason says how the SQL was found in the answer
	// (one block, a final marker, a correction, ...); the report counts it.
	e := sqltext.ExtractSQL(out)
	res.Extraction = e.Reason
	if !e.Found() {
		res.Trace.Count(CounterNoSQL, 1)
		res.Note = "no SQL in the answer"
		return res, nil
	}
	res.SQL = e.SQL
	res.Candidates = []runners.Candidate{{SQL: e.SQL, Score: 1}}
	return res, nil
}
