package runners

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// scripted answers each request with the next response.
type scripted struct{ resps []*llm.Response }

func (s *scripted) Complete(context.Context, llm.Request) (*llm.Response, error) {
	r := s.resps[0]
	s.resps = s.resps[1:]
	return r, nil
}

func TestMeterSamplesAndCuts(t *testing.T) {
	c := &scripted{resps: []*llm.Response{
		{Choices: []string{"a", "", "c"}, FinishReasons: []string{llm.FinishStop, llm.FinishLength, llm.FinishStop},
			Usage: llm.Usage{CompletionTokens: 30, ReasoningTokens: 12}, Structured: llm.StructuredStrict},
		{Choices: []string{""}, FinishReasons: []string{llm.FinishLength}, Structured: llm.StructuredJSONObject},
		{Choices: []string{"x"}, Structured: llm.StructuredNone}, // no finish reasons: not cut
	}}
	m := NewMeter(c)
	for range 3 {
		if _, err := m.Complete(context.Background(), llm.Request{Role: "reason"}); err != nil {
			t.Fatal(err)
		}
	}
	got := m.Usage()["reason"]
	want := RoleUsage{Calls: 3, CompletionTokens: 30, ReasoningTokens: 12, Samples: 5, Cut: 2, NotStrict: 2}
	if got != want {
		t.Errorf("usage = %+v; want %+v", got, want)
	}
}
