package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runners/alphasql"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

// defaultsSpec runs every runner with its default parameters on the
// bundled mini benchmark with the sim backend.
const defaultsSpec = `name: defaults
benchmarks: [{name: mini}]
models:
  sim: {backend: sim, p: 0.6, seed: 7}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
  - name: react-dsl
  - name: steinersql
  - name: alphasql
  - name: iesr
workers: 4
`

// TestDryRunEstimateMatchesRun: for every runner at its defaults, the dry
// run's estimate of the model calls is within tolerance of the calls the
// run then makes (the run store's call log), and the dry run creates no
// run directory, at two operating points of the sim model (p = 0.6, the
// default, and p = 0.8 with another seed). The table of estimate vs actual
// is logged for each.
func TestDryRunEstimateMatchesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs alphasql and iesr at their defaults on the mini benchmark")
	}
	for _, op := range []struct{ p, seed string }{{"0.6", "7"}, {"0.8", "11"}} {
		t.Run("p="+op.p, func(t *testing.T) {
			spec := strings.Replace(defaultsSpec, "p: 0.6, seed: 7", "p: "+op.p+", seed: "+op.seed, 1)
			checkEstimate(t, spec, "sim p="+op.p+" seed "+op.seed)
		})
	}
}

// dryRun plans the spec at specPath and estimates its run into dir
// (bench.PlanDryRun with bench.DefaultEnv), as run --dry-run does.
func dryRun(t *testing.T, specPath, dir string) *bench.DryRun {
	t.Helper()
	plan := benchkit.Plan(t, benchkit.SpecFile(t, specPath))
	env, closeEnv := bench.DefaultEnv()
	dry, err := bench.PlanDryRun(context.Background(), plan, env, bench.DryRunOptions{Dir: dir})
	if cerr := closeEnv(); cerr != nil {
		t.Errorf("closing the environment: %v", cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dry
}

// checkEstimate runs the dry run and then the run of spec, and compares
// the estimated calls of each trial with the calls made.
func checkEstimate(t *testing.T, spec, point string) {
	tmp := t.TempDir()
	specPath := filepath.Join(tmp, "defaults.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--dry-run"}); err != nil {
		t.Fatalf("dry run: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run left %s (stat: %v); want no run directory", dir, err)
	}
	for _, want := range []string{"dry run of defaults: 7 trials", "alphasql", "iesr", "discriminator=sim"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, out.String())
		}
	}

	dry := dryRun(t, specPath, dir)

	out.Reset()
	errb.Reset()
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--quiet"}); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	r, err := bench.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	actual := map[string]int{}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			actual[tr.Label] += len(it.Calls)
		}
	}
	// Tolerance: 10% of the actual count for every runner but steinersql.
	// SteinerSQL's count is 1 + sum_{j<3} f^j with f the share of
	// generated queries that fail validation at any level; the estimate
	// takes f = 0.31, the level-2 trigger rate of the paper's Figure 3
	// (the only figure the paper states), a lower bound of f since level-1
	// and level-3 failures also re-generate. How often this validator
	// rejects a query on a benchmark depends on the validator, the
	// decomposition and the data, not on the model's accuracy alone (on
	// mini under sim 79% of first queries fail at p = 0.6 and 52% at
	// p = 0.8 since level 2 also checks the SELECT, WHERE and HAVING
	// attributes, as the paper's does: the estimate is 31% and 21% under
	// the calls made), so no model-level input derives it: its bound is
	// wider, stated, not hidden; a pilot measures it
	// (TestDryRunMeasuredAfterPilot).
	tol := map[string]float64{"steinersql": 0.35}
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %10s %10s %8s\n", "runner", "estimate", "actual", "diff")
	for _, dt := range dry.Trials {
		got := float64(actual[dt.Label])
		diff := (dt.Calls - got) / got
		fmt.Fprintf(&table, "%-12s %10.0f %10.0f %+7.1f%%\n", dt.Label, dt.Calls, got, 100*diff)
		limit := 0.10
		if l, ok := tol[dt.Runner]; ok {
			limit = l
		}
		if got == 0 || math.Abs(diff) > limit {
			t.Errorf("%s: estimated %.0f calls, the run made %.0f (%+.1f%%); want within %.0f%%", dt.Label, dt.Calls, got, 100*diff, 100*limit)
		}
	}
	t.Logf("dry-run estimate vs actual model calls, mini (42 questions), %s, default parameters:\n%s", point, table.String())

	checkReplica(t, r)
	logValidation(t, r)

	// A second dry run sees the finished run: every item done, nothing
	// left to call, the cache filled.
	out.Reset()
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--dry-run"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "total: 0 model calls expected") {
		t.Errorf("dry run after the run: want 0 calls expected, got:\n%s", out.String())
	}
}

