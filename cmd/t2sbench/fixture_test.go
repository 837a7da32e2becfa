package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The run of experiments/quickstart.yaml is this test binary's shared
// fixture: made once, by the first test that asks (the golden test's
// run-quickstart case in a full run), and read by every test that needs a
// finished quickstart run. A test that writes into a run directory (a
// resume, a report into it) works on a copy (copyRun).

// quickstartArgs is the quickstart's command line, with run directory dir
// (the golden case run-quickstart's, and the fixture's).
func quickstartArgs(dir string) []string {
	return []string{"run", qsSpec, "--fresh", "--quiet", "--out", dir}
}

// quickstartFixture is the quickstart run made by runMain with
// quickstartArgs(Dir).
type quickstartFixture struct {
	// Root is the temporary directory holding Dir (Root/qs); TestMain
	// removes it.
	Root string
	// Dir is the run directory.
	Dir string
	// Stdout and Stderr are the command's output, Code its exit status
	// and Took its wall time.
	Stdout, Stderr string
	Code           int
	Took           time.Duration
}

var (
	quickstartOnce sync.Once
	quickstart     *quickstartFixture
	quickstartErr  error
)

// buildQuickstart runs the quickstart once per test binary and returns
// the fixture, whatever the command's exit status; the error is for a
// fixture that could not be set up.
func buildQuickstart() (*quickstartFixture, error) {
	quickstartOnce.Do(func() {
		root, err := os.MkdirTemp("", "t2sbench-quickstart-")
		if err != nil {
			quickstartErr = fmt.Errorf("quickstart fixture: %w", err)
			return
		}
		f := &quickstartFixture{Root: root, Dir: filepath.Join(root, "qs")}
		var stdout, stderr bytes.Buffer
		start := time.Now()
		f.Code = runMain(&stdout, &stderr, quickstartArgs(f.Dir))
		f.Took = time.Since(start)
		f.Stdout, f.Stderr = stdout.String(), stderr.String()
		quickstart = f
	})
	return quickstart, quickstartErr
}

// quickstartRun returns the shared quickstart run, or stops t when it
// could not be made or did not finish (exit status 0).
func quickstartRun(t testing.TB) *quickstartFixture {
	t.Helper()
	f, err := buildQuickstart()
	if err != nil {
		t.Fatal(err)
	}
	if f.Code != exitOK {
		t.Fatalf("quickstart fixture: exit status %d; want %d\n%s%s", f.Code, exitOK, f.Stdout, f.Stderr)
	}
	return f
}

// removeFixtures removes the directories of the fixtures made; TestMain
// calls it when the tests are done.
func removeFixtures() {
	if quickstart != nil {
		os.RemoveAll(quickstart.Root)
	}
	if readmeLCStarted() {
		if r := waitReadmeLogicCat(); r.Root != "" {
			os.RemoveAll(r.Root)
		}
	}
}

// readmeLCStarted reports whether the README's LogicCat walk-through was
// started (it then owns a directory to remove).
func readmeLCStarted() bool {
	started := true
	readmeLCOnce.Do(func() { started = false })
	return started
}

// selected reports whether the top-level test name is to run under the
// -test.run, -test.skip and -test.list flags (the part of a pattern before
// its first "/" matches top-level names).
func selected(name string) bool {
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return false
	}
	match := func(flagName string, empty bool) bool {
		f := flag.Lookup(flagName)
		if f == nil || f.Value.String() == "" {
			return empty
		}
		top, _, _ := strings.Cut(f.Value.String(), "/")
		re, err := regexp.Compile(top)
		return err == nil && re.MatchString(name)
	}
	return match("test.run", true) && !match("test.skip", false)
}

// copyRun copies the run directory src (its store, caches and lock file)
// to dst, which must not exist, so that a test may resume or write into a
// run without touching the shared one. SQLite's shared-memory index files
// (-shm) are left out: they are rebuilt on open.
func copyRun(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, "-shm") || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatalf("copying run %s to %s: %v", src, dst, err)
	}
}

// writeSpec writes the spec text to dir/spec.yaml and returns its path.
func writeSpec(t testing.TB, dir, text string) string {
	t.Helper()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// runSpec writes the spec text to dir/spec.yaml (writeSpec) and runs it
// quietly into dir/run, stopping t when the run fails; it returns the
// spec's path and the run directory. A test whose spec differs from the
// quickstart's (quickstartRun) makes its own small run with it.
func runSpec(t testing.TB, dir, text string) (spec, runDir string) {
	t.Helper()
	spec = writeSpec(t, dir, text)
	runDir = filepath.Join(dir, "run")
	var out bytes.Buffer
	if err := run(&out, &out, []string{"run", spec, "--quiet", "--out", runDir}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	return spec, runDir
}

// miniWithoutWeather copies the bundled mini benchmark into a temporary
// directory without its weather database and returns the directory: the
// weather questions are missing_db there, outside EX's denominator.
func miniWithoutWeather(t testing.TB) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "databases"), 0o755)
	for _, f := range []string{"questions.json", "databases/shop.sql", "databases/university.sql"} {
		raw, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data
}
