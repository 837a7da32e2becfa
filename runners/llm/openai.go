package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
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
}

// OpenAI is a Client for an OpenAI-compatible chat-completions endpoint.
// It is safe for concurrent use.
//
// Some servers (llama.cpp server, Ollama) ignore n > 1 and return one
// choice. When fewer choices than Request.N come back, OpenAI issues further
// requests for the missing samples until it has N; when the request carries
// a seed, each fill-up request uses seed+round so that seeded servers do not
// return the same sample again. Usage sums over all requests.
type OpenAI struct {
	cfg     OpenAIConfig
	client  *openai.Client
	limiter *Limiter
	redact  func(string) string

	rngMu sync.Mutex
	rng   *rand.Rand
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
	wrapped.Transport = &probeTransport{base: base}

	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &wrapped

	lim := cfg.Limiter
	if lim == nil {
		lim = endpointLimiter(oc.BaseURL, cfg.MaxConcurrency, cfg.RPM, cfg.TPM)
	}
	redact := func(s string) string { return s }
	if key != "" {
		redact = func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") }
	}
	o := &OpenAI{
		cfg:     cfg,
		client:  openai.NewClientWithConfig(oc),
		limiter: lim,
		redact:  redact,
		rng:     rand.New(rand.NewPCG(cfg.JitterSeed, cfg.JitterSeed^0x9e3779b97f4a7c15)),
	}
	return o, nil
}

// Ident returns the identity of this backend for the response cache.
func (o *OpenAI) Ident() Ident {
	return Ident{Backend: "openai", BaseURL: strings.TrimRight(o.cfg.BaseURL, "/"), Model: o.cfg.Model}
}

// Complete sends req as one or more chat-completion requests (see OpenAI
// for the fill-up of n) with retries.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	want := req.Samples()
	out := &Response{}
	for round := 0; len(out.Choices) < want; round++ {
		if round >= want {
			return nil, o.errorf("server returned %d of %d choices after %d requests", len(out.Choices), want, round)
		}
		cr, err := o.chatRequest(req, want-len(out.Choices), round)
		if err != nil {
			return nil, err
		}
		var resp openai.ChatCompletionResponse
		est := estimateTokens(req, want-len(out.Choices))
		err = o.retry(ctx, est, req.Temperature == 0, func(actx context.Context) (int, error) {
			var err error
			resp, err = o.client.CreateChatCompletion(actx, cr)
			return resp.Usage.PromptTokens + resp.Usage.CompletionTokens, err
		})
		if err != nil {
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, o.errorf("server returned no choices (want %d)", want)
		}
		sort.SliceStable(resp.Choices, func(i, j int) bool { return resp.Choices[i].Index < resp.Choices[j].Index })
		for _, c := range resp.Choices {
			if len(out.Choices) == want {
				break
			}
			out.Choices = append(out.Choices, c.Message.Content)
		}
		out.Usage.PromptTokens += resp.Usage.PromptTokens
		out.Usage.CompletionTokens += resp.Usage.CompletionTokens
		if out.Model == "" {
			out.Model = resp.Model
		}
	}
	if out.Model == "" {
		out.Model = o.cfg.Model
	}
	out.Latency = time.Since(start)
	return out, nil
}

