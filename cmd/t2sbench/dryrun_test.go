package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// dryRunSpec runs every runner on 3 questions of the bundled mini
// benchmark with the sim backend, the tree searches with tiny budgets.
// The dry run's accuracy at the runners' defaults is tested in package
// bench (TestDryRunEstimateMatchesRun, TestDryRunMeasuredAfterPilot);
// here, what the command does with it.
const dryRunSpec = `name: defaults
benchmarks: [{name: mini, limit: 3}]
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
    params: {n_rollout: 2}
  - name: iesr
    params: {n_rollout: 2}
workers: 4
`

// TestDryRunCommand: run --dry-run prints the plan of every trial with
// its roles and the estimate bench.PlanDryRun makes, and creates no run
// directory; after the run, a second dry run sees it finished: nothing
// left to call.
func TestDryRunCommand(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	specPath := filepath.Join(tmp, "defaults.yaml")
	if err := os.WriteFile(specPath, []byte(dryRunSpec), 0o644); err != nil {
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
	dry := benchkit.DryRun(t, dir, benchkit.Plan(t, benchkit.SpecFile(t, specPath)))
	total := 0.0
	for _, dt := range dry.Trials {
		total += dt.Calls
	}
	for _, want := range []string{"dry run of defaults: 7 trials", "alphasql", "iesr", "discriminator=sim", fmt.Sprintf("total: %.0f model calls expected", total)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	errb.Reset()
	if err := run(&out, &errb, []string{"run", specPath, "--out", dir, "--quiet"}); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
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
	err := run(&out, &errb, []string{"run", qsSpec, "--models", overlay,
		"--out", dir, "--limit", "2", "--quiet", "--set", "runners.5.params.n_rollout=2", "--set", "runners.6.params.n_rollout=2"})
	if err != nil && !errors.Is(err, errIncomplete) {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	if srv.Calls() == 0 {
		t.Fatal("the fake server got no request; want the run's model calls there")
	}
	r, err := runstore.ReadRun(dir, false)
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

// TestExperimentModelOverlay: experiments/models/iesr-table1-vllm.yaml
// binds every model of experiments/iesr-table1.yaml to a served model,
// with $VLLM_HOST interpolated, and the plan still expands.
func TestExperimentModelOverlay(t *testing.T) {
	t.Setenv("VLLM_HOST", "10.1.2.3")
	root := filepath.Join("..", "..", "experiments")
	sp, err := spec.LoadSpecWith(filepath.Join(root, "iesr-table1.yaml"), spec.LoadOptions{Models: []string{filepath.Join(root, "models", "iesr-table1-vllm.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range sp.Models {
		if m.Backend != "openai" || !strings.HasPrefix(m.BaseURL, "http://10.1.2.3:800") {
			t.Errorf("model %s = %s %s; want openai at http://10.1.2.3:800x", name, m.Backend, m.BaseURL)
		}
	}
	if _, err := spec.NewPlan(sp); err != nil {
		t.Fatal(err)
	}
}

// TestDryRunInterruptSummary: Ctrl-C (SIGINT) during a dry run prints the
// summary of the trials planned so far, then exits with status 3, as the
// README's exit-code table says. The dry run is a slow one (200 IESR
// trials, each estimated by its own replica searches); the signal goes
// when stderr says it is planning.
func TestDryRunInterruptSummary(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	var rollouts []string
	for i := 1; i <= 200; i++ {
		rollouts = append(rollouts, fmt.Sprint(i*2))
	}
	sp := filepath.Join(tmp, "slow.yaml")
	if err := os.WriteFile(sp, []byte("name: slow\nbenchmarks: [{name: mini}]\nmodels: {sim: {backend: sim}}\nroles: {reason: sim}\nrunners:\n  - name: iesr\n    sweep: {n_rollout: ["+strings.Join(rollouts, ", ")+"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := cli(t, filepath.Join(tmp, "calls.log"), "run", sp, "--out", filepath.Join(tmp, "run"), "--dry-run")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	planning := make(chan string, 1)
	go func() {
		b := make([]byte, 4096)
		var seen strings.Builder
		for {
			n, err := stderr.Read(b)
			seen.Write(b[:n])
			if strings.Contains(seen.String(), "planning 200 trials") || err != nil {
				planning <- seen.String()
				io.Copy(io.Discard, stderr)
				return
			}
		}
	}()
	select {
	case got := <-planning:
		if !strings.Contains(got, "planning 200 trials") {
			t.Errorf("stderr %q; want it to say the dry run is planning 200 trials", got)
		}
	case <-time.After(20 * time.Second):
		t.Error("no \"planning 200 trials\" on stderr after 20 s")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("exit: %v; want exit status 3", err)
	}
	out := stdout.String()
	if !strings.Contains(out, "dry run of slow: interrupted after ") || !strings.Contains(out, " of 200 trials, no model called") || !strings.Contains(out, "total of the ") {
		t.Errorf("stdout lacks the summary of the trials planned:\n%s", out)
	}
}
