package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestClassifyBodies: an error status is classed by its code, except that
// a message refusing the request (a prompt over the context length, a
// response_format or schema the server does not take) is bad_request
// whatever the code, so that it is not retried. The messages are the ones
// the servers named send (quoted in llm.Classify's and rejectionOf's docs).
func TestClassifyBodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"OpenAI context length", 400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", llm.ClassBadRequest},
		{"vLLM decoder prompt", 400, "The decoder prompt (length 9000) is longer than the maximum model length of 8192.", llm.ClassBadRequest},
		{"SGLang input", 400, "The input (9000 tokens) is longer than the model's context length (8192 tokens).", llm.ClassBadRequest},
		{"llama.cpp context size", 400, "the request exceeds the available context size, try increasing it", llm.ClassBadRequest},
		{"llama.cpp response_format on 500", 500, `response_format type must be one of "text" or "json_object", but got: json_schema`, llm.ClassBadRequest},
		{"Ollama schema on 500", 500, "invalid JSON schema in format", llm.ClassBadRequest},
		{"Ollama context length on 500", 500, "the input length exceeds the context length", llm.ClassBadRequest},
		{"vLLM xgrammar schema", 400, "The provided JSON schema contains features not supported by xgrammar.", llm.ClassBadRequest},
		{"TGI validation 422", 422, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096", llm.ClassBadRequest},
		// A 5xx whose message refuses nothing is the server's failure.
		{"500 out of memory", 500, "CUDA out of memory. Tried to allocate 2.00 GiB", llm.ClassServerError},
		{"500 naming no refusal", 500, "bad request upstream", llm.ClassServerError},
		{"503", 503, "Service Unavailable", llm.ClassServerError},
		// The code decides where it names the cause, whatever the text.
		{"401", 401, "Incorrect API key provided: maximum context length", llm.ClassAuth},
		{"403", 403, "", llm.ClassAuth},
		{"404 OpenAI unknown model", 404, "The model `gpt-5-nano` does not exist or you do not have access to it.", llm.ClassNotFound},
		{"404 unknown URL", 404, "Unknown request URL: POST /v1/v1/chat/completions", llm.ClassNotFound},
		{"408", 408, "", llm.ClassTimeout},
		{"429 quota", 429, "You exceeded your current quota, please check your plan and billing details.", llm.ClassRateLimited},
		{"400 generic", 400, "We could not parse the JSON body of your request.", llm.ClassBadRequest},
		{"409", 409, "Conflict", "http_409"},
		{"413", 413, "Request Entity Too Large", "http_413"},
		{"405", 405, "Method Not Allowed", "http_405"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Classify(tt.status, tt.body, nil); got != tt.want {
				t.Errorf("Classify(%d, %q) = %q; want %q", tt.status, tt.body, got, tt.want)
			}
			// A StatusError classes the same, and retries as its class.
			se := &llm.StatusError{StatusCode: tt.status, Message: tt.body}
			if got := llm.ErrorClass(se); got != tt.want || se.Retryable() != llm.HandlingOf(tt.want).Retried {
				t.Errorf("ErrorClass(StatusError) = %q, Retryable %v; want %q, %v", got, se.Retryable(), tt.want, llm.HandlingOf(tt.want).Retried)
			}
		})
	}
}

// TestClassifyTransport: without a status, the error's type decides, never
// its text; a JSON error is malformed in Classify (the backend's decoding
// of an answer) but not in ErrorClass, where it may be a runner's own.
func TestClassifyTransport(t *testing.T) {
	var syntaxErr *json.SyntaxError
	if err := json.Unmarshal([]byte("{x"), &struct{}{}); !errors.As(err, &syntaxErr) {
		t.Fatalf("no JSON syntax error: %v", err)
	}
	tests := []struct {
		name                 string
		err                  error
		classify, errorClass string
	}{
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, llm.ClassNetwork, llm.ClassNetwork},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), llm.ClassNetwork, llm.ClassNetwork},
		{"cut body", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), llm.ClassNetwork, llm.ClassNetwork},
		{"read deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, llm.ClassTimeout, llm.ClassTimeout},
		{"caller's deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), llm.ClassDeadline, llm.ClassDeadline},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), llm.ClassCanceled, llm.ClassCanceled},
		{"sentinel timeout", fmt.Errorf("x: %w", llm.ErrTimeout), llm.ClassTimeout, llm.ClassTimeout},
		{"JSON syntax", fmt.Errorf("decode: %w", syntaxErr), llm.ClassMalformed, llm.ClassOther},
		{"text only", errors.New("connection refused; timeout; unexpected EOF"), llm.ClassOther, llm.ClassOther},
		{"another client's 404", &codeErr{404}, llm.ClassOther, llm.ClassNotFound},
		{"another client's 409", &codeErr{409}, llm.ClassOther, "http_409"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Classify(0, "", tt.err); got != tt.classify {
				t.Errorf("Classify(0, \"\", %v) = %q; want %q", tt.err, got, tt.classify)
			}
			if got := llm.ErrorClass(tt.err); got != tt.errorClass {
				t.Errorf("ErrorClass(%v) = %q; want %q", tt.err, got, tt.errorClass)
			}
		})
	}
}

