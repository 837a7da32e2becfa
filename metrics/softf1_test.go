package metrics

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// res builds a result set of the given rows, as wide as the first.
func res(rows ...[]any) *datasets.ResultSet {
	n := 0
	if len(rows) > 0 {
		n = len(rows[0])
	}
	return rs(n, rows...)
}

// TestSoftF1Official checks Soft F1 on hand-made results. Each case cites
// the line of bird-bench/mini_dev evaluation/evaluation_f1.py (commit
// 2932a2b) whose rule it follows, and works the expected value out by hand
// from calculate_f1_score (l.43-101) and calculate_row_match (l.14-40):
// tp, fp and fn are the sums of the per-pair match, pred-only and
// truth-only fractions; precision = tp/(tp+fp), recall = tp/(tp+fn).
// Tolerance 1e-12 (the values are short sums of exact fractions).
func TestSoftF1Official(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred *datasets.ResultSet
		want       float64
		wantEX     bool
	}{
		// l.55-57: both empty return 1.0 before anything else.
		{"both empty", res(), res(), 1, true},
		// l.85-89: a predicted row beyond the gold rows adds 1 to fp;
		// tp = 0, so precision and F1 are 0 (l.95, l.98-100).
		{"gold empty", res(), res(row(int64(1))), 0, false},
		// l.72-76: a gold row without a predicted partner adds 1 to fn.
		{"prediction empty", res(row(int64(1))), res(), 0, false},
		// l.59-65: duplicates are dropped before rows are paired; without
		// that the second (1,) would be paired with gold (2,) and the
		// score would be below 1.
		{"duplicates dropped first", res(row(int64(1)), row(int64(2))), res(row(int64(1)), row(int64(1)), row(int64(2))), 1, true},
		// l.71-83: rows are paired by position. (2,'b') against (1,'a'):
		// no match, pred-only 2/2, truth-only 1; the same for the second
		// pair: tp 0, F1 0 although the sets are equal (EX 1).
		{"other row order", res(row(int64(1), "a"), row(int64(2), "b")), res(row(int64(2), "b"), row(int64(1), "a")), 0, true},
		// l.71-83: (1) pairs with (1): tp 1; (3) with (2) and (2) with
		// (3): fp 1 + 1, fn 1 + 1. P = R = 1/3, F1 = 1/3.
		{"partly reordered", res(row(int64(1)), row(int64(2)), row(int64(3))), res(row(int64(1)), row(int64(3)), row(int64(2))), 1.0 / 3, true},
		// l.29-36: membership in the gold row, so column order is ignored.
		{"column order ignored", res(row(int64(1), "x")), res(row("x", int64(1))), 1, false},
		// l.29-33, l.37: ('-','-') against ('-',): both predicted values are
		// in the gold row, matches 2 / width 1 = 2, fp 0, fn 0: P = R = 1.
		{"repeats ignored", res(row("-")), res(row("-", "-")), 1, false},
		// l.34-39: (1,) against (1,2): match 1/2, pred-only 0, truth-only
		// 1/2. P = 0.5/0.5 = 1, R = 0.5/1 = 0.5, F1 = 2*0.5/1.5 = 2/3.
		{"missing column", res(row(int64(1), int64(2))), res(row(int64(1))), 2.0 / 3, false},
		// l.72-76 and l.85-89 together: gold (1),(2) against (1): tp 1, fn
		// 1: P 1, R 1/2, F1 2/3; against (1),(2),(3): tp 2, fp 1: P 2/3,
		// R 1, F1 0.8.
		{"gold row unpaired", res(row(int64(1)), row(int64(2))), res(row(int64(1))), 2.0 / 3, false},
		{"predicted row unpaired", res(row(int64(1)), row(int64(2))), res(row(int64(1)), row(int64(2)), row(int64(3))), 0.8, false},
		// l.30 and l.35 use Python's `in`, i.e. ==: None == None, 1 == 1.0,
		// '1' != 1, None != 0.
		{"NULL matches NULL", res(row(nil, int64(1))), res(row(nil, int64(1))), 1, true},
		{"NULL is not 0", res(row(nil)), res(row(int64(0))), 0, false},
		{"1 equals 1.0", res(row(int64(1))), res(row(1.0)), 1, true},
		{"'1' is not 1", res(row(int64(1))), res(row("1")), 0, false},
		// l.63-65: dict.fromkeys treats (1,) and (1.0,) as one key, so the
		// repeat is dropped and (2,) pairs with (2,).
		{"1 and 1.0 are duplicates", res(row(int64(1)), row(int64(2))), res(row(int64(1)), row(1.0), row(int64(2))), 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SoftF1(c.gold, c.pred)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("SoftF1 = %v; want %v", got, c.want)
			}
			ex, err := CompareResults(ModeBIRDMiniDev, Quirks{}, c.gold, c.pred, false)
			if err != nil {
				t.Fatal(err)
			}
			if ex != c.wantEX {
				t.Errorf("EX = %v; want %v", ex, c.wantEX)
			}
		})
	}
}

