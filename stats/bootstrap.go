package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Bootstrap interval methods, the values of BootstrapOptions.Method.
const (
	// BootstrapPercentile is the percentile interval: the (1-level)/2 and
	// (1+level)/2 quantiles of the resampled statistic.
	BootstrapPercentile = "percentile"
	// BootstrapBCa is the bias-corrected and accelerated interval (Efron
	// 1987, JASA 82:171-185) with the acceleration estimated by the
	// jackknife.
	BootstrapBCa = "bca"
)

// Defaults of BootstrapOptions. 10,000 resamples keep the Monte Carlo error
// of a 95% percentile endpoint near 0.1 points for benchmark-sized n; it is
// the B used by ReAct-SQL (Lu et al. 2026, Appendix A) and most EX papers.
const (
	DefaultResamples = 10000
	DefaultLevel     = 0.95
)

// BootstrapOptions configure PairedBootstrap and BootstrapAccuracy.
type BootstrapOptions struct {
	// Resamples is the number of bootstrap resamples (DefaultResamples if 0).
	Resamples int
	// Level is the confidence level in (0, 1) (DefaultLevel if 0).
	Level float64
	// Method is BootstrapPercentile (if empty) or BootstrapBCa.
	Method string
	// Rand is the seeded random source; it is required so that every
	// interval is reproducible from its seed.
	Rand *rand.Rand
}

func (o BootstrapOptions) withDefaults() (BootstrapOptions, error) {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Method == "" {
		o.Method = BootstrapPercentile
	}
	switch {
	case o.Resamples < 2:
		return o, fmt.Errorf("stats: bootstrap: Resamples is %d, want at least 2", o.Resamples)
	case !(o.Level > 0 && o.Level < 1):
		return o, fmt.Errorf("stats: bootstrap: Level is %v, want a value in (0, 1)", o.Level)
	case o.Method != BootstrapPercentile && o.Method != BootstrapBCa:
		return o, fmt.Errorf("stats: bootstrap: unknown Method %q (want %q or %q)", o.Method, BootstrapPercentile, BootstrapBCa)
	case o.Rand == nil:
		return o, fmt.Errorf("stats: bootstrap: Rand is nil; pass a seeded *rand.Rand")
	}
	return o, nil
}

// Interval is a confidence interval [Lo, Hi] at confidence Level.
type Interval struct {
	Lo, Hi, Level float64
}

// DiffCI is a confidence interval for the accuracy difference of two
// systems over the same questions.
type DiffCI struct {
	// N is the number of paired questions.
	N int
	// AccA and AccB are the observed accuracies; Delta = AccB - AccA.
	AccA, AccB, Delta float64
	// CI is the interval for Delta.
	CI Interval
	// Resamples and Method are what was used.
	Resamples int
	Method    string
	// Warnings are non-fatal problems (a degenerate resampling
	// distribution, a BCa interval that fell back to percentile).
	Warnings []error
}

// PairedBootstrap computes a bootstrap confidence interval for the accuracy
// difference AccB - AccA of paired outcome vectors a and b (a[i] and b[i]
// are the outcomes on the same question). Each resample draws n question
// indices with replacement, the same indices for both systems, and records
// the difference of the two accuracies on them.
//
// Because outcomes are 0/1, a resample's difference depends only on how
// many drawn questions are "A only" (n10) and "B only" (n01):
//
//	delta* = (n01 - n10) / n
//
// and (n11, n10, n01, n00) of a resample is Multinomial(n; observed cell
// proportions). PairedBootstrap draws n10 ~ Binomial(n, p10) and then
// n01 | n10 ~ Binomial(n - n10, p01 / (1 - p10)) by inversion of cached
// CDF tables, which has exactly the distribution of index resampling at a
// cost independent of n.
//
// The percentile interval takes the type-7 (linear interpolation) quantiles
// of the resampled differences. The BCa interval (Efron & Tibshirani 1993,
// ch. 14) adjusts those quantile levels with the bias correction
//
//	z0 = Φ⁻¹((#{delta* < delta} + #{delta* = delta}/2) / B)
//
// (ties, frequent for 0/1 data, counted half) and the jackknife acceleration
//
//	a = Σ (mean - θ(i))³ / (6 (Σ (mean - θ(i))²)^(3/2))
//
// to α' = Φ(z0 + (z0 + zα) / (1 - a (z0 + zα))).
func PairedBootstrap(a, b []bool, opt BootstrapOptions) (DiffCI, error) {
	t, err := Tabulate(a, b)
	if err != nil {
		return DiffCI{}, err
	}
	return PairedBootstrapTable(t, opt)
}

