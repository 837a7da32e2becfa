package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// directFakeSpec runs the direct baseline on the fake benchmark with one
// sim model and one worker.
const directFakeSpec = "benchmarks: [{name: fake}]\nmodels:\n  m: {backend: sim}\nroles: {reason: m}\nworkers: 1\nrunners: [{name: direct}]\n"

func TestFailureOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Failure
	}{
		{"400 context length", &llm.StatusError{StatusCode: 400, Message: "maximum context length is 8192 tokens"}, FailurePermanent},
		{"422 wrapped by a runner", fmt.Errorf("alphasql: rollout 3: %w", &llm.StatusError{StatusCode: 422}), FailurePermanent},
		{"401", &llm.StatusError{StatusCode: 401}, FailureFatal},
		{"403", &llm.StatusError{StatusCode: 403}, FailureFatal},
		{"404 unknown model", &llm.StatusError{StatusCode: 404, Message: "model not found"}, FailureFatal},
		{"429 after retries", fmt.Errorf("%w (gave up after 3 attempts)", &llm.StatusError{StatusCode: 429}), FailureInfra},
		{"408", &llm.StatusError{StatusCode: 408}, FailureInfra},
		{"503", &llm.StatusError{StatusCode: 503}, FailureInfra},
		{"409", &llm.StatusError{StatusCode: 409, Message: "conflict"}, FailurePermanent},
		{"500 refusing response_format", &llm.StatusError{StatusCode: 500, Message: `response_format type must be one of "text" or "json_object", but got: json_schema`}, FailurePermanent},
		{"other StatusCode type 400", &statusErr{400}, FailurePermanent},
		{"other StatusCode type 404", &statusErr{404}, FailureFatal},
		{"other StatusCode type 502", &statusErr{502}, FailureInfra},
		// Only the server refusals llm.Classify reads (a context length,
		// a rejected parameter, format or schema) change a status's
		// class; other text does not.
		{"typed 500 saying bad request", &llm.StatusError{StatusCode: 500, Message: "bad request upstream"}, FailureInfra},
		{"model-call timeout", fmt.Errorf("llm: %w after 2m0s", llm.ErrTimeout), FailureInfra},
		{"network", fmt.Errorf("llm: %w: connection reset", llm.ErrNetwork), FailureInfra},
		{"malformed answer", fmt.Errorf("llm: %w: invalid character", llm.ErrMalformed), FailureInfra},
		{"canceled", fmt.Errorf("runner: %w", context.Canceled), FailureInfra},
		{"deadline", context.DeadlineExceeded, FailureInfra},
		{"net.OpError", &net.OpError{Op: "dial", Err: errors.New("refused")}, FailureInfra},
		{"database open", &dbOpenError{err: errors.New("disk I/O error")}, FailureInfra},
		{"connection refused (errno)", fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), FailureInfra},
		// The message does not decide: an untyped error is the runner's.
		{"untyped connection message", errors.New("dial tcp: connection refused"), FailureUnknown},
		{"runner's own error", errors.New("steinersql: empty schema graph"), FailureUnknown},
		{"sim error", errors.New("sim: no responder for role x"), FailureUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FailureOf(tt.err); got != tt.want {
				t.Errorf("FailureOf(%v) = %d; want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestParseFailureLimit(t *testing.T) {
	tests := []struct {
		in      string
		allowed int // of 200 items
		bad     bool
	}{
		{"0", 0, false},
		{"25", 25, false},
		{"0.1", 20, false}, // floor(0.1 * 200)
		{"0.004", 0, false},
		{"-1", 0, true},
		{"1.5", 0, true},
		{"0.0", 0, true},
		{"ten", 0, true},
	}
	for _, tt := range tests {
		l, err := ParseFailureLimit(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseFailureLimit(%q): err %v; want error %v", tt.in, err, tt.bad)
			continue
		}
		if !tt.bad && l.Allowed(200) != tt.allowed {
			t.Errorf("ParseFailureLimit(%q).Allowed(200) = %d; want %d", tt.in, l.Allowed(200), tt.allowed)
		}
	}
	if (FailureLimit{}).Allowed(10) != -1 {
		t.Errorf("zero FailureLimit allows %d; want -1 (no limit)", (FailureLimit{}).Allowed(10))
	}
}

// errClient fails the requests whose prompt holds one of the marked
// questions with err, and forwards the others.
type errClient struct {
	llm.Client
	err   error
	marks []string
	mu    sync.Mutex // guards calls: the scheduler's workers call at once
	calls map[string]int
}

func (c *errClient) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	for _, m := range c.marks {
		if strings.Contains(prompt, m) {
			c.mu.Lock()
			c.calls[m]++
			c.mu.Unlock()
			return nil, c.err
		}
	}
	return c.Client.Complete(ctx, req)
}

// marked returns the question texts of questions 0, 10, 20, ... of the
// fake benchmark (a tenth of them), whose requests errClient fails.
func marked(n int) []string {
	var out []string
	for i := 0; i < n; i += 10 {
		out = append(out, fmt.Sprintf("question number %d?", i))
	}
	return out
}

func TestPermanentFailureCountsWrong(t *testing.T) {
	p := mustPlan(t, directFakeSpec)
	var ec *errClient
	env, _ := testEnv(40, 1, func(c llm.Client) llm.Client {
		ec = &errClient{Client: c, err: fmt.Errorf("direct: %w", &llm.StatusError{StatusCode: 400, Message: "context length exceeded"}),
			marks: marked(40), calls: map[string]int{}}
		return ec
	})
	dir := t.TempDir()
	sum, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 4 of 40 questions fail for good; the model answers the other 36
	// right (p = 1): EX = 36/40 exactly.
	if sum.Done != 36 || sum.Failed != 4 || sum.Errored != 0 || sum.Attempted != 40 || sum.Correct != 36 || sum.EX() != 36.0/40 {
		t.Errorf("progress %+v; want 36 done, 4 failed, 40 attempted, EX 36/40", sum.Progress)
	}
	for m, n := range ec.calls {
		if n != 1 {
			t.Errorf("%q asked %d times; want 1 (a 400 is never retried)", m, n)
		}
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range r.Trials[0].Items {
		if it.Status != runstore.StatusFailed {
			continue
		}
		if it.ErrorClass != "bad_request" || !strings.Contains(it.Error, "context length exceeded") || it.Verdict == nil || it.Verdict.Correct || it.Attempts != 1 {
			t.Errorf("%s: class %q error %q verdict %+v attempts %d; want bad_request, the message, a wrong verdict, 1 attempt",
				it.QuestionID, it.ErrorClass, it.Error, it.Verdict, it.Attempts)
		}
	}
	s := runstore.Summarize(r)[0]
	if s.Failed != 4 || s.Attempted != 40 || s.Correct != 36 || s.EX != 36.0/40 || s.Pending != 0 || s.Partial {
		t.Errorf("summary %+v; want 4 failed, EX 36/40 of 40 attempted, nothing pending", s)
	}
	// Resume never retries a failed item.
	sum2, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Total != 0 || sum2.Skipped != 40 {
		t.Errorf("resume: total %d skipped %d; want 0, 40", sum2.Total, sum2.Skipped)
	}
}

func TestInfraFailureStaysPending(t *testing.T) {
	p := mustPlan(t, "benchmarks: [{name: fake}]\nmodels:\n  m: {backend: sim}\nroles: {reason: m}\nrunners: [{name: direct}]\n")
	fail := true
	env, _ := testEnv(20, 1, func(c llm.Client) llm.Client {
		if !fail {
			return c
		}
		return &errClient{Client: c, err: fmt.Errorf("direct: %w (gave up after 3 attempts)", &llm.StatusError{StatusCode: 503}),
			marks: marked(20), calls: map[string]int{}}
	})
	dir := t.TempDir()
	sum, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 18 || sum.Errored != 2 || sum.Failed != 0 || sum.Attempted != 18 {
		t.Errorf("progress %+v; want 18 done, 2 errored, 0 failed, 18 attempted", sum.Progress)
	}
	r, _ := runstore.ReadRun(dir, false)
	if s := runstore.Summarize(r)[0]; s.Pending != 2 || s.Errored != 2 || !s.Partial || s.Attempted != 18 {
		t.Errorf("summary %+v; want 2 pending (errored), partial, 18 attempted", s)
	}
	fail = false
	sum2, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Total != 2 || sum2.Done != 2 {
		t.Errorf("resume: total %d done %d; want the 2 errored items retried and done", sum2.Total, sum2.Done)
	}
}

func TestAuthErrorStopsRun(t *testing.T) {
	p := mustPlan(t, directFakeSpec)
	env, _ := testEnv(20, 1, func(c llm.Client) llm.Client {
		return &errClient{Client: c, err: &llm.StatusError{StatusCode: 401, Message: "invalid api key"}, marks: []string{"question number 5?"}, calls: map[string]int{}}
	})
	dir := t.TempDir()
	_, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v; want the run stopped by the 401", err)
	}
	r, _ := runstore.ReadRun(dir, false)
	for _, it := range r.Trials[0].Items {
		if it.QuestionID == "q005" || it.Status != runstore.StatusDone {
			t.Errorf("%s committed as %s; want only done items, q005 left pending", it.QuestionID, it.Status)
		}
	}
}

func TestMaxFailuresStopsRun(t *testing.T) {
	p := mustPlan(t, directFakeSpec)
	env, _ := testEnv(100, 1, func(c llm.Client) llm.Client {
		return &errClient{Client: c, err: &llm.StatusError{StatusCode: 400}, marks: marked(100), calls: map[string]int{}}
	})
	tests := []struct {
		limit      string
		stop       bool
		wantFailed int
	}{
		{"2", true, 3},       // stops at the third failure (question 20)
		{"0.02", true, 3},    // floor(0.02 * 100) = 2 allowed
		{"10", false, 10},    // 10 failures are allowed: runs to the end
		{"0.1", false, 10},   // floor(0.1 * 100) = 10
		{"0.05", true, 6},    // 5 allowed
		{"0", true, 1},       // the first failure stops it
		{"0.999", false, 10}, // 99 allowed
	}
	for _, tt := range tests {
		t.Run(tt.limit, func(t *testing.T) {
			l, err := ParseFailureLimit(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := runOnce(t, t.TempDir(), p, env, Options{MaxFailures: l})
			if tt.stop != errors.Is(err, ErrTooManyFailures) || (!tt.stop && err != nil) {
				t.Fatalf("err = %v; want stopped %v", err, tt.stop)
			}
			if sum.Failed != tt.wantFailed {
				t.Errorf("failed = %d; want %d", sum.Failed, tt.wantFailed)
			}
		})
	}
}
