package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Comparison is the paired comparison of system B against system A over
// the same N questions: their accuracies, the difference with its paired
// bootstrap interval, McNemar's test and the Holm-adjusted p-value. It is
// the one value the run summary, `t2sbench compare` and every report table
// print, modelled on benchstat's benchmath.Comparison (golang.org/x/perf),
// which carries the achieved P, the counts and Alpha, and prints "~" for a
// difference that is not significant.
type Comparison struct {
	// N is the number of paired questions.
	N int
	// Seeds is the number of seeds whose (seed, question) pairs the
	// comparison pools (CompareSeeds); 0 for a comparison of one outcome
	// vector per system (Compare, CompareTable), which is one seed.
	Seeds int
	// AccA and AccB are the accuracies (EX) of A and B over the N
	// questions and every seed; Delta = AccB - AccA = (C - B) / (N * S),
	// S = max(1, Seeds).
	AccA, AccB, Delta float64
	// CI is the paired bootstrap interval of Delta (PairedBootstrapTable)
	// at CI.Level, computed by CIMethod over Resamples resamples.
	// CIMethod is "" when no interval was asked for (CompareOptions.Rand
	// nil); CI is then zero.
	CI        Interval
	CIMethod  string
	Resamples int
	// B counts the (seed, question) pairs only A answers correctly and C
	// those only B answers correctly (McNemar's discordant cells, pooled
	// over seeds).
	B, C int
	// Test is the test used (McNemarExact, McNemarChi2CC or McNemarChi2
	// with one seed, TestSignFlip or TestClusteredChi2 with several) and
	// P its two-sided p-value.
	Test string
	P    float64
	// PAdj is P after Holm adjustment over the family given to
	// AdjustHolm; a comparison in no family has PAdj = P. Family is the
	// size of that family (0 when in none).
	PAdj   float64
	Family int
	// Alpha is the significance level, 1 - the confidence level.
	Alpha float64
	// Warnings are non-fatal problems of the test and the interval (no
	// discordant question, a chi-square approximation on few discordant
	// questions, a BCa interval that fell back to percentile), as text.
	Warnings []string
}

// CompareOptions configure Compare, CompareTable and CompareSeeds.
type CompareOptions struct {
	// Test is the McNemar variant (McNemarAuto if empty).
	Test string
	// Level is the confidence level of the interval; significance is
	// judged at Alpha = 1 - Level (DefaultLevel if 0).
	Level float64
	// Rand, when set, has the comparison compute the paired bootstrap
	// interval of Delta, with Resamples resamples (DefaultResamples if 0)
	// by CIMethod (BootstrapPercentile if empty). Without it no interval
	// is computed.
	Rand      *rand.Rand
	Resamples int
	CIMethod  string
}

// level is the confidence level of the comparison, DefaultLevel if
// Level is 0; a level outside (0, 1) is an error.
func (o CompareOptions) level() (float64, error) {
	level := o.Level
	if level == 0 {
		level = DefaultLevel
	}
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("stats: compare: level is %v, want a value in (0, 1)", level)
	}
	return level, nil
}

// Compare compares the paired outcome vectors a and b (a[i] and b[i] are
// the outcomes of systems A and B on the same question): see CompareTable.
func Compare(a, b []bool, opt CompareOptions) (*Comparison, error) {
	t, err := Tabulate(a, b)
	if err != nil {
		return nil, err
	}
	return CompareTable(t, opt)
}

// CompareTable compares B against A from their paired 2x2 table: McNemar's
// test of opt.Test (McNemarCounts) and, when opt.Rand is set, the paired
// bootstrap interval of Delta (PairedBootstrapTable). It gives the same
// result as Compare on any outcome vectors with that table. PAdj is P
// until AdjustHolm adjusts a family.
func CompareTable(t Table2x2, opt CompareOptions) (*Comparison, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	level, err := opt.level()
	if err != nil {
		return nil, err
	}
	mc, err := McNemarCounts(t.AOnly, t.BOnly, opt.Test)
	if err != nil {
		return nil, err
	}
	c := &Comparison{N: t.N(), AccA: t.AccA(), AccB: t.AccB(), Delta: t.Delta(), B: mc.B, C: mc.C,
		Test: mc.Test, P: mc.P, PAdj: mc.P, Alpha: 1 - level}
	for _, w := range mc.Warnings {
		c.Warnings = append(c.Warnings, w.Error())
	}
	if opt.Rand == nil {
		return c, nil
	}
	ci, err := PairedBootstrapTable(t, BootstrapOptions{Resamples: opt.Resamples, Level: level, Method: opt.CIMethod, Rand: opt.Rand})
	if err != nil {
		return nil, err
	}
	c.CI, c.CIMethod, c.Resamples = ci.CI, ci.Method, ci.Resamples
	c.Warnings = intervalWarnings(c.Warnings, ci.Warnings)
	return c, nil
}

