package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
)

// TestFailedStartsLeaveNoTrials: starts that fail a check (a data folder
// without the benchmark) record no trial, so that after them status lists
// each trial of the run that worked once. (Before, every failed start with
// a different data folder added its own copy of every trial.)
func TestFailedStartsLeaveNoTrials(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	out := filepath.Join(dir, "run")
	os.WriteFile(spec, []byte(`name: t
benchmarks: [{name: mini}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners: [{name: direct}, {name: sc, params: {k: 3}}]
`), 0o644)
	for _, bad := range []string{"spider=" + filepath.Join(dir, "nope"), "bird=" + filepath.Join(dir, "nope2")} {
		var o, e bytes.Buffer
		err := run(&o, &e, []string{"run", spec, "--out", out, "--quiet", "--benchmark", bad})
		if exitCode(err) != exitRuntime {
			t.Fatalf("run --benchmark %s: %v (exit %d); want a runtime error", bad, err, exitCode(err))
		}
	}
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"run", spec, "--out", out, "--quiet", "--limit", "2"}); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	o.Reset()
	if err := run(&o, &e, []string{"status", out}); err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"direct", "sc"} {
		n := 0
		for _, l := range strings.Split(o.String(), "\n") {
			if strings.HasPrefix(l, label+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("status lists trial %s %d times; want once:\n%s", label, n, o.String())
		}
	}
}

// TestRunRefusesNoReasonModel: a spec that binds no model to reason is
// refused before any item runs (every item would fail) and leaves no run.
func TestRunRefusesNoReasonModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: t\nbenchmarks: [{name: mini}]\nmodels: {sim: {backend: sim}}\nrunners: [{name: direct}]\n"), 0o644)
	var o, e bytes.Buffer
	err := run(&o, &e, []string{"run", spec, "--out", filepath.Join(dir, "run"), "--quiet"})
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "trial direct binds no model to the reason role") {
		t.Errorf("run without roles: %v (exit %d); want a usage error naming the trial and the role", err, exitCode(err))
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
		t.Errorf("a refused run left its run directory")
	}
}

// TestWrongModelLeavesNoTrial: a run stopped by the server's 404 for an
// unknown model name records no trial, so that after the name is fixed
// status lists the trial once (it listed the dead one beside it).
func TestWrongModelLeavesNoTrial(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := fakeopenai.New(t, fakeopenai.Options{Models: []string{"right"}})
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	for i, model := range []string{"wrong", "right"} {
		spec := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		os.WriteFile(spec, []byte(fmt.Sprintf(`name: t
benchmarks: [{name: mini, limit: 3}]
models: {m: {backend: openai, base_url: %q, model: %s}}
roles: {reason: m}
runners: [{name: direct}]
`, srv.BaseURL(), model)), 0o644)
		var o, e bytes.Buffer
		err := run(&o, &e, []string{"run", spec, "--out", out, "--quiet"})
		if model == "wrong" {
			if err == nil || !strings.Contains(err.Error(), "model 'wrong' not found") {
				t.Fatalf("run with model wrong: %v; want the server's 404 text", err)
			}
			continue
		}
		if exitCode(err) == exitRuntime || exitCode(err) == exitUsage {
			t.Fatalf("run with model right: %v\n%s", err, e.String())
		}
	}
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"status", out}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(o.String(), "\n") {
		if strings.HasPrefix(l, "direct ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("status lists direct %d times; want once:\n%s", n, o.String())
	}
}
