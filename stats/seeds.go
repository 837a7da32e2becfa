package stats

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tests of a comparison over several seeds, the values of Comparison.Test
// when Seeds > 1 (one seed uses McNemar's tests, McNemarExact,
// McNemarChi2CC or McNemarChi2, to which these reduce).
const (
	// TestSignFlip is the exact sign-flip randomization test over
	// questions (SignFlipP); with one seed it is McNemar's exact test.
	TestSignFlip = "sign-flip"
	// TestClusteredChi2 is the clustered McNemar chi-square of Durkalski
	// et al. (ClusteredChi2P); with one seed it is McNemar's chi-square
	// without continuity correction.
	TestClusteredChi2 = "clustered-chi2"
)

// Replicates are one system's outcomes under each of its seeds: seed ->
// question id -> correct. A system run under one seed has one entry.
type Replicates map[int64]map[string]bool

// Single returns the replicates of a system run under one seed, 0.
func Single(correct map[string]bool) Replicates { return Replicates{0: correct} }

// Seeds returns the seeds of r, sorted.
func (r Replicates) Seeds() []int64 { return slices.Sorted(maps.Keys(r)) }

// ErrSeedsDiffer is the error (wrapped) PairSeeds returns when two systems
// were not run under the same seeds: a comparison pools the same seeds of
// both, so that every question's seeds are paired.
var ErrSeedsDiffer = errors.New("the systems were run under different seeds")

// SeedPaired holds two systems' outcomes on the same questions under the
// same seeds: A[s][q] and B[s][q] are the outcomes under seed Seeds[s] on
// question IDs[q]. IDs and Seeds are sorted.
type SeedPaired struct {
	IDs   []string
	Seeds []int64
	A, B  [][]bool
	// OnlyA and OnlyB list (sorted) the questions that were dropped and
	// that the first (second) system has under some seed; they are
	// non-empty only when PairSeeds was asked to intersect. With one seed
	// they are the questions of one side only.
	OnlyA, OnlyB []string
}

// S is the number of seeds.
func (p SeedPaired) S() int { return len(p.Seeds) }

// PairSeeds aligns two systems' outcomes by seed and question id. Both
// must have the same seeds (else an error wrapping ErrSeedsDiffer names
// them), but for two systems of one seed each, which are paired whatever
// their seeds (the first's is kept). A question is paired when both systems have it under every seed;
// any other question is an error naming it, unless intersect is set, in
// which case such questions are dropped and listed in OnlyA and OnlyB.
// Pairing no question at all is an error. With one seed it pairs as Pair.
func PairSeeds(a, b Replicates, intersect bool) (SeedPaired, error) {
	p, err := pairSeeds(a, b, intersect)
	if err != nil {
		return SeedPaired{}, err
	}
	return SeedPaired{IDs: p.ids, Seeds: p.seeds, A: p.a, B: p.b, OnlyA: p.onlyA, OnlyB: p.onlyB}, nil
}

// seedPairing is the pairing of two systems' values by seed and question
// (PairSeeds for outcomes, PairScores for scores).
type seedPairing[T any] struct {
	ids          []string
	seeds        []int64
	a, b         [][]T
	onlyA, onlyB []string
}

