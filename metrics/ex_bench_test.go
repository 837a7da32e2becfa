package metrics

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// BenchmarkSpiderGoldVsGold scores Spider dev gold-vs-gold (972 runnable
// questions) four ways in each iteration, each on a freshly loaded
// benchmark (new engine, new connections):
//
//	cold-N: empty on-disk gold cache, NumCPU workers (the baseline)
//	warm-N: a new GoldCache over the directory cold-N filled
//	cold-1: empty cache, one worker
//	warm-1: a new GoldCache over the directory cold-1 filled, one worker
//
// and reports each time per iteration plus the ratios "warm/cold" (time
// of warm-N over cold-N, lower is better), "N-workers-speedup" (cold-1
// over cold-N) and "warm-N-workers-speedup" (warm-1 over warm-N). Skipped
// without the shared data.
func BenchmarkSpiderGoldVsGold(b *testing.B) {
	dir := testenv.Datasets(b, "spider")
	n := runtime.NumCPU()
	score := func(cacheDir string, workers int) time.Duration {
		bench, err := datasets.Open("spider", dir, datasets.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer bench.Engine.Close()
		cache, err := NewGoldCache(cacheDir)
		if err != nil {
			b.Fatal(err)
		}
		defer cache.Close()
		s, err := NewScorer(bench, cache, ScoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		vs, err := s.ScoreAll(context.Background(), GoldPredictions(bench), workers, nil)
		if err == nil {
			err = cache.Flush()
		}
		el := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if sum := SummarizeEX(s.Mode(), vs, nil); sum.Overall.Correct != 972 {
			b.Fatalf("gold-vs-gold: %d correct; want 972", sum.Overall.Correct)
		}
		return el
	}
	var cold, warm, cold1, warm1 time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := b.TempDir()
		cold += score(d, n)
		warm += score(d, n)
		d1 := b.TempDir()
		cold1 += score(d1, 1)
		warm1 += score(d1, 1)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(per(cold), "cold-N-ms/op")
	b.ReportMetric(per(warm), "warm-N-ms/op")
	b.ReportMetric(per(cold1), "cold-1-ms/op")
	b.ReportMetric(per(warm1), "warm-1-ms/op")
	b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
	b.ReportMetric(float64(cold1)/float64(cold), "N-workers-speedup")
	b.ReportMetric(float64(warm1)/float64(warm), "warm-N-workers-speedup")
	b.ReportMetric(float64(n), "workers")
}
