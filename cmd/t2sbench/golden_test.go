package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/golden"
)

// cliCase is one command line of the CLI golden test: its output is kept
// in testdata/golden/<name>.stdout and <name>.stderr, its exit status here
// (a change of exit status is a change of contract, made by hand).
type cliCase struct {
	name string
	// args may hold $TMP (the test's temporary directory) and $BIRD (a
	// BIRD mini-dev data folder, birdMiniDevTree).
	args []string
	exit int
}

// qsSpec is the quickstart spec, relative to this package's directory.
var qsSpec = filepath.Join("..", "..", "experiments", "quickstart.yaml")

// cliCases run in order: the run of the quickstart comes before the
// status and compare of its run directory, the evals that write verdict
// files before the compare of those files.
// Before them come help, help spec, help runners, help errors and help
// <command> for every command (helpCases).
var cliCases = []cliCase{
	{"help-unknown", []string{"help", "frobnicate"}, exitUsage},
	{"unknown-command", []string{"frobnicate"}, exitUsage},
	{"version", []string{"version"}, exitOK},

	// The quickstart (direct, cot, sc, react-dsl, steinersql, alphasql,
	// iesr with sim on the bundled mini benchmark), without progress
	// output, then again: everything already finished. The first is the
	// test binary's shared quickstart run (quickstartRun), made by this
	// command line into a directory of its own and copied to $TMP/qs.
	{"run-quickstart", quickstartArgs("$TMP/qs"), exitOK},
	{"run-quickstart-resume", []string{"run", qsSpec, "--quiet", "--out", "$TMP/qs"}, exitOK},
	{"status", []string{"status", "$TMP/qs"}, exitOK},
	{"status-no-args", []string{"status"}, exitUsage},
	{"compare-run", []string{"compare", "$TMP/qs"}, exitOK},
	{"compare-run-json", []string{"compare", "--json", "$TMP/qs"}, exitOK},
	// pass@8 and majority@8 of the quickstart's stored candidates, by
	// McNemar's test; the systems without candidates are left out.
	{"compare-run-pass-at-k", []string{"compare", "--metric", "pass@8", "$TMP/qs"}, exitOK},
	{"compare-run-majority-at-k", []string{"compare", "--metric", "majority@8", "$TMP/qs"}, exitOK},

	// A run with failed items: fail-tenth fails 4 of mini's 42 questions
	// for good (exit status 3); status and compare count them wrong.
	{"run-failures", []string{"run", "testdata/golden/input/failures.yaml", "--quiet", "--out", "$TMP/fail"}, exitIncomplete},
	{"status-failures", []string{"status", "$TMP/fail"}, exitOK},
	// The checksums of that run's model cache, gold cache and store (one
	// worker: the count of cache rows depends on the order), then the
	// command without its run directory.
	{"cache-verify", []string{"cache", "verify", "$TMP/fail"}, exitOK},
	{"cache-verify-no-args", []string{"cache", "verify"}, exitUsage},
	{"compare-failures", []string{"compare", "$TMP/fail"}, exitOK},

	// A run directory holds one spec: onespec-b (sc's k changed,
	// react-dsl dropped, cot added) into onespec-a's run directory is
	// refused naming each difference, then replaces those trials.
	{"run-onespec", []string{"run", "testdata/golden/input/onespec-a.yaml", "--quiet", "--limit", "3", "--out", "$TMP/onespec"}, exitOK},
	{"run-onespec-changed", []string{"run", "testdata/golden/input/onespec-b.yaml", "--quiet", "--limit", "3", "--out", "$TMP/onespec"}, exitUsage},
	{"run-onespec-replace", []string{"run", "testdata/golden/input/onespec-b.yaml", "--quiet", "--limit", "3", "--out", "$TMP/onespec", "--replace-trials"}, exitOK},

	// eval on the bundled mini benchmark (42 questions): the golds as
	// predictions (flag, and a file of the gold SQL), a prediction file
	// with wrong (every 6th from question 1: SELECT 1) and unparsable
	// (every 6th from question 4: SELEC) predictions, and the first 30
	// lines of it, refused, then scored with --allow-partial.
	{"eval-gold-as-pred", []string{"eval", "--benchmark", "mini", "--gold-as-pred", "--quiet", "--out", "$TMP/gold.jsonl"}, exitOK},
	{"eval-gold-file", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-gold.sql", "--quiet"}, exitOK},
	{"eval-pred", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-pred.sql", "--quiet", "--out", "$TMP/pred.jsonl"}, exitOK},
	{"eval-partial", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-partial.sql", "--quiet"}, exitRuntime},
	{"eval-pred-json", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-pred.sql", "--quiet", "--json"}, exitOK},
	{"eval-partial-allowed", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-partial.sql", "--quiet", "--allow-partial", "--out", "$TMP/partial.jsonl"}, exitIncomplete},
	// The golds with their db_ids, the line of question 4 missing: with
	// --limit 40 the counts agree, and the two db_ids that moved onto
	// another database's question refuse the file.
	{"eval-db-mismatch", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-shifted.sql", "--limit", "40", "--quiet", "--cache-dir", "off"}, exitUsage},
	// Two prediction files and the gold ranked under the mini benchmark's
	// gold and under the hand-made overlay of four corrected golds
	// (testdata/overlays/mini-corrections.jsonl); then an overlay naming
	// a question the benchmark does not have, refused at its line.
	{"eval-two-gold", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-pred.sql", "--pred", "testdata/golden/input/mini-gold.sql", "--gold-as-pred", "--gold-overlay", "../../testdata/overlays/mini-corrections.jsonl", "--quiet"}, exitOK},
	{"eval-overlay-unknown", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-pred.sql", "--gold-overlay", "testdata/golden/input/mini-overlay-unknown.jsonl", "--quiet"}, exitUsage},
	// compare of the verdict files: all 42 questions; then the partial
	// file, refused, and paired on the 30 questions both have.
	{"compare-files", []string{"compare", "$TMP/gold.jsonl", "$TMP/pred.jsonl"}, exitOK},
	{"compare-files-partial", []string{"compare", "$TMP/gold.jsonl", "$TMP/partial.jsonl"}, exitRuntime},
	{"compare-files-intersect", []string{"compare", "--intersect", "$TMP/gold.jsonl", "$TMP/partial.jsonl"}, exitOK},
	// Soft F1 through the same comparison: verdict files with soft_f1
	// (eval --metrics soft-f1), compared by the paired bootstrap and the
	// sign-flip randomization test; the EX-only files are refused.
	{"eval-gold-soft-f1", []string{"eval", "--benchmark", "mini", "--gold-as-pred", "--metrics", "soft-f1", "--quiet", "--out", "$TMP/gold-f1.jsonl"}, exitOK},
	{"eval-pred-soft-f1", []string{"eval", "--benchmark", "mini", "--pred", "testdata/golden/input/mini-pred.sql", "--metrics", "soft-f1", "--quiet", "--out", "$TMP/pred-f1.jsonl"}, exitOK},
	{"compare-soft-f1", []string{"compare", "--metric", "soft-f1", "$TMP/gold-f1.jsonl", "$TMP/pred-f1.jsonl"}, exitOK},
	{"compare-soft-f1-missing", []string{"compare", "--metric", "soft-f1", "$TMP/gold.jsonl", "$TMP/pred.jsonl"}, exitUsage},

	// datasets list without shared data (T2SBENCH_SHARED names no
	// folder): the bundled benchmark only; then a folder holding none.
	{"datasets-list", []string{"datasets", "list"}, exitOK},
	{"datasets-list-empty", []string{"datasets", "list", "--data", "$TMP/empty"}, exitRuntime},

	// Errors.
	{"run-spec-typo", []string{"run", "testdata/golden/input/spec-typo.yaml", "--quiet", "--out", "$TMP/err"}, exitUsage},
	{"run-unknown-runner", []string{"run", "testdata/golden/input/unknown-runner.yaml", "--quiet", "--out", "$TMP/err"}, exitUsage},
	{"run-unknown-benchmark", []string{"run", "testdata/golden/input/unknown-benchmark.yaml", "--quiet", "--out", "$TMP/err-benchmark"}, exitUsage},
	{"run-wrong-model", []string{"run", "testdata/golden/input/wrong-model.yaml", "--quiet", "--out", "$TMP/err"}, exitUsage},
	{"run-missing-spec", []string{"run", "testdata/golden/input/no-such-spec.yaml", "--quiet", "--out", "$TMP/err"}, exitUsage},
	// The mini_dev folder given instead of BIRD's root: most databases
	// missing (TestRefuseMissingDatabases).
	{"eval-missing-db", []string{"eval", "--benchmark", "bird-minidev", "--data", "$BIRD/mini_dev", "--gold-as-pred", "--quiet", "--cache-dir", "off"}, exitUsage},
	{"eval-soft-f1-spider-mode", []string{"eval", "--benchmark", "mini", "--mode", "spider", "--gold-as-pred", "--quiet", "--metrics", "soft-f1"}, exitUsage},
	{"run-missing-db", []string{"run", "testdata/golden/input/bird-minidev.yaml", "--benchmark", "bird-minidev=$BIRD/mini_dev", "--quiet", "--out", "$TMP/err-db"}, exitUsage},
}

// TestCLIGolden runs each of cliCases in-process through runMain (main's
// own error line on stderr and exit status) and compares its stdout and
// stderr with testdata/golden/<case>.stdout and .stderr, byte for byte,
// and its exit status with the case's. The case run-quickstart reads the
// binary's shared quickstart run (quickstartRun), which ran its command
// line through runMain into a directory of its own (normalized to $TMP
// like the test's), and copies the run to $TMP/qs for the cases after it.
// After a deliberate change of
// output, rewrite the files with
//
//	go test ./cmd/t2sbench -run TestCLIGolden -update
//
// and review them with git diff. The outputs were generated by the code
// before the runners and benchmarks registered themselves, the behaviour
// that refactor kept.
//
// Only what differs from one run or machine to the next is normalized
// (internal/golden rules):
//   - the test's temporary directories ($TMP, $BIRD), which name run
//     directories, verdict files and data folders;
//   - in run's stderr, the run's wall-clock time ("in 12.982s", Durations);
//   - in version's stdout, the Go and SQLite versions, the module version
//     and the commit (Versions); the commit of the git work tree the test
//     binary was compiled from is not looked up (workTreeCommit);
//   - the default of eval's and datasets check's --workers, the machine's
//     CPU count, in their help (<NumCPU>).
//
// The environment the outputs read is set: the user cache (gold and mini
// database builds) in $TMP, no shared data (T2SBENCH_SHARED names no
// folder), and no MySQL DSN or password variables (flag defaults).
//
// Everything else, the quickstart's EX, confidence intervals, McNemar and
// bootstrap figures and model call counts included, is deterministic: sim
// is seeded and the bootstrap's seed is fixed (the quickstart's figures
// and its count of cached model calls were the same at --workers 1, 8 and
// 32). One more rule is not about volatility: the in-process command line
// is the test binary's, which also registers this package's test runner
// fail-tenth (accounting_test.go); dropTestRunner removes it from runner
// lists, so that the files hold what the t2sbench binary prints (checked
// against it, but for version's commit line: a test binary has no VCS
// information).
func TestCLIGolden(t *testing.T) {
	tmp := t.TempDir()
	bird := birdMiniDevTree(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("T2SBENCH_SHARED", filepath.Join(tmp, "no-shared-data"))
	// Version's commit line does not depend on the work tree's state.
	oldCommit := workTreeCommit
	workTreeCommit = func() string { return "" }
	t.Cleanup(func() { workTreeCommit = oldCommit })
	// Flag defaults read these (help datasets, help eval).
	for _, v := range []string{mysqlAdminDSNEnv, mysqlDSNEnv, mysqlPasswordEnv} {
		t.Setenv(v, "")
	}
	if err := os.Mkdir(filepath.Join(tmp, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}

	cases := append(helpCases(), cliCases...)

	cpus := golden.Replace(regexp.MustCompile(`( in parallel \(default )`+strconv.Itoa(runtime.NumCPU())+`\)`), "${1}<NumCPU>)")
	rules := []golden.Rule{golden.Path(bird, "$BIRD"), golden.Path(tmp, "$TMP"), cpus, dropTestRunner}
	for _, c := range cases {
		ok := t.Run(c.name, func(t *testing.T) {
			args := make([]string, len(c.args))
			for i, a := range c.args {
				a = strings.ReplaceAll(a, "$TMP", tmp)
				args[i] = strings.ReplaceAll(a, "$BIRD", bird)
			}
			var stdout, stderr bytes.Buffer
			code, caseRules := 0, rules
			if c.name == "run-quickstart" {
				q, err := buildQuickstart()
				if err != nil {
					t.Fatal(err)
				}
				stdout.WriteString(q.Stdout)
				stderr.WriteString(q.Stderr)
				code = q.Code
				caseRules = append([]golden.Rule{golden.Path(q.Root, "$TMP")}, rules...)
				copyRun(t, q.Dir, filepath.Join(tmp, "qs"))
			} else {
				code = runMain(&stdout, &stderr, args)
			}
			out := golden.Normalize(stdout.String(), caseRules...)
			errs := golden.Normalize(stderr.String(), caseRules...)
			switch {
			case c.args[0] == "run":
				errs = golden.Durations(errs)
			case c.args[0] == "version":
				out = golden.Versions(out)
			}
			golden.CheckString(t, filepath.Join("testdata", "golden", c.name+".stdout"), out)
			golden.CheckString(t, filepath.Join("testdata", "golden", c.name+".stderr"), errs)
			if code != c.exit {
				t.Errorf("%q: exit status %d; want %d\nstderr:\n%s", c.args, code, c.exit, errs)
			}
		})
		if !ok && c.name == "run-quickstart" {
			t.Fatal("the quickstart run failed; the cases that read its run directory would fail too")
		}
	}

	// Every golden file belongs to a case: a renamed or dropped case
	// leaves none behind.
	want := map[string]bool{}
	for _, c := range cases {
		want[c.name+".stdout"], want[c.name+".stderr"] = true, true
	}
	files, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.IsDir() && !want[f.Name()] {
			t.Errorf("testdata/golden/%s belongs to no case of TestCLIGolden; remove it", f.Name())
		}
	}
}

// helpCases are help, help spec, help runners, help errors and help
// <command> for every registered command, in name order.
func helpCases() []cliCase {
	cases := []cliCase{
		{"help", []string{"help"}, exitOK},
		{"help-spec", []string{"help", "spec"}, exitOK},
		{"help-runners", []string{"help", "runners"}, exitOK},
		{"help-errors", []string{"help", "errors"}, exitOK},
	}
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cases = append(cases, cliCase{"help-" + n, []string{"help", n}, exitOK})
	}
	return cases
}

var (
	// testRunnerBlock is fail-tenth's entry in help runners: its name
	// line, its indented lines and the blank line after them.
	testRunnerBlock = regexp.MustCompile(`(?m)^fail-tenth\n(?:[ \t]+.*\n)*\n`)
	// knownRunners is the list of runners an unknown runner's error gives.
	knownRunners = regexp.MustCompile(`\(known: \[[^\]]*\]\)`)
)

// dropTestRunner removes the test runner fail-tenth (accounting_test.go),
// registered in this test binary only, from help runners and from the
// known runners an error lists (not from a run that uses it).
func dropTestRunner(s string) string {
	s = testRunnerBlock.ReplaceAllString(s, "")
	return knownRunners.ReplaceAllStringFunc(s, func(m string) string { return strings.Replace(m, " fail-tenth", "", 1) })
}
