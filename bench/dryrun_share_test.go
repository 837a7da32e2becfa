package bench_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runners"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/runstore"
)

// sentCalls counts, by trial label, the requests of a run that reached the
// model (calls the model cache did not answer), and all calls.
func sentCalls(t *testing.T, dir string) (sent, all map[string]int) {
	t.Helper()
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	sent, all = map[string]int{}, map[string]int{}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			for _, c := range it.Calls {
				all[tr.Label]++
				if !c.Cached {
					sent[tr.Label]++
				}
			}
		}
	}
	return sent, all
}

// gridSpec is IESR over a 3x3 grid of its score weights alpha and beta
// (gamma = 1 - alpha - beta), n_rollout 4. Work items run trial by
// trial, so each point finds the answers of the points before it in the
// model cache (two workers overlap two questions of one point, never the
// same question of two points).
const gridSpec = `name: grid
benchmarks: [{name: mini, limit: 12}]
models:
  sim: {backend: sim, p: 0.6, seed: 7}
roles: {reason: sim, understand: sim, discriminator: sim}
runners:
  - name: iesr
    params: {n_rollout: 4, alpha: 0.2, beta: 0.1, gamma: 0.7}
    ablations:
%s
workers: 2
`

// TestDryRunGridSharesCache: on a 3x3 alpha/beta grid of IESR, whose
// weights only rank the finished trajectories (runners.SharedRequests),
// the dry run counts the requests of the first point only, and the run
// sends within 10% of that estimate: the other eight points are answered
// from the model cache. Counting every point, as the dry run did before,
// overstates the grid's cost ninefold.
func TestDryRunGridSharesCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nine IESR trials on 12 mini questions")
	}
	t.Parallel()
	var abl []string
	for _, a := range []float64{0.2, 0.3, 0.4} {
		for _, b := range []float64{0.1, 0.2, 0.3} {
			if a == 0.2 && b == 0.1 {
				continue // the full configuration
			}
			abl = append(abl, fmt.Sprintf("      a%g-b%g: {alpha: %g, beta: %g, gamma: %.1f}", a, b, a, b, 1-a-b))
		}
	}
	plan := benchkit.Plan(t, benchkit.Spec(t, fmt.Sprintf(gridSpec, strings.Join(abl, "\n")), "grid.yaml"))
	if len(plan.Trials) != 9 {
		t.Fatalf("%d trials; want the 9 points of the grid", len(plan.Trials))
	}
	dir := filepath.Join(t.TempDir(), "run")
	dry := benchkit.DryRun(t, dir, plan)
	est, first := 0.0, 0.0
	for i, dt := range dry.Trials {
		est += dt.Calls
		if i == 0 {
			first = dt.Calls
		} else if dt.Calls != 0 {
			t.Errorf("%s: %.0f calls estimated; want 0 (every request is the first point's)", dt.Label, dt.Calls)
		}
	}
	if _, err := benchkit.Run(t, dir, plan, bench.Options{}); err != nil {
		t.Fatal(err)
	}
	sent, all := sentCalls(t, dir)
	total, calls := 0, 0
	for _, tr := range plan.Trials {
		total += sent[tr.Label]
		calls += all[tr.Label]
	}
	diff := (est - float64(total)) / float64(total)
	t.Logf("3x3 alpha/beta grid of iesr, mini (12 questions), sim p=0.6: estimate %.0f calls (%.0f per point, counted once), the run sent %d (%+.1f%%) of %d calls, %d answered from the cache; counted per point: %.0f", est, first, total, 100*diff, calls, calls-total, 9*first)
	if math.Abs(diff) > 0.10 {
		t.Errorf("dry run estimates %.0f calls for the grid, the run sent %d (%+.1f%%); want within 10%%", est, total, 100*diff)
	}
}

// TestDryRunSteinerSQLMeasuredRate: SteinerSQL's estimate with the
// validation failure rates measured on the traces of the finished trials
// of the run directory (runners.TraceEstimator) is within 10% of the
// calls another trial then makes, on all 42 mini questions with sim: the
// rates come from three trials whose models differ in their seed (7, 13,
// 17; 126 traces), the trial estimated has seed 11 and shares no request
// with them. One trial's 42 questions are a small sample: under sim at
// p = 0.6 the six seeds 7, 11, 13, 17, 19, 23 make 144, 129, 134, 132,
// 131 and 137 calls, so a rate from one seed's trial alone can miss
// another's by 12%. The estimate from the paper's rate
// (steinersql.ValidationFailRate, 0.31) is logged beside it.
func TestDryRunSteinerSQLMeasuredRate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four SteinerSQL trials on the 42 mini questions")
	}
	t.Parallel()
	const spec = `name: st
benchmarks: [{name: mini}]
models:
  sim-7: {backend: sim, p: 0.6, seed: 7}
  sim-13: {backend: sim, p: 0.6, seed: 13}
  sim-17: {backend: sim, p: 0.6, seed: 17}
  sim-11: {backend: sim, p: 0.6, seed: 11}
roles: {reason: sim-7}
runners:
  - name: steinersql
    backbones: {reason: [%s]}
workers: 4
`
	dir := filepath.Join(t.TempDir(), "run")
	first := benchkit.Plan(t, benchkit.Spec(t, fmt.Sprintf(spec, "sim-7, sim-13, sim-17"), "st.yaml"))
	if _, err := benchkit.Run(t, dir, first, bench.Options{}); err != nil {
		t.Fatal(err)
	}
	both := benchkit.Plan(t, benchkit.Spec(t, fmt.Sprintf(spec, "sim-7, sim-13, sim-17, sim-11"), "st.yaml"))
	dry := benchkit.DryRun(t, dir, both)
	var b *bench.DryTrial
	for i, dt := range dry.Trials {
		if strings.Contains(dt.Label, "sim-11") {
			b = &dry.Trials[i]
		}
	}
	if b == nil || b.MeasuredRate != 3*42 || b.Measured {
		t.Fatalf("dry run of the new trial: %+v; want the rates measured on the other trials' 126 traces", b)
	}
	if _, err := benchkit.Run(t, dir, both, bench.Options{ReplaceTrials: true}); err != nil {
		t.Fatal(err)
	}
	_, all := sentCalls(t, dir)
	got := float64(all[b.Label])
	r, err := steinersql.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	paper := 0.0
	for _, n := range r.EstimateCalls(runners.ModelPrior{}) {
		paper += n * 42
	}
	diff := (b.Calls - got) / got
	t.Logf("steinersql, mini (42 questions), sim p=0.6 seed 11: estimate with the rates measured on the trials of seeds 7, 13, 17: %.0f calls, the run %.0f (%+.1f%%); with the paper's rate 0.31: %.0f (%+.1f%%)", b.Calls, got, 100*diff, paper, 100*(paper-got)/got)
	if math.Abs(diff) > 0.10 {
		t.Errorf("estimate %.0f calls, the run made %.0f (%+.1f%%); want within 10%%", b.Calls, got, 100*diff)
	}
}
