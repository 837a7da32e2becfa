package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/internal/satint"
)

// Defaults of a Pool's ejection of failing endpoints, all in one place.
// They follow Envoy's outlier detection (consecutive failures eject an
// endpoint for a base time that grows with each ejection) with shorter
// times, because a pool here is a few local replicas that a run wants back
// as soon as they answer again.
const (
	// DefaultEjectAfter is the number of consecutive health failures
	// (timeouts, broken connections, 5xx) that eject an endpoint. A
	// refused connection ejects at once. Envoy's consecutive_5xx is 5; an
	// endpoint that fails three requests in a row costs each of them a
	// failover, so we stop sooner.
	DefaultEjectAfter = 3
	// DefaultEjectBase is the first ejection's length; each further
	// ejection without a success in between doubles it, up to
	// DefaultEjectMax (Envoy: 30 s times the number of ejections).
	DefaultEjectBase = time.Second
	DefaultEjectMax  = 30 * time.Second
)

// Endpoint is one server of a Pool. Zero fields take the value of the
// pool's OpenAIConfig.
type Endpoint struct {
	// BaseURL is the API root, e.g. "http://gpu1:8000/v1".
	BaseURL string
	// APIKeyEnv names the environment variable holding this endpoint's
	// API key.
	APIKeyEnv string
	// MaxConcurrency bounds this endpoint's requests in flight (a negative
	// value: unlimited); RPM and TPM are its rate limits.
	MaxConcurrency int
	RPM, TPM       int
}

// PoolConfig configures a Pool: one model served by several
// OpenAI-compatible endpoints.
type PoolConfig struct {
	// OpenAIConfig is the model's configuration. Its BaseURL, APIKeyEnv,
	// MaxConcurrency, RPM and TPM describe the first endpoint, whose base
	// URL also names the pool in its Ident (the response cache's key).
	// MaxRetries is the retry budget of a request over all endpoints (see
	// Pool); BackoffBase, BackoffMax, RetryAfterMax and WaitScale shape
	// its waits. Limiter is ignored: each endpoint has the limiter of its
	// base URL and limits, as NewOpenAI gives.
	OpenAIConfig
	// Replicas are the further endpoints serving the same model.
	Replicas []Endpoint
	// EjectAfter, EjectBase and EjectMax shape ejection (0: the defaults
	// DefaultEjectAfter, DefaultEjectBase, DefaultEjectMax).
	EjectAfter          int
	EjectBase, EjectMax time.Duration
}

