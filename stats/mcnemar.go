package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemar test variants, the values of McNemarResult.Test and of the method
// argument of McNemarCounts.
const (
	// McNemarAuto picks McNemarExact when b+c < ExactBelow, else McNemarChi2CC.
	McNemarAuto = ""
	// McNemarExact is the exact two-sided binomial test on the discordant
	// questions.
	McNemarExact = "exact"
	// McNemarChi2CC is the chi-square test with Edwards' continuity
	// correction.
	McNemarChi2CC = "chi2-cc"
	// McNemarChi2 is the chi-square test without continuity correction; it
	// is offered for comparison with papers that use it and for power
	// calculations (McNemarPower describes this test).
	McNemarChi2 = "chi2"
)

// ExactBelow is the number of discordant questions (b+c) below which
// McNemarAuto uses the exact test. The usual rule of thumb (e.g. Agresti,
// Categorical Data Analysis, 3rd ed., sec. 11.1) is that the chi-square
// approximation needs b+c of at least 20-25.
const ExactBelow = 25

// McNemarResult is the outcome of a McNemar test.
type McNemarResult struct {
	// B counts questions A got right and B got wrong; C the reverse.
	B, C int
	// N is the number of paired questions (0 when only b and c were given).
	N int
	// Statistic is the chi-square statistic for the chi-square tests and
	// min(b, c) for the exact test.
	Statistic float64
	// P is the two-sided p-value.
	P float64
	// Test is the variant used: McNemarExact, McNemarChi2CC or McNemarChi2.
	Test string
	// Warnings are non-fatal problems (no discordant questions, an
	// approximation used where it is unreliable).
	Warnings []error
}

// McNemar tests the null hypothesis that systems A and B have the same
// accuracy on the questions of the paired outcome vectors a and b (a[i] and
// b[i] are the outcomes on the same question). See McNemarCounts for the
// tests and method.
func McNemar(a, b []bool, method string) (McNemarResult, error) {
	t, err := Tabulate(a, b)
	if err != nil {
		return McNemarResult{}, err
	}
	r, err := McNemarCounts(t.AOnly, t.BOnly, method)
	r.N = t.N()
	return r, err
}

// McNemarCounts runs McNemar's test from the discordant counts alone:
// b questions where A is right and B wrong, c where B is right and A wrong.
// Under the null hypothesis each discordant question is equally likely to
// fall either way, so b ~ Binomial(b+c, 1/2).
//
// The exact test (method McNemarExact) is the two-sided binomial test
//
//	P = min(1, 2 * BinomialCDF(min(b, c); n = b+c, p = 1/2))
//
// The continuity-corrected test (McNemarChi2CC; Edwards 1948) is
//
//	X² = (|b - c| - 1)² / (b + c),   P = ChiSquared{K: 1}.Survival(X²)
//
// and the uncorrected test (McNemarChi2) drops the -1. With method
// McNemarAuto the exact test is used when b+c < ExactBelow, the
// continuity-corrected chi-square otherwise. When b+c == 0 there is no
// evidence either way: P is 1 and a warning says so.
func McNemarCounts(b, c int, method string) (McNemarResult, error) {
	r := McNemarResult{B: b, C: c}
	if b < 0 || c < 0 {
		return r, fmt.Errorf("stats: mcnemar: negative discordant count b=%d c=%d", b, c)
	}
	d := b + c
	test := method
	switch method {
	case McNemarAuto:
		test = McNemarChi2CC
		if d < ExactBelow {
			test = McNemarExact
		}
	case McNemarExact, McNemarChi2CC, McNemarChi2:
	default:
		return r, fmt.Errorf("stats: mcnemar: unknown test %q (want %q, %q, %q or empty for automatic)", method, McNemarExact, McNemarChi2CC, McNemarChi2)
	}
	r.Test = test
	if d == 0 {
		r.P = 1
		r.Warnings = append(r.Warnings, fmt.Errorf("stats: mcnemar: no discordant questions (b = c = 0); the systems cannot be distinguished, P set to 1"))
		return r, nil
	}
	if test != McNemarExact && d < ExactBelow {
		r.Warnings = append(r.Warnings, fmt.Errorf("stats: mcnemar: chi-square approximation with only %d discordant questions (< %d); the exact test is more reliable", d, ExactBelow))
	}
	switch test {
	case McNemarExact:
		k := min(b, c)
		r.Statistic = float64(k)
		r.P = math.Min(1, 2*distuv.Binomial{N: float64(d), P: 0.5}.CDF(float64(k)))
	case McNemarChi2CC, McNemarChi2:
		diff := math.Abs(float64(b - c))
		if test == McNemarChi2CC {
			// As in R's mcnemar.test and statsmodels: (|b-c|-1)² even
			// when b == c.
			diff--
		}
		r.Statistic = diff * diff / float64(d)
		r.P = distuv.ChiSquared{K: 1}.Survival(r.Statistic)
	}
	return r, nil
}
