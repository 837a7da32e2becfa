package metrics

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestPassAtK checks the unbiased estimator against hand-computed values
// of 1 - C(n-c,k)/C(n,k) (Chen et al. 2021, eq. 1). Tolerance 1e-12: the
// product form rounds a few times.
func TestPassAtK(t *testing.T) {
	cases := []struct {
		n, c, k int
		want    float64
		how     string
	}{
		{10, 3, 1, 0.3, "1 - C(7,1)/C(10,1) = 1 - 7/10"},
		{10, 3, 5, 11.0 / 12, "1 - C(7,5)/C(10,5) = 1 - 21/252"},
		{10, 1, 5, 0.5, "1 - C(9,5)/C(10,5) = 1 - 126/252"},
		{10, 2, 5, 7.0 / 9, "1 - C(8,5)/C(10,5) = 1 - 56/252"},
		{10, 6, 5, 1, "C(4,5) = 0: every draw of 5 holds a correct one"},
		{10, 0, 5, 0, "no correct sample"},
		{10, 10, 1, 1, "every sample correct"},
		{5, 1, 5, 1, "n = k: the one correct sample is always drawn"},
		{3, 1, 5, 1, "n < k: pass@n"},
		{3, 0, 5, 0, "n < k, none correct"},
	}
	for _, c := range cases {
		t.Run(c.how, func(t *testing.T) {
			if got := PassAtK(c.n, c.c, c.k); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("PassAtK(%d, %d, %d) = %v; want %v (%s)", c.n, c.c, c.k, got, c.want, c.how)
			}
		})
	}
}

// TestMajorityAtK: the first k candidates vote by result key; the largest
// group wins, a tie goes to the group seen first, and a candidate that
// did not run (empty key) does not vote. Expected winners by counting.
func TestMajorityAtK(t *testing.T) {
	a, b := CandidateMark{Correct: false, Result: "A"}, CandidateMark{Correct: true, Result: "B"}
	failed := CandidateMark{}
	pool := []CandidateMark{a, b, b, a, a}
	cases := []struct {
		name  string
		marks []CandidateMark
		k     int
		want  bool
	}{
		{"k=1: A alone", pool, 1, false},
		{"k=3: B 2, A 1", pool, 3, true},
		{"k=5: A 3, B 2", pool, 5, false},
		{"k beyond the pool: all vote", pool, 9, false},
		{"tie goes to the first group", []CandidateMark{b, a}, 2, true},
		{"tie goes to the first group, wrong", []CandidateMark{a, b}, 2, false},
		{"failed candidates do not vote", []CandidateMark{failed, failed, b}, 3, true},
		{"no candidate ran", []CandidateMark{failed}, 1, false},
		{"k=0", pool, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MajorityAtK(c.marks, c.k); got != c.want {
				t.Errorf("MajorityAtK(k=%d) = %v; want %v", c.k, got, c.want)
			}
		})
	}
}

// TestPassedAtK: a question passes at k when one of its first k stored
// candidates is correct; the pool is read in its stored order.
func TestPassedAtK(t *testing.T) {
	wrong, right := CandidateMark{Result: "A"}, CandidateMark{Correct: true, Result: "B"}
	pool := []CandidateMark{wrong, wrong, right}
	cases := []struct {
		k    int
		want bool
	}{{0, false}, {1, false}, {2, false}, {3, true}, {8, true}}
	for _, c := range cases {
		if got := PassedAtK(pool, c.k); got != c.want {
			t.Errorf("PassedAtK(k=%d) = %v; want %v", c.k, got, c.want)
		}
	}
	if PassedAtK(nil, 5) {
		t.Error("PassedAtK(no candidates) = true; want false")
	}
}

// TestSummarizeCandidates: means over the verdicts whose gold runs and
// that carry marks. Question 1: n = 10, c = 3; question 2: n = 2, c = 0;
// question 3 has no candidates; question 4's gold fails. pass@1 = (0.3 +
// 0)/2 = 0.15; pass@5 = (11/12 + 0)/2 = 11/24, with question 2 short of 5.
func TestSummarizeCandidates(t *testing.T) {
	ten := make([]CandidateMark, 10)
	for i := range ten {
		ten[i] = CandidateMark{Correct: i < 3, Result: map[bool]string{true: "R", false: string(rune('a' + i))}[i < 3]}
	}
	vs := []Verdict{
		{Status: StatusOK, Candidates: ten},
		{Status: StatusOK, Candidates: []CandidateMark{{Result: "x"}, {Result: "y"}}},
		{Status: StatusOK},
		{Status: StatusGoldError, Candidates: ten},
	}
	s, err := SummarizeCandidates(vs, []int{1, 5})
	if err != nil {
		t.Fatal(err)
	}
	if s.Questions != 2 || s.Verdicts != 3 || s.MeanPool != 6 || len(s.ByK) != 2 {
		t.Fatalf("summary %+v; want 2 questions of 3 verdicts, mean pool 6, two ks", s)
	}
	// majority@1: question 1's first candidate is correct (R), question 2's
	// is wrong: 1/2. majority@5: R holds 3 of the first 5, the others one
	// each: correct; question 2 wrong: 1/2.
	want := []CandidateK{{K: 1, PassAtK: 0.15, MajorityAtK: 0.5}, {K: 5, PassAtK: 11.0 / 24, MajorityAtK: 0.5, Short: 1}}
	for i, w := range want {
		g := s.ByK[i]
		if g.K != w.K || math.Abs(g.PassAtK-w.PassAtK) > 1e-12 || g.MajorityAtK != w.MajorityAtK || g.Short != w.Short {
			t.Errorf("k=%d: got %+v; want %+v", w.K, g, w)
		}
	}
	if _, err := SummarizeCandidates(vs, []int{0}); err == nil {
		t.Error("k = 0: got no error; want one")
	}
}

