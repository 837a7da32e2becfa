package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limiter bounds the load one process puts on one endpoint: at most
// MaxConcurrency requests in flight (a semaphore), and optionally a requests
// per minute (RPM) and a tokens per minute (TPM) budget, each a token bucket
// that refills continuously and holds at most one minute's worth.
//
// Clients built by NewOpenAI for the same base URL and the same limits share
// one Limiter (see OpenAIConfig.Limiter), so that two roles bound to the same
// server do not double its load.
type Limiter struct {
	sem chan struct{} // nil: unlimited concurrency
	rpm *bucket       // nil: unlimited
	tpm *bucket       // nil: unlimited
}

// NewLimiter returns a limiter; a value <= 0 means no limit of that kind.
func NewLimiter(maxConcurrency, rpm, tpm int) *Limiter {
	l := &Limiter{}
	if maxConcurrency > 0 {
		l.sem = make(chan struct{}, maxConcurrency)
	}
	if rpm > 0 {
		l.rpm = newBucket(float64(rpm), time.Now)
	}
	if tpm > 0 {
		l.tpm = newBucket(float64(tpm), time.Now)
	}
	return l
}

// Acquire waits until one request estimated at estTokens tokens may start,
// or ctx is done. The returned release must be called exactly once with the
// tokens the request really used (from the response's usage; pass estTokens
// when unknown) so the TPM bucket is corrected.
func (l *Limiter) Acquire(ctx context.Context, estTokens int) (release func(usedTokens int), err error) {
	if err := l.rpm.take(ctx, 1); err != nil {
		return nil, err
	}
	if err := l.tpm.take(ctx, float64(estTokens)); err != nil {
		l.rpm.give(1)
		return nil, err
	}
	if l.sem != nil {
		select {
		case l.sem <- struct{}{}:
		case <-ctx.Done():
			l.rpm.give(1)
			l.tpm.give(float64(estTokens))
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func(used int) {
		once.Do(func() {
			if l.sem != nil {
				<-l.sem
			}
			l.tpm.give(float64(estTokens - used))
		})
	}, nil
}

// bucket is a token bucket holding at most perMinute tokens and refilling
// at perMinute/60 tokens per second. A take may drive the level negative
// (a request larger than the bucket still runs, after the bucket has
// refilled to pay for it); the taker then waits until the level is back at
// zero.
type bucket struct {
	mu       sync.Mutex
	capacity float64
	rate     float64 // tokens per second
	level    float64
	last     time.Time
	now      func() time.Time
}

func newBucket(perMinute float64, now func() time.Time) *bucket {
	return &bucket{capacity: perMinute, rate: perMinute / 60, level: perMinute, last: now(), now: now}
}

// reserve takes n tokens and returns how long the caller must wait before
// its request may start.
func (b *bucket) reserve(n float64) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.level = min(b.capacity, b.level+el*b.rate)
	}
	b.last = now
	b.level -= n
	if b.level >= 0 {
		return 0
	}
	return time.Duration(-b.level / b.rate * float64(time.Second))
}

// take reserves n tokens and waits for them; on cancellation it gives them
// back. A nil bucket never waits.
func (b *bucket) take(ctx context.Context, n float64) error {
	if b == nil || n <= 0 {
		return nil
	}
	d := b.reserve(n)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		b.give(n)
		return fmt.Errorf("llm: waiting for rate limit: %w", ctx.Err())
	}
}

// give returns n tokens (negative n takes more), never above capacity.
func (b *bucket) give(n float64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.level = min(b.capacity, b.level+n)
	b.mu.Unlock()
}

var (
	sharedMu       sync.Mutex
	sharedLimiters = map[string]*Limiter{}
)

// endpointLimiter returns the process-wide limiter for (baseURL, limits).
func endpointLimiter(baseURL string, maxConcurrency, rpm, tpm int) *Limiter {
	key := fmt.Sprintf("%s|%d|%d|%d", baseURL, maxConcurrency, rpm, tpm)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if l, ok := sharedLimiters[key]; ok {
		return l
	}
	l := NewLimiter(maxConcurrency, rpm, tpm)
	sharedLimiters[key] = l
	return l
}