// codeErr is another client's HTTP error: it has a StatusCode() int method.
type codeErr struct{ code int }

func (e *codeErr) Error() string   { return fmt.Sprintf("status %d", e.code) }
func (e *codeErr) StatusCode() int { return e.code }

// TestHandlingOf: every documented class has the handling its table row
// gives; http_<code> of a 4xx is a refused request; a class the package
// does not define is unknown, not retried.
func TestHandlingOf(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range llm.Classes() {
		if seen[c.Class] {
			t.Errorf("class %q documented twice", c.Class)
		}
		seen[c.Class] = true
		if c.Cause == "" {
			t.Errorf("class %q has no cause", c.Class)
		}
		if strings.HasPrefix(c.Class, llm.ClassHTTPPrefix) {
			continue
		}
		if got := llm.HandlingOf(c.Class); got != c.Handling {
			t.Errorf("HandlingOf(%q) = %+v; want %+v", c.Class, got, c.Handling)
		}
	}
	for _, c := range []string{llm.ClassCanceled, llm.ClassDeadline, llm.ClassTimeout, llm.ClassNetwork, llm.ClassMalformed,
		llm.ClassRateLimited, llm.ClassAuth, llm.ClassBadRequest, llm.ClassNotFound, llm.ClassServerError, llm.ClassOther} {
		if !seen[c] {
			t.Errorf("class %q is not in Classes", c)
		}
	}
	tests := []struct {
		class string
		want  llm.Handling
	}{
		{"http_409", llm.Handling{Outcome: llm.OutcomeRefused}},
		{"http_413", llm.Handling{Outcome: llm.OutcomeRefused}},
		{"http_302", llm.Handling{Outcome: llm.OutcomeUnknown}},
		{"http_x", llm.Handling{Outcome: llm.OutcomeUnknown}},
		{"runner", llm.Handling{Outcome: llm.OutcomeUnknown}},
		{llm.ClassRateLimited, llm.Handling{Retried: true, Outcome: llm.OutcomeTransient}},
		{llm.ClassNotFound, llm.Handling{Outcome: llm.OutcomeFatal}},
	}
	for _, tt := range tests {
		if got := llm.HandlingOf(tt.class); got != tt.want {
			t.Errorf("HandlingOf(%q) = %+v; want %+v", tt.class, got, tt.want)
		}
	}
}

// TestOpenAIErrorBodies: the backend reads the error message out of each
// server's error body (OpenAI's {"error": {"message"}}, vLLM's {"object":
// "error", "message"}, Ollama's {"error": "..."}, FastAPI's {"detail"})
// and classes the answer by it: a refusal sent with 500 is bad_request
// and sent once, a plain 500 is retried.
func TestOpenAIErrorBodies(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		class    string
		requests int
	}{
		{"OpenAI context length", 400, `{"error": {"message": "This model's maximum context length is 8192 tokens.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}`, llm.ClassBadRequest, 1},
		{"vLLM context length", 400, `{"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", "type": "BadRequestError", "param": null, "code": 400}`, llm.ClassBadRequest, 1},
		{"Ollama schema on 500", 500, `{"error": "invalid JSON schema in format"}`, llm.ClassBadRequest, 1},
		// llama.cpp server's context overflow as recent releases send it
		// (type exceed_context_size_error, with the token counts).
		{"llama.cpp context size", 400, `{"error": {"code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens)", "type": "exceed_context_size_error", "n_prompt_tokens": 4476, "n_ctx": 4096}}`, llm.ClassBadRequest, 1},
		{"llama.cpp format on 500", 500, `{"error": {"code": 500, "message": "response_format type must be one of \"text\" or \"json_object\", but got: json_schema", "type": "server_error"}}`, llm.ClassBadRequest, 1},
		{"FastAPI detail 404", 404, `{"detail": "Not Found"}`, llm.ClassNotFound, 1},
		{"Ollama plain 500", 500, `{"error": "llama runner process has terminated"}`, llm.ClassServerError, 2},
		{"text 502", 502, `Bad Gateway`, llm.ClassServerError, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 1, WaitScale: 0.001, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			var e *llm.Error
			if !errors.As(err, &e) || e.Class != tt.class || e.StatusCode != tt.status || int(calls.Load()) != tt.requests {
				t.Errorf("got err %v (class %q), %d requests; want class %q, status %d, %d requests", err, llm.ErrorClass(err), calls.Load(), tt.class, tt.status, tt.requests)
			}
		})
	}
}
