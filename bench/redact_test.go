package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
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
// echoes the key named by the spec's api_key_env. The answers are scored
// and stored as the model wrote them (every result's SQL holds the key:
// rewriting an answer would score something the model did not say), and
// the run's display redactor (RunData.Redactor, what status, export and
// the viewer apply) hides the key in every one of them. Until answers
// were kept whole, the store held "[REDACTED]" in each SQL instead.
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
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	red := r.Redactor()
	raw, shown := 0, 0
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			if it.Result == nil {
				continue
			}
			if it.Result.SQL == "SELECT '"+key+"'" {
				raw++
			}
			res := *it.Result
			red.Value(&res)
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(res); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), key) {
				t.Errorf("displayed result of %s/%s still holds the key: %s", tr.Label, it.QuestionID, buf.String())
			}
			if res.SQL == "SELECT '[REDACTED]'" {
				shown++
			}
		}
	}
	if raw != 15 || shown != 15 {
		t.Errorf("results storing the answer as sent = %d, displayed with the mark = %d; want 15 and 15 (3 trials x 5 questions)", raw, shown)
	}
	if spec := r.Meta[runstore.MetaSpec]; strings.Contains(spec, key) {
		t.Errorf("stored spec holds the key: %s", spec)
	}
}
