package metrics

import (
	"context"
	"math"
	"testing"
)

// TestRVESReward checks the official buckets (evaluation_ves.py l.68-79)
// at and around each boundary.
func TestRVESReward(t *testing.T) {
	cases := []struct{ ratio, want float64 }{
		{0, 0}, {1e-9, 0.25}, {0.2499, 0.25}, {0.25, 0.5}, {0.4999, 0.5}, {0.5, 0.75},
		{0.9999, 0.75}, {1, 1}, {1.9999, 1}, {2, 1.25}, {50, 1.25},
	}
	for _, c := range cases {
		if got := RVESReward(c.ratio); got != c.want {
			t.Errorf("RVESReward(%v) = %v; want %v", c.ratio, got, c.want)
		}
	}
}

// TestTrimRatios follows clean_abnormal (evaluation_ves.py l.23-31): keep
// x with mean - 3 sd < x < mean + 3 sd, sd the population deviation. For
// nineteen 1s and one 100: mean 5.95, sd sqrt(10019/20 - 5.95^2) = 21.58,
// upper bound 70.68, so 100 is dropped. With sd 0 every value is kept (the
// official code would keep none; see TrimRatios).
func TestTrimRatios(t *testing.T) {
	xs := make([]float64, 19, 20)
	for i := range xs {
		xs[i] = 1
	}
	xs = append(xs, 100)
	if got := TrimRatios(xs); len(got) != 19 || got[0] != 1 || got[18] != 1 {
		t.Errorf("TrimRatios(19 x 1, 100) = %v; want the nineteen 1s", got)
	}
	if got := TrimRatios([]float64{2, 2, 2}); len(got) != 3 {
		t.Errorf("TrimRatios(2, 2, 2) = %v; want all three", got)
	}
	cases := []struct {
		name             string
		ratios           []float64
		ratio, low, high float64
	}{
		// Mean 1, reward 1. Prediction-first pairs 0.5 and 1.5: mean 1,
		// sd 0.5, SE 0.354, down to 0.293 (reward 0.5); gold-first 1 alone.
		// Overall SE sqrt(1/6)/sqrt(3) = 0.236 reaches 1.471 (reward 1).
		{"spread", []float64{0.5, 1, 1.5}, 1, 0.5, 1},
		// An order effect: prediction first 0.9, gold first 1.0, no other
		// noise. Mean 0.95 (reward 0.75); overall SE 0.05/sqrt(8) = 0.018
		// alone would give [0.915, 0.985], all 0.75; the gold-first mean
		// 1.0 widens the band to reward 1.
		{"order effect", []float64{0.9, 1, 0.9, 1, 0.9, 1, 0.9, 1}, 0.95, 0.75, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := rvesFromRatios(c.ratios)
			if math.Abs(v.Ratio-c.ratio) > 1e-12 || v.Reward != RVESReward(c.ratio) || v.RewardLow != c.low || v.RewardHigh != c.high {
				t.Errorf("rvesFromRatios(%v) = %+v; want ratio %v, band [%v, %v]", c.ratios, v, c.ratio, c.low, c.high)
			}
		})
	}
}

// TestRVESScorer times predictions on the fixture database. The gold as
// its own prediction: R-VES 1 (100) lies within the band its own noise
// allows. A correct prediction made slow (the gold's count behind a
// recursive count to 100,000, tens of milliseconds against the gold's
// microseconds) has a ratio far below 0.25: reward 0.25, the lowest
// bucket, its whole band in that bucket. A wrong prediction is not timed:
// reward 0.
func TestRVESScorer(t *testing.T) {
	b := fixtureBench(t)
	s, err := NewScorer(b, nil, ScoreOptions{RVES: 10})
	if err != nil {
		t.Fatal(err)
	}
	ex := b.Examples[1] // SELECT count(*) FROM singer
	ctx := context.Background()

	gold := s.Score(ctx, ex, ex.GoldSQL)
	if gold.RVES == nil || gold.RVES.Runs != 10 || gold.RVES.Kept == 0 {
		t.Fatalf("gold-as-pred R-VES %+v; want 10 timed runs", gold.RVES)
	}
	sum := SummarizeEX(s.Mode(), []Verdict{gold}, nil)
	if r := sum.Overall.RVES; r == nil || r.Low > 1 || r.High < 1 {
		t.Errorf("gold-as-pred R-VES summary %+v; want 1 (100) within [low, high]", r)
	}
	t.Logf("gold-as-pred: %+v", *gold.RVES)

	slow := "SELECT count(*) FROM singer WHERE (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c) > 0"
	v := s.Score(ctx, ex, slow)
	if !v.Correct || v.RVES == nil {
		t.Fatalf("slow prediction %+v; want correct and timed", v)
	}
	if r := v.RVES; r.Reward != 0.25 || r.RewardHigh != 0.25 || r.Ratio >= 0.25 {
		t.Errorf("slow prediction R-VES %+v; want ratio < 0.25, reward 0.25 in its whole band", r)
	}
	sum = SummarizeEX(s.Mode(), []Verdict{v}, nil)
	if r := sum.Overall.RVES; r == nil || r.Score != 0.5 || r.High != 0.5 {
		t.Errorf("slow prediction summary %+v; want R-VES sqrt(0.25) = 0.5 (50)", r)
	}

	w := s.Score(ctx, ex, "SELECT 0")
	if w.RVES == nil || w.RVES.Reward != 0 || w.RVES.Runs != 0 {
		t.Errorf("wrong prediction R-VES %+v; want reward 0, not timed", w.RVES)
	}
	if _, err := NewScorer(b, nil, ScoreOptions{Mode: ModeSpider, RVES: 10}); err == nil {
		t.Error("NewScorer(spider, RVES): got no error; want one")
	}
}
