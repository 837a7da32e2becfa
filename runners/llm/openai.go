package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/t2sbench/t2sbench/runners/think"
)

// Defaults of the OpenAI-compatible backend, all in one place.
const (
	// DefaultTimeout bounds one attempt (not the whole call with retries).
	// Local servers under load answer long reasoning prompts in tens of
	// seconds; two minutes leaves room without hanging a run.
	DefaultTimeout = 120 * time.Second
	// DefaultMaxRetries is the number of retries after the first attempt.
	// The OpenAI Python SDK retries 2 times; local servers restart and
	// queue, so we allow a few more.
	DefaultMaxRetries = 4
	// DefaultMaxConcurrency is the per-endpoint bound on in-flight requests
	// (vLLM's default max_num_seqs is 256; 16 keeps a shared server usable).
	DefaultMaxConcurrency = 16
	// DefaultBackoffBase and DefaultBackoffMax shape the capped exponential
	// backoff: wait = min(Max, Base*2^attempt), jittered to [wait/2, wait).
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 30 * time.Second
	// DefaultRetryAfterMax caps a server's Retry-After.
	DefaultRetryAfterMax = 2 * time.Minute
	// DefaultEmbedBatch is the number of inputs per embeddings request.
	DefaultEmbedBatch = 128
	// defaultCompletionEstimate is the TPM estimate of completion tokens per
	// sample when MaxTokens is unset.
	defaultCompletionEstimate = 512
	// DefaultMaxResponseBytes caps the bytes of one answer's body after
	// decompression (a gzip body is decoded only this far, so a body that
	// inflates to gigabytes never does). An answer of 32 MiB holds n = 64
	// samples of 500 KiB each, far beyond any model's output.
	DefaultMaxResponseBytes = 32 << 20
	// DefaultMaxChoiceBytes caps the text of one choice (its answer and
	// reasoning together): 8 MiB is about two million tokens.
	DefaultMaxChoiceBytes = 8 << 20
	// ExtraChoices is how many choices beyond those requested an answer
	// may hold (a server may add a few); more fail the call. The count is
	// checked before the body is decoded, so 300,000 choices are never
	// allocated.
	ExtraChoices = 8
)

// OpenAIConfig configures an OpenAI-compatible backend (vLLM, SGLang,
// Ollama, llama.cpp server, hosted APIs).
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. "http://localhost:8000/v1".
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKeyEnv names the environment variable holding the API key. The key
	// itself is read once, sent only in the Authorization header, and never
	// stored in the config, logged, or put into an error. Empty means no key
	// (local servers).
	APIKeyEnv string
	// Timeout bounds one attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt; 0 means
	// DefaultMaxRetries, a negative value disables retries.
	MaxRetries int
	// MaxConcurrency bounds in-flight requests to this endpoint; 0 means
	// DefaultMaxConcurrency, a negative value means unlimited.
	MaxConcurrency int
	// RPM and TPM are optional requests- and tokens-per-minute limits
	// (0: none). Tokens are estimated before a request (prompt characters/4
	// plus MaxTokens, or 512, per sample) and corrected from its usage.
	RPM, TPM int
	// HTTPClient is used for requests (tests); nil means a client with a
	// connection pool sized to MaxConcurrency.
	HTTPClient *http.Client
	// Limiter overrides the limiter built from MaxConcurrency, RPM and TPM.
	// By default clients with the same BaseURL and limits share one.
	Limiter *Limiter

	// BackoffBase and BackoffMax shape the retry backoff (0: defaults).
	BackoffBase, BackoffMax time.Duration
	// RetryAfterMax caps a server's Retry-After (0: DefaultRetryAfterMax).
	RetryAfterMax time.Duration
	// WaitScale multiplies every retry wait, Retry-After included; 0 means
	// 1. Tests set it small to stay fast while checking the waits.
	WaitScale float64
	// JitterSeed seeds the backoff jitter; 0 derives it from BaseURL and
	// Model.
	JitterSeed uint64
	// EmbedBatch is the number of inputs per embeddings request (0:
	// DefaultEmbedBatch).
	EmbedBatch int

	// MaxTokensParam names the request parameter that carries the token
	// limit: MaxTokensParam ("max_tokens", the default, which vLLM, SGLang,
	// Ollama and llama.cpp server honour) or MaxCompletionTokensParam
	// ("max_completion_tokens", which OpenAI's o-series and later models
	// require). When the server answers 400 because the parameter sent is
	// unsupported, the backend switches to the other one once, for all
	// later requests, and retries (see Stats).
	MaxTokensParam string
	// MaxTokens is the token limit of a request that sets none (0: none,
	// the server's default).
	MaxTokens int
	// Structured is the structured-output mode of JSON requests:
	// StructuredStrict (the default), StructuredJSONObject or
	// StructuredNone. When the server rejects the response_format sent, the
	// backend degrades once per endpoint (strict, then json_object, then
	// none) and retries; when it rejects one request's schema only, that
	// request is retried as json_object. Response.Structured records the
	// mode each answer was produced under.
	Structured string
	// OmitTopK leaves Request.TopK out of the requests: for a server that
	// rejects fields outside OpenAI's schema. NewOpenAI sets it for
	// api.openai.com; vLLM, SGLang and llama.cpp server take top_k. Any
	// other server that rejects the field (a 400 naming top_k) turns it
	// off for the endpoint at its first rejection, which is logged, and
	// the request is sent again without it.
	OmitTopK bool
	// Logf reports the backend's adaptations (a parameter switch, a
	// structured-output degrade); nil means log.Printf.
	Logf func(format string, args ...any)

	// MaxResponseBytes caps the bytes of one answer's body after
	// decompression (0: DefaultMaxResponseBytes); MaxChoiceBytes caps the
	// text of one choice, answer and reasoning together (0:
	// DefaultMaxChoiceBytes). An answer over a cap, or with more than
	// ExtraChoices choices beyond those requested, fails the call with
	// class malformed (ErrTooLarge), before the rest of the body is read.
	MaxResponseBytes int64
	MaxChoiceBytes   int
}

