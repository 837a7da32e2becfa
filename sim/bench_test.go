package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// BenchmarkCachedReplay measures cache-hit calls/s for sim answers against
// the uncached sim baseline in the same run ("speedup" = cached/uncached).
func BenchmarkCachedReplay(b *testing.B) {
	bm := concertBenchmark(b, false)
	s, err := New(bm, Config{P: 0.5})
	if err != nil {
		b.Fatal(err)
	}
	cache, err := llm.OpenCache(b.TempDir() + "/cache.db")
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close()
	cc := llm.Cached(s, cache, s.Ident())
	ctx := context.Background()
	reqs := make([]llm.Request, len(concertGold))
	for i, g := range concertGold {
		reqs[i] = llm.Request{Messages: prompt(g.q, strings.Repeat("schema line\n", 200)), N: 3, Temperature: 0.8}
		if _, err := cc.Complete(ctx, reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
	rate := func(c llm.Client, n int) float64 {
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
	s, err := New(bm, Config{})
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