// EndpointStats counts one endpoint's traffic.
type EndpointStats struct {
	BaseURL string `json:"base_url"`
	// Calls counts the attempts sent to the endpoint that ended (those
	// the caller canceled are not counted), Errors those that failed.
	Calls  int64 `json:"calls"`
	Errors int64 `json:"errors"`
	// Ejections counts the times the endpoint was taken out of rotation.
	Ejections int64 `json:"ejections"`
	// LatencySum and LatencyMax are over the answered attempts (Calls -
	// Errors): the mean latency is LatencySum / (Calls - Errors).
	LatencySum time.Duration `json:"latency_sum_ns"`
	LatencyMax time.Duration `json:"latency_max_ns"`
	// PromptTokens and CompletionTokens sum the answered attempts' usage.
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Pool is a Client (and Embedder) for one model served by several
// OpenAI-compatible endpoints (replicas of a vLLM or SGLang server). It is
// safe for concurrent use.
//
// Balancing: each attempt goes to the admitted endpoint with the fewest
// requests outstanding (ties to the one least recently chosen) among those
// under their concurrency bound; when every endpoint is at its bound, the
// attempt waits for the first free slot. Each endpoint keeps its own rate
// limits (a Limiter shared, like NewOpenAI's, by every client of its base
// URL) and its own adaptations (token-limit parameter, structured mode).
// The request body does not depend on the endpoint: seeds come from the
// Request (SampleSeed), so the same request gets the same samples from
// whichever replica serves it.
//
// Ejection: a refused connection ejects an endpoint at once; EjectAfter
// consecutive health failures (a timeout, a broken connection, a 5xx) eject
// it too. An ejected endpoint gets no requests for EjectBase, doubled at
// each ejection without a success in between, up to EjectMax; then one
// request probes it: a success re-admits it (and resets the doubling), a
// health failure ejects it again. 401, 403, 404 and other 4xx answers, 429
// and malformed bodies say nothing of an endpoint's health.
//
// Retries: a request that fails with a retryable error (timeout, network,
// 408, 429, 5xx) on an endpoint is sent at once to an admitted endpoint it
// has not tried yet (a failover); when it has tried them all, it waits the
// backoff (or the server's Retry-After) and starts over on any endpoint (a
// retry). A request's failovers together cost one unit of its retry budget
// (MaxRetries), however many endpoints they pass; each retry costs one.
// So a dead replica costs each request that meets it one retry at most,
// and a request makes at most MaxRetries+1 rounds over the endpoints.
// Other errors are returned at once. A failed request is returned as an
// *Error counting every attempt over the endpoints; the endpoints' own
// backends do not retry (their MaxRetries is off), so the pool is the
// request's one retry loop.
type Pool struct {
	cfg        PoolConfig
	eps        []*poolEndpoint
	ident      Ident
	maxRetries int

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a slot frees or a state changes
	turn    int64         // counts picks, for least-recently-chosen ties

	rngMu sync.Mutex
	rng   *rand.Rand
}

// poolEndpoint is one endpoint's client, bound and state. The fields from
// outstanding on are guarded by Pool.mu.
type poolEndpoint struct {
	i     int
	url   string
	o     *OpenAI
	limit int // concurrency bound; <= 0: unlimited

	outstanding int
	lastPick    int64
	fails       int       // consecutive health failures
	ejected     bool      // out of rotation until `until`
	until       time.Time // end of the ejection
	streak      int       // ejections since the last success
	probing     bool      // a probe request is in flight
	gen         int       // counts ejections; attempts of an older generation do not change the state
	st          EndpointStats
}

// NewPool validates cfg and builds one OpenAI backend per endpoint.
func NewPool(cfg PoolConfig) (*Pool, error) {
	base := cfg.OpenAIConfig
	if len(cfg.Replicas) == 0 {
		return nil, fmt.Errorf("llm: pool %s: no replicas (use NewOpenAI for one endpoint)", base.BaseURL)
	}
	if cfg.EjectAfter < 0 || cfg.EjectBase < 0 || cfg.EjectMax < 0 {
		return nil, fmt.Errorf("llm: pool %s: eject_after, eject_base and eject_max must be >= 0", base.BaseURL)
	}
	if cfg.EjectAfter == 0 {
		cfg.EjectAfter = DefaultEjectAfter
	}
	if cfg.EjectBase == 0 {
		cfg.EjectBase = DefaultEjectBase
	}
	if cfg.EjectMax == 0 {
		cfg.EjectMax = DefaultEjectMax
	}
	eps := append([]Endpoint{{BaseURL: base.BaseURL, APIKeyEnv: base.APIKeyEnv, MaxConcurrency: base.MaxConcurrency, RPM: base.RPM, TPM: base.TPM}}, cfg.Replicas...)
	p := &Pool{cfg: cfg, changed: make(chan struct{})}
	seen := map[string]int{}
	for i, e := range eps {
		url := strings.TrimRight(e.BaseURL, "/")
		if j, dup := seen[url]; dup {
			return nil, fmt.Errorf("llm: pool %s: endpoint %d repeats endpoint %d (%s)", base.BaseURL, i, j, url)
		}
		seen[url] = i
		c := base
		c.BaseURL = e.BaseURL
		if i > 0 {
			if e.APIKeyEnv != "" {
				c.APIKeyEnv = e.APIKeyEnv
			}
			if e.MaxConcurrency != 0 {
				c.MaxConcurrency = e.MaxConcurrency
			}
			if e.RPM != 0 {
				c.RPM = e.RPM
			}
			if e.TPM != 0 {
				c.TPM = e.TPM
			}
		}
		c.MaxRetries = -1 // the pool retries, across endpoints
		c.Limiter = nil
		o, err := NewOpenAI(c)
		if err != nil {
			return nil, err
		}
		p.eps = append(p.eps, &poolEndpoint{i: i, url: url, o: o, limit: o.cfg.MaxConcurrency, st: EndpointStats{BaseURL: url}})
	}
	first := p.eps[0].o
	p.ident = first.Ident()
	p.maxRetries = base.MaxRetries
	switch {
	case p.maxRetries == 0:
		p.maxRetries = DefaultMaxRetries
	case p.maxRetries < 0:
		p.maxRetries = 0
	}
	seed := first.cfg.JitterSeed
	p.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return p, nil
}

// Ident returns the identity of the pool for the response cache: the first
// endpoint's (NewOpenAI's Ident), so that adding replicas to a model keeps
// its cached answers.
func (p *Pool) Ident() Ident { return p.ident }

// EndpointStats returns every endpoint's counters, in configuration order.
func (p *Pool) EndpointStats() []EndpointStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]EndpointStats, len(p.eps))
	for i, e := range p.eps {
		out[i] = e.st
	}
	return out
}

