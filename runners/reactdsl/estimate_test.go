package reactdsl

import (
	"testing"

	"github.com/t2sbench/t2sbench/runners"
)

// TestEstimateCalls: one call for the baseline setting, else the paper's
// mean of 3.3 turns capped by max_turns.
func TestEstimateCalls(t *testing.T) {
	tests := []struct {
		params runners.Params
		want   float64
	}{
		{nil, 3.3},
		{runners.Params{"setting": "baseline"}, 1},
		{runners.Params{"setting": "iterate-sql", "max_turns": 2}, 2},
	}
	for _, tt := range tests {
		r, err := New(tt.params)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.EstimateCalls(runners.ModelPrior{})[runners.RoleReason]; got != tt.want {
			t.Errorf("%v: got %g; want %g", tt.params, got, tt.want)
		}
	}
}
