package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// replicates builds the outcomes of one system from rows of "1"/"0"
// strings, one string per seed, one character per question (q0, q1, ...).
func replicates(seeds []int64, rows ...string) Replicates {
	r := Replicates{}
	for i, s := range seeds {
		m := map[string]bool{}
		for q, ch := range rows[i] {
			m["q"+string(rune('0'+q))] = ch == '1'
		}
		r[s] = m
	}
	return r
}

// handCase is the constructed three-seed case the pooled test is checked
// on by hand. Per question (seeds 0, 1, 2; A | B):
//
//	q0: A 000 | B 111  -> x = +3  (b_q 0, c_q 3)
//	q1: A 001 | B 111  -> x = +2  (c_q 2)
//	q2: A 010 | B 101  -> x = +1  (b_q 1, c_q 2)
//	q3: A 111 | B 110  -> x = -1  (b_q 1)
//	q4: A 111 | B 111  -> x =  0
//
// so T = sum x_q = 5, pooled b = 2, c = 7, N = 5 questions, S = 3.
func handCase() (a, b Replicates) {
	seeds := []int64{0, 1, 2}
	// Rows are seeds, columns questions q0..q4.
	a = replicates(seeds, "00011", "00111", "01011")
	b = replicates(seeds, "11111", "11011", "11101")
	return a, b
}

// TestSignFlipHandComputed checks the pooled test on handCase against a
// hand enumeration. The magnitudes |x_q| are 3, 2, 1, 1 (q4 contributes 0),
// so the null distribution is that of ±3 ±2 ±1 ±1 over 16 equally likely
// sign patterns. With +3: 3+2+1+1 = 7, 3+2+1-1 = 5, 3+2-1+1 = 5,
// 3+2-1-1 = 3, 3-2+1+1 = 3, 3-2+1-1 = 1, 3-2-1+1 = 1, 3-2-1-1 = -1;
// with -3 the negatives of these. |sum| >= |T| = 5 for 7, 5, 5, -7, -5, -5:
// 6 of 16, P = 0.375 exactly.
//
// The clustered chi-square (Durkalski et al. 2003) is
// X² = 5² / (9 + 4 + 1 + 1) = 25/15 and P = erfc(sqrt(X²/2)) =
// 0.19670560245894686 (Python math.erfc). A McNemar test on the 9 pooled
// discordant pairs as if independent would give 2 * (1 + 9 + 36) / 512 =
// 0.1796875: the clustering more than doubles the p-value here.
func TestSignFlipHandComputed(t *testing.T) {
	a, b := handCase()
	p, err := PairSeeds(a, b, false)
	if err != nil {
		t.Fatal(err)
	}
	x, nb, nc := p.Differences()
	if want := []int{3, 2, 1, -1, 0}; !slices.Equal(x, want) || nb != 2 || nc != 7 {
		t.Fatalf("differences %v b=%d c=%d; want %v b=2 c=7", x, nb, nc, want)
	}
	tests := []struct {
		name, test, wantTest string
		want                 float64
	}{
		{"sign-flip (auto)", McNemarAuto, TestSignFlip, 0.375},
		{"sign-flip (exact)", McNemarExact, TestSignFlip, 0.375},
		{"clustered chi-square", McNemarChi2, TestClusteredChi2, 0.19670560245894686},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareSeeds(p, CompareOptions{Test: tc.test})
			if err != nil {
				t.Fatal(err)
			}
			if c.Test != tc.wantTest || math.Abs(c.P-tc.want) > 1e-12 {
				t.Errorf("got %s p=%v; want %s p=%v (1e-12)", c.Test, c.P, tc.wantTest, tc.want)
			}
			// Accuracies over the 15 (seed, question) pairs, from
			// handCase: A right 0+1+1+3+3 = 8, B 3+3+2+2+3 = 13 times.
			if c.N != 5 || c.Seeds != 3 || c.B != 2 || c.C != 7 || math.Abs(c.AccA-8.0/15) > 1e-12 || math.Abs(c.AccB-13.0/15) > 1e-12 ||
				math.Abs(c.Delta-5.0/15) > 1e-12 {
				t.Errorf("got n=%d seeds=%d b=%d c=%d EX %v -> %v delta %v; want 5, 3, 2, 7, 8/15 -> 13/15, 5/15", c.N, c.Seeds, c.B, c.C, c.AccA, c.AccB, c.Delta)
			}
		})
	}
	if _, err := CompareSeeds(p, CompareOptions{Test: McNemarChi2CC}); err == nil || !strings.Contains(err.Error(), "no form for 3 seeds") {
		t.Errorf("chi2-cc over 3 seeds: got %v; want an error saying it has no clustered form", err)
	}
}