// TestModelsOverlayFakeServer turns quickstart's sim model into a model
// served by a fake OpenAI-compatible server with a --models file: the
// run's requests reach the fake server and the trials' model identity is
// the fake's.
func TestModelsOverlayFakeServer(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "The answer:\n```sql\nSELECT 1\n```"}
	}})
	t.Setenv("T2SBENCH_TEST_FAKE_URL", srv.BaseURL())
	tmp := t.TempDir()
	overlay := filepath.Join(tmp, "models.yaml")
	if err := os.WriteFile(overlay, []byte("sim: {backend: openai, base_url: \"${T2SBENCH_TEST_FAKE_URL}\", model: fake-sql, max_retries: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"run", filepath.Join("..", "..", "experiments", "quickstart.yaml"), "--models", overlay,
		"--out", dir, "--limit", "2", "--quiet", "--set", "runners.5.params.n_rollout=2", "--set", "runners.6.params.n_rollout=2"})
	if err != nil && !errors.Is(err, errIncomplete) {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	if srv.Calls() == 0 {
		t.Fatal("the fake server got no request; want the run's model calls there")
	}
	r, err := bench.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Simulated {
		t.Error("run marked simulated; want the fake server's model, not sim")
	}
	if len(r.Trials) != 7 {
		t.Fatalf("trials = %d; want quickstart's 7", len(r.Trials))
	}
	for _, tr := range r.Trials {
		m := tr.Models["sim"]
		if m.Backend != "openai" || m.BaseURL != srv.BaseURL() || m.Model != "fake-sql" {
			t.Errorf("%s: model sim = %s %s %s; want openai %s fake-sql", tr.Label, m.Backend, m.BaseURL, m.Model, srv.BaseURL())
		}
		if id := m.Identity(); id["base_url"] != srv.BaseURL() {
			t.Errorf("%s: identity %v; want the fake server's base_url", tr.Label, id)
		}
	}
	t.Logf("fake server calls: %d", srv.Calls())
}

// checkReplica validates the search model of the MCTS estimates apart
// from their branching assumption: given the branching the run's trees
// actually show (children per expansion request, by action), the replica
// search of mcts.EstimateSearch predicts the trees' expansion and reward
// requests within 10%. Alpha-SQL's further revision rounds (a node's
// own_requests) are not the search's: they are taken out of the run's
// expansion requests, and logged per A6 child, the rate its estimate
// assumes as sum_{j=1}^{9} 0.2^j = 0.25.
func checkReplica(t *testing.T, r *bench.RunData) {
	t.Helper()
	type spaceOf struct {
		table    map[mcts.Action][]mcts.Action
		terminal mcts.Action
		rollouts int
	}
	spaces := map[string]spaceOf{
		"alphasql": {alphasql.Transitions, alphasql.A7, alphasql.DefaultRollouts},
		"iesr":     {iesr.Transitions, iesr.END, iesr.DefaultRollouts},
	}
	for _, tr := range r.Trials {
		sp, ok := spaces[tr.Runner]
		if !ok {
			continue
		}
		children := map[mcts.Action][]float64{}
		expand, rewards, revisions, n := 0.0, 0.0, 0.0, 0.0
		for _, it := range tr.Items {
			if it.Result == nil {
				continue
			}
			tree, _ := it.Result.Trace.Data["tree"].(map[string]any)
			nodes, _ := tree["nodes"].([]any)
			groups := map[string]float64{}
			for _, x := range nodes {
				nd, _ := x.(map[string]any)
				own, _ := nd["own_requests"].(float64)
				revisions += own
				if p, _ := nd["parent"].(float64); p >= 0 {
					groups[fmt.Sprintf("%v\x00%v", p, nd["action"])]++
				}
			}
			for k, c := range groups {
				_, a, _ := strings.Cut(k, "\x00")
				children[mcts.Action(a)] = append(children[mcts.Action(a)], c)
			}
			expand += it.Result.Trace.Counters["expand_requests"]
			rewards += it.Result.Trace.Counters["reward_requests"]
			n++
		}
		d := map[mcts.Action]float64{}
		for a, cs := range children {
			sum := 0.0
			for _, c := range cs {
				sum += c
			}
			d[a] = sum / float64(len(cs))
		}
		est, err := mcts.EstimateSearch(mcts.SearchModel{Table: sp.table, Terminal: sp.terminal, Free: map[mcts.Action]bool{sp.terminal: true},
			Distinct: func(a mcts.Action, _ int) float64 { return d[a] }}, sp.rollouts, 3, mcts.DefaultC, 256)
		if err != nil {
			t.Fatal(err)
		}
		if revisions > 0 {
			t.Logf("%s: further revision rounds %.1f per question, %.3f per A6 child", tr.Label, revisions/n, revisions/(d["A6"]*float64(len(children["A6"]))))
		}
		for _, c := range []struct {
			what      string
			est, real float64
		}{{"search expansion requests", est.Requests, (expand - revisions) / n}, {"reward requests", est.Terminals, rewards / n}} {
			diff := (c.est - c.real) / c.real
			t.Logf("%s replica with measured branching %v: %s %.1f per question, the run %.1f (%+.1f%%)", tr.Label, d, c.what, c.est, c.real, 100*diff)
			if math.Abs(diff) > 0.10 {
				t.Errorf("%s: replica %s %.1f per question; the run made %.1f (%+.1f%%); want within 10%%", tr.Label, c.what, c.est, c.real, 100*diff)
			}
		}
	}
}

