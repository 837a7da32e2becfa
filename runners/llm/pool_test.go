package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// replica is a fakeopenai server behind a front that serves at most slots
// requests at once, each after a fixed latency, on an address that
// survives Kill and Restart: a vLLM replica with slots sequences in flight,
// which can crash and come back on the same port.
type replica struct {
	t       testing.TB
	fake    *fakeopenai.Server
	addr    string
	latency time.Duration
	slots   chan struct{}
	proxy   *httputil.ReverseProxy

	mu  sync.Mutex
	srv *http.Server
	ln  net.Listener
}

func newReplica(t testing.TB, latency time.Duration, slots int, opts fakeopenai.Options) *replica {
	t.Helper()
	fake := fakeopenai.New(t, opts)
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 4 * slots}
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	r := &replica{t: t, fake: fake, latency: latency, slots: make(chan struct{}, slots), proxy: proxy}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	t.Cleanup(r.Kill)
	return r
}

func (r *replica) BaseURL() string { return "http://" + r.addr + "/v1" }

func (r *replica) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.slots <- struct{}{}
	defer func() { <-r.slots }()
	select {
	case <-time.After(r.latency):
	case <-req.Context().Done():
		return
	}
	r.proxy.ServeHTTP(w, req)
}

func (r *replica) serve(ln net.Listener) {
	srv := &http.Server{Handler: r, ErrorLog: log.New(io.Discard, "", 0)}
	r.mu.Lock()
	r.srv, r.ln = srv, ln
	r.mu.Unlock()
	go srv.Serve(ln)
}

// Kill closes the listener and every connection at once, as a crashed
// server does: requests in flight break, new connections are refused.
func (r *replica) Kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		r.ln.Close() // Serve may not have taken it yet
		r.srv.Close()
		r.srv = nil
	}
}

// Restart serves again on the same address.
func (r *replica) Restart() {
	r.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port is free at once on Linux; retry briefly elsewhere
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("restart on %s: %v", r.addr, err)
	}
	r.serve(ln)
}

func newPool(t testing.TB, urls []string, slots int, mod func(*llm.PoolConfig)) (*llm.Pool, *logSink) {
	t.Helper()
	logs := &logSink{}
	cfg := llm.PoolConfig{
		OpenAIConfig: llm.OpenAIConfig{BaseURL: urls[0], Model: "m", Timeout: 5 * time.Second, MaxConcurrency: slots,
			BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond, Logf: logs.logf},
		EjectBase: 100 * time.Millisecond, EjectMax: 400 * time.Millisecond,
	}
	for _, u := range urls[1:] {
		cfg.Replicas = append(cfg.Replicas, llm.Endpoint{BaseURL: u})
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := llm.NewPool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, logs
}

func seeded(i int) llm.Request {
	seed := int64(i)
	return llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: fmt.Sprintf("question %d", i)}}, Seed: &seed, Temperature: 0.7}
}

// load runs workers that call p.Complete until stop is closed, and counts
// answered calls and errors.
type load struct {
	answered, failed atomic.Int64
	firstErr         atomic.Value
	wg               sync.WaitGroup
	stop             chan struct{}
}

func startLoad(p *llm.Pool, workers int) *load {
	l := &load{stop: make(chan struct{})}
	var next atomic.Int64
	for range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				i := int(next.Add(1))
				resp, err := p.Complete(context.Background(), seeded(i))
				switch {
				case err != nil:
					l.failed.Add(1)
					l.firstErr.CompareAndSwap(nil, err.Error())
				case len(resp.Choices) != 1 || resp.Choices[0] != fmt.Sprintf("sample seed=%d", i):
					l.failed.Add(1)
					l.firstErr.CompareAndSwap(nil, fmt.Sprintf("answer %q to request %d", resp.Choices, i))
				default:
					l.answered.Add(1)
				}
			}
		}()
	}
	return l
}

func (l *load) finish() { close(l.stop); l.wg.Wait() }

