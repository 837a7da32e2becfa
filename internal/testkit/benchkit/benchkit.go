// Package benchkit runs experiment specs end to end in tests, through the
// bench API as the CLI does: Spec and SpecFile read a spec, Plan expands
// it, and Run opens the store of a run directory, runs the plan with
// bench.DefaultEnv (the real datasets, models, model cache and scorer) and
// closes the environment and the store, so that the test may then read the
// run from the directory (runstore.ReadRun, runstore.SummarizeDir).
//
// It imports bench, so only external test packages of bench (package
// bench_test) may use it, as may the tests of any package that bench does
// not import. Runners are taken from the registry: a test imports the
// runner packages its spec names.
//
// A typical test:
//
//	p := benchkit.Plan(t, benchkit.Spec(t, yaml, "example.yaml"))
//	dir := t.TempDir()
//	sum, err := benchkit.Run(t, dir, p, bench.Options{Limit: 2})
//	if err != nil {
//		t.Fatal(err)
//	}
//	run, err := runstore.ReadRun(dir, true)
//	// ... check sum and run ...
package benchkit

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// Spec parses and validates the YAML spec text; file names it in errors.
// A bad spec fails the test.
func Spec(t testing.TB, yaml, file string) *spec.Spec {
	t.Helper()
	s, err := spec.ParseSpec([]byte(yaml), file)
	if err != nil {
		t.Fatalf("benchkit: parsing spec %s: %v", file, err)
	}
	return s
}

// SpecFile reads and validates the spec at path (spec.LoadSpec). A
// missing or bad spec fails the test.
func SpecFile(t testing.TB, path string) *spec.Spec {
	t.Helper()
	s, err := spec.LoadSpec(path)
	if err != nil {
		t.Fatalf("benchkit: loading spec %s: %v", path, err)
	}
	return s
}

// Plan expands s into its trials (spec.NewPlan). A spec that does not
// plan (an unknown runner, a bad parameter) fails the test.
func Plan(t testing.TB, s *spec.Spec) *spec.Plan {
	t.Helper()
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatalf("benchkit: planning spec %s: %v", s.Name, err)
	}
	return p
}

// Run runs plan p into run directory dir (created when needed) with
// bench.DefaultEnv and options opt, and returns bench.Run's summary and
// error for the caller to check. The environment and the store are closed
// before Run returns, so dir may be read at once; a store that does not
// open fails the test at once, and an error closing either fails it
// (t.Errorf) after the caller's own checks.
func Run(t testing.TB, dir string, p *spec.Plan, opt bench.Options) (bench.Summary, error) {
	t.Helper()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatalf("benchkit: opening the store of %s: %v", dir, err)
	}
	env, closeEnv := bench.DefaultEnv()
	sum, err := bench.Run(context.Background(), p, st, env, opt)
	if cerr := closeEnv(); cerr != nil {
		t.Errorf("benchkit: closing the environment of %s: %v", dir, cerr)
	}
	if cerr := st.Close(); cerr != nil {
		t.Errorf("benchkit: closing the store of %s: %v", dir, cerr)
	}
	return sum, err
}

// DryRun estimates plan p's run into directory dir (bench.PlanDryRun with
// bench.DefaultEnv), as `run --dry-run` does. An estimate that fails fails
// the test, as does an error closing the environment.
func DryRun(t testing.TB, dir string, p *spec.Plan) *bench.DryRun {
	t.Helper()
	env, closeEnv := bench.DefaultEnv()
	dry, err := bench.PlanDryRun(context.Background(), p, env, bench.DryRunOptions{Dir: dir})
	if cerr := closeEnv(); cerr != nil {
		t.Errorf("benchkit: closing the environment of the dry run of %s: %v", dir, cerr)
	}
	if err != nil {
		t.Fatalf("benchkit: dry run of %s: %v", dir, err)
	}
	return dry
}
