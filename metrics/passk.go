package metrics

import (
	"context"
	"fmt"
	"slices"

	"github.com/t2sbench/t2sbench/datasets"
)

// CandidateMark is the judgement of one stored candidate of a runner's
// result (Verdict.Candidates): whether it is correct under the scorer's EX
// rule, and a short key of its execution result (datasets.ShortKey of
// ResultSet.BagKey: the multiset of rows, the rule the self-consistency
// baselines vote by), empty when it did not run.
type CandidateMark struct {
	Correct bool   `json:"correct"`
	Result  string `json:"result,omitempty"`
}

// ScoreCandidates judges each of sqls, a runner's candidates in their
// stored order, against ex's gold: each distinct SQL text is scored once
// with Score (read-only, under the scorer's timeout, the same checks as a
// final prediction), and the result that execution gave is its result
// key when the verdict is ok. It returns nil for no candidate.
func (s *Scorer) ScoreCandidates(ctx context.Context, ex datasets.Example, sqls []string) []CandidateMark {
	return s.scoreCandidates(ctx, ex, sqls, nil)
}

// ScoreWithCandidates is Score of predSQL followed, when its gold runs
// (GoldRuns), by ScoreCandidates of sqls, except that a candidate whose
// text is predSQL's takes its mark from predSQL's execution rather than
// running again (a self-consistency runner's answer is one of its
// candidates). marks is nil when sqls is empty or the gold did not run.
func (s *Scorer) ScoreWithCandidates(ctx context.Context, ex datasets.Example, predSQL string, sqls []string) (v Verdict, marks []CandidateMark) {
	judged, rs := s.score1(ctx, ex, predSQL, "")
	v = s.finish(ctx, ex, predSQL, judged)
	if len(sqls) == 0 || !GoldRuns(v.Status) {
		return v, nil
	}
	return v, s.scoreCandidates(ctx, ex, sqls, map[string]CandidateMark{predSQL: candidateMark(judged, rs)})
}

// candidateMark is the mark of a candidate that score1 judged v with
// result rs.
func candidateMark(v Verdict, rs *datasets.ResultSet) CandidateMark {
	m := CandidateMark{Correct: v.Status == StatusOK && v.Correct}
	if rs != nil {
		m.Result = datasets.ShortKey(rs.BagKey())
	}
	return m
}

// scoreCandidates is ScoreCandidates with done holding the marks of texts
// already judged (nil for none).
func (s *Scorer) scoreCandidates(ctx context.Context, ex datasets.Example, sqls []string, done map[string]CandidateMark) []CandidateMark {
	if len(sqls) == 0 {
		return nil
	}
	out := make([]CandidateMark, len(sqls))
	if done == nil {
		done = map[string]CandidateMark{}
	}
	for i, q := range sqls {
		if m, ok := done[q]; ok {
			out[i] = m
			continue
		}
		v, rs := s.score1(ctx, ex, q, "")
		m := candidateMark(v, rs)
		done[q] = m
		out[i] = m
	}
	return out
}

