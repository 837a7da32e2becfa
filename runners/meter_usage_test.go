package runners

import (
	"context"
	"math"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

type usageClient llm.Usage

func (u usageClient) Complete(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Choices: []string{"x"}, Usage: llm.Usage(u)}, nil
}

// TestMeterUsageSaturates meters three calls of a client that reports
// counts no server may send: the meter counts them clamped to [0,
// llm.MaxTokenCount] and sums without overflowing (3 calls at the cap
// give 3*llm.MaxTokenCount, which an int holds).
func TestMeterUsageSaturates(t *testing.T) {
	t.Parallel()
	m := NewMeter(usageClient{PromptTokens: math.MaxInt, CompletionTokens: -4, ReasoningTokens: math.MaxInt})
	for i := 0; i < 3; i++ {
		if _, err := m.Complete(context.Background(), llm.Request{Role: "reason"}); err != nil {
			t.Fatal(err)
		}
	}
	u := m.Usage()["reason"]
	if u.PromptTokens != 3*llm.MaxTokenCount || u.CompletionTokens != 0 || u.ReasoningTokens != 3*llm.MaxTokenCount {
		t.Errorf("usage = %+v; want prompt and reasoning %d, completion 0", u, 3*llm.MaxTokenCount)
	}
}
