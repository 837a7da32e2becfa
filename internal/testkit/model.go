package testkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// ErrScriptExhausted is the error of a call that a script (Replies) has no
// reply for.
var ErrScriptExhausted = errors.New("testkit: script exhausted")

// Sample is one scripted sample of a response: the answer text, the
// reasoning a server returned apart from it, and its finish reason
// (llm.FinishStop, llm.FinishLength, ...; "" for none).
type Sample struct {
	Text, Reasoning, Finish string
}

// ReplyFunc answers call number call (0-based, counting every call the
// model received, rejected ones included) of req with the samples of the
// response, or fails it with an error (a refused request, a failing
// server). Returning no samples gives a response without choices, as some
// servers send.
type ReplyFunc func(call int, req llm.Request) ([]Sample, error)

// Model is a fake llm.Client for tests: Reply scripts its answers, Reject
// can refuse requests, and it records every request it receives. Calls
// are serialised, so Reply and Reject may keep state without locking
// (and may call the Model's methods). A Model must not be copied after its
// first call.
type Model struct {
	// Reply answers each call; see ReplyFunc. Required.
	Reply ReplyFunc
	// Reject, when set, is asked before Reply: a non-nil error is the
	// call's error and Reply is not asked.
	Reject func(req llm.Request) error
	// Usage is the token usage each response reports; TokensPerSample is
	// added to its completion tokens for every sample.
	Usage           llm.Usage
	TokensPerSample int
	// DefaultFinish is the finish reason of a sample that names none
	// (llm.FinishStop for a server that always reports one; "" to leave
	// it unset).
	DefaultFinish string

	mu  sync.Mutex // serialises calls
	rec Recorder
}

// Complete records req and answers it: Reject's error, Reply's error, or a
// response whose Choices are the samples' texts. Reasoning and
// FinishReasons are set only when some sample has one.
func (m *Model) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	call := m.rec.record(req)
	if m.Reject != nil {
		if err := m.Reject(req); err != nil {
			m.rec.answer(call, nil, err)
			return nil, err
		}
	}
	if m.Reply == nil {
		return nil, errors.New("testkit: Model has no Reply")
	}
	samples, err := m.Reply(call, req)
	if err != nil {
		m.rec.answer(call, nil, err)
		return nil, err
	}
	resp := m.response(samples)
	m.rec.answer(call, resp, nil)
	return resp, nil
}

// response builds the response of samples.
func (m *Model) response(samples []Sample) *llm.Response {
	resp := &llm.Response{Usage: m.Usage}
	reasoning, finish := false, false
	for _, s := range samples {
		if s.Finish == "" {
			s.Finish = m.DefaultFinish
		}
		reasoning = reasoning || s.Reasoning != ""
		finish = finish || s.Finish != ""
		resp.Choices = append(resp.Choices, s.Text)
		resp.Reasoning = append(resp.Reasoning, s.Reasoning)
		resp.FinishReasons = append(resp.FinishReasons, s.Finish)
		resp.Usage.CompletionTokens += m.TokensPerSample
	}
	if !reasoning {
		resp.Reasoning = nil
	}
	if !finish {
		resp.FinishReasons = nil
	}
	return resp
}

// Requests returns a copy of the requests received so far, in order.
func (m *Model) Requests() []llm.Request { return m.rec.Requests() }

// Log returns the calls received so far, in order, with their answers.
func (m *Model) Log() []Call { return m.rec.Log() }

// Prompts returns the content of every message of every request received
// so far, in order.
func (m *Model) Prompts() []string { return m.rec.Prompts() }

// Calls returns the number of requests received for responder ("" for
// all requests).
func (m *Model) Calls(responder string) int { return m.rec.Calls(responder) }

// Samples returns the number of samples asked for by the requests for
// responder ("" for all requests).
func (m *Model) Samples(responder string) int { return m.rec.Samples(responder) }

// Replies scripts a conversation: call i is answered with one sample,
// texts[i]; a call past the last text fails with ErrScriptExhausted.
func Replies(texts ...string) ReplyFunc {
	return func(call int, _ llm.Request) ([]Sample, error) {
		if call >= len(texts) {
			return nil, fmt.Errorf("call %d of a script of %d replies: %w", call+1, len(texts), ErrScriptExhausted)
		}
		return []Sample{{Text: texts[call]}}, nil
	}
}

// Looping scripts a model stuck in a pattern: call i is answered with
// texts[i], and every call past the last with the last text again.
func Looping(texts ...string) ReplyFunc {
	return func(call int, _ llm.Request) ([]Sample, error) {
		return []Sample{{Text: texts[min(call, len(texts)-1)]}}, nil
	}
}

// Turn is one scripted call: a response of one sample (Text, Reasoning,
// Finish), or, when Err is set, the call's error.
type Turn struct {
	Text, Reasoning, Finish string
	Err                     error
}

// sample returns the turn's response, or its error.
func (t Turn) sample() ([]Sample, error) {
	if t.Err != nil {
		return nil, t.Err
	}
	return []Sample{{Text: t.Text, Reasoning: t.Reasoning, Finish: t.Finish}}, nil
}

// Turns scripts a conversation: call i is answered with turns[i]; a call
// past the last turn fails with ErrScriptExhausted.
func Turns(turns ...Turn) ReplyFunc {
	return func(call int, _ llm.Request) ([]Sample, error) {
		if call >= len(turns) {
			return nil, fmt.Errorf("call %d of a script of %d turns: %w", call+1, len(turns), ErrScriptExhausted)
		}
		return turns[call].sample()
	}
}

