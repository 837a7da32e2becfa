// Package fakeopenai is an OpenAI-compatible chat-completions server for
// tests: an httptest server that answers POST /v1/chat/completions (and
// /chat/completions) from a scripted Responder, honours n and seed the way
// vLLM does, reports usage, enforces OpenAI's strict-mode schema rules with
// OpenAI's error body, and can behave like servers that lack a feature or
// fail (no response_format, o-series max_tokens, 429, 5xx, truncated and
// malformed bodies).
//
// A typical test:
//
//	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(r *fakeopenai.Request, s fakeopenai.Sample) fakeopenai.Choice {
//		return fakeopenai.Choice{Content: "```sql\nSELECT 1\n```"}
//	}})
//	client, _ := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m"})
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat is a request's response_format.
type ResponseFormat struct {
	Type   string          // "json_schema", "json_object" or "text"
	Name   string          // json_schema.name
	Strict bool            // json_schema.strict
	Schema json.RawMessage // json_schema.schema
}

// Request is a chat-completion request as the server received it.
type Request struct {
	Path     string
	Model    string
	Messages []Message
	// N is the number of choices asked for (1 when absent).
	N           int
	Seed        *int64
	Temperature *float64
	// MaxTokens is the token limit (0: none) and MaxTokensParam the
	// parameter that carried it ("max_tokens", "max_completion_tokens" or
	// "").
	MaxTokens      int
	MaxTokensParam string
	// ResponseFormat is nil when the request sent none.
	ResponseFormat *ResponseFormat
	// Body is the whole request body, decoded.
	Body map[string]any
}

// Sample identifies one choice of a request.
type Sample struct {
	// Call is the 0-based number of the chat request among all the server
	// received; Index is the choice's index in 0..n-1.
	Call, Index int
	// Seed is the sample's seed: the request's seed plus Index, as vLLM
	// seeds the i-th of n parallel samples (vllm/v1/engine/
	// parallel_sampling.py); nil when the request has no seed. A
	// Responder that is a function of Seed behaves like a seeded server:
	// the same seed gives the same sample.
	Seed *int64
}

// Choice is one answer.
type Choice struct {
	Content string
	// ReasoningContent is sent as message.reasoning_content (DeepSeek's
	// API, vLLM and SGLang reasoning parsers); Reasoning as
	// message.reasoning (newer vLLM, Ollama, OpenRouter).
	ReasoningContent string
	Reasoning        string
	// FinishReason is sent as finish_reason; "" means "stop", or "length"
	// when the server cut the choice at the request's token limit.
	FinishReason string
}

// Responder answers sample s of req.
type Responder func(req *Request, s Sample) Choice

// DefaultResponder answers "sample seed=<seed>" for a seeded sample and
// "sample call=<call> index=<index>" otherwise, so every unseeded sample
// differs and seeded samples repeat exactly when their seed does.
func DefaultResponder(_ *Request, s Sample) Choice {
	if s.Seed != nil {
		return Choice{Content: fmt.Sprintf("sample seed=%d", *s.Seed)}
	}
	return Choice{Content: fmt.Sprintf("sample call=%d index=%d", s.Call, s.Index)}
}

// Options configure a Server. The zero value is a well-behaved server
// that answers with DefaultResponder and enforces strict mode.
type Options struct {
	Responder Responder
	// RejectResponseFormat answers 400 to any request with a
	// response_format, as a server without structured output does;
	// RejectJSONSchema does so only for type json_schema.
	RejectResponseFormat bool
	RejectJSONSchema     bool
	// RejectMaxTokens answers 400 to a request with max_tokens, as
	// OpenAI's o-series models do.
	RejectMaxTokens bool
	// RejectTopK answers 400 to a request with the extra field top_k, as
	// OpenAI's API (and others that hold to its schema) does.
	RejectTopK bool
	// NoStrictCheck accepts strict schemas that break the strict-mode
	// rules (llm.CheckStrictSchema).
	NoStrictCheck bool
	// IgnoreN answers one choice whatever n is, as llama.cpp server and
	// Ollama do.
	IgnoreN bool
	// Model is the model name in answers ("" echoes the request's).
	Model string
	// Models, when set, are the only model names the server serves: a
	// request for another gets 404 "model '<name>' not found", as a server
	// that does not serve the requested name answers.
	Models []string
	// APIKey, when set, is the only key the server accepts: a request
	// without "Authorization: Bearer <APIKey>" gets 401, with OpenAI's
	// error body (invalid_api_key).
	APIKey string
	// ListModels makes the server answer GET /v1/models (and /models) as
	// vLLM does: an entry per name of Models (else Model), with root Root
	// (the weights the name serves) and a created time that changes with
	// every request. Without it that path gets 404, as on servers without
	// a model list.
	ListModels bool
	Root       string
	// SystemFingerprint, when set, is sent as every answer's
	// system_fingerprint.
	SystemFingerprint string
}

