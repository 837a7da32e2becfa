package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// reactIter is ReAct-SQL (Lu et al. 2026) Table 5's Baseline -> +Iter on
// BIRD mini-dev, n = 498: 338 both right, b = 53, c = 56 (391 and 394
// right); reactDSL is Baseline -> +Iter+DSL: b = 28, c = 58 (391 and 421).
var (
	reactIter = Table2x2{BothRight: 338, AOnly: 53, BOnly: 56, BothWrong: 51}
	reactDSL  = Table2x2{BothRight: 363, AOnly: 28, BOnly: 58, BothWrong: 49}
)

func TestCompareTable(t *testing.T) {
	tests := []struct {
		name  string
		table Table2x2
		opt   CompareOptions
		// want holds the expected fields; Warnings are checked by
		// substring in warn.
		want Comparison
		warn []string
	}{
		{
			// P: SciPy chi2.sf(0.03669724770642202, 1) (mcnemarRef);
			// accuracies 391/498 and 394/498.
			name: "ReAct-SQL +Iter, chi2-cc", table: reactIter,
			want: Comparison{N: 498, AccA: 391.0 / 498, AccB: 394.0 / 498, Delta: 3.0 / 498, B: 53, C: 56, Test: McNemarChi2CC,
				P: 0.8480827592882225, PAdj: 0.8480827592882225, Alpha: 0.05},
		},
		{
			// P: SciPy binomtest(28, 86, 0.5) (mcnemarRef), forced exact.
			name: "ReAct-SQL +Iter+DSL, exact", table: reactDSL, opt: CompareOptions{Test: McNemarExact, Level: 0.9},
			want: Comparison{N: 498, AccA: 391.0 / 498, AccB: 421.0 / 498, Delta: 30.0 / 498, B: 28, C: 58, Test: McNemarExact,
				P: 0.0016055649295642408, PAdj: 0.0016055649295642408, Alpha: 0.1},
		},
		{
			// No discordant question: P = 1 by definition, and both the
			// test and the interval warn.
			name: "no discordant question", table: Table2x2{BothRight: 4, BothWrong: 2},
			opt: CompareOptions{Rand: rand.New(rand.NewPCG(1, 0)), Resamples: 100},
			want: Comparison{N: 6, AccA: 4.0 / 6, AccB: 4.0 / 6, Test: McNemarExact, P: 1, PAdj: 1, Alpha: 0.05,
				CI: Interval{Level: 0.95}, CIMethod: BootstrapPercentile, Resamples: 100},
			warn: []string{"mcnemar: no discordant questions"},
		},
		{
			// Chi-square on 6 discordant questions: SciPy chi2.sf(1/6, 1)
			// = 0.6830913983096086 (mcnemarRef, b = c = 3).
			name: "chi-square on few discordant questions", table: Table2x2{BothRight: 1, AOnly: 3, BOnly: 3, BothWrong: 1},
			opt:  CompareOptions{Test: McNemarChi2CC},
			want: Comparison{N: 8, AccA: 0.5, AccB: 0.5, B: 3, C: 3, Test: McNemarChi2CC, P: 0.6830913983096086, PAdj: 0.6830913983096086, Alpha: 0.05},
			warn: []string{"chi-square approximation with only 6 discordant questions"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CompareTable(tc.table, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Warnings) != len(tc.warn) {
				t.Errorf("got warnings %q; want %d containing %q", got.Warnings, len(tc.warn), tc.warn)
			}
			for i, w := range tc.warn {
				if i < len(got.Warnings) && !strings.Contains(got.Warnings[i], w) {
					t.Errorf("warning %d: got %q; want one containing %q", i, got.Warnings[i], w)
				}
			}
			g := *got
			g.Warnings = nil
			const rel = 1e-9
			if !closeRel(g.P, tc.want.P, rel) || !closeRel(g.PAdj, tc.want.PAdj, rel) || !closeRel(g.Alpha, tc.want.Alpha, rel) ||
				!closeRel(g.AccA, tc.want.AccA, rel) || !closeRel(g.AccB, tc.want.AccB, rel) || !closeRel(g.Delta, tc.want.Delta, rel) {
				t.Errorf("got %+v; want %+v (1e-9 relative)", g, tc.want)
			}
			g.P, g.PAdj, g.Alpha, g.AccA, g.AccB, g.Delta = tc.want.P, tc.want.PAdj, tc.want.Alpha, tc.want.AccA, tc.want.AccB, tc.want.Delta
			if !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got %+v; want %+v", g, tc.want)
			}
		})
	}
}

