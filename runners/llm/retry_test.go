package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestOpenAIOneRetryLoop: a call that keeps failing sends exactly the
// configured number of requests (1 + MaxRetries for a retryable failure,
// 1 for one that is not) and fails with an *llm.Error of the right class
// that counts them. The bounds come from OpenAIConfig.MaxRetries ("the
// number of retries after the first attempt").
func TestOpenAIOneRetryLoop(t *testing.T) {
	const maxRetries = 2
	tests := []struct {
		name      string
		fault     fakeopenai.Fault
		requests  int
		class     string
		status    int
		retryable bool
		sentinel  error
	}{
		{"429 with Retry-After", fakeopenai.TooManyRequests("0.01"), 1 + maxRetries, llm.ClassRateLimited, 429, true, nil},
		{"500", fakeopenai.Status(500, "internal error"), 1 + maxRetries, llm.ClassServerError, 500, true, nil},
		{"503", fakeopenai.Status(503, "overloaded"), 1 + maxRetries, llm.ClassServerError, 503, true, nil},
		{"truncated body", fakeopenai.Truncated(), 1 + maxRetries, llm.ClassNetwork, 0, true, llm.ErrNetwork},
		{"connection reset", fakeopenai.Reset(), 1 + maxRetries, llm.ClassNetwork, 0, true, llm.ErrNetwork},
		{"malformed JSON", fakeopenai.Malformed(), 1, llm.ClassMalformed, 0, false, llm.ErrMalformed},
		{"400", fakeopenai.Status(400, "This model's maximum context length is 8192 tokens."), 1, llm.ClassBadRequest, 400, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{})
			srv.FailN(tc.fault, 10)
			o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m", MaxRetries: maxRetries, WaitScale: 0.01, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if got := srv.Calls(); got != tc.requests {
				t.Errorf("requests: got %d; want %d", got, tc.requests)
			}
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T); want an *llm.Error", err, err)
			}
			if e.Class != tc.class || llm.ErrorClass(err) != tc.class || e.StatusCode != tc.status || e.Retryable != tc.retryable || e.Attempts != tc.requests {
				t.Errorf("got class %q (ErrorClass %q), status %d, retryable %v, attempts %d; want %q, %d, %v, %d",
					e.Class, llm.ErrorClass(err), e.StatusCode, e.Retryable, e.Attempts, tc.class, tc.status, tc.retryable, tc.requests)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("err = %v; want it to wrap %v", err, tc.sentinel)
			}
			var se *llm.StatusError
			if (tc.status != 0) != errors.As(err, &se) || (se != nil && se.StatusCode != tc.status) {
				t.Errorf("err = %v; want a *llm.StatusError %d exactly when the server answered a status", err, tc.status)
			}
			if tc.status == 429 && e.RetryAfter != 10*time.Millisecond {
				t.Errorf("RetryAfter = %v; want 10ms (Retry-After: 0.01)", e.RetryAfter)
			}
			if want := fmt.Sprintf("gave up after %d attempts", tc.requests); tc.retryable != strings.Contains(err.Error(), want) {
				t.Errorf("err = %q; want %q in it exactly when the retries ran out", err, want)
			}
			if !llm.IsCallError(err) {
				t.Errorf("IsCallError(%v) = false; want true", err)
			}
		})
	}
}

// TestOpenAIRetriesThenAnswers: a 429 (Retry-After honoured) and a reset
// connection are retried, and the third request's answer is returned.
func TestOpenAIRetriesThenAnswers(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	srv.Fail(fakeopenai.TooManyRequests("0.05"), fakeopenai.Reset())
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m", MaxRetries: 2, WaitScale: 1, BackoffBase: time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := o.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls(); got != 3 {
		t.Errorf("requests: got %d; want 3 (429, reset, answer)", got)
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Errorf("took %v; want >= 50ms (the server's Retry-After: 0.05)", el)
	}
	if len(resp.Choices) != 1 || resp.Choices[0] == "" {
		t.Errorf("choices %q; want one answer", resp.Choices)
	}
}