// TestOneSeedReducesToMcNemar: with one seed the sign-flip test is
// McNemar's exact test and the clustered chi-square McNemar's uncorrected
// chi-square, for every b, c up to 40 (1e-12 absolute).
func TestOneSeedReducesToMcNemar(t *testing.T) {
	for b := 0; b <= 40; b++ {
		for c := 0; c <= 40; c++ {
			x := make([]int, 0, b+c+3)
			for range b {
				x = append(x, -1)
			}
			for range c {
				x = append(x, 1)
			}
			x = append(x, 0, 0, 0)
			ex, _ := McNemarCounts(b, c, McNemarExact)
			ch, _ := McNemarCounts(b, c, McNemarChi2)
			if got := SignFlipP(x); math.Abs(got-ex.P) > 1e-12 {
				t.Fatalf("b=%d c=%d: sign-flip p %v; want exact McNemar %v", b, c, got, ex.P)
			}
			if got := ClusteredChi2P(x); math.Abs(got-ch.P) > 1e-12 {
				t.Fatalf("b=%d c=%d: clustered chi2 p %v; want McNemar chi2 %v", b, c, got, ch.P)
			}
		}
	}
}

// TestCompareSeedsOneSeed: one seed gives exactly CompareTable's
// comparison (test, p and interval) for the same source, so single-seed
// results do not change; and ClusterBootstrap with S = 1 draws the
// interval PairedBootstrapTable draws.
func TestCompareSeedsOneSeed(t *testing.T) {
	for _, tab := range []Table2x2{reactIter, reactDSL, {BothRight: 4, BothWrong: 2}, {AOnly: 3, BOnly: 1, BothWrong: 9}} {
		a, b := tableVectors(tab)
		ma, mb := map[string]bool{}, map[string]bool{}
		for i := range a {
			id := string(rune('A'+i/26/26)) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
			ma[id], mb[id] = a[i], b[i]
		}
		p, err := PairSeeds(Single(ma), Single(mb), false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CompareSeeds(p, CompareOptions{Rand: rand.New(rand.NewPCG(1, 7))})
		if err != nil {
			t.Fatal(err)
		}
		want, err := CompareTable(tab, CompareOptions{Rand: rand.New(rand.NewPCG(1, 7))})
		if err != nil {
			t.Fatal(err)
		}
		want.Seeds = 1
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: CompareSeeds = %+v; CompareTable = %+v", tab, got, want)
		}
		x, _, _ := p.Differences()
		cb, err := ClusterBootstrap(x, 1, BootstrapOptions{Rand: rand.New(rand.NewPCG(3, 4))})
		if err != nil {
			t.Fatal(err)
		}
		pb, err := PairedBootstrapTable(tab, BootstrapOptions{Rand: rand.New(rand.NewPCG(3, 4))})
		if err != nil {
			t.Fatal(err)
		}
		if cb.CI != pb.CI {
			t.Errorf("%+v: ClusterBootstrap S=1 %v; PairedBootstrapTable %v", tab, cb.CI, pb.CI)
		}
	}
}

