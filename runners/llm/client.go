// Package llm is the one door through which runners talk to models: a small
// Client interface, an OpenAI-compatible backend and a response cache. It
// knows nothing of datasets; the offline simulator is package sim.
//
// A failed model call has one class, given by Classify from the HTTP
// status and the server's error message or from the transport error (the
// Class constants, documented with what causes each, whether the backend
// retries it and its Outcome for a run; Classes lists them). The backend's
// retries and a Pool's endpoint health read that class here; callers (a
// search method pruning a refused request, a run's decision for an item,
// its stored error class, the failure report, the exit status) read it
// through ErrorClass and HandlingOf, never from a status of their own.
//
// Answers are returned, cached and stored as the server sent them. Secrets
// are redacted (Redactor) only from logs, error texts and the request
// messages the cache keeps, and only credentials that could be secrets
// (IsSecret: at least MinSecretLen characters, not one of the
// Placeholders such as EMPTY); NewDisplayRedactor is what commands apply
// to stored answers when they show them. Every cached sample row carries a
// CRC-32C checksum (cachesum.go): a damaged row is a miss, asked again and
// counted (CacheStats.Corrupt), never an answer; VerifyCache reads a
// whole cache file.
package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/t2sbench/t2sbench/internal/satint"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// AnswerKind says what kind of answer the caller expects, so that backends
// can request structured output and the simulator can answer in the right
// shape.
type AnswerKind string

const (
	AnswerText AnswerKind = "text" // free text
	AnswerSQL  AnswerKind = "sql"  // text ending in a fenced SQL block
	AnswerJSON AnswerKind = "json" // a JSON object matching Request.Schema
	AnswerDSL  AnswerKind = "dsl"  // ReAct DSL calls
)

