package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runstore"
)

// zeroblobSQL is a hostile prediction: 4,000 rows of a 1 MB BLOB
// (about 4 GB), which made eval die with "fatal error: out of memory".
const zeroblobSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 4000) SELECT x, zeroblob(1000000) FROM c"

// rssLimitKB is the peak resident set the zeroblob runs must stay under:
// 1 GiB.
const rssLimitKB = 1 << 20

// TestHelperRealCLI is not a test: run as a child process with
// T2SBENCH_TEST_REAL_ARGS set (arguments separated by newlines), it runs
// that command line with the real environment and prints its peak RSS
// (VmHWM) as "VmHWM_kB=N" before it exits.
func TestHelperRealCLI(t *testing.T) {
	args := os.Getenv("T2SBENCH_TEST_REAL_ARGS")
	if args == "" {
		t.Skip("child process only")
	}
	err := run(os.Stdout, os.Stderr, strings.Split(args, "\n"))
	if status, rerr := os.ReadFile("/proc/self/status"); rerr == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				fmt.Fprintf(os.Stderr, "VmHWM_kB=%s\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "t2sbench:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// realCLI runs args in a child process (TestHelperRealCLI) and returns its
// combined output and peak RSS in kB; a failed command stops t.
func realCLI(t *testing.T, env []string, args ...string) (string, int64) {
	t.Helper()
	out, kb, err := childCLI(env, args...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return out, kb
}

// childCLI runs args in a child process (TestHelperRealCLI), whatever its
// exit status, and returns its combined output, peak RSS in kB (-1 when it
// printed none) and the error of a command that failed.
func childCLI(env []string, args ...string) (string, int64, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRealCLI$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), "T2SBENCH_TEST_REAL_ARGS="+strings.Join(args, "\n"))
	out, err := cmd.CombinedOutput()
	kb := int64(-1)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM_kB="); ok {
			kb, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return string(out), kb, err
}

func needProc(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("peak RSS is read from /proc/self/status (Linux)")
	}
}

// TestEvalZeroblobBoundedMemory scores the mini benchmark with the zeroblob
// query as the first prediction (gold for the rest) in a child process: it
// must score pred_error "result too large", the others stay correct, and
// the peak RSS stays under 1 GiB.
func TestEvalZeroblobBoundedMemory(t *testing.T) {
	needProc(t)
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	b, err := datasets.Open("mini", "", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Engine.Close()
	dir := t.TempDir()
	var sb strings.Builder
	for i, ex := range b.Examples {
		if i == 0 {
			sb.WriteString(zeroblobSQL + "\n")
			continue
		}
		sb.WriteString(strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(ex.GoldSQL) + "\t" + ex.DBID + "\n")
	}
	pred := filepath.Join(dir, "pred.sql")
	os.WriteFile(pred, []byte(sb.String()), 0o644)
	verdicts := filepath.Join(dir, "verdicts.jsonl")
	out, kb := realCLI(t, []string{"XDG_CACHE_HOME=" + cacheHome},
		"eval", "--benchmark", "mini", "--pred", pred, "--quiet", "--cache-dir", "off", "--out", verdicts)
	n := len(b.Examples)
	if want := "status: ok " + itoa(n-1) + " pred_error 1"; !strings.Contains(out, want) {
		t.Errorf("eval output lacks %q:\n%s", want, out)
	}
	raw, err := os.ReadFile(verdicts)
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Status, Error string }
	json.Unmarshal(bytes.SplitN(raw, []byte("\n"), 2)[0], &first)
	if first.Status != "pred_error" || !strings.Contains(first.Error, "result too large") {
		t.Errorf("zeroblob verdict = %q %q; want pred_error, \"result too large\"", first.Status, first.Error)
	}
	t.Logf("eval with the zeroblob prediction: peak RSS %d MiB", kb>>10)
	if kb <= 0 || kb > rssLimitKB {
		t.Errorf("peak RSS %d kB; want in (0, %d]", kb, rssLimitKB)
	}
}