// PassAtK is the unbiased estimator of pass@k from n samples of which c
// are correct (Chen et al. 2021, "Evaluating Large Language Models Trained
// on Code", arXiv:2107.03374, eq. 1 and its numerically stable form in
// Figure 3): 1 - C(n-c, k) / C(n, k), computed as
// 1 - prod_{i=n-c+1..n} (1 - k/i). With n <= k every sample is inside the
// k drawn, so it is 1 when c > 0 and 0 otherwise (pass@n;
// CandidateK.Short counts such questions).
func PassAtK(n, c, k int) float64 {
	if c <= 0 || n <= 0 {
		return 0
	}
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// PassedAtK reports whether one of the first k candidates is correct: a
// question's pass@k outcome for the pool as drawn (PassAtK is the unbiased
// estimate over every k-subset of a larger pool instead).
func PassedAtK(marks []CandidateMark, k int) bool {
	return slices.ContainsFunc(marks[:min(max(k, 0), len(marks))], func(c CandidateMark) bool { return c.Correct })
}

// MajorityAtK reports whether the answer voted by the first k candidates
// is correct: the candidates that ran are grouped by their result key,
// the largest group wins (a tie goes to the group whose first member
// comes first) and its first member's verdict is the answer's. No
// candidate that ran, or k < 1, gives false. With fewer than k candidates
// all of them vote.
func MajorityAtK(marks []CandidateMark, k int) bool {
	if k < 1 {
		return false
	}
	marks = marks[:min(k, len(marks))]
	size := map[string]int{}
	first := map[string]int{}
	for i, m := range marks {
		if m.Result == "" {
			continue
		}
		if _, ok := first[m.Result]; !ok {
			first[m.Result] = i
		}
		size[m.Result]++
	}
	best := -1
	for key, n := range size {
		i := first[key]
		if best < 0 || n > size[marks[best].Result] || (n == size[marks[best].Result] && i < best) {
			best = i
		}
	}
	return best >= 0 && marks[best].Correct
}

// CandidateK is pass@k and majority@k of one system at one k, over the
// questions whose gold runs and whose verdict carries candidate marks.
type CandidateK struct {
	K int `json:"k"`
	// PassAtK and MajorityAtK are means over Questions, from 0 to 1.
	PassAtK     float64 `json:"pass_at_k"`
	MajorityAtK float64 `json:"majority_at_k"`
	// Short counts the questions with fewer than K candidates: their
	// pass@k is pass@n (every candidate drawn).
	Short int `json:"short,omitempty"`
}

// CandidateSummary is what a system's stored candidates say: pass@k and
// majority@k at each k asked for, over Questions (the verdicts whose gold
// runs and that carry candidate marks; Verdicts counts those whose gold
// runs), with the mean pool size.
type CandidateSummary struct {
	Questions int          `json:"questions"`
	Verdicts  int          `json:"verdicts"`
	MeanPool  float64      `json:"mean_pool"`
	ByK       []CandidateK `json:"by_k"`
}

// SummarizeCandidates computes pass@k (PassAtK on each question's n
// candidates and c correct ones) and majority@k (MajorityAtK) at each of
// ks over the verdicts whose gold runs and that carry candidate marks.
// Questions is 0, and ByK empty, when none does (a runner that stores no
// candidate, or a run scored before candidates were).
func SummarizeCandidates(vs []Verdict, ks []int) (CandidateSummary, error) {
	a, err := NewCandidateAcc(ks)
	if err != nil {
		return CandidateSummary{}, err
	}
	for i := range vs {
		a.Add(&vs[i])
	}
	return a.Summary(), nil
}

// CandidateAcc accumulates SummarizeCandidates one verdict at a time, for
// a reader that streams the verdicts instead of holding them; added in
// the same order, its Summary equals SummarizeCandidates'.
type CandidateAcc struct {
	ks   []int
	s    CandidateSummary
	pool int
	sums []CandidateK
}

// NewCandidateAcc returns an empty accumulator of pass@k and majority@k at
// each of ks.
func NewCandidateAcc(ks []int) (*CandidateAcc, error) {
	for _, k := range ks {
		if k < 1 {
			return nil, fmt.Errorf("metrics: pass@k needs k >= 1, got %d", k)
		}
	}
	return &CandidateAcc{ks: ks, sums: make([]CandidateK, len(ks))}, nil
}

// Add counts one verdict.
func (a *CandidateAcc) Add(v *Verdict) {
	if !GoldRuns(v.Status) {
		return
	}
	a.s.Verdicts++
	if len(v.Candidates) == 0 {
		return
	}
	a.s.Questions++
	n, c := len(v.Candidates), 0
	for _, m := range v.Candidates {
		if m.Correct {
			c++
		}
	}
	a.pool += n
	for i, k := range a.ks {
		a.sums[i].PassAtK += PassAtK(n, c, k)
		if MajorityAtK(v.Candidates, k) {
			a.sums[i].MajorityAtK++
		}
		if n < k {
			a.sums[i].Short++
		}
	}
}

// Summary is SummarizeCandidates of the verdicts added.
func (a *CandidateAcc) Summary() CandidateSummary {
	s := a.s
	if s.Questions == 0 {
		return s
	}
	q := float64(s.Questions)
	s.MeanPool = float64(a.pool) / q
	for i, k := range a.ks {
		s.ByK = append(s.ByK, CandidateK{K: k, PassAtK: a.sums[i].PassAtK / q, MajorityAtK: a.sums[i].MajorityAtK / q, Short: a.sums[i].Short})
	}
	return s
}
