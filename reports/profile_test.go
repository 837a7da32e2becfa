package reports

import (
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestCaptionStatesProfile: a run made through a profile (the line `run
// --profile` records after spec.ChangeMarker in the stored spec
// text) has the profile in every title and caption, after "simulated
// model"; a run without one keeps "(simulated model)" alone.
func TestCaptionStatesProfile(t *testing.T) {
	tr := []runstore.RunTrial{{Trial: spec.Trial{ID: "a", Label: "direct", Runner: "direct", Benchmark: spec.BenchmarkSpec{Name: "mini"}}}}
	profiled := "name: x\n\n" + spec.ChangeMarker + "\n" + spec.ProfileMarker + "quick profile: n_rollout 4 (was 32), limit 12\n#   --set runners.0.params.n_rollout=4\n"
	tests := []struct {
		name, spec string
		simulated  bool
		want       string
	}{
		{"sim, profile", profiled, true, "T (simulated model, quick profile: n_rollout 4 (was 32), limit 12)"},
		{"real model, profile", profiled, false, "T (quick profile: n_rollout 4 (was 32), limit 12)"},
		{"sim, no profile", "name: x\n", true, "T (simulated model)"},
		{"real model, no profile", "name: x\n", false, "T"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load([]*runstore.RunData{{Dir: "runs/x", Simulated: tt.simulated, Meta: map[string]string{"name": "x", runstore.MetaSpec: tt.spec}, Trials: tr}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.caption("T"); got != tt.want {
				t.Errorf("caption = %q; want %q", got, tt.want)
			}
		})
	}
}
