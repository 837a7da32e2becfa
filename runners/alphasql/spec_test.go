package alphasql_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/spec"
)

// TestActionsSpecRuns runs experiments/alphasql-actions.yaml end to end
// through the bench API (plan, scheduler, store, scorer) with the sim
// model on the first 3 Spider dev questions instead of its BIRD dev
// (whose first questions' databases are not in the shared data) and 8
// rollouts instead of 24: 7 trials (direct, alphasql full and w/o A1, A2,
// A3, A4, A6), every item done without failure.
func TestActionsSpecRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test; skipped with -short")
	}
	spider := testenv.Datasets(t, "spider")
	s := benchkit.SpecFile(t, filepath.Join(testenv.RepoRoot(), "experiments", "alphasql-actions.yaml"))
	s.Benchmarks[0] = spec.BenchmarkSpec{Name: "spider", Data: spider}
	for i := range s.Runners {
		if s.Runners[i].Name == "alphasql" {
			s.Runners[i].Params["n_rollout"] = 8
			s.Runners[i].Params["value_index_dir"] = t.TempDir()
		}
	}
	p := benchkit.Plan(t, s)
	if len(p.Trials) != 7 {
		t.Fatalf("trials = %d; want 7 (direct, alphasql full, 5 ablations)", len(p.Trials))
	}
	dir := t.TempDir()
	sum, err := benchkit.Run(t, dir, p, bench.Options{Limit: 3, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 21 || sum.Failed != 0 {
		t.Errorf("done %d, failed %d; want 21 items done, none failed", sum.Done, sum.Failed)
	}
	var labels []string
	for _, tr := range p.Trials {
		labels = append(labels, tr.Label)
	}
	for _, want := range []string{"wo-A1", "wo-A2", "wo-A3", "wo-A4", "wo-A6"} {
		if !strings.Contains(strings.Join(labels, " "), want) {
			t.Errorf("trial labels %v lack %s", labels, want)
		}
	}
	t.Logf("trials %v; %d items, %d correct, %d model calls", labels, sum.Done, sum.Correct, sum.Calls)
}