// TestExperimentModelOverlay: experiments/models/iesr-table1-vllm.yaml
// binds every model of experiments/iesr-table1.yaml to a served model,
// with $VLLM_HOST interpolated, and the plan still expands.
func TestExperimentModelOverlay(t *testing.T) {
	t.Setenv("VLLM_HOST", "10.1.2.3")
	root := filepath.Join("..", "..", "experiments")
	spec, err := bench.LoadSpecWith(filepath.Join(root, "iesr-table1.yaml"), bench.LoadOptions{Models: []string{filepath.Join(root, "models", "iesr-table1-vllm.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range spec.Models {
		if m.Backend != "openai" || !strings.HasPrefix(m.BaseURL, "http://10.1.2.3:800") {
			t.Errorf("model %s = %s %s; want openai at http://10.1.2.3:800x", name, m.Backend, m.BaseURL)
		}
	}
	if _, err := bench.NewPlan(spec); err != nil {
		t.Fatal(err)
	}
}

// TestDryRunMeasuredAfterPilot: after a pilot of 12 questions, the dry run
// takes calls per question from the pilot's call log (marked *) and
// predicts the calls of the 30 questions left; the table of prediction vs
// the calls the rest of the run makes is logged.
func TestDryRunMeasuredAfterPilot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs alphasql and iesr at their defaults on the mini benchmark")
	}
	tmp := t.TempDir()
	specPath := filepath.Join(tmp, "pilot.yaml")
	spec := strings.Replace(defaultsSpec, "  - name: direct\n  - name: cot\n  - name: sc\n", "", 1)
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--quiet", "--limit", "12"}); err != nil {
		t.Fatalf("pilot: %v\n%s", err, errb.String())
	}
	dry := dryRun(t, specPath, dir)
	before := callsByTrial(t, dir)
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--quiet"}); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	after := callsByTrial(t, dir)
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %10s %10s %8s\n", "runner", "predicted", "actual", "diff")
	for _, dt := range dry.Trials {
		if !dt.Measured || dt.Done != 12 || dt.Questions != 42 {
			t.Errorf("%s: measured %v, done %d of %d; want measured from 12 of 42", dt.Label, dt.Measured, dt.Done, dt.Questions)
		}
		got := float64(after[dt.Label] - before[dt.Label])
		diff := (dt.Calls - got) / got
		fmt.Fprintf(&table, "%-12s %10.0f %10.0f %+7.1f%%\n", dt.Label, dt.Calls, got, 100*diff)
		if got == 0 || math.Abs(diff) > 0.10 {
			t.Errorf("%s: predicted %.0f calls from the pilot, the rest of the run made %.0f (%+.1f%%); want within 10%%", dt.Label, dt.Calls, got, 100*diff)
		}
	}
	t.Logf("calls of the 30 questions left after a 12-question pilot, predicted from the pilot vs made:\n%s", table.String())
}

// callsByTrial counts the call log of the finished items by trial label.
func callsByTrial(t *testing.T, dir string) map[string]int {
	t.Helper()
	r, err := bench.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			out[tr.Label] += len(it.Calls)
		}
	}
	return out
}

// logValidation logs, for SteinerSQL's trials, how often the first query
// fails validation and how often a question that failed once fails
// again: the rate its estimate assumes (steinersql.ValidationFailRate,
// 0.31, independent failures) against the run's.
func logValidation(t *testing.T, r *bench.RunData) {
	t.Helper()
	for _, tr := range r.Trials {
		if tr.Runner != "steinersql" {
			continue
		}
		n, first, again, second := 0.0, 0.0, 0.0, 0.0
		for _, it := range tr.Items {
			if it.Result == nil {
				continue
			}
			n++
			var fails []bool
			for _, st := range it.Result.Trace.Steps {
				if st.Action == "validate" {
					pass, _ := st.Info["pass"].(bool)
					fails = append(fails, !pass)
				}
			}
			if len(fails) > 0 && fails[0] {
				first++
				if len(fails) > 1 {
					second++
					if fails[1] {
						again++
					}
				}
			}
		}
		if n > 0 && second > 0 {
			t.Logf("%s: first query fails validation on %.2f of questions; the second fails again on %.2f of those that made one (the estimate assumes 0.31, independent)", tr.Label, first/n, again/second)
		}
	}
}
