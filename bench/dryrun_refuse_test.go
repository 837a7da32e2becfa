package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/spec"
)

// TestHugeGridRefusedFromItsSize: a simplex grid of about 10^9 points
// (step 1/44720 over three weights: C(44722, 2) = 1,000,006,281 points)
// with a trial cap raised to 2*10^9 is refused from its size alone, as
// NewPlan's check counts it, in bounded memory: the heap grows by less
// than 1 MiB (runtime.MemStats.TotalAlloc, measured around ParseSpec and
// NewPlan). A plan that expanded the grid first would hold a trial per
// point (gigabytes); a watchdog stops the test binary at 512 MiB rather
// than let it take the machine.
func TestHugeGridRefusedFromItsSize(t *testing.T) {
	yml := []byte(`name: huge
max_trials: 2000000000
benchmarks: [{name: mini}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners:
  - name: iesr
    grid: {simplex: [alpha, beta, gamma], step: 0.0000223613595706619}
`)
	if pts := spec.SimplexPoints(3, 0.0000223613595706619); pts < 1e9 {
		t.Fatalf("the grid has %.0f points; want 10^9 or more", pts)
	}
	stop := make(chan struct{})
	defer close(stop)
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base.HeapAlloc+512<<20 {
				panic(fmt.Sprintf("NewPlan holds %d MiB of heap before refusing a 10^9-point grid; want it refused from its size", (m.HeapAlloc-base.HeapAlloc)>>20))
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := spec.ParseSpec(yml, "huge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.NewPlan(s)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "huge.yaml:8: runners[0].grid.step") || !strings.Contains(err.Error(), "over the trial cap 100000") {
		t.Errorf("NewPlan: err = %v; want the grid step refused, over the trial cap 100000", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("parsing and refusing the spec allocated %d bytes; want under 1 MiB (nothing expanded)", grew)
	}
}

// TestDryRunInterrupted: a dry run whose context is cancelled (Ctrl-C)
// returns the trials planned before it, marked interrupted, with the
// context's error, and Write prints them as a summary. The cancel comes
// while the second trial's benchmark opens (the bundled mini stands in
// for spider): that trial is planned, the two after it are not (2 + 3
// questions of one call each).
func TestDryRunInterrupted(t *testing.T) {
	t.Parallel()
	s, err := spec.ParseSpec([]byte(`name: two
benchmarks: [{name: mini, limit: 2}, {name: spider, limit: 3}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners: [{name: direct}, {name: cot}]
`), "two.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	env, closeEnv := DefaultEnv()
	defer closeEnv()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := env.OpenBenchmark
	opened := 0
	env.OpenBenchmark = func(ctx context.Context, b spec.BenchmarkSpec, dir string) (*datasets.Benchmark, error) {
		if opened++; opened == 2 {
			cancel()
		}
		return open(ctx, spec.BenchmarkSpec{Name: "mini", Limit: b.Limit}, dir)
	}
	d, err := PlanDryRun(ctx, p, env, DryRunOptions{Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if d == nil || !d.Interrupted || d.PlanTrials != 4 || len(d.Trials) != 2 {
		t.Fatalf("dry run = %+v; want interrupted with 2 of 4 trials planned", d)
	}
	var b strings.Builder
	d.Write(&b)
	for _, want := range []string{"dry run of two: interrupted after 2 of 4 trials", "total of the 2 trials planned: 5 model calls expected"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
