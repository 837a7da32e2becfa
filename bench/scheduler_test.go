package bench

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit/speckit"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

const runSpec = `name: sched
benchmarks: [{name: fake}]
models:
  m: {backend: sim, p: 0.6}
roles: {reason: m}
workers: 4
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 3}
`

func mustPlan(t testing.TB, yml string) *spec.Plan { return speckit.Plan(t, yml) }

func runOnce(t testing.TB, dir string, p *spec.Plan, env Env, opt Options) (Summary, error) {
	t.Helper()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return Run(context.Background(), p, st, env, opt)
}

func verdicts(t testing.TB, dir string) map[string]map[string]bool {
	t.Helper()
	_, v, err := runstore.LoadRunVerdicts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRunResumeAfterCancel(t *testing.T) {
	p := mustPlan(t, runSpec)
	env, _ := testEnv(40, 0.6, nil)
	envResume, model := testEnv(40, 0.6, nil)

	full := t.TempDir()
	sum, err := runOnce(t, full, p, env, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 120 || sum.Failed != 0 {
		t.Fatalf("done, failed = %d, %d; want 120, 0", sum.Done, sum.Failed)
	}
	want := verdicts(t, full)

	// Interrupted runs: cancel after a few items each time, then finish.
	dir := t.TempDir()
	var stops []int
	for _, stopAt := range []int{7, 30, 55} {
		st, err := runstore.OpenStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		s, err := Run(ctx, p, st, envResume, Options{Progress: func(pr Progress) {
			if pr.Done >= stopAt {
				cancel()
			}
		}})
		cancel()
		st.Close()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted run err = %v; want context.Canceled", err)
		}
		stops = append(stops, s.Skipped+s.Done)
	}
	sum, err = runOnce(t, dir, p, envResume, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != stops[len(stops)-1] || sum.Skipped+sum.Done != 120 {
		t.Errorf("final run skipped %d, did %d; want skipped %d (committed before) and 120 in all", sum.Skipped, sum.Done, stops[len(stops)-1])
	}
	if got := verdicts(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed verdicts differ from the uninterrupted run")
	}
	// No finished item was redone: every item was committed once. Every
	// call is logged before it is sent, so an item that was in flight at
	// a cancellation has its first call logged too (at most one per
	// worker per cancellation: 3 x 4), and the log's answered calls are
	// exactly the calls the model answered.
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	answered, extra := 0, 0
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			if it.Attempts != 1 {
				t.Errorf("%s %s: attempts = %d; want 1", tr.Label, it.QuestionID, it.Attempts)
			}
			if len(it.Calls) < 1 {
				t.Errorf("%s %s: no logged call; want at least 1", tr.Label, it.QuestionID)
			}
			extra += len(it.Calls) - 1
			for _, c := range it.Calls {
				if c.Error == "" && !c.Sent {
					answered++
				}
			}
		}
	}
	if extra > 3*4 {
		t.Errorf("calls beyond one per item = %d; want at most 12 (one per worker per cancellation)", extra)
	}
	if got := int64(answered); got != model.calls.Load() {
		t.Errorf("answered calls in the log = %d; want %d, the calls the model answered", got, model.calls.Load())
	}
	if r.CallLog.Calls != 120+extra || r.CallLog.Loose != 0 {
		t.Errorf("call log totals %+v; want %d calls, none loose", r.CallLog, 120+extra)
	}
	// A second full run does nothing.
	sum, err = runOnce(t, dir, p, env, Options{})
	if err != nil || sum.Done != 0 || sum.Skipped != 120 {
		t.Errorf("rerun: done %d skipped %d err %v; want 0, 120, nil", sum.Done, sum.Skipped, err)
	}
}