// AdjustHolm sets PAdj of every comparison of the family to its
// Holm-adjusted p-value (Holm over their P, in the family's order). A nil
// comparison is an error naming its index; an empty family is left alone.
func AdjustHolm(family []*Comparison) error {
	ps := make([]float64, len(family))
	for i, c := range family {
		if c == nil {
			return fmt.Errorf("stats: holm: comparison %d is nil", i)
		}
		ps[i] = c.P
	}
	adj, err := Holm(ps)
	if err != nil {
		return err
	}
	for i, c := range family {
		c.PAdj, c.Family = adj[i], len(family)
	}
	return nil
}

// sigTolerance absorbs the rounding of Alpha = 1 - Level (1 - 0.95 is
// 0.050000000000000044): a PAdj within it of Alpha is not significant.
const sigTolerance = 1e-12

// Significant reports whether the difference is significant at Alpha
// after adjustment: PAdj < Alpha (less a rounding tolerance of 1e-12, so
// that PAdj = 0.05 is not significant at Level 0.95).
func (c *Comparison) Significant() bool { return c.PAdj < c.Alpha-sigTolerance }

// Mark is the significance mark of the difference: "~" when it is not
// significant after adjustment (as benchstat prints it), else "".
func (c *Comparison) Mark() string {
	if c.Significant() {
		return ""
	}
	return "~"
}

// FormatDelta prints Delta in points (percent) with prec decimals and an
// explicit sign (FormatSigned).
func (c *Comparison) FormatDelta(prec int) string { return FormatSigned(100*c.Delta, prec) }

// FormatCI prints the interval of Delta in points with prec decimals as
// "[-3.4, +4.6]" (FormatSigned); "-" when no interval was computed.
func (c *Comparison) FormatCI(prec int) string {
	if c.CIMethod == "" {
		return "-"
	}
	return "[" + FormatSigned(100*c.CI.Lo, prec) + ", " + FormatSigned(100*c.CI.Hi, prec) + "]"
}

// FormatTest prints the test in one phrase, "p=0.250 b=0 c=3 exact"
// ("p<0.001 ..." below 0.001; FormatP); b and c count discordant (seed,
// question) pairs.
func (c *Comparison) FormatTest() string {
	p := FormatP(c.P)
	if !strings.HasPrefix(p, "<") {
		p = "=" + p
	}
	return fmt.Sprintf("p%s b=%d c=%d %s", p, c.B, c.C, c.Test)
}

// FormatLine prints the whole comparison in one phrase, the test first
// (FormatTest, with the seeds pooled when more than one), then the
// difference and its interval in points with prec decimals and the
// Holm-adjusted p: "p=0.250 b=0 c=3 exact, Δ +7.1 [0.0, +16.7], Holm
// p=0.500". Without an interval the difference stands alone.
func (c *Comparison) FormatLine(prec int) string {
	s := c.FormatTest()
	if c.Seeds > 1 {
		s += fmt.Sprintf(" over %d seeds", c.Seeds)
	}
	s += ", Δ " + c.FormatDelta(prec)
	if c.CIMethod != "" {
		s += " " + c.FormatCI(prec)
	}
	p := FormatP(c.PAdj)
	if !strings.HasPrefix(p, "<") {
		p = "=" + p
	}
	return s + ", Holm p" + p
}

// FormatP prints a p-value as every table prints it: three decimals,
// "<0.001" below 0.001, "-" for NaN (no test).
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// FormatSigned prints v with prec decimals and an explicit sign, "+1.2"
// or "-0.4"; a value that rounds to zero prints unsigned ("0.0"), and NaN
// prints "-".
func FormatSigned(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	s := fmt.Sprintf("%.*f", prec, v)
	switch {
	case strings.Trim(s, "-0.") == "":
		return strings.TrimPrefix(s, "-")
	case strings.HasPrefix(s, "-"):
		return s
	}
	return "+" + s
}
