package iesr

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestSpecsEndToEnd runs the four IESR specs offline with sim through the
// real bench environment (plan, scheduler, model cache, scorer, store),
// with --limit and N_rollout reduced as noted per spec.
func TestSpecsEndToEnd(t *testing.T) {
	tests := []struct {
		file    string
		trials  int
		limit   int
		rollout int // 0 keeps the spec's values
		labels  []string
		workers int
	}{
		// 6 configurations x 4 backbones.
		{"iesr-table2.yaml", 24, 1, 3, []string{"iesr reason=sim-p35", "iesr w/o-understanding reason=sim-p50", "iesr w/o-stage1 reason=sim-p40"}, 4},
		// full + 5 action ablations.
		{"iesr-table3.yaml", 6, 2, 3, []string{"iesr", "iesr w/o-A6"}, 4},
		// (full, no-compression) x N_rollout {8, 16, 24, 32, 40}, unchanged.
		{"iesr-rollout.yaml", 10, 1, 0, []string{"iesr n_rollout=8", "iesr no-compression n_rollout=40"}, 4},
		// The step-0.1 simplex: C(12, 2) = 66 points.
		{"iesr-weights.yaml", 66, 1, 3, []string{"iesr alpha=0.4,beta=0.2,gamma=0.4", "iesr alpha=1,beta=0,gamma=0"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			spec := benchkit.SpecFile(t, filepath.Join(testenv.RepoRoot(), "experiments", tt.file))
			if tt.rollout > 0 {
				for i := range spec.Runners {
					if spec.Runners[i].Params == nil {
						spec.Runners[i].Params = map[string]any{}
					}
					spec.Runners[i].Params["n_rollout"] = tt.rollout
				}
			}
			spec.Cache = ""
			plan := benchkit.Plan(t, spec)
			if len(plan.Trials) != tt.trials {
				t.Fatalf("%d trials; want %d", len(plan.Trials), tt.trials)
			}
			have := map[string]bool{}
			for _, tr := range plan.Trials {
				have[tr.Label] = true
			}
			for _, l := range tt.labels {
				if !have[l] {
					t.Errorf("no trial labelled %q (have %v)", l, have)
				}
			}
			dir := t.TempDir()
			sum, err := benchkit.Run(t, dir, plan, bench.Options{Limit: tt.limit, Workers: tt.workers, CacheDir: filepath.Join(dir, "cache")})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failed != 0 || sum.Done != tt.trials*tt.limit {
				t.Fatalf("done %d, failed %d; want %d done, none failed", sum.Done, sum.Failed, tt.trials*tt.limit)
			}
			if sum.Calls == 0 || sum.CompletionTokens == 0 {
				t.Errorf("calls %d, completion tokens %d; want > 0", sum.Calls, sum.CompletionTokens)
			}
			r, err := runstore.ReadRun(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Simulated {
				t.Error("run not marked simulated")
			}
			if tt.file == "iesr-weights.yaml" {
				// Only the selection differs between grid points: with one
				// worker, every point after the first is served from the
				// model cache (and within one point, repeated requests are
				// too), so at most one point's worth of calls is fresh.
				fresh := sum.Calls - sum.CachedCalls
				if fresh <= 0 || fresh*tt.trials > sum.Calls {
					t.Errorf("fresh calls %d of %d; want at most 1/%d of them (one grid point's)", fresh, sum.Calls, tt.trials)
				}
			}
			for _, tr := range plan.Trials {
				if !strings.HasPrefix(tr.Label, "iesr") {
					t.Errorf("label %q", tr.Label)
				}
			}
		})
	}
}