// TestRunZeroblobBoundedMemory runs `direct` on the mini benchmark against
// a fake OpenAI-compatible server whose every answer is the zeroblob query,
// through the real environment (response cache, scorer, SQLite engine), in
// a child process; then reruns it with --fresh, which scores the cached
// answers again (the case that crashed every resume). Both runs finish,
// every item scores pred_error "result too large", and the peak RSS stays
// under 1 GiB.
func TestRunZeroblobBoundedMemory(t *testing.T) {
	t.Parallel()
	needProc(t)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			calls.Add(1) // a chat call (a run also asks GET /models once)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "fake",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "```sql\n" + zeroblobSQL + "\n```"}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	}))
	defer srv.Close()
	tmp := t.TempDir()
	spec := writeSpec(t, tmp, fmt.Sprintf(`name: zeroblob
benchmarks: [{name: mini, limit: 4}]
models:
  local: {backend: openai, base_url: %q, model: fake, max_retries: 0}
roles: {reason: local}
workers: 4
runners:
  - name: direct
`, srv.URL+"/v1"))
	dir := filepath.Join(tmp, "run")
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	for _, args := range [][]string{{"run", spec, "--out", dir, "--quiet"}, {"run", spec, "--out", dir, "--quiet", "--fresh"}} {
		out, kb := realCLI(t, env, args...)
		t.Logf("%v: peak RSS %d MiB", args[3:], kb>>10)
		if kb <= 0 || kb > rssLimitKB {
			t.Errorf("%v: peak RSS %d kB; want in (0, %d]\n%s", args, kb, rssLimitKB, out)
		}
		r, err := runstore.ReadRun(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tr := range r.Trials {
			for _, it := range tr.Items {
				n++
				if it.Status != runstore.StatusDone || it.Verdict == nil || it.Verdict.Status != "pred_error" || !strings.Contains(it.Verdict.Error, "result too large") {
					t.Errorf("%v: item %s: %s %+v; want done, pred_error \"result too large\"", args, it.QuestionID, it.Status, it.Verdict)
				}
			}
		}
		if n != 4 {
			t.Errorf("%v: %d items; want 4", args, n)
		}
	}
	// The rerun scored the cached answers: the server saw one call per
	// question.
	if got := calls.Load(); got != 4 {
		t.Errorf("server calls = %d; want 4 (the --fresh rerun answers from the cache)", got)
	}
}

// TestRunLockConcurrent starts two runs into one directory (real
// processes, the fake environment of TestMain): the second exits at once
// with the lock message naming the first's pid, the first completes, and
// status works while the first holds the lock.
func TestRunLockConcurrent(t *testing.T) {
	tmp := t.TempDir()
	spec := writeSpec(t, tmp, cliSpec)
	dir := filepath.Join(tmp, "run")
	first := cli(t, "", "run", spec, "--out", dir, "--quiet")
	var out1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the first run holds the lock, has written its pid and
	// committed an item.
	want := "pid " + strconv.Itoa(first.Process.Pid)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(dir, runstore.LockFile)); strings.Contains(string(b), want) && countDone(dir) > 0 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	start := time.Now()
	out2, err := cli(t, "", "run", spec, "--out", dir, "--quiet").CombinedOutput()
	took := time.Since(start)
	if err == nil {
		t.Errorf("second run: exit 0; want a failure\n%s", out2)
	}
	host, _ := os.Hostname()
	if !strings.Contains(string(out2), "is in use by "+want+" on host "+host) {
		t.Errorf("second run output %q; want the lock message naming %s on host %s", out2, want, host)
	}
	if took > 10*time.Second {
		t.Errorf("second run took %v; want it to exit at once", took)
	}
	var sout, rout bytes.Buffer
	if err := run(&sout, &sout, []string{"status", dir}); err != nil {
		t.Errorf("status while the run holds the lock: %v\n%s", err, sout.String())
	}
	if err := run(&rout, &rout, []string{"report", dir, "--out", filepath.Join(tmp, "report")}); err != nil {
		t.Errorf("report while the run holds the lock: %v\n%s", err, rout.String())
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out1.String())
	}
	if n := countDone(dir); n != 3*cliQuestions {
		t.Errorf("first run committed %d items; want %d", n, 3*cliQuestions)
	}
	// The lock is free again: a third run resumes (nothing left to do).
	if out, err := cli(t, "", "run", spec, "--out", dir, "--quiet").CombinedOutput(); err != nil {
		t.Errorf("run after the first finished: %v\n%s", err, out)
	}
}

func TestHardenFlags(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	spec := writeSpec(t, tmp, cliSpec)
	tests := []struct {
		args []string
		want string
	}{
		// cliSpec's third runner entry (sc, line 10) brings the plan to 3
		// trials, over a cap of 2.
		{[]string{"run", spec, "--max-trials", "2", "--out", filepath.Join(tmp, "r1")}, "spec.yaml:10: runners[2]: the plan grows to 3 trials by this entry (1 from it), over the trial cap 2"},
		{[]string{"run", spec, "--max-trials", "-1"}, "--max-trials must be positive"},
		{[]string{"run", spec, "--max-result-mb", "-5"}, "--max-result-mb must be in [1, 1048576]"},
		{[]string{"eval", "--benchmark", "mini", "--gold-as-pred", "--max-result-mb", "0"}, "--max-result-mb must be in [1, 1048576]"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := run(&out, &out, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v; want containing %q", tt.args[:min(len(tt.args), 4)], err, tt.want)
		}
	}
}