// pairSeeds pairs a and b by the rules PairSeeds documents.
func pairSeeds[T any](a, b map[int64]map[string]T, intersect bool) (seedPairing[T], error) {
	sa, sb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
	if len(sa) == 0 || len(sb) == 0 {
		return seedPairing[T]{}, fmt.Errorf("stats: pair: a system has no seed (%d and %d seeds)", len(sa), len(sb))
	}
	// Two systems of one seed each pair whatever their seeds: a verdict
	// file has none, and one run is no replicate of another.
	if !slices.Equal(sa, sb) && (len(sa) > 1 || len(sb) > 1) {
		return seedPairing[T]{}, fmt.Errorf("stats: pair: %w: seeds %v and %v; compare systems run under the same seeds", ErrSeedsDiffer, sa, sb)
	}
	if len(sa) == 1 && sa[0] != sb[0] {
		b = map[int64]map[string]T{sa[0]: b[sb[0]]}
	}
	p := seedPairing[T]{seeds: sa}
	inA, inB := map[string]int{}, map[string]int{}
	for _, s := range sa {
		for id := range a[s] {
			inA[id]++
		}
		for id := range b[s] {
			inB[id]++
		}
	}
	S := len(sa)
	for id, n := range inA {
		if n == S && inB[id] == S {
			p.ids = append(p.ids, id)
		} else {
			p.onlyA = append(p.onlyA, id)
		}
	}
	for id, n := range inB {
		if n != S || inA[id] != S {
			p.onlyB = append(p.onlyB, id)
		}
	}
	slices.Sort(p.ids)
	slices.Sort(p.onlyA)
	slices.Sort(p.onlyB)
	if !intersect && (len(p.onlyA) > 0 || len(p.onlyB) > 0) {
		if S == 1 {
			if len(p.onlyA) > 0 {
				return seedPairing[T]{}, fmt.Errorf("stats: question %q is in the first system only (%d such, %d only in the second); pair on the intersection (compare --intersect) to drop them", p.onlyA[0], len(p.onlyA), len(p.onlyB))
			}
			return seedPairing[T]{}, fmt.Errorf("stats: question %q is in the second system only (%d such); pair on the intersection (compare --intersect) to drop them", p.onlyB[0], len(p.onlyB))
		}
		id := ""
		if len(p.onlyA) > 0 {
			id = p.onlyA[0]
		} else {
			id = p.onlyB[0]
		}
		return seedPairing[T]{}, fmt.Errorf("stats: question %q is not in both systems under every seed %v (the first has it under %d, the second under %d of %d seeds); pair on the intersection (compare --intersect) to drop such questions", id, sa, inA[id], inB[id], S)
	}
	if len(p.ids) == 0 {
		return seedPairing[T]{}, fmt.Errorf("stats: no question ids in common under every seed (%d and %d questions)", len(inA), len(inB))
	}
	p.a, p.b = make([][]T, S), make([][]T, S)
	for k, s := range sa {
		p.a[k], p.b[k] = make([]T, len(p.ids)), make([]T, len(p.ids))
		for q, id := range p.ids {
			p.a[k][q], p.b[k][q] = a[s][id], b[s][id]
		}
	}
	return p, nil
}

// Differences returns, per question, x_q = sum over seeds of (B's outcome
// - A's outcome), an integer in [-S, S], and the pooled discordant counts:
// b (seed, question) pairs where only A is right and c where only B is.
func (p SeedPaired) Differences() (x []int, b, c int) {
	x = make([]int, len(p.IDs))
	for s := range p.Seeds {
		for q := range p.IDs {
			switch {
			case p.A[s][q] && !p.B[s][q]:
				x[q]--
				b++
			case p.B[s][q] && !p.A[s][q]:
				x[q]++
				c++
			}
		}
	}
	return x, b, c
}