// TestCompareMatchesParts: a Comparison holds exactly what McNemar and
// PairedBootstrap give for the same outcomes and seed, and Compare on the
// vectors equals CompareTable on their table. The interval is the one
// `t2sbench compare --seed 1` printed before Comparison existed,
// [-3.41, +4.62] points (cmd/t2sbench TestCompareReActSQLTable5).
func TestCompareMatchesParts(t *testing.T) {
	a, b := tableVectors(reactIter)
	opt := CompareOptions{Rand: rand.New(rand.NewPCG(1, 0))}
	c, err := Compare(a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := McNemar(a, b, McNemarAuto)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := PairedBootstrap(a, b, BootstrapOptions{Rand: rand.New(rand.NewPCG(1, 0))})
	if err != nil {
		t.Fatal(err)
	}
	if c.N != mc.N || c.B != mc.B || c.C != mc.C || c.Test != mc.Test || c.P != mc.P {
		t.Errorf("McNemar part: got n=%d b=%d c=%d %s P=%v; want n=%d b=%d c=%d %s P=%v", c.N, c.B, c.C, c.Test, c.P, mc.N, mc.B, mc.C, mc.Test, mc.P)
	}
	if c.CI != ci.CI || c.CIMethod != ci.Method || c.Resamples != ci.Resamples || c.AccA != ci.AccA || c.AccB != ci.AccB || c.Delta != ci.Delta {
		t.Errorf("bootstrap part: got %v %s B=%d; want %v %s B=%d", c.CI, c.CIMethod, c.Resamples, ci.CI, ci.Method, ci.Resamples)
	}
	if got := c.FormatCI(2); got != "[-3.41, +4.62]" {
		t.Errorf("FormatCI(2) = %q; want [-3.41, +4.62]", got)
	}
	ct, err := CompareTable(reactIter, CompareOptions{Rand: rand.New(rand.NewPCG(1, 0))})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, ct) {
		t.Errorf("Compare = %+v; CompareTable = %+v", c, ct)
	}
}

// tableVectors returns outcome vectors with table t.
func tableVectors(t Table2x2) (a, b []bool) {
	add := func(n int, x, y bool) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(t.BothRight, true, true)
	add(t.AOnly, true, false)
	add(t.BOnly, false, true)
	add(t.BothWrong, false, false)
	return a, b
}

