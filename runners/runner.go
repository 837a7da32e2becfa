// Package runners defines the Runner interface every Text-to-SQL method
// implements, the Task it receives and the Result it returns, and a registry
// of runners by name.
package runners

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Runner is one Text-to-SQL method.
type Runner interface {
	Name() string
	// Run answers one question. A failed prediction (bad SQL, model
	// refusal) is data in the Result; Run returns an error only for
	// infrastructure failures (context canceled, model endpoint down after
	// retries) that should stop or retry the item.
	Run(ctx context.Context, t Task) (Result, error)
}

// Task is one question handed to a runner. The example carries no gold SQL.
type Task struct {
	Example datasets.Example
	DB      datasets.Database
	// LLM answers model requests; it dispatches on Request.Role to the
	// backend the spec binds to that role.
	LLM    llm.Client
	Seed   int64
	Budget Budget
}

// Dialect is the SQL dialect of the task's database ("sqlite" when it has
// none), for prompts that name the dialect.
func (t Task) Dialect() string {
	if t.DB == nil {
		return "sqlite"
	}
	return t.DB.Dialect()
}

// Budget bounds the work of one task. Zero values mean no limit.
type Budget struct {
	MaxCalls  int
	MaxTokens int
	Timeout   time.Duration
}

// Candidate is one SQL the runner considered, with its score.
type Candidate struct {
	SQL   string             `json:"sql"`
	Score float64            `json:"score"`
	Parts map[string]float64 `json:"parts,omitempty"`
	// Group identifies the execution-result group of the candidate.
	Group string `json:"group,omitempty"`
}

// Step is one entry of a trace.
type Step struct {
	Action string         `json:"action"`
	Role   string         `json:"role,omitempty"`
	Input  string         `json:"input,omitempty"`
	Output string         `json:"output,omitempty"`
	Info   map[string]any `json:"info,omitempty"`
}

// Trace is the structured record of how a runner reached its answer.
type Trace struct {
	Steps []Step `json:"steps,omitempty"`
	// Counters are named counts a report can aggregate (turns, validation
	// level triggers, rollouts, ...).
	Counters map[string]float64 `json:"counters,omitempty"`
	// Data holds method-specific structured output (the MCTS tree, the
	// Steiner scaffold, ...).
	Data map[string]any `json:"data,omitempty"`
}

// Add appends a step.
func (t *Trace) Add(s Step) { t.Steps = append(t.Steps, s) }

// Count adds v to counter name.
func (t *Trace) Count(name string, v float64) {
	if t.Counters == nil {
		t.Counters = map[string]float64{}
	}
	t.Counters[name] += v
}

// Merge adds the counters of o to t's, appends o's steps and copies o's
// Data entries (o's win).
func (t *Trace) Merge(o Trace) {
	for name, v := range o.Counters {
		t.Count(name, v)
	}
	t.Steps = append(t.Steps, o.Steps...)
	for k, v := range o.Data {
		if t.Data == nil {
			t.Data = map[string]any{}
		}
		t.Data[k] = v
	}
}

// Cut records sample i of resp, cut at max_tokens while role answered
// what, as its own outcome: counted under "cut.<role>" and kept as a step
// (action "cut", Info "action" what plus SampleInfo), never used as an
// answer.
func (t *Trace) Cut(resp *llm.Response, i int, role, what string) {
	t.Count(CounterCut(role), 1)
	info := SampleInfo(resp, i)
	info["action"] = what
	out := ""
	if i >= 0 && i < len(resp.Choices) {
		out = resp.Choices[i]
	}
	t.Add(Step{Action: "cut", Role: role, Output: out, Info: info})
}

// Reject records a request of role for what that the model server refused
// permanently (ModelRejected): counted under "pruned" and kept as a step
// (action "pruned", Info "action" and "error").
func (t *Trace) Reject(role, what string, err error) {
	t.Count(CounterPruned, 1)
	t.Add(Step{Action: "pruned", Role: role, Info: map[string]any{"action": what, "error": err.Error()}})
}