// TestChangedConfigRefusedOrReplaced: a changed parameter makes a new
// trial id, which a run directory holding the old one refuses (naming the
// change, running nothing); with ReplaceTrials the old trial goes with
// its items and only the new one runs.
func TestChangedConfigRefusedOrReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env, _ := testEnv(5, 0.5, nil)
	if _, err := runOnce(t, dir, mustPlan(t, runSpec), env, Options{}); err != nil {
		t.Fatal(err)
	}
	changed := mustPlan(t, runSpec[:len(runSpec)-len("{k: 3}\n")]+"{k: 4}\n")
	sum, err := runOnce(t, dir, changed, env, Options{})
	var sc *runstore.SpecChangedError
	if !errors.As(err, &sc) || !strings.Contains(err.Error(), `trial "sc": parameter k changed 3 -> 4`) || sum.Done != 0 {
		t.Fatalf("run of the changed plan: done %d, err %v; want a *SpecChangedError naming parameter k, nothing run", sum.Done, err)
	}
	sum, err = runOnce(t, dir, changed, env, Options{ReplaceTrials: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 10 || sum.Done != 5 {
		t.Errorf("skipped, done = %d, %d; want 10 (direct, cot) and 5 (new sc trial)", sum.Skipped, sum.Done)
	}
	if len(sum.Removed) != 1 || sum.Removed[0].Items != 5 || sum.Removed[0].Change.Old.Params["k"] != 3.0 {
		t.Errorf("removed %+v; want the sc k=3 trial with its 5 items", sum.Removed)
	}
	r, _ := runstore.ReadRun(dir, false)
	if len(r.Trials) != 3 || len(r.Stale) != 0 {
		t.Errorf("stored trials = %d (%d stale); want 3, the plan's, none stale", len(r.Trials), len(r.Stale))
	}
}

func TestFaultSoak(t *testing.T) {
	const secret = "sk-test-SECRET-0123456789"
	p := mustPlan(t, runSpec)
	var fc *faultyClient
	env, _ := testEnv(100, 0.6, func(c llm.Client) llm.Client {
		fc = &faultyClient{Client: c, rate: 0.2, secret: secret, tries: map[string]int{}}
		return fc
	})
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	sum, err := runOnce(t, dir, p, env, Options{Workers: 8, RetryWait: time.Millisecond, Secrets: []string{secret}, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done+sum.Errored != 300 || sum.Failed != 0 {
		t.Fatalf("done+errored = %d, failed %d; want 300, 0 (every fault is an infrastructure error)", sum.Done+sum.Errored, sum.Failed)
	}
	if fc.faults.Load() < 30 {
		t.Errorf("only %d faults injected; want about 20%% of >300 calls", fc.faults.Load())
	}
	// With one retry, about 0.2^2 = 4% of items fail twice.
	if sum.Errored == 0 || sum.Errored > 40 {
		t.Errorf("errored items = %d; want between 1 and 40 (about 4%% of 300)", sum.Errored)
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			if it.Status == runstore.StatusError {
				if it.ErrorClass == "" || it.Error == "" || it.Attempts != 2 {
					t.Errorf("failed item %s: class %q error %q attempts %d; want a class, a message, 2 attempts", it.QuestionID, it.ErrorClass, it.Error, it.Attempts)
				}
				classes[it.ErrorClass]++
			}
		}
	}
	for c := range classes {
		if c != "server_error" && c != "rate_limited" && c != "network" {
			t.Errorf("unexpected error class %q", c)
		}
	}
	// Resume retries only the errored items.
	sum2, err := runOnce(t, dir, p, env, Options{Workers: 8, RetryWait: time.Millisecond, Secrets: []string{secret}, Retries: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Skipped != sum.Done || sum2.Total != sum.Errored {
		t.Errorf("resume: skipped %d total %d; want %d, %d", sum2.Skipped, sum2.Total, sum.Done, sum.Errored)
	}
	// No goroutine outlives the run (allow the runtime a moment).
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("goroutines: %d before, %d after", before, n)
	}
	assertNoSecret(t, dir, secret)
}

// assertNoSecret greps every file under dir for the secret.
func assertNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("secret found in %s", path)
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no files under %s to check", dir)
	}
}

func TestShardMerge(t *testing.T) {
	p := mustPlan(t, runSpec)
	env, _ := testEnv(30, 0.6, nil)
	full := t.TempDir()
	if _, err := runOnce(t, full, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	total := 0
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		s, err := runOnce(t, d, p, env, Options{Shard: spec.Shard{I: i, N: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if s.Done == 0 || s.Done == 90 {
			t.Errorf("shard %d/3 ran %d items; want a proper slice of 90", i, s.Done)
		}
		total += s.Done
		dirs = append(dirs, d)
	}
	if total != 90 {
		t.Errorf("shards ran %d items; want 90", total)
	}
	out := t.TempDir()
	ms, err := runstore.Merge(out, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Items != 90 {
		t.Errorf("merge stats %+v; want 90 items", ms)
	}
	if got, want := verdicts(t, out), verdicts(t, full); !reflect.DeepEqual(got, want) {
		t.Errorf("merged verdicts differ from the unsharded run")
	}
	r, _ := runstore.ReadRun(out, false)
	if !r.Simulated {
		t.Errorf("merged run not marked simulated")
	}
}

// TestParseShard checks the 1-based CLI numbering: "1/2" and "2/2" are the
// two halves (I 0 and 1). Regression: "2/2" used to be rejected and "1/2"
// silently ran the second half.
func TestParseShard(t *testing.T) {
	for s, want := range map[string]spec.Shard{"1/1": {I: 0, N: 1}, "1/2": {I: 0, N: 2}, "2/2": {I: 1, N: 2}, "3/3": {I: 2, N: 3}} {
		got, err := spec.ParseShard(s)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"0/2", "4/3", "-1/2", "1/0", "a/b", "1/2x"} {
		if _, err := spec.ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) accepted", s)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&statusErr{429}, "rate_limited"},
		{&statusErr{503}, "server_error"},
		{&statusErr{401}, "auth"},
		{&statusErr{400}, "bad_request"},
		// Another client's status is classed as the llm backend's.
		{&statusErr{404}, "not_found"},
		{&statusErr{408}, "timeout"},
		{&statusErr{409}, "http_409"},
		{context.DeadlineExceeded, "deadline"},
		{fmt.Errorf("runner: %w", context.Canceled), "canceled"},
		{&llm.Error{Class: llm.ClassOther, Err: errors.New("client refused to send")}, "other"},
		{fmt.Errorf("db: %w", driver.ErrBadConn), "network"},
		{&llm.StatusError{StatusCode: 502}, "server_error"},
		{fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), "network"},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, "network"},
		{fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), "network"},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, "timeout"},
		{fmt.Errorf("%w", &llm.Error{Class: llm.ClassNetwork, Err: llm.ErrNetwork}), "network"},
		// Message text does not decide: untyped errors are the runner's.
		{errors.New("dial tcp: connection refused"), "runner"},
		{errors.New("rate limit reached; request timeout; unexpected EOF"), "runner"},
		{errors.New("weird"), "runner"},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %q; want %q", tt.err, got, tt.want)
		}
	}
}