// Token-limit parameters (OpenAIConfig.MaxTokensParam).
const (
	MaxTokensParam           = "max_tokens"
	MaxCompletionTokensParam = "max_completion_tokens"
)

// OpenAIStats counts the adaptations of an OpenAI backend to its server.
type OpenAIStats struct {
	// MaxTokensParam is the token-limit parameter now sent.
	MaxTokensParam string `json:"max_tokens_param"`
	// Structured is the endpoint's structured-output mode now.
	Structured string `json:"structured"`
	// ParamSwitches counts switches of the token-limit parameter.
	ParamSwitches int64 `json:"param_switches,omitempty"`
	// StructuredDegrades counts degrades of the endpoint's structured
	// mode (at most 2).
	StructuredDegrades int64 `json:"structured_degrades,omitempty"`
	// SchemaFallbacks counts requests whose schema the server rejected and
	// that were answered as json_object.
	SchemaFallbacks int64 `json:"schema_fallbacks,omitempty"`
	// UsageClamped counts answers whose token counts were outside [0,
	// MaxTokenCount] and were clamped (Usage.Clamp).
	UsageClamped int64 `json:"usage_clamped,omitempty"`
}

// OpenAI is a Client for an OpenAI-compatible chat-completions endpoint.
// It is safe for concurrent use.
//
// Some servers (llama.cpp server, Ollama) ignore n > 1 and return one
// choice. When fewer choices than Request.N come back, OpenAI issues further
// requests for the missing samples until it has N; when the request carries
// a seed, the request for samples from i on is sent with seed
// SampleSeed(seed, i), so seeded servers do not return the same sample
// again. Usage sums over all requests.
type OpenAI struct {
	cfg     OpenAIConfig
	client  *openai.Client
	limiter *Limiter
	redact  func(string) string

	rngMu sync.Mutex
	rng   *rand.Rand

	// completionParam is true while max_completion_tokens is sent.
	completionParam atomic.Bool
	// omitTopK is true while top_k is not sent: set from
	// OpenAIConfig.OmitTopK, and by a server's rejection of the field.
	omitTopK atomic.Bool
	// level is the endpoint's structured mode as an index of
	// structuredLevels.
	level atomic.Int32

	paramSwitches, degrades, schemaFallbacks, usageClamped atomic.Int64
}

// structuredLevels orders the structured modes from the most constrained.
var structuredLevels = []string{StructuredStrict, StructuredJSONObject, StructuredNone}

func structuredLevel(mode string) int32 {
	for i, m := range structuredLevels {
		if m == mode {
			return int32(i)
		}
	}
	return -1
}

