package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// closeRel reports whether got is within rel relative tolerance of want
// (absolute for want == 0).
func closeRel(got, want, rel float64) bool {
	if want == 0 {
		return math.Abs(got) <= rel
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// mcnemarRef holds p-values computed independently with SciPy 1.10.1
// (Debian python3-scipy) by this script, run with /usr/bin/python3:
//
//	from scipy.stats import chi2, binomtest
//	for b, c in [...]:
//	    d = b + c
//	    cc = (abs(b-c)-1)**2/d; un = (b-c)**2/d
//	    print(b, c, cc, chi2.sf(cc, 1), chi2.sf(un, 1), binomtest(min(b, c), d, 0.5).pvalue)
//
// Columns: b, c, continuity-corrected statistic, its p-value, the
// uncorrected p-value, the exact binomial p-value. Tolerance: 1e-9 relative.
var mcnemarRef = []struct {
	b, c               int
	statCC, pCC, pChi2 float64
	pExact             float64
}{
	{53, 56, 0.03669724770642202, 0.8480827592882225, 0.7738459604944308, 0.8481947835965663},
	{32, 59, 7.428571428571429, 0.0064196285414337044, 0.004649433819808538, 0.00610552107452477},
	{28, 58, 9.779069767441861, 0.0017650959193790507, 0.0012164989001555205, 0.0016055649295642408},
	{38, 283, 185.47040498442368, 3.0981696923589825e-42, 1.440632245174316e-42, 1.8649520119167946e-47},
	{10, 20, 2.7, 0.10034824646229054, 0.06788915486182893, 0.09873714670538905},
	{0, 7, 5.142857142857143, 0.02334220201289086, 0.008150971593502705, 0.015625},
	{3, 3, 0.16666666666666666, 0.6830913983096086, 1.0, 1.0},
	{12, 12, 0.041666666666666664, 0.8382564863858263, 1.0, 1.0},
	{100, 140, 6.3375, 0.01182113783662232, 0.009823274507519235, 0.01166409231767769},
	{1, 0, 0.0, 1.0, 0.31731050786291115, 1.0},
	{200, 150, 6.86, 0.008814654904213312, 0.007526315166457882, 0.008720036530555943},
}

func TestMcNemarCountsAgainstSciPy(t *testing.T) {
	const rel = 1e-9
	for _, tc := range mcnemarRef {
		t.Run(fmt.Sprintf("b=%d,c=%d", tc.b, tc.c), func(t *testing.T) {
			cc, err := McNemarCounts(tc.b, tc.c, McNemarChi2CC)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(cc.Statistic, tc.statCC, rel) || !closeRel(cc.P, tc.pCC, rel) {
				t.Errorf("chi2-cc: got X2=%v P=%v; want X2=%v P=%v", cc.Statistic, cc.P, tc.statCC, tc.pCC)
			}
			un, err := McNemarCounts(tc.b, tc.c, McNemarChi2)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(un.P, tc.pChi2, rel) {
				t.Errorf("chi2: got P=%v; want %v", un.P, tc.pChi2)
			}
			ex, err := McNemarCounts(tc.b, tc.c, McNemarExact)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(ex.P, tc.pExact, rel) {
				t.Errorf("exact: got P=%v; want %v", ex.P, tc.pExact)
			}
			if ex.Statistic != float64(min(tc.b, tc.c)) {
				t.Errorf("exact statistic: got %v; want min(b,c)=%d", ex.Statistic, min(tc.b, tc.c))
			}
		})
	}
}

// TestMcNemarReActSQLTable5 reproduces the p column of ReAct-SQL (Lu et al.
// 2026) Table 5 from its b and c counts: continuity-corrected for BIRD
// mini-dev, exact for the EHR-SQL cell. The paper rounds to three decimals
// and prints "~1e-47" for the last row.
func TestMcNemarReActSQLTable5(t *testing.T) {
	tests := []struct {
		b, c   int
		method string
		want   float64
		tol    float64
	}{
		{53, 56, McNemarChi2CC, 0.848, 0.0005},
		{32, 59, McNemarChi2CC, 0.006, 0.0005},
		{28, 58, McNemarChi2CC, 0.002, 0.0005},
	}
	for _, tc := range tests {
		r, err := McNemarCounts(tc.b, tc.c, tc.method)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.P-tc.want) > tc.tol {
			t.Errorf("b=%d c=%d: got P=%.4f; want %.3f (paper Table 5)", tc.b, tc.c, r.P, tc.want)
		}
	}
	r, err := McNemarCounts(38, 283, McNemarExact)
	if err != nil {
		t.Fatal(err)
	}
	if exp := math.Round(math.Log10(r.P)); exp != -47 {
		t.Errorf("b=38 c=283 exact: got P=%g (10^%v); want about 1e-47 (paper Table 5)", r.P, exp)
	}
}

func TestMcNemarAutoRule(t *testing.T) {
	tests := []struct {
		b, c int
		want string
	}{
		{0, 7, McNemarExact},
		{12, 12, McNemarExact},  // b+c = 24 < 25
		{12, 13, McNemarChi2CC}, // b+c = 25
		{53, 56, McNemarChi2CC},
	}
	for _, tc := range tests {
		r, err := McNemarCounts(tc.b, tc.c, McNemarAuto)
		if err != nil {
			t.Fatal(err)
		}
		if r.Test != tc.want {
			t.Errorf("b=%d c=%d: got test %q; want %q", tc.b, tc.c, r.Test, tc.want)
		}
		if len(r.Warnings) != 0 {
			t.Errorf("b=%d c=%d: unexpected warnings %v", tc.b, tc.c, r.Warnings)
		}
	}
	r, err := McNemarCounts(3, 4, McNemarChi2CC)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 {
		t.Errorf("forced chi2-cc with b+c=7: got warnings %v; want one about the approximation", r.Warnings)
	}
}

func TestMcNemarEdgeCases(t *testing.T) {
	r, err := McNemarCounts(0, 0, McNemarAuto)
	if err != nil {
		t.Fatal(err)
	}
	if r.P != 1 || len(r.Warnings) != 1 {
		t.Errorf("b=c=0: got P=%v warnings=%v; want P=1 and one warning", r.P, r.Warnings)
	}
	if _, err := McNemarCounts(-1, 3, McNemarAuto); err == nil {
		t.Error("negative count: got nil error")
	}
	if _, err := McNemarCounts(1, 3, "fisher"); err == nil {
		t.Error("unknown method: got nil error")
	}
	if _, err := McNemar([]bool{true}, []bool{true, false}, McNemarAuto); err == nil {
		t.Error("length mismatch: got nil error")
	}
	a := []bool{true, true, false, false, true}
	b := []bool{true, false, true, true, false}
	r, err = McNemar(a, b, McNemarAuto)
	if err != nil {
		t.Fatal(err)
	}
	if r.B != 2 || r.C != 2 || r.N != 5 || r.Test != McNemarExact {
		t.Errorf("got B=%d C=%d N=%d test=%s; want 2 2 5 exact", r.B, r.C, r.N, r.Test)
	}
}

// TestMcNemarNullRejectionRate simulates two systems with the same true
// accuracy (each question independently: both right 0.6, A only 0.1,
// B only 0.1, both wrong 0.2) over n = 300 questions, 2,000 times, and
// checks that the automatic test rejects at alpha = 0.05 in at most 6% of
// repetitions. The continuity-corrected test is conservative: with this
// seed the observed rate is reported in the failure message.
func TestMcNemarNullRejectionRate(t *testing.T) {
	const (
		reps  = 2000
		n     = 300
		alpha = 0.05
	)
	rng := rand.New(rand.NewPCG(7, 11))
	rejected := 0
	for range reps {
		b, c := 0, 0
		for range n {
			u := rng.Float64()
			switch {
			case u < 0.1:
				b++
			case u < 0.2:
				c++
			}
		}
		r, err := McNemarCounts(b, c, McNemarAuto)
		if err != nil {
			t.Fatal(err)
		}
		if r.P < alpha {
			rejected++
		}
	}
	rate := float64(rejected) / reps
	t.Logf("type I error rate at alpha=%.2f: %.4f (%d/%d)", alpha, rate, rejected, reps)
	if rate > 0.06 {
		t.Errorf("type I error rate %.4f; want <= 0.06", rate)
	}
}