// BenchmarkReplay measures a full replay of a finished run from the
// response cache: the quickstart trials (direct, cot, sc k=8) with sim on
// the mini benchmark are run once to fill the cache, then each iteration
// reruns them into a fresh run directory that shares the cache, so every
// model call is a cache hit. Compare its calls/s with the "uncached"
// sub-benchmark (sim answering every call) in the same run.
func BenchmarkReplay(b *testing.B) {
	const spec = `name: replay
benchmarks: [{name: mini}]
models:
  sim: {backend: sim, p: 0.6, seed: 7}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 8}
`
	p := mustPlan(b, spec)
	cache := b.TempDir()
	run := func(b *testing.B, cacheDir string) Summary {
		env, closeEnv := DefaultEnv()
		defer closeEnv()
		s, err := runOnce(b, b.TempDir(), p, env, Options{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	run(b, cache) // fill the cache
	report := func(b *testing.B, calls, cached int, d time.Duration) {
		b.ReportMetric(float64(calls)/d.Seconds(), "calls/s")
		b.ReportMetric(float64(cached)/float64(calls), "hit-rate")
	}
	b.Run("uncached", func(b *testing.B) {
		var calls, cached int
		var d time.Duration
		for i := 0; i < b.N; i++ {
			s := run(b, b.TempDir())
			calls, cached, d = calls+s.Calls, cached+s.CachedCalls, d+s.Elapsed
		}
		report(b, calls, cached, d)
	})
	b.Run("replay", func(b *testing.B) {
		var calls, cached int
		var d time.Duration
		for i := 0; i < b.N; i++ {
			s := run(b, cache)
			if s.CachedCalls != s.Calls {
				b.Fatalf("replay made %d uncached calls", s.Calls-s.CachedCalls)
			}
			calls, cached, d = calls+s.Calls, cached+s.CachedCalls, d+s.Elapsed
		}
		report(b, calls, cached, d)
	})
}

// slowClient blocks until the request's context ends.
type slowClient struct{}

func (slowClient) Complete(ctx context.Context, _ llm.Request) (*llm.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestItemTimeoutIsData(t *testing.T) {
	p := mustPlan(t, "benchmarks: [{name: fake}]\nmodels:\n  m: {backend: sim}\nroles: {reason: m}\ntimeout: 20ms\nrunners: [{name: direct}]\n")
	env, _ := testEnv(4, 1, func(llm.Client) llm.Client { return slowClient{} })
	dir := t.TempDir()
	sum, err := runOnce(t, dir, p, env, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 4 || sum.Failed != 0 || sum.Correct != 0 {
		t.Errorf("done, failed, correct = %d, %d, %d; want 4, 0, 0 (a timeout is a wrong prediction)", sum.Done, sum.Failed, sum.Correct)
	}
	r, _ := runstore.ReadRun(dir, false)
	for _, it := range r.Trials[0].Items {
		if it.ErrorClass != "timeout" || it.Verdict == nil {
			t.Errorf("%s: class %q verdict %v; want timeout with a verdict", it.QuestionID, it.ErrorClass, it.Verdict)
		}
	}
}

func TestLimitOption(t *testing.T) {
	env, _ := testEnv(20, 0.5, nil)
	sum, err := runOnce(t, t.TempDir(), mustPlan(t, runSpec), env, Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 15 {
		t.Errorf("done = %d; want 15 (3 trials x 5 questions)", sum.Done)
	}
}
