package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// echoClient answers like a model that repeats the API key it was shown:
// in the SQL (a string literal), around it in prose, and in a reasoning
// block.
type echoClient struct{ key string }

func (e echoClient) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	resp := &llm.Response{Model: "echo", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}
	for range req.Samples() {
		resp.Choices = append(resp.Choices, "<think>the key is "+e.key+"</think>Here you go ("+e.key+"):\n```sql\nSELECT '"+e.key+"'\n```")
	}
	return resp, nil
}

// TestRunRedactsEchoedKey runs direct, cot and sc against a model that
// echoes the key named by the spec's api_key_env, and checks that no file
// of the run directory holds the key while the results hold the
// redaction mark.
func TestRunRedactsEchoedKey(t *testing.T) {
	const key = "sk-t2sbench-echo-KEY-42c1"
	t.Setenv("T2SBENCH_TEST_ECHO_KEY", key)
	p := mustPlan(t, `name: echo
benchmarks: [{name: fake}]
models:
  m: {backend: openai, base_url: "http://127.0.0.1:1/v1", model: x, api_key_env: T2SBENCH_TEST_ECHO_KEY}
roles: {reason: m}
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 3}
`)
	env, _ := testEnv(5, 1, func(llm.Client) llm.Client { return echoClient{key: key} })
	dir := t.TempDir()
	if _, err := runOnce(t, dir, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			if it.Result != nil && strings.Contains(it.Result.SQL, "[REDACTED]") {
				marked++
			}
		}
	}
	if marked != 15 {
		t.Errorf("results with the redaction mark in their SQL = %d; want 15 (3 trials x 5 questions)", marked)
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("key found in %s", path)
		}
		return nil
	})
}

func TestRedactResult(t *testing.T) {
	const k = "secret-123"
	r := runners.Result{
		SQL:        "SELECT '" + k + "'",
		Note:       "note " + k,
		Candidates: []runners.Candidate{{SQL: "SELECT 1 -- " + k, Group: k}},
		Trace: runners.Trace{
			Steps: []runners.Step{{Input: k, Output: "out " + k, Info: map[string]any{"raw": k, "list": []any{"a", k}, "n": 3}}},
			Data:  map[string]any{"tree": map[string]any{"node": []string{k}}},
		},
	}
	redactResult(&r, []string{k})
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), k) {
		t.Errorf("redacted result still holds the secret: %s", buf.String())
	}
	if got := strings.Count(buf.String(), "[REDACTED]"); got != 9 {
		t.Errorf("redaction marks = %d; want 9 (one per occurrence)\n%s", got, buf.String())
	}
}
