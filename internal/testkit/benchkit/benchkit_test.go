package benchkit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runstore"
)

// directSpec runs the direct runner with sim on the bundled mini benchmark.
const directSpec = `name: kit
benchmarks: [{name: mini}]
models: {s: {backend: sim, p: 1, seed: 3}}
roles: {reason: s}
runners: [{name: direct}]
`

// TestRun runs directSpec on 2 questions: the summary counts them, the run
// directory holds them, and the store is closed (its lock released: a
// second OpenStore in this process would fail with runstore.ErrLocked).
func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := benchkit.Plan(t, benchkit.Spec(t, directSpec, "kit.yaml"))
	sum, err := benchkit.Run(t, dir, p, bench.Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Trials != 1 || sum.Done != 2 || sum.Failed != 0 {
		t.Errorf("trials %d, done %d, failed %d; want 1, 2, 0", sum.Trials, sum.Done, sum.Failed)
	}
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Trials) != 1 || len(run.Trials[0].Items) != 2 {
		t.Fatalf("run: got %d trials (%+v); want 1 trial of 2 items", len(run.Trials), run.Trials)
	}
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatalf("reopening the store: got %v; want it closed by Run", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSpecFile loads a spec written to a file, as Spec parses it.
func TestSpecFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kit.yaml")
	if err := os.WriteFile(path, []byte(directSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s := benchkit.SpecFile(t, path)
	if s.Name != "kit" || len(s.Runners) != 1 || s.Runners[0].Name != "direct" {
		t.Errorf("spec: got name %q, runners %+v; want kit with the direct runner", s.Name, s.Runners)
	}
}

// fatalTB is a testing.TB that records the message of Fatalf and stops
// the goroutine as testing.T does.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fatalOf runs call with a fatalTB in a goroutine of its own and returns
// the message it failed with ("" when it returned).
func fatalOf(t *testing.T, call func(tb testing.TB)) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(tb)
	}()
	<-done
	return tb.fatal
}

// TestFatal: each helper fails the test with a message naming what it
// could not do and the file or directory.
func TestFatal(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	unknown := strings.Replace(directSpec, "name: direct", "name: no-such-runner", 1)
	tests := []struct {
		name string
		call func(tb testing.TB)
		want []string
	}{
		{"bad yaml", func(tb testing.TB) { benchkit.Spec(tb, "name: [", "bad.yaml") }, []string{"parsing spec bad.yaml"}},
		{"missing file", func(tb testing.TB) { benchkit.SpecFile(tb, filepath.Join(notDir, "x.yaml")) }, []string{"loading spec", "x.yaml"}},
		{"unknown runner", func(tb testing.TB) { benchkit.Plan(tb, benchkit.Spec(t, unknown, "kit.yaml")) }, []string{"planning spec kit", "no-such-runner"}},
		{"store under a file", func(tb testing.TB) {
			benchkit.Run(tb, filepath.Join(notDir, "run"), benchkit.Plan(t, benchkit.Spec(t, directSpec, "kit.yaml")), bench.Options{})
		}, []string{"opening the store of " + filepath.Join(notDir, "run")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fatalOf(t, tc.call)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("fatal message: got %q; want it to contain %q", got, w)
				}
			}
		})
	}
}
