package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// failTenth is a test runner: the direct baseline, except that it fails
// for good, with the HTTP 400 a server sends for a prompt over the context
// length, on every question whose index ends in 3 (3, 13, 23, 33: 4 of the
// mini benchmark's 42 questions, about 10%).
type failTenth struct{ runners.Runner }

func (f failTenth) Name() string { return "fail-tenth" }

func (f failTenth) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	if t.Example.Index%10 == 3 {
		return runners.Result{}, fmt.Errorf("fail-tenth: %w", &llm.StatusError{StatusCode: 400, Message: "prompt exceeds the context length"})
	}
	return f.Runner.Run(ctx, t)
}

func init() {
	runners.Register("fail-tenth", func(rd *runners.Reader) (runners.Runner, error) {
		direct, _ := runners.Lookup("direct")
		r, err := direct.New(rd)
		if err != nil {
			return nil, err
		}
		return failTenth{r}, nil
	})
}

// accountingSpec runs direct and fail-tenth on the mini benchmark with sim
// at p = 1, where direct answers every one of the 42 questions right (the
// prompt carries the whole schema).
const accountingSpec = `name: accounting
benchmarks: [{name: mini}]
models:
  sim: {backend: sim, p: 1, seed: 1}
roles: {reason: sim}
workers: 4
runners:
  - name: direct
  - name: fail-tenth
`

// TestFailureAccounting runs a method that fails on 10% of the questions
// and checks that every view counts those questions as wrong: EX =
// correct / attempted = 38/42, shown with failed = 4 in the run summary,
// the report's main table and compare, and that run exits with status 3
// (incomplete) and never retries the failed items.
func TestFailureAccounting(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "spec.yaml")
	if err := os.WriteFile(spec, []byte(accountingSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet"})
	if code := exitCode(err); code != exitIncomplete || !strings.Contains(err.Error(), "4 items failed") {
		t.Fatalf("run: exit %d (%v); want %d naming 4 failed items\n%s%s", code, err, exitIncomplete, out.String(), errb.String())
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	sum := runstore.Summarize(r)
	if len(sum) != 2 {
		t.Fatalf("%d trials; want 2", len(sum))
	}
	d, f := sum[0], sum[1]
	if d.Attempted != 42 || d.Correct != 42 || d.Failed != 0 {
		t.Fatalf("direct: %+v; want 42 of 42 correct at p = 1 (the premise of the 38/42 below)", d)
	}
	// 42 questions, 4 failed: 38 correct / 42 attempted.
	if f.Done != 38 || f.Failed != 4 || f.Attempted != 42 || f.Correct != 38 || f.EX != 38.0/42 || f.Pending != 0 || f.Partial {
		t.Errorf("fail-tenth: %+v; want 38 done, 4 failed, EX = 38/42 over 42 attempted, nothing pending", f)
	}
	// The summary's failed column and EX: 38/42 = 90.5%.
	row := regexp.MustCompile(`(?m)^fail-tenth\s+38\s+4\s+0\s+42\s+90\.5%`)
	if !row.MatchString(out.String()) || !strings.Contains(out.String(), "bad_request=4") {
		t.Errorf("run summary lacks the fail-tenth row (38 done, 4 failed, 0 pending, 42 attempted, 90.5%%) or the class count:\n%s", out.String())
	}

	// The report's main table (ex-by-system): EX 90.5, n 42, failed 4.
	out.Reset()
	if err := run(&out, &errb, []string{"report", dir, "--format", "csv", "--out", filepath.Join(tmp, "report")}); err != nil {
		t.Fatalf("report: %v\n%s", err, errb.String())
	}
	csv, err := os.ReadFile(filepath.Join(tmp, "report", "tables", "ex-by-system.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "mini failed") || !strings.Contains(string(csv), "\nfail-tenth,90.5,") || !strings.Contains(string(csv), ",42,4\n") {
		t.Errorf("report ex-by-system.csv lacks fail-tenth with EX 90.5, n 42, failed 4:\n%s", csv)
	}

	// compare: the systems table shows the same EX and the failed count;
	// the pair row counts the failures on each side.
	out.Reset()
	if err := run(&out, &errb, []string{"compare", dir}); err != nil {
		t.Fatalf("compare: %v", err)
	}
	crow := regexp.MustCompile(`(?m)^fail-tenth\s+42\s+38\s+4\s+0\s+90\.48%`)
	if !crow.MatchString(out.String()) {
		t.Errorf("compare lacks fail-tenth with 42 attempted, 38 correct, 4 failed, 0 pending, 90.48%%:\n%s", out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"compare", "--json", dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"failed_system": 4`) || !strings.Contains(out.String(), `"n": 42`) {
		t.Errorf("compare --json lacks failed_system 4 over n 42:\n%s", out.String())
	}

	// Resume never retries a failed item: nothing runs, the exit status
	// stays 3.
	out.Reset()
	errb.Reset()
	err = run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet"})
	if exitCode(err) != exitIncomplete || !strings.Contains(errb.String(), "0 items run") || !strings.Contains(errb.String(), "84 already finished") {
		t.Errorf("rerun: exit %d (%v), stderr %q; want %d, 0 items run, 84 already finished", exitCode(err), err, errb.String(), exitIncomplete)
	}
}