func TestPairSeeds(t *testing.T) {
	seeds := []int64{0, 1}
	a := replicates(seeds, "101", "110")
	b := replicates(seeds, "011", "01")
	if _, err := PairSeeds(a, b, false); err == nil || !strings.Contains(err.Error(), `question "q2" is not in both systems under every seed`) {
		t.Errorf("a question missing under one seed: got %v; want an error naming q2", err)
	}
	p, err := PairSeeds(a, b, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.IDs, []string{"q0", "q1"}) || !slices.Equal(p.OnlyA, []string{"q2"}) || !slices.Equal(p.OnlyB, []string{"q2"}) ||
		!slices.Equal(p.Seeds, seeds) || !reflect.DeepEqual(p.A, [][]bool{{true, false}, {true, true}}) {
		t.Errorf("intersect: got %+v; want q0, q1 paired over seeds 0, 1 and q2 dropped", p)
	}
	// One seed each: paired whatever the seeds (a verdict file has none).
	one, err := PairSeeds(replicates([]int64{4}, "10"), replicates([]int64{0}, "01"), false)
	if err != nil || !slices.Equal(one.Seeds, []int64{4}) || !reflect.DeepEqual(one.B, [][]bool{{false, true}}) {
		t.Errorf("one seed each (4 and 0): got %+v, %v; want paired under seed 4", one, err)
	}
	c := replicates([]int64{0, 1, 2}, "1", "1", "1")
	if _, err := PairSeeds(a, c, true); !errors.Is(err, ErrSeedsDiffer) || !strings.Contains(err.Error(), "[0 1] and [0 1 2]") {
		t.Errorf("different seeds: got %v; want ErrSeedsDiffer naming both seed sets", err)
	}
}

