package stats

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// TestSignFlipMC is the test of a comparison of real-valued scores
// (CompareScores): the sign-flip randomization test of the per-question
// differences, its p-value estimated from random sign assignments.
const TestSignFlipMC = "sign-flip-mc"

// Scores are one system's per-question scores under each of its seeds,
// a metric that is not a 0/1 outcome (BIRD's Soft F1 of a question, its
// R-VES score): seed -> question id -> score. They pair as Replicates do
// (PairScores).
type Scores map[int64]map[string]float64

// ScoreArm is one system of a family of score comparisons: as Arm, with
// scores instead of outcomes.
type ScoreArm struct {
	Key      string
	Scores   Scores
	Excluded map[string]bool
}

// PairedScores holds two systems' scores on the same questions under the
// same seeds, as SeedPaired holds outcomes: A[s][q] and B[s][q] are the
// scores under seed Seeds[s] on question IDs[q].
type PairedScores struct {
	IDs          []string
	Seeds        []int64
	A, B         [][]float64
	OnlyA, OnlyB []string
}

// PairScores aligns two systems' scores by seed and question id, by the
// rules of PairSeeds (the same seeds, or one seed each; a question of one
// side only is an error unless intersect drops it).
func PairScores(a, b Scores, intersect bool) (PairedScores, error) {
	p, err := pairSeeds(a, b, intersect)
	if err != nil {
		return PairedScores{}, err
	}
	return PairedScores{IDs: p.ids, Seeds: p.seeds, A: p.a, B: p.b, OnlyA: p.onlyA, OnlyB: p.onlyB}, nil
}

// Differences returns, per question, x_q = the sum over seeds of B's
// minus A's score, and the numbers of questions where A scores higher
// (b) and where B does (c).
func (p PairedScores) Differences() (x []float64, b, c int) {
	x = make([]float64, len(p.IDs))
	for s := range p.Seeds {
		for q := range p.IDs {
			x[q] += p.B[s][q] - p.A[s][q]
		}
	}
	for _, v := range x {
		switch {
		case v < 0:
			b++
		case v > 0:
			c++
		}
	}
	return x, b, c
}

// CompareScores compares B's mean score against A's over the seeds and
// questions of p, the question being the unit as in CompareSeeds: AccA
// and AccB are the mean scores over all (seed, question) pairs and Delta
// their difference; B and C count the questions where A, and where B,
// scores higher (summed over seeds).
//
// The test (TestSignFlipMC) is the sign-flip randomization test of T =
// sum_q x_q, x_q the question's difference summed over seeds (Fisher
// 1935, as SignFlipP; for 0/1 scores and one seed it is McNemar's exact
// test): under exchangeability every x_q is as likely as -x_q, so P =
// Pr(|sum_q e_q |x_q|| >= |T|) over random signs e_q. Real-valued x_q
// have no exact distribution at hand, so P is estimated from
// opt.Resamples sign assignments drawn from opt.Rand, as (1 + hits) /
// (1 + resamples) (Phipson and Smyth 2010, "Permutation p-values should
// never be zero", Stat. Appl. Genet. Mol. Biol. 9:39), so that it is
// never 0.
//
// The interval is the paired (cluster) bootstrap of Delta: each resample
// draws N questions with replacement, every seed of a drawn question kept
// (Davison and Hinkley 1997, sec. 3.8), percentile or BCa as in
// PairedBootstrap (jackknife leaving one question out). The scores are
// real-valued, so questions are resampled by index (B x N draws). opt.Rand
// is required: the test draws from it first, then the interval.
func CompareScores(p PairedScores, opt CompareOptions) (*Comparison, error) {
	return compareScores(p, opt, true)
}

func compareScores(p PairedScores, opt CompareOptions, interval bool) (*Comparison, error) {
	S, n := len(p.Seeds), len(p.IDs)
	if S == 0 || n == 0 || len(p.A) != S || len(p.B) != S {
		return nil, fmt.Errorf("stats: compare scores: empty or malformed pairing (%d seeds, %d questions)", S, n)
	}
	if opt.Rand == nil {
		return nil, fmt.Errorf("stats: compare scores: Rand is nil; the randomization test and the bootstrap need a seeded source")
	}
	level, err := opt.level()
	if err != nil {
		return nil, err
	}
	bo, err := BootstrapOptions{Resamples: opt.Resamples, Level: level, Method: opt.CIMethod, Rand: opt.Rand}.withDefaults()
	if err != nil {
		return nil, err
	}
	var sa, sb float64
	for s := range p.Seeds {
		for q := range p.IDs {
			sa += p.A[s][q]
			sb += p.B[s][q]
		}
	}
	pairs := float64(n * S)
	x, b, c := p.Differences()
	t := 0.0
	for _, v := range x {
		t += v
	}
	cmp := &Comparison{N: n, Seeds: S, AccA: sa / pairs, AccB: sb / pairs, Delta: t / pairs, B: b, C: c,
		Test: TestSignFlipMC, Alpha: 1 - level}
	cmp.P = signFlipMC(x, bo.Resamples, opt.Rand)
	cmp.PAdj = cmp.P
	if b+c == 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("stats: %s: no question scores differently; the systems cannot be distinguished, P set to 1", TestSignFlipMC))
	}
	if !interval {
		return cmp, nil
	}
	ci, warns := scoreBootstrap(x, S, bo)
	cmp.CI, cmp.CIMethod, cmp.Resamples = ci, bo.Method, bo.Resamples
	for _, w := range warns {
		cmp.Warnings = append(cmp.Warnings, w.Error())
	}
	return cmp, nil
}

