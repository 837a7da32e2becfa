package runners

import (
	"context"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/internal/satint"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Meter wraps a Client and accounts calls, cache hits, tokens, latency,
// samples and samples cut at the token limit by role. Runners wrap Task.LLM in a Meter and copy Usage into their Result.
type Meter struct {
	Client llm.Client

	mu    sync.Mutex
	usage map[string]RoleUsage
}

// NewMeter wraps c.
func NewMeter(c llm.Client) *Meter { return &Meter{Client: c, usage: map[string]RoleUsage{}} }

// Complete forwards req and records its usage under req.Role.
func (m *Meter) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.Client.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	u := m.usage[req.Role]
	u.Calls++
	if resp.Cached {
		u.CachedCalls++
	}
	// Counts are validated (llm.Usage.Clamp) and added without overflow:
	// whatever a client reports, the sums stay in range.
	ru, _ := resp.Usage.Clamp()
	u.PromptTokens = satint.Add(u.PromptTokens, ru.PromptTokens)
	u.CompletionTokens = satint.Add(u.CompletionTokens, ru.CompletionTokens)
	u.Latency += resp.Latency
	u.ReasoningTokens = satint.Add(u.ReasoningTokens, ru.ReasoningTokens)
	u.Samples += len(resp.Choices)
	for i := range resp.Choices {
		if resp.Cut(i) {
			u.Cut++
		}
	}
	if resp.Structured == llm.StructuredJSONObject || resp.Structured == llm.StructuredNone {
		u.NotStrict++
	}
	m.usage[req.Role] = u
	m.mu.Unlock()
	return resp, nil
}

// Usage returns a copy of the usage so far, by role.
func (m *Meter) Usage() map[string]RoleUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]RoleUsage, len(m.usage))
	for k, v := range m.usage {
		out[k] = v
	}
	return out
}

// Calls is the total number of requests so far.
func (m *Meter) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, u := range m.usage {
		n += u.Calls
	}
	return n
}

// Metered runs run with t.LLM wrapped in a Meter and sets the Result's
// Usage (by role) and Wall (the time run took): the accounting every
// runner owes its Result, in one place, so that a new runner cannot forget
// it. run must make its model calls through the Task it is given. The
// Result and error are run's otherwise; Usage and Wall are set on an error
// too.
func Metered(ctx context.Context, t Task, run func(ctx context.Context, t Task) (Result, error)) (Result, error) {
	start := time.Now()
	m := NewMeter(t.LLM)
	t.LLM = m
	res, err := run(ctx, t)
	res.Usage = m.Usage()
	res.Wall = time.Since(start)
	return res, err
}