// ByRole scripts each model role apart: the i-th request of role r is
// answered with scripts[r][i]; a request past the end of its role's
// script, or of a role without one, fails with ErrScriptExhausted.
func ByRole(scripts map[string][]Turn) ReplyFunc {
	next := map[string]int{}
	return func(_ int, req llm.Request) ([]Sample, error) {
		turns := scripts[req.Role]
		i := next[req.Role]
		if i >= len(turns) {
			return nil, fmt.Errorf("request %d of role %q, scripted %d: %w", i+1, req.Role, len(turns), ErrScriptExhausted)
		}
		next[req.Role]++
		return turns[i].sample()
	}
}

// Fixed answers every call with the same samples, however many the
// request asks for.
func Fixed(samples ...Sample) ReplyFunc {
	return func(int, llm.Request) ([]Sample, error) { return samples, nil }
}

// Text answers every call with text, once per sample the request asks
// for.
func Text(text string) ReplyFunc {
	return PerSample(func(llm.Request, int) (Sample, error) { return Sample{Text: text}, nil })
}

// PerSample answers each call with req.Samples() samples, sample i given
// by f; an error from f fails the call.
func PerSample(f func(req llm.Request, i int) (Sample, error)) ReplyFunc {
	return func(_ int, req llm.Request) ([]Sample, error) {
		out := make([]Sample, 0, req.Samples())
		for i := range req.Samples() {
			s, err := f(req, i)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
}

// Call is one call a Recorder or a Model received: the request and the
// response or error it got (both nil while the call is in flight).
type Call struct {
	Req  llm.Request
	Resp *llm.Response
	Err  error
}

// Recorder is an llm.Client that passes every request to Client and
// records it with its answer, for tests that check what another client
// (the simulator, an HTTP backend) was asked and answered. Its zero value
// with Client set is ready to use; it may be called concurrently.
type Recorder struct {
	Client llm.Client

	mu    sync.Mutex
	calls []Call
}

// Complete records req and Client's answer to it, and returns the answer.
func (r *Recorder) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	i := r.record(req)
	resp, err := r.Client.Complete(ctx, req)
	r.answer(i, resp, err)
	return resp, err
}

// record appends a call of req and returns its index.
func (r *Recorder) record(req llm.Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, Call{Req: req})
	return len(r.calls) - 1
}

// answer records the answer of call i.
func (r *Recorder) answer(i int, resp *llm.Response, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[i].Resp, r.calls[i].Err = resp, err
}

// Log returns the calls received so far, in the order they came, with
// their answers.
func (r *Recorder) Log() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Requests returns the requests received so far, in order.
func (r *Recorder) Requests() []llm.Request {
	var out []llm.Request
	for _, c := range r.Log() {
		out = append(out, c.Req)
	}
	return out
}

// Prompts returns the content of every message of every request received
// so far, in order.
func (r *Recorder) Prompts() []string {
	var out []string
	for _, req := range r.Requests() {
		for _, msg := range req.Messages {
			out = append(out, msg.Content)
		}
	}
	return out
}

// Calls returns the number of requests received for responder ("" for
// all requests).
func (r *Recorder) Calls(responder string) int {
	n := 0
	for _, req := range r.Requests() {
		if responder == "" || req.Responder == responder {
			n++
		}
	}
	return n
}

// Samples returns the number of samples asked for by the requests for
// responder ("" for all requests).
func (r *Recorder) Samples(responder string) int {
	n := 0
	for _, req := range r.Requests() {
		if responder == "" || req.Responder == responder {
			n += req.Samples()
		}
	}
	return n
}

// PromptLine returns the line that follows label in the last message of
// req ("" when label is absent): with label "【Question】\n", the question
// a runner's prompt asks about.
func PromptLine(req llm.Request, label string) string {
	if len(req.Messages) == 0 {
		return ""
	}
	_, rest, ok := strings.Cut(req.Messages[len(req.Messages)-1].Content, label)
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, "\n")
	return line
}

// NoChoices, as Sabotage's answer, makes the sabotaged requests return a
// response without choices.
const NoChoices = "<none>"

// ErrConnRefused is the infrastructure error of Sabotage's failing
// responder.
var ErrConnRefused = errors.New("connection refused")

// Sabotage answers like a sensible model, sample i of a request being
// good(req, i), except that the requests whose Responder is in bad (every
// request, when bad holds "*") get answer for every sample (no choices at
// all when answer is NoChoices), and the requests for responder fail
// (when not "") fail with ErrConnRefused: the model of tests that feed one
// step of a runner the garbage real models send.
func Sabotage(good func(req llm.Request, i int) string, bad map[string]bool, answer, fail string) ReplyFunc {
	return func(_ int, req llm.Request) ([]Sample, error) {
		if fail != "" && req.Responder == fail {
			return nil, ErrConnRefused
		}
		sabotaged := bad["*"] || bad[req.Responder]
		if sabotaged && answer == NoChoices {
			return nil, nil
		}
		out := make([]Sample, 0, req.Samples())
		for i := range req.Samples() {
			text := answer
			if !sabotaged {
				text = good(req, i)
			}
			out = append(out, Sample{Text: text})
		}
		return out, nil
	}
}
