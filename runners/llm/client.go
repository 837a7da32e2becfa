// Package llm is the one door through which runners talk to models: a small
// Client interface, an OpenAI-compatible backend, a response cache, and the
// offline `sim` backend.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// AnswerKind says what kind of answer the caller expects, so that backends
// can request structured output and `sim` can answer in the right shape.
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

	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p,omitempty"` // 0 means the backend default
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// N is the number of samples wanted (0 means 1).
	N    int    `json:"n,omitempty"`
	Seed *int64 `json:"seed,omitempty"`

	Answer AnswerKind `json:"answer,omitempty"`
	// Schema is the JSON schema of the answer when Answer is AnswerJSON.
	Schema json.RawMessage `json:"schema,omitempty"`
	// SchemaName names Schema (required by OpenAI's json_schema format).
	SchemaName string `json:"schema_name,omitempty"`
	// Responder names the sim responder that answers this request kind
	// ("alphasql/rephrase", "reactdsl/turn", ...). Real backends ignore it.
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
}

// Response is the answer to a Request: one choice per sample.
type Response struct {
	Choices []string `json:"choices"`
	Usage   Usage    `json:"usage"`
	Model   string   `json:"model"`
	// Cached is true when the response came from the cache and cost no call.
	Cached bool `json:"cached"`
	// Latency is the wall time of the call (the original call's latency for
	// a cache hit).
	Latency time.Duration `json:"latency_ns"`
}

// Client is a model backend.
type Client interface {
	Complete(ctx context.Context, req Request) (*Response, error)
}
