package bench

import (
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/spec"
)

func TestSpecRejectsNonFinite(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"p nan", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, p: .nan}\nrunners: [{name: direct}]\n",
			"bad.yaml:3: models.s.p: .nan is not a finite number"},
		{"role_p inf", "benchmarks: [{name: mini}]\nmodels:\n  s:\n    backend: sim\n    role_p: {reason: .inf}\nrunners: [{name: direct}]\n",
			"bad.yaml:5: models.s.role_p.reason: .inf is not a finite number"},
		{"sweep -inf", "benchmarks: [{name: mini}]\nrunners:\n  - name: sc\n    sweep: {temperature: [0.5, -.Inf]}\n",
			"bad.yaml:4: runners[0].sweep.temperature[1]: -.Inf is not a finite number"},
		{"price nan", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim}\nprices:\n  s: {prompt: .NaN, completion: 1}\nrunners: [{name: direct}]\n",
			"bad.yaml:5: prices.s.prompt: .NaN is not a finite number"},
		{"grid step nan", "benchmarks: [{name: mini}]\nrunners:\n  - name: direct\n    grid: {simplex: [a, b], step: .nan}\n",
			"bad.yaml:4: runners[0].grid.step: .nan is not a finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseSpec([]byte(tt.yaml), "bad.yaml")
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v; want %q", err, tt.want)
			}
		})
	}
	// Finite floats, including ones with exponents, still pass.
	if _, err := spec.ParseSpec([]byte("benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, p: 6.5e-1}\nrunners: [{name: direct}]\n"), "ok.yaml"); err != nil {
		t.Errorf("p: 6.5e-1: %v; want accepted", err)
	}
}

func TestSimplexPoints(t *testing.T) {
	tests := []struct {
		d    int
		step float64
		want float64
	}{
		{3, 0.1, 66},          // C(12, 2), SimplexGrid's doc
		{2, 0.5, 3},           // (0,1), (.5,.5), (1,0)
		{3, 0.0001, 50015001}, // C(10002, 2) = 10002*10001/2
		{4, 0.25, 35},         // C(7, 3)
	}
	for _, tt := range tests {
		if got := spec.SimplexPoints(tt.d, tt.step); got != tt.want {
			t.Errorf("SimplexPoints(%d, %g) = %g; want %g", tt.d, tt.step, got, tt.want)
		}
		if tt.want < 1000 {
			if got := len(spec.SimplexGrid(tt.d, tt.step)); float64(got) != tt.want {
				t.Errorf("len(SimplexGrid(%d, %g)) = %d; want %g", tt.d, tt.step, got, tt.want)
			}
		}
	}
}

func TestPlanCaps(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		// A 7.6 GB grid: 50,015,001 points, refused before
		// any is built.
		{"grid step", "benchmarks: [{name: mini}]\nrunners:\n  - name: direct\n    grid:\n      simplex: [a, b, c]\n      step: 0.0001\n",
			"big.yaml:6: runners[0].grid.step: step 0.0001 makes 50015001 points of a 3-parameter simplex, over the trial cap 10000"},
		// direct: 1 x seeds 2 = 2 trials; sc: 3 x 3 x 3 = 27 x seeds 2 =
		// 54 trials; 56 in all, over max_trials 50 at the second entry.
		{"sweep product", "max_trials: 50\nseeds: [1, 2]\nbenchmarks: [{name: mini}]\nrunners:\n  - name: direct\n  - name: sc\n    sweep: {k: [1, 2, 3], temperature: [0.1, 0.2, 0.3], max_tokens: [100, 200, 300]}\n",
			"big.yaml:6: runners[1]: the plan grows to 56 trials by this entry (54 from it), over the trial cap 50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.ParseSpec([]byte(tt.yaml), "big.yaml")
			if err != nil {
				t.Fatal(err)
			}
			_, err = spec.NewPlan(s)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v; want starting %q", err, tt.want)
			}
		})
	}
	// Raising the cap lets the sweep through (the run flag sets MaxTrials).
	s, err := spec.ParseSpec([]byte("max_trials: 100\nseeds: [1, 2, 3]\nbenchmarks: [{name: mini}]\nrunners:\n  - name: sc\n    sweep: {k: [1, 2, 3], temperature: [0.1, 0.2, 0.3], max_tokens: [100, 200, 300]}\n"), "ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatalf("max_trials 100: %v", err)
	}
	if len(p.Trials) != 81 {
		t.Fatalf("max_trials 100: %d trials; want 81", len(p.Trials))
	}
	if _, err := spec.ParseSpec([]byte("max_trials: -1\nbenchmarks: [{name: mini}]\nrunners: [{name: direct}]\n"), "neg.yaml"); err == nil || !strings.Contains(err.Error(), "neg.yaml:1: max_trials") {
		t.Errorf("max_trials -1: err = %v; want one naming neg.yaml:1", err)
	}
}
