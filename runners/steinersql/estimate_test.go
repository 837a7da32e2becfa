package steinersql

import (
	"math"
	"slices"
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

// TestEstimateCallsFromTraces checks the estimate from measured rates on
// hand-made traces: f1 is the share of items whose first validation
// fails, fa the share of later validations that fail, reason = 1 + f1 *
// sum_{j<I-1} fa^j (values by hand below).
func TestEstimateCallsFromTraces(t *testing.T) {
	trace := func(passes ...bool) runners.Trace {
		var tr runners.Trace
		tr.Add(runners.Step{Action: "decompose"})
		for _, p := range passes {
			tr.Add(runners.Step{Action: "generate"})
			tr.Add(runners.Step{Action: "validate", Info: map[string]any{"pass": p}})
		}
		return tr
	}
	// Four items: pass; fail, pass; fail, fail, fail; fail, fail, pass.
	// f1 = 3/4; later validations 5, of which 3 fail: fa = 3/5.
	four := []runners.Trace{trace(true), trace(false, true), trace(false, false, false), trace(false, false, true)}
	tests := []struct {
		name   string
		params runners.Params
		traces []runners.Trace
		reason float64
		ok     bool
	}{
		{"defaults", nil, four, 1 + 0.75 + 0.75*0.6, true},
		{"max_iterations 5", runners.Params{"max_iterations": 5}, four, 1 + 0.75*(1+0.6+0.36+0.216), true},
		{"max_iterations 1", runners.Params{"max_iterations": 1}, four, 1, true},
		{"validation none", runners.Params{"validation": "none"}, four, 1, true},
		// One iteration measured: no later validation, fa taken as f1 = 1/2.
		{"no later validation", nil, []runners.Trace{trace(true), trace(false)}, 1 + 0.5 + 0.25, true},
		{"no validation", nil, []runners.Trace{{}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := r.EstimateCallsFromTraces(runners.ModelPrior{}, tt.traces)
			if ok != tt.ok {
				t.Fatalf("ok = %v; want %v", ok, tt.ok)
			}
			if ok && (math.Abs(got[runners.RoleReason]-tt.reason) > 1e-12 || got[runners.RoleDecompose] != 1) {
				t.Errorf("got %v; want reason %g, decompose 1", got, tt.reason)
			}
		})
	}
}

// TestIndependentParams: Stage 1's request does not depend on the cost
// weights (the dry run shares it across a weight grid); the generation
// requests are taken to depend on every parameter.
func TestIndependentParams(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"alpha", "beta", "gamma", "path_algorithm", "max_iterations", "edge_cost", "l2_direction", "replan_feedback"} {
		if !slices.Contains(r.IndependentParams(runners.RoleDecompose), p) {
			t.Errorf("decompose: %s not independent; want it independent", p)
		}
	}
	for _, p := range []string{"evidence", "dependency_analysis", "temperature", "max_tokens_decompose"} {
		if slices.Contains(r.IndependentParams(runners.RoleDecompose), p) {
			t.Errorf("decompose: %s independent; want it to change the request", p)
		}
	}
	if got := r.IndependentParams(runners.RoleReason); len(got) != 0 {
		t.Errorf("reason: %v; want none", got)
	}
}