// TestCompareFamilyOrder: a pair's comparison (interval included) does not
// depend on the other members of its family nor on their order, only on
// the seed and the two names (PairRand); Holm adjusts over the members
// that were compared.
func TestCompareFamilyOrder(t *testing.T) {
	seeds := []int64{0, 1, 2}
	base := Arm{Key: "direct", Outcomes: replicates(seeds, "10101101", "10111101", "00101101")}
	x := Arm{Key: "cot", Outcomes: replicates(seeds, "11101111", "10111111", "01101111")}
	y := Arm{Key: "sc", Outcomes: replicates(seeds, "01010010", "01000010", "11010011")}
	z := Arm{Key: "odd", Outcomes: replicates([]int64{0}, "11111111")}
	opt := FamilyOptions{Resamples: 500, Seed: 3}
	one, err := CompareFamily(base, []Arm{x, y, z}, opt)
	if err != nil {
		t.Fatal(err)
	}
	two, err := CompareFamily(base, []Arm{y, x}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(one[2].Err, ErrSeedsDiffer) || one[2].Comparison != nil {
		t.Errorf("member with other seeds: got %+v; want ErrSeedsDiffer", one[2])
	}
	if one[0].Comparison.CI != two[1].Comparison.CI || one[1].Comparison.CI != two[0].Comparison.CI {
		t.Errorf("intervals depend on the family's order: %v %v vs %v %v", one[0].Comparison.CI, one[1].Comparison.CI, two[1].Comparison.CI, two[0].Comparison.CI)
	}
	want, err := Holm([]float64{one[0].Comparison.P, one[1].Comparison.P})
	if err != nil {
		t.Fatal(err)
	}
	if one[0].Comparison.PAdj != want[0] || one[1].Comparison.PAdj != want[1] || one[0].Comparison.Family != 2 {
		t.Errorf("Holm: got %v, %v (family %d); want %v (family 2)", one[0].Comparison.PAdj, one[1].Comparison.PAdj, one[0].Comparison.Family, want)
	}
	// The stream is PairRand(3, "direct", "cot").
	p, _ := PairSeeds(base.Outcomes, x.Outcomes, false)
	c, err := CompareSeeds(p, CompareOptions{Resamples: 500, Rand: PairRand(3, "direct", "cot")})
	if err != nil {
		t.Fatal(err)
	}
	if c.CI != one[0].Comparison.CI {
		t.Errorf("family interval %v; want PairRand(3, direct, cot)'s %v", one[0].Comparison.CI, c.CI)
	}
}

// TestAccuracyOverSeeds checks the mean and standard deviation over seeds
// by hand: seed accuracies 3/4, 2/4, 4/4 give mean 0.75 and sample SD
// sqrt(((0)² + (-0.25)² + (0.25)²) / 2) = 0.25.
func TestAccuracyOverSeeds(t *testing.T) {
	r := replicates([]int64{0, 1, 2}, "1101", "0101", "1111")
	a, err := AccuracyOverSeeds(r, BootstrapOptions{Resamples: 2000, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	if a.Seeds() != 3 || a.N != 4 || math.Abs(a.Mean-0.75) > 1e-12 || math.Abs(a.SD-0.25) > 1e-12 {
		t.Errorf("got %d seeds n=%d mean %v sd %v; want 3, 4, 0.75, 0.25", a.Seeds(), a.N, a.Mean, a.SD)
	}
	if !(a.CI.Lo <= a.Mean && a.Mean <= a.CI.Hi) || a.CI.Lo < 0 || a.CI.Hi > 1 {
		t.Errorf("interval %v does not hold the mean %v within [0, 1]", a.CI, a.Mean)
	}
	one, err := AccuracyOverSeeds(Single(map[string]bool{"a": true}), BootstrapOptions{Resamples: 10, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil || !math.IsNaN(one.SD) {
		t.Errorf("one seed: sd %v err %v; want NaN, nil", one.SD, err)
	}
	// Seeds with different questions: the union is resampled.
	un := Replicates{0: {"a": true, "b": false}, 1: {"a": true}}
	u, err := AccuracyOverSeeds(un, BootstrapOptions{Resamples: 200, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil || u.N != 2 || math.Abs(u.Mean-0.75) > 1e-12 || len(u.Warnings) != 1 {
		t.Errorf("unbalanced: got n=%d mean %v warnings %q err %v; want 2, 0.75, one warning", u.N, u.Mean, u.Warnings, err)
	}
}

// TestSeedIntervalCoverage checks the coverage of the seed-aware intervals
// on simulated data. The data-generating model has a random effect per
// question and independent noise per seed:
//
//	difficulty  theta_q ~ Uniform(0, 1), one per question (N = 100);
//	p_A(q) = 0.15 + 0.7 theta_q,  p_B(q) = 0.20 + 0.7 theta_q^0.8;
//	under each seed s (S = 3) each system's outcome is an independent
//	Bernoulli draw (seed noise): A right with probability p_A(q), B with
//	p_B(q).
//
// So outcomes of one question are correlated across seeds and across
// systems (they share theta_q), and the estimand, the expected accuracy over
// questions and seeds, is known in closed form (E theta = 1/2,
// E theta^0.8 = 1/1.8): EX_B = 0.2 + 0.7/1.8 = 0.58889 and
// Delta = 0.05 + 0.7 (1/1.8 - 1/2) = 0.08889. Each of 3,000 replications
// draws a data set and computes the 95% percentile intervals of Delta
// (CompareSeeds: cluster bootstrap) and of EX_B (AccuracyOverSeeds) with
// 400 resamples each (the Monte Carlo error of 400 resamples widens the
// coverage's spread a little but does not bias it). Both coverages must
// lie in [0.93, 0.97]; with 3,000 replications the standard error of a
// coverage near 0.95 is 0.004. Over 20,000 replications of this model both
// intervals covered 0.943 of the time: the percentile bootstrap's usual
// slight undercoverage with N = 100 clusters; with this test's source
// they cover 0.936 and 0.934. Replications run in parallel, each with its
// own seeded source, so the result does not depend on scheduling.
func TestSeedIntervalCoverage(t *testing.T) {
	t.Parallel()
	const (
		reps = 3000
		n    = 100
		S    = 3
		B    = 400
	)
	trueDelta := 0.05 + 0.7*(1/1.8-0.5)
	trueAcc := 0.2 + 0.7/1.8
	seeds := []int64{0, 1, 2}
	ids := make([]string, n)
	for q := range ids {
		ids[q] = "q" + string(rune('A'+q/26)) + string(rune('a'+q%26))
	}
	coverDelta, coverAcc := make([]bool, reps), make([]bool, reps)
	errs := make([]error, reps)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range next {
				rng := rand.New(rand.NewPCG(2026, uint64(rep)))
				a, b := Replicates{}, Replicates{}
				for _, s := range seeds {
					a[s], b[s] = map[string]bool{}, map[string]bool{}
				}
				for _, id := range ids {
					theta := rng.Float64()
					pa, pb := 0.15+0.7*theta, 0.20+0.7*math.Pow(theta, 0.8)
					for _, s := range seeds {
						a[s][id], b[s][id] = rng.Float64() < pa, rng.Float64() < pb
					}
				}
				p, err := PairSeeds(a, b, false)
				if err != nil {
					errs[rep] = err
					continue
				}
				c, err := CompareSeeds(p, CompareOptions{Resamples: B, Rand: rng})
				if err != nil {
					errs[rep] = err
					continue
				}
				acc, err := AccuracyOverSeeds(b, BootstrapOptions{Resamples: B, Rand: rng})
				if err != nil {
					errs[rep] = err
					continue
				}
				coverDelta[rep] = c.CI.Lo <= trueDelta && trueDelta <= c.CI.Hi
				coverAcc[rep] = acc.CI.Lo <= trueAcc && trueAcc <= acc.CI.Hi
			}
		}()
	}
	for rep := range reps {
		next <- rep
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func(xs []bool) float64 {
		k := 0
		for _, x := range xs {
			if x {
				k++
			}
		}
		return float64(k) / reps
	}
	for _, tc := range []struct {
		name string
		got  float64
	}{{"difference (cluster bootstrap)", count(coverDelta)}, {"accuracy over seeds", count(coverAcc)}} {
		t.Logf("coverage of the %s: %.4f over %d replications", tc.name, tc.got, reps)
		if tc.got < 0.93 || tc.got > 0.97 {
			t.Errorf("coverage of the %s: got %.4f; want in [0.93, 0.97]", tc.name, tc.got)
		}
	}
}

// TestClusterResampleMatchesIndices checks the multinomial chain of
// ClusterBootstrap against drawing question indices one by one, on the
// mean and SD of the resampled sum. Exact moments for i.i.d. draws of
// x_q from the empirical distribution: E = sum x = 5 and
// SD = sqrt(n * (sum x²/n - (sum x/n)²)) with n = 5, sum x² = 15:
// sqrt(5 * (3 - 1)) = 3.1623. With 20,000 resamples the standard errors
// are about 0.022 (mean) and 0.016 (SD); tolerances 0.1.
func TestClusterResampleMatchesIndices(t *testing.T) {
	x := []int{3, 2, 1, -1, 0}
	const B = 20000
	cats := []category{{-1, 1}, {1, 1}, {2, 1}, {3, 1}}
	chain := resampleClusters(cats, len(x), 3, B, rand.New(rand.NewPCG(5, 5)))
	idx := make([]int, len(chain))
	rng := rand.New(rand.NewPCG(5, 6))
	for range B {
		s := 0
		for range x {
			s += x[rng.IntN(len(x))]
		}
		idx[s+len(x)*3]++
	}
	for name, hist := range map[string][]int{"chain": chain, "indices": idx} {
		mean, sd := histMoments(hist, len(x)*3)
		if math.Abs(mean-5) > 0.1 || math.Abs(sd-math.Sqrt(10)) > 0.1 {
			t.Errorf("%s: mean %.3f sd %.3f; want 5 and %.3f", name, mean, sd, math.Sqrt(10))
		}
	}
}