// CompareSeeds compares B against A over the seeds and questions of p,
// every (seed, question) pair counted: the accuracies and their difference
// are means over all N*S pairs (with every question under every seed, the
// means over seeds of each seed's accuracy), and B and C count the
// discordant pairs.
//
// With one seed it is CompareTable of the seed's 2x2 table: McNemar's test
// of opt.Test and the paired bootstrap interval, unchanged.
//
// With S > 1 seeds the seeds of a question are not independent (they share
// the question), so the question is the unit of the test and of the
// interval. With x_q the sum over seeds of B's minus A's outcome on
// question q, the test is the exact sign-flip randomization test of
// sum_q x_q (SignFlipP; opt.Test McNemarAuto or McNemarExact) or the
// clustered McNemar chi-square (ClusteredChi2P; opt.Test McNemarChi2); the
// continuity-corrected chi-square has no clustered form and is an error.
// The interval (when opt.Rand is set) is the cluster bootstrap: each
// resample draws N questions with replacement and keeps every seed of a
// drawn question, so it carries the variation between questions and
// between seeds; see ClusterBootstrap.
func CompareSeeds(p SeedPaired, opt CompareOptions) (*Comparison, error) {
	S, n := len(p.Seeds), len(p.IDs)
	if S == 0 || n == 0 || len(p.A) != S || len(p.B) != S {
		return nil, fmt.Errorf("stats: compare: empty or malformed pairing (%d seeds, %d questions)", S, n)
	}
	if S == 1 {
		t, err := Tabulate(p.A[0], p.B[0])
		if err != nil {
			return nil, err
		}
		c, err := CompareTable(t, opt)
		if err != nil {
			return nil, err
		}
		c.Seeds = 1
		return c, nil
	}
	level, err := opt.level()
	if err != nil {
		return nil, err
	}
	x, b, cc := p.Differences()
	pairs := float64(n * S)
	ra, rb := 0, 0
	for s := range p.Seeds {
		for q := range p.IDs {
			if p.A[s][q] {
				ra++
			}
			if p.B[s][q] {
				rb++
			}
		}
	}
	c := &Comparison{N: n, Seeds: S, AccA: float64(ra) / pairs, AccB: float64(rb) / pairs, Delta: float64(cc-b) / pairs,
		B: b, C: cc, Alpha: 1 - level}
	switch opt.Test {
	case McNemarAuto, McNemarExact:
		c.Test, c.P = TestSignFlip, SignFlipP(x)
	case McNemarChi2:
		c.Test, c.P = TestClusteredChi2, ClusteredChi2P(x)
	case McNemarChi2CC:
		return nil, fmt.Errorf("stats: compare: the continuity-corrected chi-square (%s) has no form for %d seeds; use %q (the clustered chi-square) or %q (the sign-flip test)", McNemarChi2CC, S, McNemarChi2, McNemarExact)
	default:
		return nil, fmt.Errorf("stats: compare: unknown test %q (want %q, %q, %q or empty for automatic)", opt.Test, McNemarExact, McNemarChi2CC, McNemarChi2)
	}
	c.PAdj = c.P
	if b+cc == 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("stats: %s: no discordant (seed, question) pair; the systems cannot be distinguished, P set to 1", c.Test))
	}
	if opt.Rand == nil {
		return c, nil
	}
	ci, err := ClusterBootstrap(x, S, BootstrapOptions{Resamples: opt.Resamples, Level: level, Method: opt.CIMethod, Rand: opt.Rand})
	if err != nil {
		return nil, err
	}
	c.CI, c.CIMethod, c.Resamples = ci.CI, ci.Method, ci.Resamples
	c.Warnings = intervalWarnings(c.Warnings, ci.Warnings)
	return c, nil
}

// SignFlipP is the two-sided p-value of the exact sign-flip randomization
// test (Fisher 1935, The Design of Experiments, sec. 21) of the per-question
// differences x (integers): under the null hypothesis that the two
// systems are exchangeable on every question, each x_q is as likely as
// -x_q, independently across questions, so the statistic T = sum_q x_q has
// the distribution of sum_q e_q |x_q| over the 2^N equally likely signs e_q,
// and
//
//	P = Pr(|sum_q e_q |x_q|| >= |T|).
//
// The distribution is exact: with n_m questions of |x_q| = m, it is the
// convolution over m of m * (2 K_m - n_m), K_m ~ Binomial(n_m, 1/2),
// computed over the integer sums in O(N * sum_q |x_q|). With one seed
// (|x_q| <= 1) it is McNemar's exact test: T = c - b and P =
// min(1, 2 Pr(K <= min(b, c))), K ~ Binomial(b + c, 1/2). With no nonzero
// x_q, P is 1.
func SignFlipP(x []int) float64 {
	counts := map[int]int{}
	t, span := 0, 0
	for _, v := range x {
		t += v
		if v != 0 {
			m := v
			if m < 0 {
				m = -m
			}
			counts[m]++
			span += m
		}
	}
	if span == 0 {
		return 1
	}
	// dist[j] is Pr(sum = j - span) over the magnitudes added so far.
	dist := make([]float64, 2*span+1)
	dist[span] = 1
	lo, hi := span, span // the support, as indexes
	for _, m := range slices.Sorted(maps.Keys(counts)) {
		nm := counts[m]
		pmf := binomHalf(nm)
		next := make([]float64, len(dist))
		for j := lo; j <= hi; j++ {
			if dist[j] == 0 {
				continue
			}
			for k, pk := range pmf {
				next[j+m*(2*k-nm)] += dist[j] * pk
			}
		}
		dist = next
		lo, hi = lo-m*nm, hi+m*nm
	}
	at := t
	if at < 0 {
		at = -at
	}
	p := 0.0
	for j, pj := range dist {
		v := j - span
		if v >= at || v <= -at {
			p += pj
		}
	}
	return math.Min(1, p)
}