// NewOpenAI validates cfg and returns the backend.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("llm: openai: base_url is empty")
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("llm: openai: base_url %q must start with http:// or https://", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("llm: openai %s: model is empty", cfg.BaseURL)
	}
	if cfg.RPM < 0 || cfg.TPM < 0 {
		return nil, fmt.Errorf("llm: openai %s: rpm and tpm must be >= 0 (got %d, %d)", cfg.BaseURL, cfg.RPM, cfg.TPM)
	}
	switch cfg.MaxTokensParam {
	case "", MaxTokensParam, MaxCompletionTokensParam:
	default:
		return nil, fmt.Errorf("llm: openai %s: max_tokens_param %q must be %s or %s", cfg.BaseURL, cfg.MaxTokensParam, MaxTokensParam, MaxCompletionTokensParam)
	}
	if cfg.Structured == "" {
		cfg.Structured = StructuredStrict
	}
	if structuredLevel(cfg.Structured) < 0 {
		return nil, fmt.Errorf("llm: openai %s: structured %q must be %s, %s or %s", cfg.BaseURL, cfg.Structured, StructuredStrict, StructuredJSONObject, StructuredNone)
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("llm: openai %s: max_tokens must be >= 0 (got %d)", cfg.BaseURL, cfg.MaxTokens)
	}
	if cfg.MaxResponseBytes < 0 || cfg.MaxChoiceBytes < 0 {
		return nil, fmt.Errorf("llm: openai %s: max_response_bytes and max_choice_bytes must be >= 0 (got %d, %d)", cfg.BaseURL, cfg.MaxResponseBytes, cfg.MaxChoiceBytes)
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.MaxChoiceBytes == 0 {
		cfg.MaxChoiceBytes = DefaultMaxChoiceBytes
	}
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	if strings.Contains(cfg.BaseURL, "://api.openai.com") {
		cfg.OmitTopK = true
	}
	if cfg.WaitScale < 0 {
		return nil, fmt.Errorf("llm: openai %s: wait scale must be >= 0 (got %g)", cfg.BaseURL, cfg.WaitScale)
	}
	key := ""
	if cfg.APIKeyEnv != "" {
		key = os.Getenv(cfg.APIKeyEnv)
		if key == "" {
			return nil, fmt.Errorf("llm: openai %s: environment variable %s (api_key_env) is empty or unset", cfg.BaseURL, cfg.APIKeyEnv)
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.RetryAfterMax == 0 {
		cfg.RetryAfterMax = DefaultRetryAfterMax
	}
	if cfg.WaitScale == 0 {
		cfg.WaitScale = 1
	}
	if cfg.EmbedBatch <= 0 {
		cfg.EmbedBatch = DefaultEmbedBatch
	}
	if cfg.JitterSeed == 0 {
		h := fnv.New64a()
		h.Write([]byte(cfg.BaseURL + "\x00" + cfg.Model))
		cfg.JitterSeed = h.Sum64()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		conns := cfg.MaxConcurrency
		if conns < 0 {
			conns = 256
		}
		tr.MaxIdleConns = conns + 16
		tr.MaxIdleConnsPerHost = conns
		hc = &http.Client{Transport: tr}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped := *hc
	wrapped.Transport = &probeTransport{base: base, maxBytes: cfg.MaxResponseBytes}

	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &wrapped

	lim := cfg.Limiter
	if lim == nil {
		lim = endpointLimiter(oc.BaseURL, cfg.MaxConcurrency, cfg.RPM, cfg.TPM)
	}
	// The key is redacted from logs and errors when it could be a secret
	// (IsSecret); a placeholder such as EMPTY, or a key of a few
	// characters, is left in place so that error text is not rewritten.
	redact := NewRedactor(key).Redact
	o := &OpenAI{
		cfg:     cfg,
		client:  openai.NewClientWithConfig(oc),
		limiter: lim,
		redact:  redact,
		rng:     rand.New(rand.NewPCG(cfg.JitterSeed, cfg.JitterSeed^0x9e3779b97f4a7c15)),
	}
	o.completionParam.Store(cfg.MaxTokensParam == MaxCompletionTokensParam)
	o.omitTopK.Store(cfg.OmitTopK)
	o.level.Store(structuredLevel(cfg.Structured))
	return o, nil
}

// Stats returns the backend's adaptations so far.
func (o *OpenAI) Stats() OpenAIStats {
	st := OpenAIStats{
		MaxTokensParam:     MaxTokensParam,
		Structured:         structuredLevels[o.level.Load()],
		ParamSwitches:      o.paramSwitches.Load(),
		StructuredDegrades: o.degrades.Load(),
		SchemaFallbacks:    o.schemaFallbacks.Load(),
		UsageClamped:       o.usageClamped.Load(),
	}
	if o.completionParam.Load() {
		st.MaxTokensParam = MaxCompletionTokensParam
	}
	return st
}

// Ident returns the identity of this backend for the response cache. Its
// Options name the settings that change answers when they differ from the
// defaults (a default max_tokens, a structured mode other than strict), so
// that answers made under other settings are not reused.
func (o *OpenAI) Ident() Ident {
	var opts []string
	if o.cfg.MaxTokens > 0 {
		opts = append(opts, fmt.Sprintf("max_tokens=%d", o.cfg.MaxTokens))
	}
	if o.cfg.Structured != StructuredStrict {
		opts = append(opts, "structured="+o.cfg.Structured)
	}
	return Ident{Backend: "openai", BaseURL: strings.TrimRight(o.cfg.BaseURL, "/"), Model: o.cfg.Model, Options: strings.Join(opts, ",")}
}

// ServerIdentity returns what the server's model list (GET /models)
// reports about the configured model: its id and, where sent, root (the
// weights vLLM serves), parent and owner, as "id=... root=..."; "" when
// the server lists no such model or has no model list (404, 405). Fields
// that change with every request (created) are left out. known is false
// when the list could not be read (a network error, a timeout, another
// status): the identity is then unknown, not empty. The request waits at
// most serverIdentityTimeout and outlives a cancelled ctx.
func (o *OpenAI) ServerIdentity(ctx context.Context) (id string, known bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(o.cfg.Timeout, serverIdentityTimeout))
	defer cancel()
	ctx = context.WithValue(ctx, probeKey{}, &probe{maxBytes: maxModelListBytes})
	list, err := o.client.ListModels(ctx)
	if err != nil {
		status, _, _, _ := apiStatus(err)
		return "", status == http.StatusNotFound || status == http.StatusMethodNotAllowed
	}
	for _, m := range list.Models {
		if m.ID != o.cfg.Model {
			continue
		}
		parts := []string{"id=" + m.ID}
		for _, f := range []struct{ k, v string }{{"root", m.Root}, {"parent", m.Parent}, {"owned_by", m.OwnedBy}} {
			if f.v != "" {
				parts = append(parts, f.k+"="+f.v)
			}
		}
		return strings.Join(parts, " "), true
	}
	return "", true
}

// serverIdentityTimeout bounds ServerIdentity's request.
const serverIdentityTimeout = 10 * time.Second

// maxModelListBytes caps the model list ServerIdentity reads (after
// decompression): a list of a thousand models is well under 1 MiB, and a
// list over the cap is an identity not known, never a run's memory.
const maxModelListBytes = 4 << 20

// Complete sends req as one or more chat-completion requests (see OpenAI
// for the fill-up of n) with retries, and adapts to the server: a rejected
// token-limit parameter or response_format is switched or degraded and the
// request retried (see OpenAIConfig).
//
// Each choice's answer is its content without reasoning: the server's
// reasoning_content (DeepSeek, vLLM, SGLang) or reasoning (vLLM, Ollama,
// OpenRouter) field and any inline <think> block (see SplitReasoning) go to
// Response.Reasoning; finish_reason goes to Response.FinishReasons.
//
// Complete is the one retry loop of a model call: a failed request is
// retried here (see OpenAIConfig.MaxRetries) and a call that still fails
// returns an *Error, classified and counting its attempts, which callers
// record rather than retry.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	want := req.Samples()
	out := &Response{}
	var reasoning []string
	schemaFallback := false
	for round := 0; len(out.Choices) < want; round++ {
		if round >= want {
			return nil, o.errorf("server returned %d of %d choices after %d requests", len(out.Choices), want, round)
		}
		got := len(out.Choices)
		var res *chatResult
		for tries := 0; ; tries++ {
			mode := o.mode(req, schemaFallback)
			completionParam := o.completionParam.Load()
			cr, err := o.chatRequest(req, want-got, got, mode, completionParam)
			if err != nil {
				return nil, err
			}
			res, err = o.send(ctx, cr, req, want-got)
			if err == nil {
				if req.Answer == AnswerJSON {
					out.Structured = mode
				}
				break
			}
			// A request adapts a few times at most (a parameter switch,
			// two degrades or a schema fallback); the bound stops a
			// server that keeps changing its mind.
			if tries >= 4 || !o.adapt(err, mode, completionParam, &schemaFallback) {
				return nil, err
			}
		}
		for _, c := range res.choices {
			if len(out.Choices) == want {
				break
			}
			out.Choices = append(out.Choices, c.answer)
			reasoning = append(reasoning, c.reasoning)
			out.FinishReasons = append(out.FinishReasons, c.finish)
		}
		out.Usage = out.Usage.Add(res.usage)
		if out.Model == "" {
			out.Model = res.model
		}
		if res.fingerprint != "" {
			out.SystemFingerprint = res.fingerprint
		}
	}
	for _, r := range reasoning {
		if r != "" {
			out.Reasoning = reasoning
			break
		}
	}
	if out.Model == "" {
		out.Model = o.cfg.Model
	}
	out.Latency = time.Since(start)
	return out, nil
}

// chatResult is one chat-completion answer, decoded.
type chatResult struct {
	model       string
	fingerprint string
	choices     []chatChoice
	usage       Usage
}

type chatChoice struct {
	index                     int
	answer, reasoning, finish string
}

// rawChat is the part of a chat-completion body that go-openai does not
// decode (the reasoning field of vLLM, Ollama and OpenRouter) or decodes
// lossily.
type rawChat struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content          *string         `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

// send makes one chat-completion request (with retries) for n samples and
// decodes its answer.
func (o *OpenAI) send(ctx context.Context, cr openai.ChatCompletionRequest, req Request, n int) (*chatResult, error) {
	var resp openai.ChatCompletionResponse
	var body []byte
	err := o.retry(ctx, o.estimateTokens(req, n), req.Temperature == 0, o.topK(req), func(actx context.Context, p *probe) (int, error) {
		var err error
		p.maxChoices = n + ExtraChoices
		resp, err = o.client.CreateChatCompletion(actx, cr)
		body = p.body
		return resp.Usage.PromptTokens + resp.Usage.CompletionTokens, err
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, o.errorf("server returned no choices (want %d)", n)
	}
	res := &chatResult{model: resp.Model, fingerprint: resp.SystemFingerprint}
	var raw rawChat
	if json.Unmarshal(body, &raw) == nil && len(raw.Choices) == len(resp.Choices) {
		for _, c := range raw.Choices {
			cc := chatChoice{index: c.Index}
			if c.Message.Content != nil {
				cc.answer = *c.Message.Content
			}
			if c.FinishReason != nil {
				cc.finish = *c.FinishReason
			}
			cc.answer, cc.reasoning = splitAnswer(cc.answer, rawString(c.Message.ReasoningContent), rawString(c.Message.Reasoning))
			res.choices = append(res.choices, cc)
		}
		res.usage = Usage{PromptTokens: raw.Usage.PromptTokens, CompletionTokens: raw.Usage.CompletionTokens}
		if d := raw.Usage.CompletionTokensDetails; d != nil {
			res.usage.ReasoningTokens = d.ReasoningTokens
		}
	} else {
		// The body was not captured (a custom transport answered
		// without one): what go-openai decoded.
		for _, c := range resp.Choices {
			cc := chatChoice{index: c.Index, finish: string(c.FinishReason)}
			cc.answer, cc.reasoning = splitAnswer(c.Message.Content, c.Message.ReasoningContent, "")
			res.choices = append(res.choices, cc)
		}
		res.usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
		if d := resp.Usage.CompletionTokensDetails; d != nil {
			res.usage.ReasoningTokens = d.ReasoningTokens
		}
	}
	for i, c := range res.choices {
		if size := len(c.answer) + len(c.reasoning); size > o.cfg.MaxChoiceBytes {
			return nil, o.tooLarge(fmt.Sprintf("choice %d holds %d bytes of text, over the cap of %d (max_choice_bytes)", i, size, o.cfg.MaxChoiceBytes))
		}
	}
	// The server's counts are validated before anything reads them: a
	// negative or absurd one (2^63-1) is clamped (MaxTokenCount). The
	// choices' index only orders them; created and total_tokens are not
	// read.
	var clamped bool
	if res.usage, clamped = res.usage.Clamp(); clamped {
		o.usageClamped.Add(1)
		o.logf("the server reported token counts outside [0, %d]; clamped to %+v", MaxTokenCount, res.usage)
	}
	sort.SliceStable(res.choices, func(i, j int) bool { return res.choices[i].index < res.choices[j].index })
	return res, nil
}

// rawString returns the JSON string in m ("" for null, absent or another
// type: OpenRouter's reasoning_details objects are not text).
func rawString(m json.RawMessage) string {
	var s string
	if len(m) == 0 || json.Unmarshal(m, &s) != nil {
		return ""
	}
	return s
}

// splitAnswer separates a choice's answer from its reasoning: the server's
// reasoning fields first, then any inline reasoning block of the content.
// Content without a reasoning tag is returned as it came.
func splitAnswer(content string, fields ...string) (answer, reasoning string) {
	var parts []string
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			parts = append(parts, f)
		}
	}
	answer = content
	if think.Has(content) {
		var inline string
		answer, inline = SplitReasoning(content)
		if inline != "" {
			parts = append(parts, inline)
		}
	}
	return answer, strings.Join(parts, "\n\n")
}

// mode returns the structured mode of a request under the endpoint's
// current level.
func (o *OpenAI) mode(req Request, schemaFallback bool) string {
	if req.Answer != AnswerJSON {
		return ""
	}
	lvl := o.level.Load()
	if (schemaFallback || len(req.Schema) == 0) && lvl < 1 {
		lvl = 1
	}
	return structuredLevels[lvl]
}

// chatRequest maps req to the go-openai request for n samples, the first of
// which is sample first of req, under structured mode mode, with the token
// limit in max_completion_tokens when completionParam is set.
func (o *OpenAI) chatRequest(req Request, n, first int, mode string, completionParam bool) (openai.ChatCompletionRequest, error) {
	cr := openai.ChatCompletionRequest{
		Model:       o.cfg.Model,
		Temperature: float32(req.Temperature),
		TopP:        float32(req.TopP),
		Stop:        req.Stop,
	}
	limit := req.MaxTokens
	if limit <= 0 {
		limit = o.cfg.MaxTokens
	}
	if completionParam {
		cr.MaxCompletionTokens = limit
	} else {
		cr.MaxTokens = limit //lint:ignore SA1019 max_tokens is what open-source servers honour
	}
	if n > 1 {
		cr.N = n
	}
	if req.Seed != nil {
		s := int(SampleSeed(*req.Seed, first))
		cr.Seed = &s
	}
	for _, m := range req.Messages {
		cr.Messages = append(cr.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if req.Answer != AnswerJSON {
		return cr, nil
	}
	if len(req.Schema) > 0 && !json.Valid(req.Schema) {
		return cr, o.errorf("request schema %q is not valid JSON", req.SchemaName)
	}
	switch mode {
	case StructuredStrict:
		name := req.SchemaName
		if name == "" {
			name = "answer"
		}
		cr.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   name,
				Schema: json.RawMessage(req.Schema),
				Strict: true,
			},
		}
		return cr, nil
	case StructuredJSONObject:
		cr.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	if len(req.Schema) > 0 {
		schemaInstructions(cr.Messages, req.Schema)
	}
	return cr, nil
}

// schemaInstructions appends the schema, as an instruction, to the last
// user message (not a system message: some chat templates accept a system
// message only first, or none at all).
func schemaInstructions(msgs []openai.ChatCompletionMessage, schema json.RawMessage) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			msgs[i].Content += "\n\nAnswer with one JSON object that conforms to this JSON schema:\n" + string(schema)
			return
		}
	}
}

// SampleSeed is the seed of sample i of a request with seed seed: seed+i.
// It is the convention of vLLM's parallel sampling (vllm/v1/engine/
// parallel_sampling.py gives the i-th of n child requests the seed
// seed+index), so a request for samples first..first+n-1 sent with seed
// SampleSeed(seed, first) returns on such a server exactly the samples a
// request for all of them would have, and never one of samples 0..first-1.
func SampleSeed(seed int64, i int) int64 { return seed + int64(i) }

// rejection is what a 4xx/5xx answer says the server does not accept.
type rejection int

const (
	rejectNothing             rejection = iota
	rejectMaxTokens                     // the max_tokens parameter
	rejectMaxCompletionTokens           // the max_completion_tokens parameter
	rejectFormat                        // the response_format type sent
	rejectSchema                        // this request's schema
	rejectTopK                          // the top_k extra field
)

// rejectionOf reads what err says the server does not accept. The
// patterns are the messages real servers send:
//
//	OpenAI o-series: 400 "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
//	OpenAI: 400 "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
//	OpenAI: 400 "Invalid schema for response_format 'x': In context=(), 'additionalProperties' is required to be supplied and to be false."
//	llama.cpp server (2024): 500 'response_format type must be one of "text" or "json_object", but got: json_schema'
//	vLLM (xgrammar): 400 "The provided JSON schema contains features not supported by xgrammar."
//	Ollama: 500 "invalid JSON schema in format"
func rejectionOf(err error) rejection {
	if errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		return rejectMaxTokens // go-openai refuses max_tokens for o-series names itself
	}
	var se *StatusError
	if !errors.As(err, &se) {
		return rejectNothing
	}
	if se.StatusCode != 400 && se.StatusCode != 422 && se.StatusCode != 500 {
		return rejectNothing
	}
	return rejectionIn(strings.ToLower(se.Message), strings.ToLower(se.Param))
}

// rejectionIn reads what an error message msg and the parameter param it
// names (both lower case; param "" when the server named none) say the
// server does not accept (see rejectionOf).
func rejectionIn(msg, param string) rejection {
	refused := containsAny(msg, "unsupported", "not supported", "must be one of", "invalid parameter", "unrecognized", "not allowed", "extra inputs", "unknown")
	// "max_tokens is too large" (param max_tokens too) is no refusal of the
	// parameter itself.
	switch {
	case refused && (param == "max_tokens" || containsAny(msg, "'max_tokens'", "max_tokens is", "max_tokens' is")):
		return rejectMaxTokens
	case refused && (param == "max_completion_tokens" || strings.Contains(msg, "max_completion_tokens")):
		return rejectMaxCompletionTokens
	case containsAny(msg, "invalid schema", "schema contains features", "grammar error", "invalid json schema"):
		return rejectSchema
	case (param == "response_format" || containsAny(msg, "response_format", "json_schema", "json_object")) && refused:
		return rejectFormat
	case refused && (param == "top_k" || strings.Contains(msg, "top_k")):
		return rejectTopK
	}
	return rejectNothing
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// adapt applies what a rejection of a request sent in structured mode mode
// (with max_completion_tokens when completionParam) calls for, and reports
// whether the request should be sent again.
func (o *OpenAI) adapt(err error, mode string, completionParam bool, schemaFallback *bool) bool {
	switch rejectionOf(err) {
	case rejectMaxTokens:
		if completionParam {
			return false
		}
		if o.completionParam.CompareAndSwap(false, true) {
			o.paramSwitches.Add(1)
			o.logf("the server rejects max_tokens; sending max_completion_tokens from now on (%v)", err)
		}
		return true
	case rejectMaxCompletionTokens:
		if !completionParam {
			return false
		}
		if o.completionParam.CompareAndSwap(true, false) {
			o.paramSwitches.Add(1)
			o.logf("the server rejects max_completion_tokens; sending max_tokens from now on (%v)", err)
		}
		return true
	case rejectTopK:
		if o.omitTopK.CompareAndSwap(false, true) {
			o.paramSwitches.Add(1)
			o.logf("the server rejects top_k; not sending it from now on (%v)", err)
		}
		return true
	case rejectSchema:
		if mode != StructuredStrict || *schemaFallback {
			return false
		}
		*schemaFallback = true
		o.schemaFallbacks.Add(1)
		o.logf("the server rejects a request's schema; answering that request as json_object (%v)", err)
		return true
	case rejectFormat:
		sent := structuredLevel(mode)
		if sent < 0 || sent >= int32(len(structuredLevels))-1 {
			return false
		}
		for {
			cur := o.level.Load()
			if cur > sent {
				return true // another request degraded the endpoint already
			}
			if o.level.CompareAndSwap(cur, sent+1) {
				o.degrades.Add(1)
				o.logf("the server rejects response_format %s; structured output degraded to %s for this endpoint (%v)", mode, structuredLevels[sent+1], err)
				return true
			}
		}
	}
	return false
}

func (o *OpenAI) logf(format string, args ...any) {
	o.cfg.Logf("llm: openai %s model %s: %s", o.cfg.BaseURL, o.cfg.Model, o.redact(fmt.Sprintf(format, args...)))
}

// estimateTokens is the TPM estimate of a request for n samples.
func (o *OpenAI) estimateTokens(req Request, n int) int {
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content)
	}
	per := req.MaxTokens
	if per <= 0 {
		per = o.cfg.MaxTokens
	}
	if per <= 0 {
		per = defaultCompletionEstimate
	}
	return chars/4 + per*n
}

// Embedder is implemented by backends that compute text embeddings.
type Embedder interface {
	Embed(ctx context.Context, role string, texts []string) ([][]float32, Usage, error)
}

// Embed returns one embedding per text, in order, from the embeddings
// endpoint, in batches of EmbedBatch, with the same retry rules as
// Complete. role only names the caller in errors.
func (o *OpenAI) Embed(ctx context.Context, role string, texts []string) ([][]float32, Usage, error) {
	var usage Usage
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += o.cfg.EmbedBatch {
		batch := texts[lo:min(lo+o.cfg.EmbedBatch, len(texts))]
		var resp openai.EmbeddingResponse
		est := 0
		for _, t := range batch {
			est += len(t) / 4
		}
		err := o.retry(ctx, est, false, 0, func(actx context.Context, _ *probe) (int, error) {
			var err error
			resp, err = o.client.CreateEmbeddings(actx, openai.EmbeddingRequestStrings{Input: batch, Model: openai.EmbeddingModel(o.cfg.Model)})
			return resp.Usage.PromptTokens, err
		})
		if err != nil {
			return nil, usage, fmt.Errorf("embed (role %q): %w", role, err)
		}
		if len(resp.Data) != len(batch) {
			return nil, usage, o.errorf("embed (role %q): got %d embeddings for %d inputs", role, len(resp.Data), len(batch))
		}
		sort.SliceStable(resp.Data, func(i, j int) bool { return resp.Data[i].Index < resp.Data[j].Index })
		for _, d := range resp.Data {
			out = append(out, d.Embedding)
		}
		usage = usage.Add(Usage{PromptTokens: resp.Usage.PromptTokens})
	}
	return out, usage, nil
}

func (o *OpenAI) errorf(format string, args ...any) error {
	return fmt.Errorf("llm: openai %s model %s: %s", o.cfg.BaseURL, o.cfg.Model, o.redact(fmt.Sprintf(format, args...)))
}

// retry runs call with the retry policy: it is the one retry loop of a
// model call. A failed attempt is classified where it is caught
// (classify); a retryable one (timeout, network, 408, 429, 5xx) is sent
// again after the backoff or the server's Retry-After, up to MaxRetries
// times. call returns the tokens used (for the TPM correction). A failure
// is returned as an *Error counting the attempts made, or, when ctx ended,
// as ctx's error.
func (o *OpenAI) retry(ctx context.Context, estTokens int, zeroTemp bool, topK int, call func(ctx context.Context, p *probe) (int, error)) error {
	for attempt := 0; ; attempt++ {
		release, err := o.limiter.Acquire(ctx, estTokens)
		if err != nil {
			return o.wrapCtx(ctx, err)
		}
		p := &probe{zeroTemp: zeroTemp, topK: topK}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, probeKey{}, p), o.cfg.Timeout)
		used, err := call(actx, p)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil || used == 0 {
			used = estTokens
		}
		release(used)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return o.wrapCtx(ctx, ctx.Err())
		}
		e := o.classify(err, p, timedOut)
		e.Attempts = attempt + 1
		if !e.Retryable {
			// A rejection is class bad_request whatever its status
			// (llama.cpp answers an unsupported response_format with
			// 500): adapted to (Complete), not retried.
			return e
		}
		if o.cfg.MaxRetries == 0 {
			return e // no retries (a Pool retries across endpoints)
		}
		if attempt >= o.cfg.MaxRetries {
			e.note = fmt.Sprintf(" (gave up after %d attempts)", attempt+1)
			return e
		}
		wait := o.backoff(attempt)
		if e.RetryAfter > 0 {
			wait = min(e.RetryAfter, o.cfg.RetryAfterMax)
		}
		wait = time.Duration(float64(wait) * o.cfg.WaitScale)
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return o.wrapCtx(ctx, fmt.Errorf("%w (while backing off after: %v)", ctx.Err(), e))
			}
		}
	}
}

func (o *OpenAI) wrapCtx(ctx context.Context, err error) error {
	return fmt.Errorf("llm: openai %s model %s: %w", o.cfg.BaseURL, o.cfg.Model, err)
}

// backoff returns the jittered wait before retry attempt+1: with
// d = min(BackoffMax, BackoffBase*2^attempt), a uniform draw in [d/2, d).
func (o *OpenAI) backoff(attempt int) time.Duration {
	d := o.cfg.BackoffBase
	for i := 0; i < attempt && d < o.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, o.cfg.BackoffMax)
	o.rngMu.Lock()
	j := o.rng.Float64()
	o.rngMu.Unlock()
	return d/2 + time.Duration(j*float64(d/2))
}

// classify turns an attempt's error into an *Error (Attempts unset), at
// the one place where its cause is known: go-openai's API and request
// errors and the transport's status (an HTTP status and the server's
// message), the attempt's own deadline (a timeout), a broken connection or
// cut body (network), a JSON syntax or type error (malformed). The class
// is Classify's, its retry HandlingOf's.
func (o *OpenAI) classify(err error, p *probe, timedOut bool) *Error {
	status, msg, param, answered := apiStatus(err)
	if !answered && p.status >= 400 {
		status, msg = p.status, err.Error()
	}
	if status >= 400 {
		se := &StatusError{StatusCode: status, Message: o.redact(msg), Param: param, BaseURL: o.cfg.BaseURL, Model: o.cfg.Model}
		se.RetryAfter = parseRetryAfter(p.retryAfter, time.Now())
		class := se.Class()
		return &Error{Class: class, StatusCode: status, RetryAfter: se.RetryAfter, Retryable: HandlingOf(class).Retried, Err: se}
	}
	var cause error
	class := Classify(0, "", err)
	sentinel, ok := sentinels[class]
	switch {
	case timedOut:
		class = ClassTimeout
		cause = fmt.Errorf("llm: openai %s model %s: %w after %s", o.cfg.BaseURL, o.cfg.Model, ErrTimeout, o.cfg.Timeout)
	case ok && errors.Is(err, sentinel):
		// An error that names its class already (ErrTooLarge, a size
		// cap's, saying what was too large) keeps its message and stays
		// in the chain.
		cause = &causeError{msg: o.errorf("%v", err).Error(), err: err}
	case ok:
		cause = fmt.Errorf("llm: openai %s model %s: %w: %s", o.cfg.BaseURL, o.cfg.Model, sentinel, o.redact(err.Error()))
	default:
		// The cause stays in the chain: rejectionOf looks for
		// go-openai's own refusals (ErrReasoningModelMaxTokensDeprecated)
		// by errors.Is.
		class = ClassOther
		cause = &causeError{msg: o.errorf("%v", err).Error(), err: err}
	}
	return &Error{Class: class, Retryable: HandlingOf(class).Retried, refused: errors.Is(err, syscall.ECONNREFUSED), Err: cause}
}

// apiStatus returns the HTTP status, the server's message and the
// parameter it names of go-openai's error for an error status (answered
// false when err holds none). RequestError comes first: go-openai wraps
// an empty APIError in it when an error body is not OpenAI's shape
// (Ollama's {"error": "..."}).
func apiStatus(err error) (status int, msg, param string, answered bool) {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode, bodyMessage(reqErr.Body), "", true
	case errors.As(err, &apiErr):
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
		return apiErr.HTTPStatusCode, apiErr.Message, param, true
	}
	return 0, "", "", false
}

// causeError is an error whose message (redacted) replaces its cause's
// but that unwraps to the cause.
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// bodyMessage is the message of an error body that is not OpenAI's
// {"error": {...}} shape: vLLM's {"object": "error", "message": ...},
// Ollama's {"error": "..."}, FastAPI's {"detail": ...}; else the body itself,
// cut to 300 bytes.
func bodyMessage(body []byte) string {
	var m struct {
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &m) == nil {
		for _, f := range []json.RawMessage{m.Message, m.Error, m.Detail} {
			if s := rawString(f); s != "" {
				return s
			}
		}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

// parseRetryAfter parses a Retry-After header: delay-seconds (fractions
// accepted) or an HTTP date (RFC 9110 section 10.2.3). It returns 0 when
// absent or unparseable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// ErrTooLarge: an answer over a size cap (OpenAIConfig.MaxResponseBytes,
// MaxChoiceBytes, or more choices than requested plus ExtraChoices). It
// wraps ErrMalformed: its class is malformed.
var ErrTooLarge = fmt.Errorf("%w: answer too large", ErrMalformed)

// tooLarge is the *Error of an answer over a cap that send finds once the
// body is decoded (a choice's text), classified as the transport's caps
// are (classify).
func (o *OpenAI) tooLarge(what string) *Error {
	e := o.classify(fmt.Errorf("%w: %s", ErrTooLarge, what), &probe{}, false)
	e.Attempts = 1
	return e
}

// capBody is a response body read at most limit bytes far: reading past
// them fails with ErrTooLarge (the rest is never read, nor decompressed).
type capBody struct {
	io.ReadCloser
	limit, read int64
}

func (c *capBody) Read(b []byte) (int, error) {
	if c.read > c.limit {
		return 0, c.err()
	}
	if room := c.limit + 1 - c.read; int64(len(b)) > room {
		b = b[:room] // one byte past the cap tells a larger body
	}
	n, err := c.ReadCloser.Read(b)
	c.read += int64(n)
	if c.read > c.limit {
		return n - int(c.read-c.limit), c.err()
	}
	return n, err
}

func (c *capBody) err() error {
	return fmt.Errorf("%w: the body is over the cap of %d bytes (max_response_bytes)", ErrTooLarge, c.limit)
}

// probe carries per-attempt information between OpenAI and its transport:
// the response status and Retry-After (which go-openai's errors drop), and
// whether to send temperature 0 (which go-openai's omitempty drops).
type probe struct {
	zeroTemp bool
	// topK, when positive, is sent as the extra body field "top_k"
	// (go-openai's request has no such field).
	topK       int
	status     int
	retryAfter string
	// maxChoices, when > 0, is the most choices a chat answer may hold:
	// the transport reads the body whole (within the byte cap), counts
	// them before the client decodes it, and keeps the body in body.
	maxChoices int
	body       []byte
	// maxBytes, when > 0, caps this response's body below the
	// transport's cap (a model list is small).
	maxBytes int64
}

type probeKey struct{}

// probeTransport records the response status and Retry-After header into
// the request's probe, adds "temperature":0 to chat requests whose
// temperature go-openai omitted (servers default an absent temperature to
// 1.0, the opposite of greedy decoding), and adds the probe's "top_k".
//
// Every response body is capped at maxBytes after decompression
// (capBody); a chat answer whose probe sets maxChoices is read whole
// within that cap and its choices counted before the client decodes it.
type probeTransport struct {
	base     http.RoundTripper
	maxBytes int64
}

// topK is the top_k a chat request sends: req.TopK, or 0 (none) when the
// endpoint omits it (OpenAIConfig.OmitTopK, or the server rejected it).
func (o *OpenAI) topK(req Request) int {
	if o.omitTopK.Load() || req.TopK < 0 {
		return 0
	}
	return req.TopK
}

var temperatureKey = []byte(`"temperature":`)

// prependMember returns the JSON object body with member ("name":value)
// as its first member; a body that is no object comes back unchanged.
func prependMember(body []byte, member string) []byte {
	if len(body) < 2 || body[0] != '{' {
		return body
	}
	nb := make([]byte, 0, len(body)+len(member)+1)
	nb = append(nb, '{')
	nb = append(nb, member...)
	nb = append(nb, ',')
	return append(nb, body[1:]...)
}

func (t *probeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p, _ := req.Context().Value(probeKey{}).(*probe)
	if p != nil && (p.zeroTemp || p.topK > 0) && req.Body != nil && strings.HasSuffix(req.URL.Path, "/chat/completions") {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if p.zeroTemp && !bytes.Contains(body, temperatureKey) {
			body = prependMember(body, `"temperature":0`)
		}
		if p.topK > 0 {
			body = prependMember(body, `"top_k":`+strconv.Itoa(p.topK))
		}
		r2 := req.Clone(req.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = r2
	}
	resp, err := t.base.RoundTrip(req)
	limit := t.maxBytes
	if p != nil && p.maxBytes > 0 && (limit <= 0 || p.maxBytes < limit) {
		limit = p.maxBytes
	}
	if resp != nil && resp.Body != nil && limit > 0 {
		resp.Body = &capBody{ReadCloser: resp.Body, limit: limit}
	}
	if p != nil && resp != nil {
		p.status = resp.StatusCode
		p.retryAfter = resp.Header.Get("Retry-After")
		if p.maxChoices > 0 && resp.StatusCode < 300 && resp.Body != nil {
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if rerr == nil {
				rerr = countChoices(body, p.maxChoices)
			}
			if rerr != nil {
				return nil, rerr
			}
			p.body = body
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	return resp, err
}

// countChoices fails with ErrTooLarge when the chat answer body holds more
// than limit choices. The choices are decoded as empty structs, which take
// no memory; a body that is not JSON passes, for the client's decoder to
// reject.
func countChoices(body []byte, limit int) error {
	var c struct {
		Choices []struct{} `json:"choices"`
	}
	if json.Unmarshal(body, &c) == nil && len(c.Choices) > limit {
		return fmt.Errorf("%w: %d choices, over the cap of %d (the choices requested plus %d)", ErrTooLarge, len(c.Choices), limit, ExtraChoices)
	}
	return nil
}