func TestCompareErrors(t *testing.T) {
	tests := []struct {
		name  string
		table Table2x2
		opt   CompareOptions
		want  string
	}{
		{"empty table", Table2x2{}, CompareOptions{}, "empty 2x2 table"},
		{"negative count", Table2x2{AOnly: -1, BothRight: 3}, CompareOptions{}, "negative count"},
		{"level", reactIter, CompareOptions{Level: 95}, "level is 95"},
		{"test", reactIter, CompareOptions{Test: "fisher"}, `unknown test "fisher"`},
		{"ci method", reactIter, CompareOptions{Rand: rand.New(rand.NewPCG(1, 0)), CIMethod: "student"}, `unknown Method "student"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CompareTable(tc.table, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v; want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Compare([]bool{true}, []bool{true, false}, CompareOptions{}); err == nil {
		t.Errorf("Compare of vectors of different lengths: got nil error")
	}
}

// TestAdjustHolm: Holm over ReAct-SQL Table 5's two comparisons. With the
// SciPy p-values 0.8480827592882225 and 0.0017650959193790507 (mcnemarRef),
// sorted ascending the adjusted values are 2 * 0.0017650959 = 0.0035301918
// and max(0.0035301918, 1 * 0.8480827593) = 0.8480827593, as R's
// p.adjust(c(0.8480827592882225, 0.0017650959193790507), "holm") gives.
func TestAdjustHolm(t *testing.T) {
	iter, err := CompareTable(reactIter, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dsl, err := CompareTable(reactDSL, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := AdjustHolm([]*Comparison{iter, dsl}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		c          *Comparison
		padj       float64
		sig        bool
		mark, pAdj string
	}{
		{"+Iter", iter, 0.8480827592882225, false, "~", "0.848"},
		{"+Iter+DSL", dsl, 2 * 0.0017650959193790507, true, "", "0.004"},
	} {
		if !closeRel(tc.c.PAdj, tc.padj, 1e-9) || tc.c.Significant() != tc.sig || tc.c.Mark() != tc.mark || FormatP(tc.c.PAdj) != tc.pAdj {
			t.Errorf("%s: got PAdj %v significant %v mark %q (%s); want %v, %v, %q (%s)", tc.name, tc.c.PAdj, tc.c.Significant(), tc.c.Mark(), FormatP(tc.c.PAdj),
				tc.padj, tc.sig, tc.mark, tc.pAdj)
		}
	}
	if err := AdjustHolm(nil); err != nil {
		t.Errorf("AdjustHolm(nil): %v; want nil", err)
	}
	if err := AdjustHolm([]*Comparison{iter, nil}); err == nil || !strings.Contains(err.Error(), "comparison 1") {
		t.Errorf("AdjustHolm with a nil comparison: got %v; want an error naming comparison 1", err)
	}
}

func TestSignificant(t *testing.T) {
	tests := []struct {
		padj, alpha float64
		want        bool
	}{
		{0.049, 1 - 0.95, true},
		{0.05, 1 - 0.95, false}, // 1 - 0.95 = 0.050000000000000044
		{0.0500000000001, 1 - 0.95, false},
		{0.009, 1 - 0.99, true},
		{1, 0.05, false},
	}
	for _, tc := range tests {
		c := &Comparison{PAdj: tc.padj, Alpha: tc.alpha}
		if got := c.Significant(); got != tc.want {
			t.Errorf("PAdj %v alpha %v: Significant() = %v; want %v", tc.padj, tc.alpha, got, tc.want)
		}
	}
}

func TestFormatP(t *testing.T) {
	tests := []struct {
		p    float64
		want string
	}{
		{math.NaN(), "-"},
		{1.8649520119167946e-47, "<0.001"},
		{0.000999, "<0.001"},
		{0.001, "0.001"},
		{0.0017650959193790507, "0.002"},
		{0.8480827592882225, "0.848"},
		{0.25, "0.250"},
		{1, "1.000"},
	}
	for _, tc := range tests {
		if got := FormatP(tc.p); got != tc.want {
			t.Errorf("FormatP(%v) = %q; want %q", tc.p, got, tc.want)
		}
	}
}

func TestFormatSigned(t *testing.T) {
	tests := []struct {
		v    float64
		prec int
		want string
	}{
		{0.6024, 2, "+0.60"},
		{-3.41, 2, "-3.41"},
		{6.024, 1, "+6.0"},
		{0, 1, "0.0"},
		{0, 2, "0.00"},
		{-0.04, 1, "0.0"},
		{0.04, 1, "0.0"},
		{-0.05001, 1, "-0.1"},
		{math.NaN(), 1, "-"},
	}
	for _, tc := range tests {
		if got := FormatSigned(tc.v, tc.prec); got != tc.want {
			t.Errorf("FormatSigned(%v, %d) = %q; want %q", tc.v, tc.prec, got, tc.want)
		}
	}
}

func TestComparisonFormat(t *testing.T) {
	tests := []struct {
		name                string
		c                   Comparison
		delta, ci, testText string
	}{
		{
			// The run summary's test: b = 0, c = 3, exact P = 2 * 0.5^3
			// = 0.25 (binomial CDF by hand; bench TestSummarize).
			name: "exact", c: Comparison{N: 10, Delta: 0.3, B: 0, C: 3, Test: McNemarExact, P: 0.25},
			delta: "+30.0", ci: "-", testText: "p=0.250 b=0 c=3 exact",
		},
		{
			// SciPy binomtest(38, 321, 0.5) = 1.86e-47 (mcnemarRef).
			name: "tiny p", c: Comparison{Delta: -0.00004, CI: Interval{Lo: -0.0341, Hi: 0.0462, Level: 0.95}, CIMethod: BootstrapBCa,
				B: 38, C: 283, Test: McNemarExact, P: 1.8649520119167946e-47},
			delta: "0.0", ci: "[-3.4, +4.6]", testText: "p<0.001 b=38 c=283 exact",
		},
	}
	for _, tc := range tests {
		if got := tc.c.FormatDelta(1); got != tc.delta {
			t.Errorf("%s: FormatDelta(1) = %q; want %q", tc.name, got, tc.delta)
		}
		if got := tc.c.FormatCI(1); got != tc.ci {
			t.Errorf("%s: FormatCI(1) = %q; want %q", tc.name, got, tc.ci)
		}
		if got := tc.c.FormatTest(); got != tc.testText {
			t.Errorf("%s: FormatTest() = %q; want %q", tc.name, got, tc.testText)
		}
	}
}