// chatRequest maps req to the go-openai request for n samples in fill-up
// round round.
func (o *OpenAI) chatRequest(req Request, n, round int) (openai.ChatCompletionRequest, error) {
	cr := openai.ChatCompletionRequest{
		Model:       o.cfg.Model,
		Temperature: float32(req.Temperature),
		TopP:        float32(req.TopP),
		// max_tokens, not max_completion_tokens: vLLM, SGLang, Ollama and
		// llama.cpp server all honour it, and older servers know no other.
		MaxTokens: req.MaxTokens, //lint:ignore SA1019 see above

		Stop: req.Stop,
	}
	if n > 1 {
		cr.N = n
	}
	if req.Seed != nil {
		s := int(*req.Seed) + round
		cr.Seed = &s
	}
	for _, m := range req.Messages {
		cr.Messages = append(cr.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if req.Answer == AnswerJSON {
		if len(req.Schema) == 0 {
			cr.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		} else {
			if !json.Valid(req.Schema) {
				return cr, o.errorf("request schema %q is not valid JSON", req.SchemaName)
			}
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
		}
	}
	return cr, nil
}

// estimateTokens is the TPM estimate of a request for n samples.
func estimateTokens(req Request, n int) int {
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content)
	}
	per := req.MaxTokens
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
		err := o.retry(ctx, est, false, func(actx context.Context) (int, error) {
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
		usage.PromptTokens += resp.Usage.PromptTokens
	}
	return out, usage, nil
}

// Error classes returned with the errors of the OpenAI backend; test with
// errors.Is. StatusError carries HTTP failures.
var (
	// ErrTimeout: an attempt ran past OpenAIConfig.Timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrNetwork: the connection broke or the body was cut short.
	ErrNetwork = errors.New("network error")
	// ErrMalformed: the server's answer was not the expected JSON.
	ErrMalformed = errors.New("malformed response")
)

// StatusError is an HTTP error status from the server.
type StatusError struct {
	StatusCode int
	// Message is the server's error message (never holding the API key).
	Message string
	BaseURL string
	Model   string
	// RetryAfter is the server's Retry-After, if it sent one.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("llm: openai %s model %s: HTTP %d: %s", e.BaseURL, e.Model, e.StatusCode, msg)
}

// Retryable reports whether the status is worth retrying (408, 429, 5xx).
func (e *StatusError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusRequestTimeout || e.StatusCode >= 500
}

func (o *OpenAI) errorf(format string, args ...any) error {
	return fmt.Errorf("llm: openai %s model %s: %s", o.cfg.BaseURL, o.cfg.Model, o.redact(fmt.Sprintf(format, args...)))
}

// retry runs call with the retry policy. call returns the tokens used (for
// the TPM correction).
func (o *OpenAI) retry(ctx context.Context, estTokens int, zeroTemp bool, call func(ctx context.Context) (int, error)) error {
	for attempt := 0; ; attempt++ {
		release, err := o.limiter.Acquire(ctx, estTokens)
		if err != nil {
			return o.wrapCtx(ctx, err)
		}
		p := &probe{zeroTemp: zeroTemp}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, probeKey{}, p), o.cfg.Timeout)
		used, err := call(actx)
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
		retryable, retryAfter, err := o.classify(err, p, timedOut)
		if !retryable {
			return err
		}
		if attempt >= o.cfg.MaxRetries {
			return fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
		}
		wait := o.backoff(attempt)
		if retryAfter > 0 {
			wait = min(retryAfter, o.cfg.RetryAfterMax)
		}
		wait = time.Duration(float64(wait) * o.cfg.WaitScale)
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return o.wrapCtx(ctx, fmt.Errorf("%w (while backing off after: %v)", ctx.Err(), err))
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

// classify turns an attempt's error into whether to retry, the server's
// Retry-After, and the error to report.
func (o *OpenAI) classify(err error, p *probe, timedOut bool) (retry bool, after time.Duration, _ error) {
	status := 0
	msg := ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		msg = strings.TrimSpace(string(reqErr.Body))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	case p.status >= 400:
		status = p.status
		msg = err.Error()
	}
	if status >= 400 {
		se := &StatusError{StatusCode: status, Message: o.redact(msg), BaseURL: o.cfg.BaseURL, Model: o.cfg.Model}
		se.RetryAfter = parseRetryAfter(p.retryAfter, time.Now())
		return se.Retryable(), se.RetryAfter, se
	}
	if timedOut {
		return true, 0, fmt.Errorf("llm: openai %s model %s: %w after %s", o.cfg.BaseURL, o.cfg.Model, ErrTimeout, o.cfg.Timeout)
	}
	if isNetworkError(err) {
		return true, 0, fmt.Errorf("llm: openai %s model %s: %w: %s", o.cfg.BaseURL, o.cfg.Model, ErrNetwork, o.redact(err.Error()))
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return false, 0, fmt.Errorf("llm: openai %s model %s: %w: %s", o.cfg.BaseURL, o.cfg.Model, ErrMalformed, o.redact(err.Error()))
	}
	return false, 0, o.errorf("%v", err)
}

// isNetworkError reports broken connections and truncated bodies.
func isNetworkError(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
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

// probe carries per-attempt information between OpenAI and its transport:
// the response status and Retry-After (which go-openai's errors drop), and
// whether to send temperature 0 (which go-openai's omitempty drops).
type probe struct {
	zeroTemp   bool
	status     int
	retryAfter string
}

type probeKey struct{}

// probeTransport records the response status and Retry-After header into
// the request's probe, and adds "temperature":0 to chat requests whose
// temperature go-openai omitted (servers default an absent temperature to
// 1.0, the opposite of greedy decoding).
type probeTransport struct{ base http.RoundTripper }

var temperatureKey = []byte(`"temperature":`)

func (t *probeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p, _ := req.Context().Value(probeKey{}).(*probe)
	if p != nil && p.zeroTemp && req.Body != nil && strings.HasSuffix(req.URL.Path, "/chat/completions") {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(body) > 1 && body[0] == '{' && !bytes.Contains(body, temperatureKey) {
			nb := make([]byte, 0, len(body)+16)
			nb = append(nb, `{"temperature":0,`...)
			nb = append(nb, body[1:]...)
			body = nb
		}
		r2 := req.Clone(req.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = r2
	}
	resp, err := t.base.RoundTrip(req)
	if p != nil && resp != nil {
		p.status = resp.StatusCode
		p.retryAfter = resp.Header.Get("Retry-After")
	}
	return resp, err
}
