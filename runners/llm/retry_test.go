package llm_test

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestOpenAIReasoningModelMaxTokens: for an o-series model name go-openai
// refuses max_tokens itself, before sending (its
// ErrReasoningModelMaxTokensDeprecated); the backend must see that error
// through its classification and switch to max_completion_tokens, as it
// does when a server answers 400 (OpenAIConfig.MaxTokensParam).
func TestOpenAIReasoningModelMaxTokens(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "o3-mini", MaxTokens: 64, MaxRetries: -1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatalf("Complete: %v; want the backend to switch to max_completion_tokens", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].MaxTokensParam != llm.MaxCompletionTokensParam || reqs[0].MaxTokens != 64 {
		t.Fatalf("requests %+v; want one carrying max_completion_tokens 64", reqs)
	}
	if st := o.Stats(); st.ParamSwitches != 1 || st.MaxTokensParam != llm.MaxCompletionTokensParam {
		t.Errorf("stats %+v; want one switch to %s", st, llm.MaxCompletionTokensParam)
	}
}