// binomHalf returns the Binomial(n, 1/2) probabilities of 0..n, from the
// log-gamma function (exact to rounding for any n).
func binomHalf(n int) []float64 {
	out := make([]float64, n+1)
	ln, _ := math.Lgamma(float64(n + 1))
	for k := range out {
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k + 1))
		out[k] = math.Exp(ln - a - b - float64(n)*math.Ln2)
	}
	return out
}

// ClusteredChi2P is the p-value of the clustered McNemar test of
// Durkalski, Palesch, Lipsitz and Rust (2003, Statistics in Medicine
// 22:2417-2428) with the question as the cluster: with b_q - c_q = -x_q the
// difference of the question's discordant counts,
//
//	X² = (sum_q x_q)² / sum_q x_q²,   P = ChiSquared{K: 1}.Survival(X²).
//
// With one seed X² is McNemar's (b - c)² / (b + c). With no nonzero x_q,
// P is 1. It is an asymptotic test (many questions with x_q != 0).
func ClusteredChi2P(x []int) float64 {
	t, ss := 0.0, 0.0
	for _, v := range x {
		t += float64(v)
		ss += float64(v * v)
	}
	if ss == 0 {
		return 1
	}
	return distuv.ChiSquared{K: 1}.Survival(t * t / ss)
}

// ClusterBootstrap computes a bootstrap confidence interval for the
// accuracy difference of two systems over N questions and S seeds from the
// per-question differences x (x_q in [-S, S], the sum over seeds of B's
// minus A's outcome; Delta = sum_q x_q / (N S)). Each resample draws N
// questions with replacement and keeps all S seeds of each (the question
// is the cluster; Davison & Hinkley 1997, Bootstrap Methods and their
// Application, sec. 3.8), so that the interval reflects the variation of
// questions and of seeds within them. The resampled sum depends only on
// how many drawn questions take each value of x_q, a Multinomial drawn as
// a chain of binomials (values -1, +1, -2, +2, ...: with one seed the
// draws of PairedBootstrapTable, and the same interval for the same
// source); the percentile and BCa intervals are as in PairedBootstrap,
// with the jackknife leaving one question (all its seeds) out. The result's
// AccA and AccB are zero: x does not hold them.
func ClusterBootstrap(x []int, S int, opt BootstrapOptions) (DiffCI, error) {
	n := len(x)
	if n == 0 {
		return DiffCI{}, fmt.Errorf("stats: bootstrap: no question")
	}
	if S < 1 {
		return DiffCI{}, fmt.Errorf("stats: bootstrap: %d seeds, want at least 1", S)
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return DiffCI{}, err
	}
	counts := map[int]int{}
	t := 0
	for q, v := range x {
		if v < -S || v > S {
			return DiffCI{}, fmt.Errorf("stats: bootstrap: question %d has difference %d, outside [-%d, %d]", q, v, S, S)
		}
		counts[v]++
		t += v
	}
	var cats []category
	for m := 1; m <= S; m++ {
		// With one seed both categories are drawn, empty or not, as
		// PairedBootstrapTable draws them.
		if counts[-m] > 0 || S == 1 {
			cats = append(cats, category{-m, counts[-m]})
		}
		if counts[m] > 0 || S == 1 {
			cats = append(cats, category{m, counts[m]})
		}
	}
	scale := float64(n * S)
	r := DiffCI{N: n, Delta: float64(t) / scale, Resamples: opt.Resamples, Method: opt.Method}
	hist := resampleClusters(cats, n, S, opt.Resamples, opt.Rand)
	var jack []jackValue
	if n > 1 {
		m := float64((n - 1) * S)
		for _, v := range slices.Sorted(maps.Keys(counts)) {
			jack = append(jack, jackValue{float64(t-v) / m, counts[v]})
		}
	}
	r.CI, r.Warnings = histIntervalAt(hist, n*S, scale, float64(t), jack, opt)
	if counts[0] == n {
		r.Warnings = append(r.Warnings, errBootstrapNoDiscordant)
	}
	return r, nil
}
