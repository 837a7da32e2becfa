package viewer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	_ "github.com/t2sbench/t2sbench/runners/reactdsl"
	_ "github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/viewer"
)

// miniSpec is the quickstart experiment (experiments/quickstart.yaml) on
// the bundled mini benchmark with smaller search budgets: every runner
// whose trace the viewer draws, 42 questions, sim at p = 0.6.
const miniSpec = `
name: viewer-mini
benchmarks:
  - name: mini
models:
  sim: {backend: sim, p: 0.6, seed: 7}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 4}
  - name: react-dsl
  - name: steinersql
  - name: alphasql
    params: {n_rollout: 4}
  - name: iesr
    params: {n_rollout: 4}
seeds: [0]
workers: 4
`

// Trial positions in miniSpec's plan.
const (
	tDirect = iota
	tCot
	tSC
	tReact
	tSteiner
	tAlpha
	tIESR
)

var (
	miniOnce sync.Once
	miniDir  string
	miniErr  error
)

// miniRun returns the run directory of miniSpec, run once per test binary
// (about 3 s) in a directory removed when the tests end (TestMain).
func miniRun(t testing.TB) string {
	t.Helper()
	miniOnce.Do(func() {
		dir, err := os.MkdirTemp("", "viewer-mini-")
		if err != nil {
			miniErr = err
			return
		}
		miniDir = dir
		// Stays when runSpec stops the first test (t.Fatal), so that the
		// tests after it do not read a half-built run.
		miniErr = errors.New("the run stopped; see the first test that asked for it")
		miniErr = runSpec(t, miniSpec, dir)
	})
	if miniErr != nil {
		t.Fatalf("building the mini run: %v", miniErr)
	}
	return miniDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	if miniDir != "" {
		os.RemoveAll(miniDir)
	}
	os.Exit(code)
}

// runSpec runs a spec through the bench API into dir (see benchkit.Run).
func runSpec(t testing.TB, sp, dir string) error {
	t.Helper()
	_, err := benchkit.Run(t, dir, benchkit.Plan(t, benchkit.Spec(t, sp, "spec.yaml")), bench.Options{CacheDir: filepath.Join(dir, "cache")})
	return err
}

// openBenchmark opens a trial's benchmark as the CLI does.
func openBenchmark(runDir string) func(b spec.BenchmarkSpec) (*datasets.Benchmark, error) {
	return func(b spec.BenchmarkSpec) (*datasets.Benchmark, error) {
		return datasets.Open(b.Name, b.Data, datasets.LoadOptions{Limit: b.Limit, CacheDir: filepath.Join(runDir, "cache", "datasets", b.Name),
			SQLite: datasets.SQLiteOptions{MaxRows: viewer.DefaultPreviewRows + 1}})
	}
}

func openViewer(t testing.TB, dirs ...string) *viewer.Viewer {
	t.Helper()
	return openViewerWith(t, openBenchmark(dirs[0]), dirs...)
}

func openViewerWith(t testing.TB, open func(spec.BenchmarkSpec) (*datasets.Benchmark, error), dirs ...string) *viewer.Viewer {
	t.Helper()
	v, err := viewer.Open(context.Background(), dirs, viewer.Options{Benchmark: open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