// Tokens are counted as one per 4 bytes of text (at least 1 for non-empty
// text), a rough stand-in for a tokenizer.
const bytesPerToken = 4

// Server is a fake OpenAI-compatible server. It is safe for concurrent
// use.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:12345.
	URL string

	srv  *httptest.Server
	opts Options

	mu         sync.Mutex
	reqs       []Request
	calls      int
	faults     []Fault
	modelLists int
}

// New starts a server that t closes when it ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s := NewUnstarted(opts)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// NewUnstarted returns a server that is not listening: an http.Handler for
// a program that serves it itself (scripts/fakeopenai, for the new-user
// walk-through). Its URL is empty.
func NewUnstarted(opts Options) *Server {
	if opts.Responder == nil {
		opts.Responder = DefaultResponder
	}
	return &Server{opts: opts}
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r) }

// BaseURL returns the API root to configure clients with (URL + "/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Calls returns the number of chat-completion requests received, failed
// ones included.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Requests returns the chat-completion requests received whose body
// decoded, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Fail makes the server answer its next len(faults) chat requests with
// faults, in order; later requests are answered normally again.
func (s *Server) Fail(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// FailN makes the server answer its next n chat requests with f, as
// Fail(f, f, ..., f) would.
func (s *Server) FailN(f Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// Fault is a failed answer.
type Fault func(w http.ResponseWriter)

// TooManyRequests answers 429 with the given Retry-After header ("" for
// none).
func TooManyRequests(retryAfter string) Fault {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeError(w, http.StatusTooManyRequests, "Rate limit reached for requests", "requests", "", "rate_limit_exceeded")
	}
}

// Status answers code with an OpenAI error body holding message.
func Status(code int, message string) Fault {
	return func(w http.ResponseWriter) { writeError(w, code, message, "server_error", "", "") }
}

// Truncated promises a longer body than it sends, then closes the
// connection.
func Truncated() Fault {
	return func(w http.ResponseWriter) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "no hijacker", http.StatusInternalServerError)
			return
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		part := `{"id":"chatcmpl-cut","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"SELE`
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(part)+500, part)
		buf.Flush()
	}
}

// Reset drops the connection without an answer, with a TCP reset
// (SO_LINGER 0), as a server that crashes mid-request does: the client
// reads ECONNRESET (or EOF).
func Reset() Fault {
	return func(w http.ResponseWriter) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "no hijacker", http.StatusInternalServerError)
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}
}