func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPoolThroughputAndKill: three replicas with latencies 20, 40 and 80 ms
// and 4 slots each have a capacity of 4/0.020 + 4/0.040 + 4/0.080 = 350
// requests/s (capacity = slots / latency). While all are up, the pool's
// throughput must reach 80% of it (the goal is 90%; the floor leaves room
// for a loaded 2-core machine, and none under the race detector; the
// measured ratio is logged). Then the
// second replica is killed and restarted on its address: every call is
// still answered, the replica is ejected, probed and re-admitted.
func TestPoolThroughputAndKill(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	const slots = 4
	lats := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	var reps []*replica
	var urls []string
	capacity := 0.0
	for _, l := range lats {
		r := newReplica(t, l, slots, fakeopenai.Options{})
		reps = append(reps, r)
		urls = append(urls, r.BaseURL())
		capacity += slots / l.Seconds()
	}
	p, logs := newPool(t, urls, slots, nil)
	ld := startLoad(p, 6*slots) // more workers than slots: the pool is the bottleneck

	// Phase 1: all up. Measure after a warm-up (connections opened).
	time.Sleep(200 * time.Millisecond)
	n0, t0 := ld.answered.Load(), time.Now()
	time.Sleep(1500 * time.Millisecond)
	n1, t1 := ld.answered.Load(), time.Now()
	rate := float64(n1-n0) / t1.Sub(t0).Seconds()
	ratio := rate / capacity
	t.Logf("all up: %.0f calls/s of a capacity of %.0f calls/s: %.1f%%", rate, capacity, 100*ratio)
	// The figure is measured by BenchmarkPoolCapacity; here it is only
	// asserted on request (T2S_TIMING=1), since a loaded machine (CI, other
	// test binaries in parallel) slows the fake replicas, not the pool.
	if ratio < 0.80 && !raceEnabled && os.Getenv("T2S_TIMING") == "1" {
		t.Errorf("throughput %.0f calls/s is %.1f%% of the capacity %.0f; want >= 80%%", rate, 100*ratio, capacity)
	}

	// Phase 2: kill replica 1 under load, restart it, and wait until it
	// serves again.
	killed := reps[1]
	before := p.EndpointStats()[1]
	killed.Kill()
	time.Sleep(300 * time.Millisecond)
	down := p.EndpointStats()[1]
	downAnswered := ld.answered.Load()
	time.Sleep(200 * time.Millisecond)
	if got := ld.answered.Load() - downAnswered; got == 0 {
		t.Errorf("no call answered while replica 1 was down; want the others to serve")
	}
	killed.Restart()
	fakeBefore := killed.fake.Calls()
	waitFor(t, "replica 1 serving again", 5*time.Second, func() bool { return killed.fake.Calls() > fakeBefore+20 })
	ld.finish()

	if f := ld.failed.Load(); f != 0 {
		t.Fatalf("%d calls failed (first: %v); want every call answered", f, ld.firstErr.Load())
	}
	st := p.EndpointStats()
	t.Logf("answered %d calls; per endpoint: %+v", ld.answered.Load(), st)
	if down.Ejections == before.Ejections {
		t.Errorf("replica 1 ejections after the kill: got %d; want more than %d", down.Ejections, before.Ejections)
	}
	if st[1].Errors == 0 {
		t.Errorf("replica 1 errors: got 0; want the broken and refused attempts counted")
	}
	for i, s := range st {
		if i != 1 && s.Errors != 0 {
			t.Errorf("replica %d errors: got %d; want 0 (only replica 1 was killed)", i, s.Errors)
		}
		if s.Calls-s.Errors == 0 || s.LatencySum < time.Duration(s.Calls-s.Errors)*lats[i] {
			t.Errorf("replica %d: %d answered calls with latency sum %s; want > 0 calls of >= %s each", i, s.Calls-s.Errors, s.LatencySum, lats[i])
		}
	}
	if !strings.Contains(logs.text(), "re-admitted") {
		t.Errorf("log %q; want a re-admission of replica 1", logs.text())
	}
	var sum int64
	for _, s := range st {
		sum += s.Calls - s.Errors
	}
	if sum != ld.answered.Load() {
		t.Errorf("answered calls over the endpoints: got %d; want %d (the calls the load saw answered)", sum, ld.answered.Load())
	}
}

