package metrics

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// sharedGold is one warm, memory-only gold cache for the whole test
// binary: every integration test and benchmark that scores the same gold
// on the same database file reuses its result.
var sharedGold = sync.OnceValue(func() *GoldCache {
	c, err := NewGoldCache("")
	if err != nil {
		panic(err)
	}
	return c
})

// loadShared loads benchmark name from the shared data directory sub,
// skipping when the data is absent.
func loadShared(t testing.TB, name, sub string) *datasets.Benchmark {
	t.Helper()
	dir := testenv.Datasets(t, sub)
	b, err := datasets.Open(name, dir, datasets.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	t.Cleanup(func() { b.Engine.Close() })
	return b
}

// scoreGoldAsPred scores every gold of b as its own prediction with opt,
// on the shared gold cache, and returns the verdicts and their summary.
func scoreGoldAsPred(t testing.TB, b *datasets.Benchmark, opt ScoreOptions) ([]Verdict, EXSummary) {
	t.Helper()
	s, err := NewScorer(b, sharedGold(), opt)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.ScoreAll(context.Background(), GoldPredictions(b), runtime.NumCPU(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return vs, SummarizeEX(s.Mode(), vs, nil)
}

// firstOnDB returns b's first question on database db.
func firstOnDB(t testing.TB, b *datasets.Benchmark, db string) datasets.Example {
	t.Helper()
	for _, e := range b.Examples {
		if e.DBID == db {
			return e
		}
	}
	t.Fatalf("%s has no question on database %q", b.Name, db)
	return datasets.Example{}
}

// TestGoldAsPredShared is the Must-show check: every gold scored as its own
// prediction is correct on every runnable question, and the rest are
// missing_db. Expected counts come from the shared datasets README (shared/datasets/README.md)
// ("runnable now" column) and each SOURCE.md.
func TestGoldAsPredShared(t *testing.T) {
	cases := []struct {
		name, sub       string
		total, runnable int
	}{
		{"spider", "spider", 1034, 972},
		{"bird", "bird", 1534, 432},
		{"bird-minidev", "bird", 500, 140},
		{"archer", "archer", 104, 104},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := loadShared(t, c.name, c.sub)
			vs, sum := scoreGoldAsPred(t, b, ScoreOptions{})
			if sum.Overall.Total != c.total || sum.Overall.Runnable != c.runnable || sum.Overall.Correct != c.runnable {
				for _, v := range vs {
					if v.Status != StatusMissingDB && !v.Correct {
						t.Logf("not correct: %+v", v)
					}
				}
				t.Fatalf("%s gold-as-pred: total %d runnable %d correct %d; want %d, %d, %d",
					c.name, sum.Overall.Total, sum.Overall.Runnable, sum.Overall.Correct, c.total, c.runnable, c.runnable)
			}
			if got := sum.Status[StatusMissingDB]; got != c.total-c.runnable {
				t.Errorf("missing_db = %d; want %d", got, c.total-c.runnable)
			}
			t.Logf("%s: EX %.4f on %d runnable of %d; status %v", c.name, sum.Overall.EX, sum.Overall.Runnable, sum.Overall.Total, sum.Status)
		})
	}
}

// TestWrongPredictionsShared: a deliberately wrong prediction set scores
// below 100%: every third prediction is replaced by "SELECT 1" and every
// fifth by text that is not SQL.
func TestWrongPredictionsShared(t *testing.T) {
	b := loadShared(t, "spider", "spider")
	preds := GoldPredictions(b)
	broken := 0
	for i := range preds {
		switch {
		case i%5 == 0:
			preds[i] = "this is not SQL"
		case i%3 == 0:
			preds[i] = "SELECT 1"
		}
	}
	s, err := NewScorer(b, sharedGold(), ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.ScoreAll(context.Background(), preds, runtime.NumCPU(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Status != StatusMissingDB && v.Index%5 == 0 {
			broken++
		}
	}
	sum := SummarizeEX(s.Mode(), vs, nil)
	if sum.Overall.EX >= 1 || sum.Overall.Correct > sum.Overall.Runnable-broken {
		t.Fatalf("wrong predictions: %+v; want EX < 100%% with at most %d correct", sum.Overall, sum.Overall.Runnable-broken)
	}
	if sum.Status[StatusPredError] != broken {
		t.Errorf("pred_error = %d; want %d (the non-SQL lines on runnable questions)", sum.Status[StatusPredError], broken)
	}
	t.Logf("wrong set: EX %.4f on %d runnable", sum.Overall.EX, sum.Overall.Runnable)
}
