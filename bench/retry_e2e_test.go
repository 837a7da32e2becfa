package bench_test

import (
	"fmt"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestRunOneRetryLoop: a real run (DefaultEnv, the bundled mini benchmark,
// the direct runner: one model call per item) of one item whose model
// server keeps failing. The backend is the one retry loop: the server sees
// exactly 1 + max_retries requests for a retryable failure and 1 for
// malformed JSON, however many item retries the scheduler allows
// (Options.Retries 2 here; with the two loops nested the retryable cases
// sent 3 * 3 = 9 requests and malformed JSON 3). The item is left pending
// (StatusError) after one attempt, with the failure's class.
func TestRunOneRetryLoop(t *testing.T) {
	t.Parallel()
	const maxRetries = 2
	tests := []struct {
		name     string
		fault    fakeopenai.Fault
		requests int
		class    string
	}{
		{"429 with Retry-After", fakeopenai.TooManyRequests("0.01"), 1 + maxRetries, "rate_limited"},
		{"500", fakeopenai.Status(500, "internal error"), 1 + maxRetries, "server_error"},
		{"truncated body", fakeopenai.Truncated(), 1 + maxRetries, "network"},
		{"connection reset", fakeopenai.Reset(), 1 + maxRetries, "network"},
		{"malformed JSON", fakeopenai.Malformed(), 1, "malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Options{})
			srv.FailN(tc.fault, 20)
			spec := fmt.Sprintf(`name: retry
benchmarks: [{name: mini}]
models:
  l: {backend: openai, base_url: %s, model: m, max_retries: %d}
roles: {reason: l}
workers: 1
runners: [{name: direct}]
`, srv.BaseURL(), maxRetries)
			dir := t.TempDir()
			p := benchkit.Plan(t, benchkit.Spec(t, spec, "retry.yaml"))
			sum, err := benchkit.Run(t, dir, p, bench.Options{Limit: 1, Retries: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.Calls(); got != tc.requests {
				t.Errorf("requests to the server: got %d; want %d", got, tc.requests)
			}
			if sum.Total != 1 || sum.Errored != 1 {
				t.Fatalf("items: %d of %d errored; want the 1 item errored", sum.Errored, sum.Total)
			}
			run, err := runstore.ReadRun(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			it := run.Trials[0].Items[0]
			if it.Status != runstore.StatusError || it.ErrorClass != tc.class || it.Attempts != 1 || len(it.Calls) != 1 {
				t.Errorf("item: status %q class %q attempts %d calls %d; want %q, %q, 1 attempt, 1 call",
					it.Status, it.ErrorClass, it.Attempts, len(it.Calls), runstore.StatusError, tc.class)
			}
		})
	}
}