// PairedBootstrapTable is PairedBootstrap from the paired 2x2 table of
// counts; it gives the same result as PairedBootstrap on any outcome
// vectors with that table.
func PairedBootstrapTable(t Table2x2, opt BootstrapOptions) (DiffCI, error) {
	if err := t.validate(); err != nil {
		return DiffCI{}, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return DiffCI{}, err
	}
	n := t.N()
	r := DiffCI{N: n, AccA: t.AccA(), AccB: t.AccB(), Delta: t.Delta(), Resamples: opt.Resamples, Method: opt.Method}
	hist := resampleTable(t, opt.Resamples, opt.Rand)
	// Jackknife: leaving out an "A only" question gives (c-(b-1))/(n-1),
	// a "B only" one (c-1-b)/(n-1), a concordant one (c-b)/(n-1).
	var jack []jackValue
	if n > 1 {
		b, c := float64(t.AOnly), float64(t.BOnly)
		m := float64(n - 1)
		jack = []jackValue{
			{(c - b + 1) / m, t.AOnly},
			{(c - b - 1) / m, t.BOnly},
			{(c - b) / m, t.BothRight + t.BothWrong},
		}
	}
	r.CI, r.Warnings = histInterval(hist, n, float64(t.BOnly-t.AOnly), jack, opt)
	if t.AOnly+t.BOnly == 0 {
		r.Warnings = append(r.Warnings, errBootstrapNoDiscordant)
	}
	return r, nil
}

// AccuracyCI is a confidence interval for one system's accuracy.
type AccuracyCI struct {
	N, Correct int
	Acc        float64
	CI         Interval
	Resamples  int
	Method     string
	Warnings   []error
}

// BootstrapAccuracy computes a bootstrap confidence interval for the
// accuracy of outcome vector x. A resample's number correct is
// Binomial(n, observed accuracy), drawn as in PairedBootstrap
// (resampleClusters with the one category "correct"); the
// percentile and BCa intervals are as described there (jackknife values
// (k-1)/(n-1) and k/(n-1)). For a closed-form interval use Wilson.
func BootstrapAccuracy(x []bool, opt BootstrapOptions) (AccuracyCI, error) {
	n := len(x)
	if n == 0 {
		return AccuracyCI{}, fmt.Errorf("stats: bootstrap: empty outcome vector")
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return AccuracyCI{}, err
	}
	k := 0
	for _, v := range x {
		if v {
			k++
		}
	}
	r := AccuracyCI{N: n, Correct: k, Acc: float64(k) / float64(n), Resamples: opt.Resamples, Method: opt.Method}
	hist := resampleClusters([]category{{1, k}}, n, 1, opt.Resamples, opt.Rand)
	var jack []jackValue
	if n > 1 {
		m := float64(n - 1)
		jack = []jackValue{{float64(k-1) / m, k}, {float64(k) / m, n - k}}
	}
	r.CI, r.Warnings = histInterval(hist, n, float64(k), jack, opt)
	return r, nil
}

// Wilson returns the Wilson score interval (Wilson 1927, JASA 22:209-212)
// for k successes in n trials at confidence level:
//
//	center = (p + z²/2n) / (1 + z²/n)
//	half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)
//
// with p = k/n and z the (1+level)/2 standard normal quantile.
func Wilson(k, n int, level float64) (Interval, error) {
	if n <= 0 || k < 0 || k > n {
		return Interval{}, fmt.Errorf("stats: wilson: want 0 <= k <= n and n > 0, got k=%d n=%d", k, n)
	}
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("stats: wilson: level is %v, want a value in (0, 1)", level)
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return Interval{Lo: math.Max(0, center-half), Hi: math.Min(1, center+half), Level: level}, nil
}

// jackValue is a jackknife leave-one-out statistic and how many questions
// give it.
type jackValue struct {
	theta float64
	count int
}