// TestPoolSameRequestEveryEndpoint: the request a replica receives does
// not depend on which replica it is, so a seeded request gets the same
// samples wherever it goes.
func TestPoolSameRequestEveryEndpoint(t *testing.T) {
	var srvs []*fakeopenai.Server
	var urls []string
	for range 3 {
		s := fakeopenai.New(t, fakeopenai.Options{})
		srvs = append(srvs, s)
		urls = append(urls, s.BaseURL())
	}
	p, _ := newPool(t, urls, 1, nil)
	req := seeded(7)
	req.N = 3
	var answers []string
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 6 { // concurrent, so that every replica gets some
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.Complete(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			answers = append(answers, strings.Join(resp.Choices, "|"))
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if a != answers[0] {
			t.Errorf("answer %d: got %q; want %q (the same seeded request)", i, a, answers[0])
		}
	}
	var bodies []string
	for i, s := range srvs {
		rs := s.Requests()
		if len(rs) == 0 {
			t.Errorf("replica %d got no request; want balancing over all three", i)
			continue
		}
		for _, r := range rs {
			b, _ := json.Marshal(r.Body) // maps marshal with sorted keys
			bodies = append(bodies, string(b))
		}
	}
	for i, b := range bodies {
		if b != bodies[0] {
			t.Errorf("body %d: got %s; want %s (balancing must not change the request)", i, b, bodies[0])
		}
	}
}

// TestPoolHealthRules: which failures eject an endpoint, which fail over,
// and what they cost of the retry budget.
func TestPoolHealthRules(t *testing.T) {
	tests := []struct {
		name   string
		faults []fakeopenai.Fault
		// want: the request's outcome, the failing replica's ejections, and
		// the calls the healthy replica got.
		wantErr       string
		wantEjections int64
		wantOther     int
	}{
		{name: "401 is returned, no failover", faults: []fakeopenai.Fault{fakeopenai.Status(401, "bad key")}, wantErr: "HTTP 401"},
		{name: "403 is returned, no failover", faults: []fakeopenai.Fault{fakeopenai.Status(403, "forbidden")}, wantErr: "HTTP 403"},
		{name: "404 is returned, no failover", faults: []fakeopenai.Fault{fakeopenai.Status(404, "model not found")}, wantErr: "HTTP 404"},
		{name: "one 503 fails over", faults: []fakeopenai.Fault{fakeopenai.Status(503, "overloaded")}, wantOther: 1},
		{name: "a cut body fails over", faults: []fakeopenai.Fault{fakeopenai.Truncated()}, wantOther: 1},
		{name: "429 goes to the other endpoint", faults: []fakeopenai.Fault{fakeopenai.TooManyRequests("")}, wantOther: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := fakeopenai.New(t, fakeopenai.Options{})
			good := fakeopenai.New(t, fakeopenai.Options{})
			p, _ := newPool(t, []string{bad.BaseURL(), good.BaseURL()}, 4, nil)
			bad.Fail(tc.faults...)
			// The first request goes to the first endpoint (ties to
			// the least recently chosen, all never chosen: the first).
			_, err := p.Complete(context.Background(), seeded(1))
			if tc.wantErr == "" && err != nil {
				t.Fatalf("got error %v; want an answer", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got error %v; want one with %q", err, tc.wantErr)
			}
			st := p.EndpointStats()
			if st[0].Ejections != tc.wantEjections {
				t.Errorf("ejections: got %d; want %d", st[0].Ejections, tc.wantEjections)
			}
			if got := good.Calls(); got != tc.wantOther {
				t.Errorf("calls of the other endpoint: got %d; want %d", got, tc.wantOther)
			}
		})
	}
}

// TestPoolEjectsStreakAndRefused: three 5xx in a row eject an endpoint
// (DefaultEjectAfter), a refused connection ejects it at once; while
// ejected it gets no request, and a probe after the ejection re-admits it.
func TestPoolEjectsStreakAndRefused(t *testing.T) {
	t.Run("5xx streak", func(t *testing.T) {
		bad := fakeopenai.New(t, fakeopenai.Options{})
		good := fakeopenai.New(t, fakeopenai.Options{})
		p, _ := newPool(t, []string{bad.BaseURL(), good.BaseURL()}, 1, func(c *llm.PoolConfig) { c.EjectBase = time.Hour })
		bad.Fail(fakeopenai.Status(500, "a"), fakeopenai.Status(502, "b"), fakeopenai.Status(503, "c"))
		for i := range 10 {
			if _, err := p.Complete(context.Background(), seeded(i)); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
		st := p.EndpointStats()
		if st[0].Ejections != 1 || st[0].Calls != 3 || st[0].Errors != 3 {
			t.Errorf("failing endpoint: got %d calls, %d errors, %d ejections; want 3, 3, 1 (ejected after %d failures in a row)", st[0].Calls, st[0].Errors, st[0].Ejections, llm.DefaultEjectAfter)
		}
		if st[1].Calls != 10 {
			t.Errorf("healthy endpoint calls: got %d; want 10 (every request once)", st[1].Calls)
		}
	})
	t.Run("refused, probed, re-admitted", func(t *testing.T) {
		r := newReplica(t, 0, 8, fakeopenai.Options{})
		good := fakeopenai.New(t, fakeopenai.Options{})
		p, logs := newPool(t, []string{r.BaseURL(), good.BaseURL()}, 1, func(c *llm.PoolConfig) { c.EjectBase = 50 * time.Millisecond })
		r.Kill()
		if _, err := p.Complete(context.Background(), seeded(1)); err != nil {
			t.Fatal(err)
		}
		if st := p.EndpointStats()[0]; st.Ejections != 1 || st.Errors != 1 {
			t.Fatalf("after one refused connection: got %d errors, %d ejections; want 1, 1", st.Errors, st.Ejections)
		}
		r.Restart()
		time.Sleep(60 * time.Millisecond)
		for i := range 4 {
			if _, err := p.Complete(context.Background(), seeded(i)); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.fake.Calls(); got == 0 {
			t.Errorf("calls of the restarted endpoint: got 0; want a probe and then its share")
		}
		if !strings.Contains(logs.text(), "re-admitted") {
			t.Errorf("log %q; want a re-admission", logs.text())
		}
	})
}

// TestPoolRetryBudget: failovers cost one retry in all, retries one each.
// With MaxRetries 1 and two endpoints answering 503 to everything, the
// request makes 2 rounds over both: 4 attempts, then gives up.
func TestPoolRetryBudget(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		faults     int // 503s each endpoint answers first
		want       int // attempts in all
		wantErr    bool
	}{
		// round 1: A fails, failover to B (1 retry used) fails; budget spent.
		{name: "budget 1, all failing", maxRetries: 1, faults: 100, want: 2, wantErr: true},
		// round 1: A, B fail (failover: 1); round 2 after backoff (2): A, B fail; spent.
		{name: "budget 2, all failing", maxRetries: 2, faults: 100, want: 4, wantErr: true},
		// A fails, B fails, backoff, A answers: 3 attempts, 2 retries.
		{name: "budget 2, one fault each", maxRetries: 2, faults: 1, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := fakeopenai.New(t, fakeopenai.Options{})
			b := fakeopenai.New(t, fakeopenai.Options{})
			for _, s := range []*fakeopenai.Server{a, b} {
				for range tc.faults {
					s.Fail(fakeopenai.Status(503, "down"))
				}
			}
			p, _ := newPool(t, []string{a.BaseURL(), b.BaseURL()}, 4, func(c *llm.PoolConfig) {
				c.MaxRetries = tc.maxRetries
				c.EjectAfter = 100 // keep both admitted
			})
			_, err := p.Complete(context.Background(), seeded(1))
			if got := a.Calls() + b.Calls(); got != tc.want {
				t.Errorf("attempts: got %d; want %d", got, tc.want)
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("error: got %v; want error %v", err, tc.wantErr)
			}
			var se *llm.StatusError
			if tc.wantErr && !errors.As(err, &se) {
				t.Errorf("error %v; want a *llm.StatusError inside", err)
			}
			// The pool's error counts every attempt over the endpoints.
			var e *llm.Error
			if tc.wantErr && (!errors.As(err, &e) || e.Attempts != tc.want || e.Class != llm.ClassServerError || e.StatusCode != 503 || !e.Retryable) {
				t.Errorf("error %#v; want an *llm.Error of class server_error, status 503, retryable, %d attempts", e, tc.want)
			}
		})
	}
}

func TestNewPoolErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.PoolConfig
		want string
	}{
		{"no replicas", llm.PoolConfig{OpenAIConfig: llm.OpenAIConfig{BaseURL: "http://a/v1", Model: "m"}}, "no replicas"},
		{"duplicate", llm.PoolConfig{OpenAIConfig: llm.OpenAIConfig{BaseURL: "http://a/v1", Model: "m"}, Replicas: []llm.Endpoint{{BaseURL: "http://a/v1/"}}}, "repeats endpoint 0"},
		{"bad url", llm.PoolConfig{OpenAIConfig: llm.OpenAIConfig{BaseURL: "http://a/v1", Model: "m"}, Replicas: []llm.Endpoint{{BaseURL: "ftp://b"}}}, "must start with http"},
		{"bad eject", llm.PoolConfig{OpenAIConfig: llm.OpenAIConfig{BaseURL: "http://a/v1", Model: "m"}, Replicas: []llm.Endpoint{{BaseURL: "http://b"}}, EjectAfter: -1}, "must be >= 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llm.NewPool(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want an error with %q", err, tc.want)
			}
		})
	}
}

