package steinersql

import (
	"math"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
)

// TestEstimateCalls checks the formula of EstimateCalls: decompose + the
// geometric sum of f = 0.31 over the iterations (values by hand).
func TestEstimateCalls(t *testing.T) {
	tests := []struct {
		params            runners.Params
		decompose, reason float64
	}{
		{nil, 1, 1 + 0.31 + 0.31*0.31},
		{runners.Params{"max_iterations": 1}, 1, 1},
		{runners.Params{"validation": "none"}, 1, 1},
		{runners.Params{"decomposition": false, "max_iterations": 2}, 0, 1.31},
	}
	for _, tt := range tests {
		r, err := New(tt.params)
		if err != nil {
			t.Fatal(err)
		}
		got := r.EstimateCalls(runners.ModelPrior{})
		if math.Abs(got[runners.RoleDecompose]-tt.decompose) > 1e-12 || math.Abs(got[runners.RoleReason]-tt.reason) > 1e-12 {
			t.Errorf("%v: got %v; want decompose %g, reason %g", tt.params, got, tt.decompose, tt.reason)
		}
	}
}
