package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestEchoedKeyRedactedOnDisplay: a model echoes its API key in the SQL of
// mini's first question, and its server answers the second with an HTTP
// 400 whose message echoes the key. The store keeps the answer as sent
// (it was scored so); export writes the prediction with the key as
// [REDACTED] and says so, and status prints the second item's error with
// the key redacted.
func TestEchoedKeyRedactedOnDisplay(t *testing.T) {
	const key = "sk-t2sbench-export-0123456789abcdef"
	t.Setenv("T2SBENCH_TEST_EXPORT_KEY", key)
	fake := fakeopenai.NewUnstarted(fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "```sql\nSELECT '" + key + "'\n```"}
	}})
	second := "List the titles of courses that have no instructor assigned yet."
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(second)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error": {"message": "prompt rejected for key %s", "type": "invalid_request_error"}}`, key)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	spec := fmt.Sprintf(`name: export-key
benchmarks: [{name: mini}]
models:
  m: {backend: openai, base_url: %q, model: x, api_key_env: T2SBENCH_TEST_EXPORT_KEY, max_retries: 0}
roles: {reason: m}
workers: 1
runners: [{name: direct}]
`, srv.URL+"/v1")
	dir := t.TempDir()
	if _, err := benchkit.Run(t, dir, benchkit.Plan(t, benchkit.Spec(t, spec, "spec.yaml")), bench.Options{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Trials[0].Items[0].Result.SQL; got != "SELECT '"+key+"'" {
		t.Fatalf("stored SQL %q; want the answer as the model sent it", got)
	}
	var stdout, stderr bytes.Buffer
	if code := runMain(&stdout, &stderr, []string{"export", dir, "--format", "jsonl"}); code != exitOK {
		t.Fatalf("export: exit %d\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), key) || !strings.Contains(stdout.String(), `"sql":"SELECT '[REDACTED]'"`) {
		t.Errorf("export output:\n%s\nwant the prediction with the key redacted", stdout.String())
	}
	if !strings.Contains(stderr.String(), "warning: 1 predictions hold an API key") {
		t.Errorf("export stderr %q; want a warning naming the redacted prediction", stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := runMain(&stdout, &stderr, []string{"status", dir}); code != exitOK {
		t.Fatalf("status: exit %d\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), key) || !strings.Contains(stdout.String(), "prompt rejected for key [REDACTED]") {
		t.Errorf("status output:\n%s\nwant the failed item's error with the key redacted", stdout.String())
	}
}