// TestScoreCandidates judges a pool on a shared mini-dev question: the
// gold twice (correct, one result key), a wrong query (its own key) and
// one that fails (no key).
func TestScoreCandidates(t *testing.T) {
	b := loadShared(t, "bird-minidev", "bird")
	ex := firstOnDB(t, b, "superhero")
	s, err := NewScorer(b, sharedGold(), ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	marks := s.ScoreCandidates(context.Background(), ex, []string{ex.GoldSQL, "SELECT 12345", ex.GoldSQL, "SELECT no_such FROM superhero"})
	if len(marks) != 4 {
		t.Fatalf("got %d marks; want 4", len(marks))
	}
	if !marks[0].Correct || marks[0] != marks[2] || marks[0].Result == "" {
		t.Errorf("gold marks %+v, %+v; want equal, correct, with a result key", marks[0], marks[2])
	}
	if marks[1].Correct || marks[1].Result == "" || marks[1].Result == marks[0].Result {
		t.Errorf("wrong candidate %+v; want incorrect with its own key", marks[1])
	}
	if marks[3] != (CandidateMark{}) {
		t.Errorf("failing candidate %+v; want incorrect without a key", marks[3])
	}
	if s.ScoreCandidates(context.Background(), ex, nil) != nil {
		t.Error("no candidates: want nil")
	}
}

// TestScoreWithCandidates checks that judging a prediction with its
// candidates gives what Score and ScoreCandidates give apart, for final
// predictions that are a candidate (its mark taken from the final's
// execution), that are not, and that fail.
func TestScoreWithCandidates(t *testing.T) {
	b := loadShared(t, "bird-minidev", "bird")
	ex := firstOnDB(t, b, "superhero")
	s, err := NewScorer(b, sharedGold(), ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pool := []string{"SELECT 12345", ex.GoldSQL, "SELECT no_such FROM superhero", ex.GoldSQL}
	for _, tc := range []struct {
		name, pred string
		sqls       []string
	}{
		{"gold among candidates", ex.GoldSQL, pool},
		{"wrong among candidates", "SELECT 12345", pool},
		{"failing among candidates", "SELECT no_such FROM superhero", pool},
		{"not a candidate", "SELECT 1", pool},
		{"no candidates", ex.GoldSQL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, marks := s.ScoreWithCandidates(ctx, ex, tc.pred, tc.sqls)
			want := s.Score(ctx, ex, tc.pred)
			var wantMarks []CandidateMark
			if len(tc.sqls) > 0 && GoldRuns(want.Status) {
				wantMarks = s.ScoreCandidates(ctx, ex, tc.sqls)
			}
			v.PredMS, want.PredMS, v.GoldMS, want.GoldMS = 0, 0, 0, 0
			if fmt.Sprintf("%+v", v) != fmt.Sprintf("%+v", want) {
				t.Errorf("verdict: got %+v; want %+v", v, want)
			}
			if fmt.Sprint(marks) != fmt.Sprint(wantMarks) {
				t.Errorf("marks: got %+v; want %+v", marks, wantMarks)
			}
		})
	}
}

// TestScoreCandidatesTestSuite: under test-suite scoring a candidate is
// judged on every variant, and its result key is its result on the
// primary file (shop.sqlite), the key plain scoring gives, when the
// verdict is ok; a candidate that fails on a variant, or whose gold does,
// has no key. The expected verdicts are suiteCases', worked out by hand.
func TestScoreCandidatesTestSuite(t *testing.T) {
	dir, _ := buildSuite(t)
	b := loadSuite(t, dir)
	plain, err := NewScorer(b, nil, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	suite, err := NewScorer(b, nil, ScoreOptions{TestSuite: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, c := range suiteCases {
		t.Run(fmt.Sprintf("q%d", i), func(t *testing.T) {
			ex := b.Examples[i]
			got := suite.ScoreCandidates(ctx, ex, []string{c.pred})[0]
			want := CandidateMark{Correct: c.suiteCorrect}
			if c.suiteStatus == StatusOK {
				want.Result = plain.ScoreCandidates(ctx, ex, []string{c.pred})[0].Result
				if want.Result == "" {
					t.Fatalf("plain mark of %q has no result key; want one", c.pred)
				}
			}
			if got != want {
				t.Errorf("mark of %q: got %+v; want %+v", c.pred, got, want)
			}
		})
	}
}
