package stats

import (
	"math"
	"testing"
)

func TestHolm(t *testing.T) {
	// Expected values by hand from the definition (and identical to R's
	// p.adjust(p, "holm")): sorted 0.01, 0.02, 0.03, 0.04, 0.5 times
	// 5, 4, 3, 2, 1 give 0.05, 0.08, 0.09, 0.08 -> 0.09 (monotone), 0.5.
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"single", []float64{0.03}, []float64{0.03}},
		{"unsorted", []float64{0.04, 0.01, 0.5, 0.03, 0.02}, []float64{0.09, 0.05, 0.5, 0.09, 0.08}},
		{"capped", []float64{0.6, 0.001, 0.4}, []float64{0.8, 0.003, 0.8}},
		{"ties", []float64{0.02, 0.02, 0.02}, []float64{0.06, 0.06, 0.06}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Holm(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v; want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Errorf("adj[%d]: got %v; want %v", i, got[i], tc.want[i])
				}
				if got[i] < tc.p[i] || got[i] > 1 {
					t.Errorf("adj[%d]=%v outside [raw %v, 1]", i, got[i], tc.p[i])
				}
			}
		})
	}
	for _, bad := range [][]float64{{0.1, math.NaN()}, {-0.1}, {1.5}} {
		if _, err := Holm(bad); err == nil {
			t.Errorf("Holm(%v): got nil error", bad)
		}
	}
}