// resampleTable draws B multinomial resamples of table t and returns the
// histogram of n01 - n10, indexed by n01 - n10 + n: resampleClusters with
// the categories "A only" (-1) and "B only" (+1), in that order, both
// drawn even when empty.
func resampleTable(t Table2x2, B int, rng *rand.Rand) []int {
	return resampleClusters([]category{{-1, t.AOnly}, {1, t.BOnly}}, t.N(), 1, B, rng)
}

// category is one value a question's statistic takes (an integer) and the
// number of questions that take it.
type category struct{ value, count int }

// resampleClusters draws B resamples of n questions with replacement,
// where the questions outside cats have value 0 and every value lies in
// [-w, w], and returns the histogram of the resampled sum of values,
// indexed by sum + n*w. A resample's counts per category are
// Multinomial(n; count/n), drawn as a chain of binomials in the order of
// cats: the k-th count is Binomial(n - drawn so far, count_k / (n - the
// counts of the categories before it)), by inversion of cached CDF tables
// (one Float64 of rng per category and resample). It has exactly the
// distribution of resampling question indices at a cost independent of n.
func resampleClusters(cats []category, n, w, B int, rng *rand.Rand) []int {
	hist := make([]int, 2*n*w+1)
	q := make([]float64, len(cats))
	left := n
	for k, c := range cats {
		if left > 0 {
			q[k] = float64(c.count) / float64(left)
		}
		left -= c.count
	}
	tables := make([]map[int]*binomTable, len(cats))
	for k := range tables {
		tables[k] = map[int]*binomTable{}
	}
	for range B {
		m, sum := n, 0
		for k, c := range cats {
			tab := tables[k][m]
			if tab == nil {
				tab = newBinomTable(m, q[k])
				tables[k][m] = tab
			}
			x := tab.sample(rng)
			sum += c.value * x
			m -= x
		}
		hist[sum+n*w]++
	}
	return hist
}

// resampleIndices is the textbook paired bootstrap: B times, draw n indices
// with replacement and count. It is the reference resampleTable is checked
// and benchmarked against.
func resampleIndices(a, b []bool, B int, rng *rand.Rand) []int {
	n := len(a)
	hist := make([]int, 2*n+1)
	diff := make([]int8, n)
	for i := range a {
		switch {
		case a[i] && !b[i]:
			diff[i] = -1
		case b[i] && !a[i]:
			diff[i] = 1
		}
	}
	for range B {
		d := 0
		for range n {
			d += int(diff[rng.IntN(n)])
		}
		hist[d+n]++
	}
	return hist
}

// binomTable samples Binomial(n, p) by inverting its tabulated CDF.
type binomTable struct {
	cdf []float64
}

// newBinomTable tabulates the Binomial(n, p) CDF. Probabilities are built
// outward from the mode by the ratio recurrence
// f(k+1)/f(k) = (n-k)/(k+1) * p/(1-p), stopping where they fall below 1e-300
// of the mode, then normalised.
func newBinomTable(n int, p float64) *binomTable {
	pmf := make([]float64, n+1)
	switch {
	case n == 0 || p <= 0:
		pmf[0] = 1
	case p >= 1:
		pmf[n] = 1
	default:
		odds := p / (1 - p)
		mode := min(n, int(float64(n+1)*p))
		pmf[mode] = 1
		for k := mode; k < n; k++ {
			v := pmf[k] * float64(n-k) / float64(k+1) * odds
			if v < 1e-300 {
				break
			}
			pmf[k+1] = v
		}
		for k := mode; k > 0; k-- {
			v := pmf[k] * float64(k) / float64(n-k+1) / odds
			if v < 1e-300 {
				break
			}
			pmf[k-1] = v
		}
	}
	sum := 0.0
	for _, v := range pmf {
		sum += v
	}
	acc := 0.0
	for k, v := range pmf {
		acc += v / sum
		pmf[k] = acc
	}
	pmf[n] = 1
	return &binomTable{cdf: pmf}
}

