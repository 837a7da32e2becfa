package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"
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
