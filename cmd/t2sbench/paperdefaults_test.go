package main

import (
	"maps"
	"testing"

	"github.com/t2sbench/t2sbench/runners/alphasql"
	"github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
	"github.com/t2sbench/t2sbench/runners/steinersql"
)

// TestPaperDefaults checks that the defaults of the parameters the runner
// packages register as varied (runners.Info.Varied, read by the factories)
// are the table report.go held before the runners registered their own,
// entry for entry, each from the package's Default constants.
func TestPaperDefaults(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]float64{
		"iesr": {"n_rollout": iesr.DefaultRollouts, "n_expansion": iesr.DefaultExpansion, "n_reward": iesr.DefaultReward,
			"temperature": iesr.DefaultTemperature, "top_p": iesr.DefaultTopP, "top_k": iesr.DefaultTopK, "c": iesr.DefaultC,
			"alpha": iesr.DefaultAlpha, "beta": iesr.DefaultBeta, "gamma": iesr.DefaultGamma, "tau": iesr.DefaultTau},
		"alphasql": {"n_rollout": alphasql.DefaultRollouts, "n_expansion": alphasql.DefaultExpansion, "n_reward": alphasql.DefaultReward,
			"temperature": alphasql.DefaultTemperature, "c": alphasql.DefaultC},
		"steinersql": {"alpha": steinersql.DefaultAlpha, "beta": steinersql.DefaultBeta, "gamma": steinersql.DefaultGamma,
			"tau": steinersql.DefaultTau, "max_iterations": steinersql.DefaultMaxIterations},
		"sc":        {"k": baseline.DefaultSCK, "temperature": baseline.DefaultSCTemperature},
		"react-dsl": {"max_turns": reactdsl.DefaultMaxTurns},
	}
	got := paperDefaults()
	for name, w := range want {
		if !maps.Equal(got[name], w) {
			t.Errorf("paperDefaults()[%q] = %v; want %v", name, got[name], w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("paperDefaults() has %q = %v; want no entry (a runner of the test binary?)", name, g)
		}
	}
}