// Complete sends req to one endpoint after another until one answers (see
// Pool for the rules). Each endpoint's OpenAI backend does the fill-up of n
// and the adaptations to its server.
func (p *Pool) Complete(ctx context.Context, req Request) (*Response, error) {
	var resp *Response
	err := p.do(ctx, func(ctx context.Context, o *OpenAI) (Usage, error) {
		var err error
		resp, err = o.Complete(ctx, req)
		if err != nil {
			return Usage{}, err
		}
		return resp.Usage, nil
	})
	return resp, err
}

// Embed computes embeddings on one endpoint after another until one
// answers, like Complete.
func (p *Pool) Embed(ctx context.Context, role string, texts []string) ([][]float32, Usage, error) {
	var out [][]float32
	var usage Usage
	err := p.do(ctx, func(ctx context.Context, o *OpenAI) (Usage, error) {
		var err error
		out, usage, err = o.Embed(ctx, role, texts)
		return usage, err
	})
	return out, usage, err
}

// errAllTried says that every admitted endpoint has failed this round.
var errAllTried = errors.New("llm: pool: every endpoint tried")

// do runs call on endpoints under the pool's balancing, ejection and retry
// rules. A failed call is returned as an *Error counting every attempt
// over the endpoints, or, when ctx ended, as ctx's error.
func (p *Pool) do(ctx context.Context, call func(context.Context, *OpenAI) (Usage, error)) error {
	tried := make([]bool, len(p.eps))
	retries, attempts := 0, 0
	failedOver := false
	var last error
	var retryAfter time.Duration
	for {
		e, gen, probe, err := p.acquire(ctx, tried)
		if errors.Is(err, errAllTried) {
			if retries >= p.maxRetries {
				return gaveUp(last, attempts, fmt.Sprintf(" (gave up after %d rounds over %d endpoints)", retries+1, len(p.eps)))
			}
			retries++
			if err := p.wait(ctx, retries-1, retryAfter, last); err != nil {
				return err
			}
			clear(tried)
			retryAfter = 0
			continue
		}
		if err != nil {
			return fmt.Errorf("llm: pool %s model %s: %w", p.ident.BaseURL, p.ident.Model, err)
		}
		start := time.Now()
		usage, err := call(ctx, e.o)
		attempts++
		health, retryable := p.release(ctx, e, gen, probe, err, time.Since(start), usage)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		if !retryable {
			return gaveUp(err, attempts, "")
		}
		last = err
		var ce *Error
		if errors.As(err, &ce) && ce.RetryAfter > retryAfter {
			retryAfter = ce.RetryAfter
		}
		tried[e.i] = true
		if health && !failedOver {
			// The first failover of a request costs one retry.
			if retries >= p.maxRetries {
				return gaveUp(err, attempts, fmt.Sprintf(" (gave up after %d attempts)", retries+1))
			}
			retries++
			failedOver = true
		}
	}
}

// gaveUp returns the *Error of a pool's call that failed with err (an
// endpoint's error) after attempts attempts, its message followed by note.
// An error that is no *Error (none of the endpoints' backends classified
// it) is returned as it is.
func gaveUp(err error, attempts int, note string) error {
	var ce *Error
	if !errors.As(err, &ce) {
		if note != "" {
			return fmt.Errorf("%w%s", err, note)
		}
		return err
	}
	out := *ce
	out.Attempts, out.note = attempts, note
	if err != error(ce) {
		out.Err = err // keep the wrapping's words (Embed's role)
	} else {
		out.note = ce.note + note
	}
	return &out
}

// wait sleeps the backoff before retry number attempt+1 (or the server's
// Retry-After, capped), scaled by WaitScale.
func (p *Pool) wait(ctx context.Context, attempt int, retryAfter time.Duration, last error) error {
	c := p.eps[0].o.cfg
	d := c.BackoffBase
	for i := 0; i < attempt && d < c.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.BackoffMax)
	p.rngMu.Lock()
	j := p.rng.Float64()
	p.rngMu.Unlock()
	wait := d/2 + time.Duration(j*float64(d/2))
	if retryAfter > 0 {
		wait = min(retryAfter, c.RetryAfterMax)
	}
	wait = time.Duration(float64(wait) * c.WaitScale)
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("llm: pool %s model %s: %w (while backing off after: %v)", p.ident.BaseURL, p.ident.Model, ctx.Err(), last)
	}
}