// TestPoolIdentIsFirstEndpoint: adding replicas keeps the cache identity
// of the model's own base URL.
func TestPoolIdentIsFirstEndpoint(t *testing.T) {
	one, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://a:8000/v1", Model: "m", MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	p, err := llm.NewPool(llm.PoolConfig{OpenAIConfig: llm.OpenAIConfig{BaseURL: "http://a:8000/v1", Model: "m", MaxTokens: 64},
		Replicas: []llm.Endpoint{{BaseURL: "http://b:8000/v1"}, {BaseURL: "http://c:8000/v1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Ident(), one.Ident(); got != want {
		t.Errorf("pool ident: got %+v; want %+v (the single endpoint's)", got, want)
	}
}

// BenchmarkPoolCapacity measures the share of the replicas' capacity a
// pool delivers: three replicas of 20, 40 and 80 ms with 4 slots each
// (capacity 4/0.020 + 4/0.040 + 4/0.080 = 350 calls/s) under 24 callers.
// The metric %capacity is the ratio of calls/s to that capacity.
func BenchmarkPoolCapacity(b *testing.B) {
	const slots = 4
	lats := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	var urls []string
	capacity := 0.0
	for _, l := range lats {
		urls = append(urls, newReplica(b, l, slots, fakeopenai.Options{}).BaseURL())
		capacity += slots / l.Seconds()
	}
	p, _ := newPool(b, urls, slots, nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 6 * slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1))
				if i > b.N {
					return
				}
				if _, err := p.Complete(context.Background(), seeded(i)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rate := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(rate, "calls/s")
	b.ReportMetric(100*rate/capacity, "%capacity")
}