// signFlipMC estimates the two-sided p-value of the sign-flip test of
// sum(x) from R random sign assignments: (1 + hits) / (1 + R). It is 1
// when every x is 0.
func signFlipMC(x []float64, R int, rng *rand.Rand) float64 {
	t, scale := 0.0, 0.0
	for _, v := range x {
		t += v
		scale += math.Abs(v)
	}
	if scale == 0 {
		return 1
	}
	// Sums of the same magnitudes in another order differ by rounding;
	// a resample within it of |T| counts as reaching it.
	tol := 1e-9 * scale
	at := math.Abs(t) - tol
	hits := 0
	for range R {
		s := 0.0
		for _, v := range x {
			if rng.Uint64()&1 == 1 {
				s += v
			} else {
				s -= v
			}
		}
		if math.Abs(s) >= at {
			hits++
		}
	}
	return math.Min(1, float64(1+hits)/float64(1+R))
}

// scoreBootstrap is the cluster bootstrap interval of sum(x) / (N S): the
// percentile or BCa interval of opt.Resamples resamples of N questions
// drawn by index.
func scoreBootstrap(x []float64, S int, opt BootstrapOptions) (Interval, []error) {
	n := len(x)
	scale := float64(n * S)
	t := 0.0
	for _, v := range x {
		t += v
	}
	stat := make([]float64, opt.Resamples)
	for i := range stat {
		s := 0.0
		for range n {
			s += x[opt.Rand.IntN(n)]
		}
		stat[i] = s / scale
	}
	slices.Sort(stat)
	thetaHat := t / scale
	alpha := (1 - opt.Level) / 2
	pLo, pHi := alpha, 1-alpha
	var warns []error
	if opt.Method == BootstrapBCa {
		less, equal := 0, 0
		for _, v := range stat {
			switch {
			case v < thetaHat:
				less++
			case v == thetaHat:
				equal++
			}
		}
		var jack []jackValue
		if n > 1 {
			counts := map[float64]int{}
			for _, v := range x {
				counts[v]++
			}
			m := float64((n - 1) * S)
			for _, v := range slices.Sorted(maps.Keys(counts)) {
				jack = append(jack, jackValue{(t - v) / m, counts[v]})
			}
		}
		var err error
		if pLo, pHi, err = bcaLevels(less, equal, len(stat), jack, pLo, pHi); err != nil {
			warns = append(warns, err)
		}
	}
	return Interval{Lo: sortedQuantile(stat, pLo), Hi: sortedQuantile(stat, pHi), Level: opt.Level}, warns
}

// CompareScorePairs is ComparePairs for scores: every pair's second system
// is compared with its first (PairScores on the questions neither
// excludes, then CompareScores with the source PairRand(opt.Seed,
// baseline.Key, system.Key)), and the p-values of the pairs compared are
// adjusted with Holm (AdjustHolm). With opt.NoInterval the test still
// draws from the pair's source; the interval is left out.
func CompareScorePairs(pairs [][2]ScoreArm, opt FamilyOptions) ([]FamilyResult, error) {
	return compareFamily(len(pairs), opt, func(i int, seed uint64) (SeedPaired, *Comparison, error) {
		base, m := pairs[i][0], pairs[i][1]
		p, err := PairScores(without(base.Scores, base.Excluded, m.Excluded), without(m.Scores, base.Excluded, m.Excluded), opt.Intersect)
		if err != nil {
			return SeedPaired{}, nil, err
		}
		co := CompareOptions{Level: opt.Level, Resamples: opt.Resamples, CIMethod: opt.CIMethod, Rand: PairRand(seed, base.Key, m.Key)}
		c, err := compareScores(p, co, !opt.NoInterval)
		return SeedPaired{IDs: p.IDs, Seeds: p.Seeds, OnlyA: p.OnlyA, OnlyB: p.OnlyB}, c, err
	})
}
