package viewer_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	_ "github.com/t2sbench/t2sbench/runners/reactdsl"
	_ "github.com/t2sbench/t2sbench/runners/steinersql"
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
		miniErr = runSpec(context.Background(), []byte(miniSpec), dir, 0)
	})
	if miniErr != nil {
		t.Fatalf("building the mini run: %v", miniErr)
	}
	return miniDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if miniDir != "" {
		os.RemoveAll(miniDir)
	}
	os.Exit(code)
}

// runSpec runs a spec through the bench API into dir.
func runSpec(ctx context.Context, spec []byte, dir string, limit int) error {
	s, err := bench.ParseSpec(spec, "spec.yaml")
	if err != nil {
		return err
	}
	p, err := bench.NewPlan(s)
	if err != nil {
		return err
	}
	st, err := bench.OpenStore(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	env, closeEnv := bench.DefaultEnv()
	defer closeEnv()
	_, err = bench.Run(ctx, p, st, env, bench.Options{Limit: limit, CacheDir: filepath.Join(dir, "cache")})
	return err
}

// openBenchmark opens a trial's benchmark as the CLI does.
func openBenchmark(runDir string) func(b bench.BenchmarkSpec) (*datasets.Benchmark, error) {
	return func(b bench.BenchmarkSpec) (*datasets.Benchmark, error) {
		return datasets.Open(b.Name, b.Data, datasets.LoadOptions{Limit: b.Limit, CacheDir: filepath.Join(runDir, "cache", "datasets", b.Name),
			SQLite: datasets.SQLiteOptions{MaxRows: viewer.DefaultPreviewRows + 1}})
	}
}

func openViewer(t testing.TB, dirs ...string) *viewer.Viewer {
	t.Helper()
	return openViewerWith(t, openBenchmark(dirs[0]), dirs...)
}

func openViewerWith(t testing.TB, open func(bench.BenchmarkSpec) (*datasets.Benchmark, error), dirs ...string) *viewer.Viewer {
	t.Helper()
	v, err := viewer.Open(context.Background(), dirs, viewer.Options{Benchmark: open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