// TestSoftF1InvalidText: text that is not valid UTF-8 is an error of its
// side, as the official sqlite3 connection raises on it (and the question
// then scores 0, execute_model's except at evaluation_f1.py l.125-130).
func TestSoftF1InvalidText(t *testing.T) {
	_, err := SoftF1(res(row("a")), res(row("\xff")))
	if err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("err = %v; want a UTF-8 error", err)
	}
}

// TestSoftF1Scorer: the scorer sets Verdict.SoftF1 on every verdict, 0 for
// failures (evaluation_f1.py's execute_model, l.125-130: a timeout or any
// exception scores 0), and refuses modes other than BIRD's.
func TestSoftF1Scorer(t *testing.T) {
	b := loadShared(t, "bird-minidev", "bird")
	ex := firstOnDB(t, b, "superhero")
	s, err := NewScorer(b, sharedGold(), ScoreOptions{SoftF1: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		pred   string
		status Status
		want   float64
	}{
		{"gold", ex.GoldSQL, StatusOK, 1},
		{"error", "SELECT no_such_column FROM superhero", StatusPredError, 0},
		{"not SQL", "this is not SQL", StatusPredError, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := s.Score(context.Background(), ex, c.pred)
			if v.Status != c.status || v.SoftF1 == nil || *v.SoftF1 != c.want {
				t.Fatalf("verdict %+v; want status %s with soft_f1 %v", v, c.status, c.want)
			}
		})
	}
	if _, err := NewScorer(b, sharedGold(), ScoreOptions{Mode: ModeSpider, SoftF1: true}); err == nil {
		t.Error("NewScorer(spider, SoftF1): got no error; want one naming the BIRD modes")
	}
}

// TestSoftF1GoldAsPredMiniDev is the check on real data: every mini-dev
// gold whose database is in the shared data (140 questions, shared
// datasets README) scored as its own prediction has Soft F1 1, so the
// summary reads 100.
func TestSoftF1GoldAsPredMiniDev(t *testing.T) {
	b := loadShared(t, "bird-minidev", "bird")
	_, sum := scoreGoldAsPred(t, b, ScoreOptions{SoftF1: true})
	if sum.Overall.Runnable != 140 || sum.Overall.SoftF1 == nil || *sum.Overall.SoftF1 != 1 {
		t.Fatalf("gold-as-pred: runnable %d, soft F1 %v; want 140 and 1", sum.Overall.Runnable, sum.Overall.SoftF1)
	}
	for _, d := range sum.Difficulties {
		if g := sum.ByDifficulty[d]; g.SoftF1 == nil || *g.SoftF1 != 1 {
			t.Errorf("%s: soft F1 %v; want 1", d, g.SoftF1)
		}
	}
}
