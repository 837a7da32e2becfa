package sim

import (
	"math"
	"testing"
)

// TestRates: a sample's rate is the profile's figure divided by the
// reading's own (ReadingQuality), at most 1. Expected values by hand from
// IESR's Table 4 row Qwen2.5-7B-Instruct and the reading's measured
// quality: column recall 57.77 / 77.6 = 0.7445; column precision
// 57.28 / 38.8 > 1, so 1; operator recall 73.96 / 66.3 > 1, so 1; table
// recall after verification 89.87 / 90.6 = 0.9919. Tolerance 1e-4.
func TestRates(t *testing.T) {
	t.Parallel()
	p := Profiles["qwen2.5-7b"]
	ext, ver := Rates(p.Extract), Rates(p.Verified)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"extract column R", ext[KindColumn].R, 0.577700 / 0.776},
		{"extract column P", ext[KindColumn].P, 1},
		{"extract operator R", ext[KindOperator].R, 1},
		{"verified table R", ver[KindTable].R, 0.8987 / 0.906},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if math.Abs(tc.got-tc.want) > 1e-4 {
				t.Errorf("got %.4f; want %.4f", tc.got, tc.want)
			}
		})
	}
	for name, prof := range Profiles {
		for _, row := range [][numKinds]KindPR{Rates(prof.Extract), Rates(prof.Verified)} {
			for k, r := range row {
				if r.P <= 0 || r.P > 1 || r.R <= 0 || r.R > 1 {
					t.Errorf("%s kind %d: rates P %.3f R %.3f; want each in (0, 1]", name, k, r.P, r.R)
				}
			}
		}
	}
}
