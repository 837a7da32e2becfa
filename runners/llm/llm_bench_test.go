package llm

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// leanCompletion is a fixed chat-completion response body.
var leanCompletion = []byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"served-model",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"SELECT 1"},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)

// BenchmarkOpenAIThroughput measures calls/s against a fake server that
// answers after L = 100 ms, at C concurrent callers. The baseline is the
// ideal C/L calls/s; "efficiency" = achieved / ideal (goal >= 0.95).
// cpu-us/call is the process CPU per call (harness and in-process fake
// server together, so an upper bound on the harness's cost). The C callers
// start and finish each round together, so at C=64 every round puts a burst
// of 64 x (client + server) CPU on the machine's cores: on 2 cores that
// burst, not waiting in the harness, is what keeps efficiency near 0.93
// (with -cpu 8 it reaches 0.95; a block profile shows no harness lock).
func BenchmarkOpenAIThroughput(b *testing.B) {
	const latency = 100 * time.Millisecond
	for _, c := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			// A lean server: it answers a fixed completion after L and
			// records nothing, so the measurement is the client's.
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				time.Sleep(latency)
				w.Header().Set("Content-Type", "application/json")
				w.Write(leanCompletion)
			}))
			defer srv.Close()
			o := newTestOpenAI(b, srv.URL, func(cfg *OpenAIConfig) { cfg.MaxConcurrency = c; cfg.HTTPClient = nil })
			const rounds = 5 // each worker makes 5 sequential calls per iteration
			ctx := context.Background()
			// Warm up: open the C connections before timing.
			var warm sync.WaitGroup
			for range c {
				warm.Go(func() { o.Complete(ctx, Request{Messages: []Message{{Role: "user", Content: "warm"}}}) })
			}
			warm.Wait()
			var calls int
			var wall, cpu time.Duration
			b.ResetTimer()
			for range b.N {
				start, cpu0 := time.Now(), cpuTime()
				var wg sync.WaitGroup
				for w := range c {
					wg.Go(func() {
						for r := range rounds {
							req := Request{Messages: []Message{{Role: "user", Content: fmt.Sprintf("q %d %d", w, r)}}, Temperature: 0.5}
							if _, err := o.Complete(ctx, req); err != nil {
								b.Error(err)
							}
						}
					})
				}
				wg.Wait()
				wall += time.Since(start)
				cpu += cpuTime() - cpu0
				calls += c * rounds
			}
			achieved := float64(calls) / wall.Seconds()
			ideal := float64(c) / latency.Seconds()
			b.ReportMetric(achieved, "calls/s")
			b.ReportMetric(achieved/ideal, "efficiency")
			b.ReportMetric(float64(cpu.Microseconds())/float64(calls), "cpu-us/call")
		})
	}
}

// BenchmarkCachedReplay measures cache-hit calls/s for sim answers against
// the uncached sim baseline in the same run ("speedup" = cached/uncached).
func BenchmarkCachedReplay(b *testing.B) {
	bm := concertBenchmark(b, false)
	s, err := NewSim(bm, SimConfig{P: 0.5})
	if err != nil {
		b.Fatal(err)
	}
	cache, err := OpenCache(b.TempDir() + "/cache.db")
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close()
	cc := Cached(s, cache, s.Ident())
	ctx := context.Background()
	reqs := make([]Request, len(concertGold))
	for i, g := range concertGold {
		reqs[i] = Request{Messages: prompt(g.q, strings.Repeat("schema line\n", 200)), N: 3, Temperature: 0.8}
		if _, err := cc.Complete(ctx, reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
	rate := func(c Client, n int) float64 {
		start := time.Now()
		for i := range n {
			if _, err := c.Complete(ctx, reqs[i%len(reqs)]); err != nil {
				b.Fatal(err)
			}
		}
		return float64(n) / time.Since(start).Seconds()
	}
	b.ResetTimer()
	var cached, direct float64
	for range b.N {
		cached += rate(cc, 200)
		direct += rate(s, 200)
	}
	b.ReportMetric(cached/float64(b.N), "cached-calls/s")
	b.ReportMetric(direct/float64(b.N), "sim-calls/s")
	b.ReportMetric(cached/direct, "speedup")
}

// BenchmarkSimFind compares the Aho-Corasick question lookup on a 20 KB
// prompt over 1,534 questions with the naive baseline (strings.Contains for
// every question) in the same run ("speedup" = naive time / matcher time).
func BenchmarkSimFind(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("what which how many list show the of singer stadium concert name age country average capacity year for in with and by each all total")
	bm := &datasets.Benchmark{Name: "big"}
	for i := range 1534 {
		var q []string
		for range 8 + rng.IntN(10) {
			q = append(q, words[rng.IntN(len(words))])
		}
		bm.Examples = append(bm.Examples, datasets.Example{ID: fmt.Sprint(i), Question: fmt.Sprintf("%s #%d?", strings.Join(q, " "), i)})
	}
	s, err := NewSim(bm, SimConfig{})
	if err != nil {
		b.Fatal(err)
	}
	p := strings.Repeat("CREATE TABLE singer (singer_id INTEGER, name TEXT); -- average age of each singer\n", 250) +
		"Question: " + bm.Examples[999].Question
	naive := func() int {
		norm, best, bl := normalizeText(p), -1, 0
		for i, e := range bm.Examples {
			q := normalizeText(e.Question)
			if len(q) > bl && strings.Contains(norm, q) {
				best, bl = i, len(q)
			}
		}
		return best
	}
	b.ResetTimer()
	var tm, tn time.Duration
	for range b.N {
		start := time.Now()
		for range 20 {
			if e, ok := s.Find(p); !ok || e.ID != "999" {
				b.Fatalf("Find = %q", e.ID)
			}
		}
		tm += time.Since(start)
		start = time.Now()
		for range 20 {
			if naive() != 999 {
				b.Fatal("naive miss")
			}
		}
		tn += time.Since(start)
	}
	b.ReportMetric(float64(tm.Microseconds())/float64(20*b.N), "find-us")
	b.ReportMetric(float64(tn)/float64(tm), "speedup")
}