// ParseFailed counts one answer of role to action whose structure (a JSON
// object, a required line, a SQL block) did not parse, under
// "parse_failed.<role>.<action>". action names a kind of request, never
// one instance of it, so that reports can add the counts up.
func (t *Trace) ParseFailed(role, action string) {
	t.Count(CounterParseFailed(role, action), 1)
}

// SampleInfo is what a trace step keeps of sample i of resp besides its
// answer, for the trace viewer: the model's reasoning ("reasoning") and
// finish reason ("finish_reason"), each when the backend gave it. The map
// is new, so the caller may add its own keys. Reasoning belongs in the
// trace only, never in a later prompt.
func SampleInfo(resp *llm.Response, i int) map[string]any {
	info := map[string]any{}
	if r := resp.ReasoningOf(i); r != "" {
		info["reasoning"] = r
	}
	if f := resp.Finish(i); f != "" {
		info["finish_reason"] = f
	}
	return info
}

// RoleUsage is model usage of one role.
type RoleUsage struct {
	Calls            int           `json:"calls"`
	CachedCalls      int           `json:"cached_calls"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Latency          time.Duration `json:"latency_ns"`
	// ReasoningTokens is the part of CompletionTokens the server reported
	// as reasoning.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// Samples counts the samples received; Cut counts those cut at the
	// token limit (finish_reason "length"), an outcome of its own: a cut
	// answer is not a model that gave no SQL.
	Samples int `json:"samples,omitempty"`
	Cut     int `json:"cut,omitempty"`
	// NotStrict counts JSON answers produced without strict schema
	// enforcement (structured mode json_object or none, configured or
	// degraded to after the server rejected strict mode).
	NotStrict int `json:"not_strict,omitempty"`
}

// Result is a runner's answer to one task.
type Result struct {
	SQL        string               `json:"sql"`
	Candidates []Candidate          `json:"candidates,omitempty"`
	Trace      Trace                `json:"trace"`
	Usage      map[string]RoleUsage `json:"usage,omitempty"` // by role
	Wall       time.Duration        `json:"wall_ns"`
	// Note explains an empty SQL (model refusal, nothing extracted, ...).
	Note string `json:"note,omitempty"`
	// Extraction is how SQL was found in the model response the final SQL
	// came from: the rule of sqltext.ExtractWith that chose it
	// (sqltext.Reason; a runner that reads a response with its own marker
	// first records ReasonFinalMarker). It is ReasonNone when the runner
	// returns no SQL after reading responses, and empty when the final SQL
	// was not read from a response by the extractor (an answer compiled
	// from DSL calls). Runners that choose among several responses record
	// the reason of the first response that gave the chosen SQL
	// (Extractions).
	Extraction sqltext.Reason `json:"extraction,omitempty"`
}

// Params are a runner's parameters as given in the spec.
type Params map[string]any

// Factory builds a runner from its spec parameters, reading every one
// through r, and returns r.Err() when it is not nil, so that unknown keys
// and out-of-range values fail with an error naming the key. New hands it
// a Reader over a spec's parameters, Describe one over none, to list what
// it reads with the defaults it reads them with.
type Factory func(r *Reader) (Runner, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Info{}
)

// Register makes a runner available by name, with nothing said of it
// beyond its parameters (RegisterInfo says the rest). It panics on a
// duplicate name (a programming error at init time).
func Register(name string, f Factory) { RegisterInfo(Info{Name: name, New: f}) }

// New builds the runner registered under name from its spec parameters.
func New(name string, p Params) (Runner, error) {
	info, err := lookupInfo(name)
	if err != nil {
		return nil, err
	}
	return info.New(NewReader(p))
}

// lookupInfo returns the registration of name, or an error listing the
// registered runners.
func lookupInfo(name string) (Info, error) {
	if info, ok := Lookup(name); ok {
		return info, nil
	}
	return Info{}, fmt.Errorf("unknown runner %q%s (known: %v)", name, suggest.Hint(name, Names()), Names())
}

// Names lists the registered runners, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