// Request is one chat-completion request.
type Request struct {
	// Role is the model role ("reason", "understand", "discriminator", ...);
	// a spec binds each role to a backend and model.
	Role     string    `json:"role"`
	Messages []Message `json:"messages"`

	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p,omitempty"` // 0 means the backend default
	// TopK is top-k sampling (0: not sent, the backend default). It is not
	// part of OpenAI's chat schema: the OpenAI backend sends it as an extra
	// body field "top_k" (vLLM, SGLang and llama.cpp server read it) unless
	// OpenAIConfig.OmitTopK is set for the endpoint.
	TopK      int      `json:"top_k,omitempty"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	Stop      []string `json:"stop,omitempty"`
	// N is the number of samples wanted (0 means 1).
	N    int    `json:"n,omitempty"`
	Seed *int64 `json:"seed,omitempty"`

	Answer AnswerKind `json:"answer,omitempty"`
	// Schema is the JSON schema of the answer when Answer is AnswerJSON.
	Schema json.RawMessage `json:"schema,omitempty"`
	// SchemaName names Schema (required by OpenAI's json_schema format).
	SchemaName string `json:"schema_name,omitempty"`
	// Responder names the request kind: what the caller asks the model
	// for ("alphasql/rephrase", "reactdsl/turn", ...). The call log
	// records it; the simulator (package sim) picks its responder by it;
	// real backends ignore it.
	Responder string `json:"responder,omitempty"`
}

// Samples returns the number of samples requested (at least 1).
func (r Request) Samples() int {
	if r.N < 1 {
		return 1
	}
	return r.N
}

// Usage is token accounting for one request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens the server reports as
	// reasoning (usage.completion_tokens_details.reasoning_tokens); 0 when
	// the server reports none.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// MaxTokenCount is the largest token count a Usage holds. A server's
// count is validated before it is returned, cached or stored: a negative
// count reads 0 and one above MaxTokenCount reads MaxTokenCount (see
// Usage.Clamp). A billion tokens in one response is a hundred times the
// longest context window a model has, so no honest count is changed, and
// at most 9.2e9 such counts add up within an int64: a run's sums (each
// itself saturating, see package internal/satint) never overflow.
//
// The counts are clamped rather than the response rejected: usage is
// accounting, the answer beside it is still the model's, and a response
// rejected as malformed would leave its item pending on every resume
// against the same server.
const MaxTokenCount = 1_000_000_000

// Clamp returns u with each count limited to [0, MaxTokenCount] and
// whether any was changed.
func (u Usage) Clamp() (Usage, bool) {
	var a, b, c bool
	u.PromptTokens, a = satint.Clamp(u.PromptTokens, 0, MaxTokenCount)
	u.CompletionTokens, b = satint.Clamp(u.CompletionTokens, 0, MaxTokenCount)
	u.ReasoningTokens, c = satint.Clamp(u.ReasoningTokens, 0, MaxTokenCount)
	return u, a || b || c
}

// Add returns the sum of u and v, each count added without overflow and
// limited to [0, MaxTokenCount] (Clamp).
func (u Usage) Add(v Usage) Usage {
	s, _ := Usage{
		PromptTokens:     satint.Add(u.PromptTokens, v.PromptTokens),
		CompletionTokens: satint.Add(u.CompletionTokens, v.CompletionTokens),
		ReasoningTokens:  satint.Add(u.ReasoningTokens, v.ReasoningTokens),
	}.Clamp()
	return s
}

// Finish reasons a backend reports per sample (OpenAI's finish_reason).
const (
	FinishStop   = "stop"   // the model ended its answer (or hit a stop sequence)
	FinishLength = "length" // the answer was cut at the token limit
	FinishFilter = "content_filter"
)

// Structured-output modes of a JSON request (Request.Answer == AnswerJSON),
// from the most to the least constrained.
const (
	// StructuredStrict sends response_format json_schema with strict: true.
	StructuredStrict = "strict"
	// StructuredJSONObject sends response_format json_object (any JSON
	// object) and states the schema in the prompt.
	StructuredJSONObject = "json_object"
	// StructuredNone sends no response_format and states the schema in the
	// prompt.
	StructuredNone = "none"
)

// Response is the answer to a Request: one choice per sample.
//
// Choices hold the answer text only: reasoning the model wrote before its
// answer (a <think> block, or a server's reasoning_content / reasoning
// field) is moved to Reasoning, so that parsers see the answer alone and
// reasoning is never fed back into a later prompt. Reasoning and
// FinishReasons, when present, are parallel to Choices.
type Response struct {
	Choices []string `json:"choices"`
	// Reasoning is the reasoning text of each sample ("" when none).
	Reasoning []string `json:"reasoning,omitempty"`
	// FinishReasons is each sample's finish reason (FinishStop,
	// FinishLength, ...; "" when the backend gave none).
	FinishReasons []string `json:"finish_reasons,omitempty"`
	Usage         Usage    `json:"usage"`
	Model         string   `json:"model"`
	// Structured is the structured-output mode the answer was produced
	// under for a JSON request (StructuredStrict, StructuredJSONObject or
	// StructuredNone; see OpenAIConfig.Structured), "" for other requests
	// and backends that have no such modes.
	Structured string `json:"structured,omitempty"`
	// Cached is true when the response came from the cache and cost no call.
	Cached bool `json:"cached"`
	// Latency is the wall time of the call (the original call's latency for
	// a cache hit).
	Latency time.Duration `json:"latency_ns"`
	// CacheKey is the request key the cache (CachedClient) stored the
	// samples under, "" when no cache answered: CacheReader.Call(CacheKey,
	// len(Choices)) reads the request and every sample back.
	CacheKey string `json:"cache_key,omitempty"`
	// SystemFingerprint is the server's system_fingerprint of the answer
	// ("" when it sent none); the cache keys later requests by it
	// (CachedClient).
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
}

// Client is a model backend.
type Client interface {
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Finish returns the finish reason of sample i ("" when unknown).
func (r *Response) Finish(i int) string {
	if r == nil || i < 0 || i >= len(r.FinishReasons) {
		return ""
	}
	return r.FinishReasons[i]
}

// Cut reports whether sample i was cut at the token limit.
func (r *Response) Cut(i int) bool { return r.Finish(i) == FinishLength }

// ReasoningOf returns the reasoning text of sample i ("" when none).
func (r *Response) ReasoningOf(i int) string {
	if r == nil || i < 0 || i >= len(r.Reasoning) {
		return ""
	}
	return r.Reasoning[i]
}

// WriteError is a failed write of a file a client keeps (the response
// cache): Op names the write, Path the file. A run reads Path from it to
// say where space ran out (an environment failure, which leaves the item
// pending).
type WriteError struct {
	Op   string
	Path string
	Err  error
}

func (e *WriteError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *WriteError) Unwrap() error { return e.Err }