// acquire picks the endpoint of the next attempt and counts it
// outstanding: the admitted endpoint not in tried with the fewest requests
// outstanding, under its bound. It waits while every such endpoint is at its
// bound, and while every endpoint is ejected (for the first ejection to
// end). It returns errAllTried when every admitted endpoint is in tried.
// probe is true when the attempt probes an ejected endpoint.
func (p *Pool) acquire(ctx context.Context, tried []bool) (e *poolEndpoint, gen int, probe bool, err error) {
	for {
		p.mu.Lock()
		now := time.Now()
		var best *poolEndpoint
		untried := false   // an admitted endpoint not tried yet exists
		var next time.Time // the earliest end of an ejection
		for _, c := range p.eps {
			if c.ejected {
				if now.Before(c.until) {
					if next.IsZero() || c.until.Before(next) {
						next = c.until
					}
					continue
				}
				if c.probing {
					continue // one probe at a time
				}
			}
			if tried[c.i] {
				continue
			}
			untried = true
			if c.limit > 0 && c.outstanding >= c.limit {
				continue
			}
			if best == nil || c.outstanding < best.outstanding || (c.outstanding == best.outstanding && c.lastPick < best.lastPick) {
				best = c
			}
		}
		if best != nil {
			p.turn++
			best.lastPick = p.turn
			best.outstanding++
			if best.ejected {
				best.probing, probe = true, true
			}
			gen = best.gen
			p.mu.Unlock()
			return best, gen, probe, nil
		}
		ch := p.changed
		p.mu.Unlock()
		if !untried && slices.Contains(tried, true) {
			// Every endpoint this round has not tried is ejected: the
			// next round starts after a backoff (a retry).
			return nil, 0, false, errAllTried
		}
		// Wait for a free slot, a probe's end or the first ejection's end.
		var timer *time.Timer
		var tc <-chan time.Time
		if !next.IsZero() {
			timer = time.NewTimer(time.Until(next))
			tc = timer.C
		}
		select {
		case <-ch:
		case <-tc:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, false, err
		}
	}
}

// release ends an attempt on e: it frees the slot, counts the attempt and
// applies its outcome to e's health. health reports a health failure;
// retryable whether the error is worth another attempt.
func (p *Pool) release(ctx context.Context, e *poolEndpoint, gen int, probe bool, err error, lat time.Duration, usage Usage) (health, retryable bool) {
	canceled := err != nil && ctx.Err() != nil
	var refused bool
	if err != nil && !canceled {
		health, refused, retryable = healthOf(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.signal()
	e.outstanding--
	if probe {
		e.probing = false
	}
	if canceled {
		return false, false
	}
	e.st.Calls++
	if err != nil {
		e.st.Errors++
	} else {
		e.st.LatencySum += lat
		e.st.LatencyMax = max(e.st.LatencyMax, lat)
		e.st.PromptTokens = satint.Add64(e.st.PromptTokens, int64(usage.PromptTokens))
		e.st.CompletionTokens = satint.Add64(e.st.CompletionTokens, int64(usage.CompletionTokens))
	}
	if gen != e.gen {
		return health, retryable // sent before the last ejection: says nothing new
	}
	switch {
	case err == nil || !health:
		// An answer, even an error answer, shows the endpoint alive.
		e.fails = 0
		if e.ejected && probe {
			e.ejected = false
			p.logf("endpoint %s re-admitted after a successful probe", e.url)
		}
		if err == nil {
			e.streak = 0
		}
	case refused || probe:
		p.eject(e, err)
	default:
		e.fails++
		if !e.ejected && e.fails >= p.cfg.EjectAfter {
			p.eject(e, err)
		}
	}
	return health, retryable
}

// eject takes e out of rotation; p.mu is held.
func (p *Pool) eject(e *poolEndpoint, err error) {
	d := p.cfg.EjectBase
	for i := 0; i < e.streak && d < p.cfg.EjectMax; i++ {
		d *= 2
	}
	d = min(d, p.cfg.EjectMax)
	e.ejected, e.until = true, time.Now().Add(d)
	e.streak++
	e.gen++
	e.fails = 0
	e.st.Ejections++
	p.logf("endpoint %s ejected for %s (%v)", e.url, d, err)
}

// signal wakes the waiters of acquire; p.mu is held.
func (p *Pool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Pool) logf(format string, args ...any) {
	o := p.eps[0].o
	o.cfg.Logf("llm: pool of model %s: %s", o.cfg.Model, o.redact(fmt.Sprintf(format, args...)))
}

// healthOf classifies an attempt's error: health is true for failures of
// the endpoint (timeouts, network errors, 408 and 5xx), refused for a
// refused connection (the server is not there), retryable for errors worth
// another attempt (those and 429). It reads the endpoint backend's *Error
// (see asError).
func healthOf(err error) (health, refused, retryable bool) {
	e := asError(err)
	if e == nil {
		return false, false, false
	}
	return e.health(), e.refused, e.Retryable
}