// Malformed answers 200 with a body that is not JSON.
func Malformed() Fault {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [ this is not json }`)
	}
}

// writeError writes OpenAI's error body:
// {"error": {"message", "type", "param", "code"}}.
func writeError(w http.ResponseWriter, code int, message, typ, param, errCode string) {
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if param != "" {
		e["param"] = param
	}
	if errCode != "" {
		e["code"] = errCode
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// listModels answers GET /v1/models (Options.ListModels).
func (s *Server) listModels(w http.ResponseWriter) {
	names := s.opts.Models
	if len(names) == 0 && s.opts.Model != "" {
		names = []string{s.opts.Model}
	}
	s.mu.Lock()
	s.modelLists++
	created := 1700000000 + s.modelLists
	s.mu.Unlock()
	data := []map[string]any{}
	for _, n := range names {
		m := map[string]any{"id": n, "object": "model", "created": created, "owned_by": "fakeopenai"}
		if s.opts.Root != "" {
			m["root"] = s.opts.Root
		}
		data = append(data, m)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.opts.ListModels && r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/models") {
		s.listModels(w)
		return
	}
	if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions" {
		writeError(w, http.StatusNotFound, "Unknown request URL: "+r.Method+" "+r.URL.Path, "invalid_request_error", "", "unknown_url")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "Method not allowed: "+r.Method, "invalid_request_error", "", "")
		return
	}
	s.mu.Lock()
	call := s.calls
	s.calls++
	var fault Fault
	if len(s.faults) > 0 {
		fault, s.faults = s.faults[0], s.faults[1:]
	}
	s.mu.Unlock()
	if fault != nil {
		fault(w)
		return
	}
	req, err := decode(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error(), "invalid_request_error", "", "")
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, *req)
	s.mu.Unlock()

	if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided. You can find your API key in your account settings.", "invalid_request_error", "", "invalid_api_key")
		return
	}
	if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, req.Model) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model), "invalid_request_error", "model", "model_not_found")
		return
	}

	if _, ok := req.Body["top_k"]; ok && s.opts.RejectTopK {
		writeError(w, http.StatusBadRequest, "Unrecognized request argument supplied: top_k", "invalid_request_error", "", "")
		return
	}
	if s.opts.RejectMaxTokens && req.MaxTokensParam == "max_tokens" {
		writeError(w, http.StatusBadRequest, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error", "max_tokens", "unsupported_parameter")
		return
	}
	if rf := req.ResponseFormat; rf != nil {
		if s.opts.RejectResponseFormat || (s.opts.RejectJSONSchema && rf.Type == "json_schema") {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Invalid parameter: 'response_format' of type '%s' is not supported with this model.", rf.Type), "invalid_request_error", "response_format", "")
			return
		}
		if rf.Type == "json_schema" && rf.Strict && !s.opts.NoStrictCheck {
			if err := llm.CheckStrictSchema(rf.Schema); err != nil {
				msg := strings.ReplaceAll(err.Error(), "\n", "; ")
				writeError(w, http.StatusBadRequest, fmt.Sprintf("Invalid schema for response_format '%s': %s", rf.Name, msg), "invalid_request_error", "response_format", "")
				return
			}
		}
	}

	n := req.N
	if s.opts.IgnoreN {
		n = 1
	}
	promptBytes := 0
	for _, m := range req.Messages {
		promptBytes += len(m.Content)
	}
	model := s.opts.Model
	if model == "" {
		model = req.Model
	}
	var choices []map[string]any
	completion, reasoningTokens := 0, 0
	for i := range n {
		smp := Sample{Call: call, Index: i}
		if req.Seed != nil {
			seed := *req.Seed + int64(i)
			smp.Seed = &seed
		}
		c := s.opts.Responder(req, smp)
		c = cut(c, req.MaxTokens)
		if c.FinishReason == "" {
			c.FinishReason = "stop"
		}
		msg := map[string]any{"role": "assistant", "content": c.Content}
		if c.ReasoningContent != "" {
			msg["reasoning_content"] = c.ReasoningContent
		}
		if c.Reasoning != "" {
			msg["reasoning"] = c.Reasoning
		}
		rt := tokens(c.ReasoningContent) + tokens(c.Reasoning)
		reasoningTokens += rt
		completion += tokens(c.Content) + rt
		choices = append(choices, map[string]any{"index": i, "message": msg, "finish_reason": c.FinishReason, "logprobs": nil})
	}
	prompt := (promptBytes + bytesPerToken - 1) / bytesPerToken
	body := map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%d", call), "object": "chat.completion", "created": 1700000000, "model": model,
		"choices": choices,
		"usage": map[string]any{
			"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoningTokens},
		},
	}
	if s.opts.SystemFingerprint != "" {
		body["system_fingerprint"] = s.opts.SystemFingerprint
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// tokens counts the tokens of text (see bytesPerToken).
func tokens(text string) int { return (len(text) + bytesPerToken - 1) / bytesPerToken }

// cut applies a token limit the way servers do: reasoning is generated
// first, so the limit cuts reasoning, then the answer, and the choice
// finishes with "length".
func cut(c Choice, limit int) Choice {
	if limit <= 0 || tokens(c.ReasoningContent)+tokens(c.Reasoning)+tokens(c.Content) <= limit {
		return c
	}
	left := limit * bytesPerToken
	take := func(s *string) {
		if len(*s) > left {
			*s = (*s)[:left]
		}
		left -= len(*s)
	}
	take(&c.ReasoningContent)
	take(&c.Reasoning)
	take(&c.Content)
	c.FinishReason = "length"
	return c
}

// decode reads a chat-completion request body.
func decode(r *http.Request) (*Request, error) {
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	dec.UseNumber() // seeds are int64: no float64 round trip
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	var typed struct {
		Model               string    `json:"model"`
		Messages            []Message `json:"messages"`
		N                   *int      `json:"n"`
		Seed                *int64    `json:"seed"`
		Temperature         *float64  `json:"temperature"`
		MaxTokens           *int      `json:"max_tokens"`
		MaxCompletionTokens *int      `json:"max_completion_tokens"`
		ResponseFormat      *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	raw, _ := json.Marshal(body)
	if err := json.Unmarshal(raw, &typed); err != nil {
		return nil, err
	}
	req := &Request{Path: r.URL.Path, Model: typed.Model, Messages: typed.Messages, N: 1, Seed: typed.Seed, Temperature: typed.Temperature, Body: body}
	if typed.N != nil && *typed.N > 0 {
		req.N = *typed.N
	}
	switch {
	case typed.MaxTokens != nil:
		req.MaxTokens, req.MaxTokensParam = *typed.MaxTokens, "max_tokens"
	case typed.MaxCompletionTokens != nil:
		req.MaxTokens, req.MaxTokensParam = *typed.MaxCompletionTokens, "max_completion_tokens"
	}
	if rf := typed.ResponseFormat; rf != nil {
		req.ResponseFormat = &ResponseFormat{Type: rf.Type}
		if js := rf.JSONSchema; js != nil {
			req.ResponseFormat.Name, req.ResponseFormat.Strict, req.ResponseFormat.Schema = js.Name, js.Strict, js.Schema
		}
	}
	return req, nil
}