// sample returns the smallest k with CDF(k) > u for u uniform in [0, 1).
func (t *binomTable) sample(rng *rand.Rand) int {
	u := rng.Float64()
	cdf := t.cdf
	lo, hi := 0, len(cdf)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cdf[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// histInterval computes the percentile or BCa interval from a histogram of
// resampled statistics in count units (hist[j] counts value j - n),
// scaled by 1/n. thetaHat is the observed statistic in count units and jack
// the jackknife values (already scaled).
func histInterval(hist []int, n int, thetaHat float64, jack []jackValue, opt BootstrapOptions) (Interval, []error) {
	return histIntervalAt(hist, n, float64(n), thetaHat, jack, opt)
}

// histIntervalAt is histInterval for a histogram whose index j counts the
// value j - offset, in units that scale converts to the statistic
// (statistic = value / scale).
func histIntervalAt(hist []int, offset int, scale, thetaHat float64, jack []jackValue, opt BootstrapOptions) (Interval, []error) {
	B := opt.Resamples
	alpha := (1 - opt.Level) / 2
	pLo, pHi := alpha, 1-alpha
	var warns []error
	if opt.Method == BootstrapBCa {
		less, equal := 0, 0
		for j, c := range hist {
			v := float64(j - offset)
			if v < thetaHat {
				less += c
			} else if v == thetaHat {
				equal += c
			}
		}
		var err error
		if pLo, pHi, err = bcaLevels(less, equal, B, jack, pLo, pHi); err != nil {
			warns = append(warns, err)
		}
	}
	lo := histQuantile(hist, B, pLo) - float64(offset)
	hi := histQuantile(hist, B, pHi) - float64(offset)
	return Interval{Lo: lo / scale, Hi: hi / scale, Level: opt.Level}, warns
}

// bcaLevels moves the percentile interval's levels lo and hi to BCa's
// (Efron 1987): of the total resamples, less lie below the estimate and
// equal on it; their share below (those on it counting half) gives the
// bias correction z0, and jack, the jackknife values, gives the
// acceleration. When every resample lies on one side of the estimate z0
// is undefined; lo and hi come back unchanged with a warning.
func bcaLevels(less, equal, total int, jack []jackValue, lo, hi float64) (float64, float64, error) {
	frac := (float64(less) + float64(equal)/2) / float64(total)
	if frac <= 0 || frac >= 1 {
		return lo, hi, fmt.Errorf("stats: bootstrap: BCa bias correction undefined (all resamples on one side of the estimate); used the percentile interval")
	}
	a := acceleration(jack)
	z0 := distuv.UnitNormal.Quantile(frac)
	adj := func(p float64) float64 {
		z := distuv.UnitNormal.Quantile(p)
		return distuv.UnitNormal.CDF(z0 + (z0+z)/(1-a*(z0+z)))
	}
	return adj(lo), adj(hi), nil
}

// acceleration is the jackknife estimate of the BCa acceleration; it is 0
// when the jackknife values do not vary.
func acceleration(jack []jackValue) float64 {
	total, sum := 0, 0.0
	for _, j := range jack {
		total += j.count
		sum += j.theta * float64(j.count)
	}
	if total == 0 {
		return 0
	}
	mean := sum / float64(total)
	num, den := 0.0, 0.0
	for _, j := range jack {
		d := mean - j.theta
		num += float64(j.count) * d * d * d
		den += float64(j.count) * d * d
	}
	if den == 0 {
		return 0
	}
	return num / (6 * math.Pow(den, 1.5))
}

// histQuantile returns the type-7 quantile at probability p of the B values
// in hist, as an index into hist.
func histQuantile(hist []int, B int, p float64) float64 {
	h := float64(B-1) * p
	lo := int(math.Floor(h))
	lo = max(0, min(lo, B-1))
	hi := min(lo+1, B-1)
	xlo, xhi := float64(histOrder(hist, lo)), float64(histOrder(hist, hi))
	return xlo + (h-float64(lo))*(xhi-xlo)
}

// histOrder returns the index of the r-th smallest value (0-based) in hist.
func histOrder(hist []int, r int) int {
	cum := 0
	for j, c := range hist {
		cum += c
		if cum > r {
			return j
		}
	}
	return len(hist) - 1
}

// errBootstrapNoDiscordant is the bootstrap's warning when no question is
// discordant. A comparison leaves it out: its test already says so.
var errBootstrapNoDiscordant = errors.New("stats: bootstrap: no discordant questions; every resample has difference 0")

// intervalWarnings appends to ws the interval's warnings as text, less
// the one that repeats the test's warning of no discordant question.
func intervalWarnings(ws []string, iv []error) []string {
	for _, w := range iv {
		if !errors.Is(w, errBootstrapNoDiscordant) {
			ws = append(ws, w.Error())
		}
	}
	return ws
}
