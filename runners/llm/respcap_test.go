package llm

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// gzipZeros answers a chat completion whose one choice's content is n
// zeros, gzip-encoded as it is written (the body is never held whole on
// either side).
func gzipZeros(n int) step {
	return func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		defer zw.Close()
		io.WriteString(zw, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)
		chunk := strings.Repeat("0", 64<<10)
		for left := n; left > 0; left -= len(chunk) {
			if _, err := io.WriteString(zw, chunk[:min(left, len(chunk))]); err != nil {
				return // the client stopped reading
			}
		}
		io.WriteString(zw, `"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
	}
}

// manyChoices answers a chat completion with n choices.
func manyChoices(n int, content string) step {
	return func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"index":%d,"finish_reason":"stop","message":{"role":"assistant","content":%q}}`, i, content)
		}
		io.WriteString(w, `],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
	}
}

// TestOpenAIResponseCaps sends answers over each size cap (the decoded
// bytes of a gzip body, the number of choices, the text of one choice) and
// just within them: over a cap the call fails at once (one request, not
// retried) with ErrTooLarge, class malformed; within them it answers.
func TestOpenAIResponseCaps(t *testing.T) {
	t.Parallel()
	const maxBytes, maxChoice = 1 << 20, 4 << 10
	tests := []struct {
		name    string
		step    step
		n       int
		tooBig  string // in the error; "" for an answer
		choices int
	}{
		{"gzip body inflating past the byte cap", gzipZeros(8 << 20), 1, "over the cap of 1048576 bytes", 0},
		{"gzip body within the byte cap", gzipZeros(maxChoice - 100), 1, "", 1},
		{"choices past n + ExtraChoices", manyChoices(1+ExtraChoices+1, "x"), 1, "10 choices, over the cap of 9", 0},
		{"choices at n + ExtraChoices", manyChoices(3+ExtraChoices, "x"), 3, "", 3},
		{"one choice over the text cap", manyChoices(1, strings.Repeat("y", maxChoice+1)), 1, "choice 0 holds 4097 bytes of text", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, tt.step)
			o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) {
				c.MaxResponseBytes, c.MaxChoiceBytes = maxBytes, maxChoice
				c.MaxRetries = 3
			})
			req := hello
			req.N = tt.n
			resp, err := o.Complete(context.Background(), req)
			if tt.tooBig == "" {
				if err != nil || len(resp.Choices) != tt.choices {
					t.Fatalf("Complete: %v; want %d choices", err, tt.choices)
				}
				return
			}
			if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.tooBig) {
				t.Fatalf("err = %v; want ErrTooLarge (malformed) saying %q", err, tt.tooBig)
			}
			if got := ErrorClass(err); got != ClassMalformed {
				t.Errorf("ErrorClass = %q; want %q", got, ClassMalformed)
			}
			if n := len(fs.requests()); n != 1 {
				t.Errorf("%d requests; want 1 (an answer over a cap is not retried)", n)
			}
		})
	}
}

// TestOpenAIResponseCapsValidated checks that negative caps are refused.
func TestOpenAIResponseCapsValidated(t *testing.T) {
	t.Parallel()
	_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://x/v1", Model: "m", MaxResponseBytes: -1})
	if err == nil || !strings.Contains(err.Error(), "max_response_bytes") {
		t.Errorf("err = %v; want one naming max_response_bytes", err)
	}
}
