package bench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestDefaultEnvRedactsAPIKey: DefaultEnv wraps the OpenAI backend's cache
// with llm.WithRedact over the spec's secrets, so the request the cache
// keeps (its messages, shown by the viewer) does not hold the key, while
// the answer that echoes it (a prompt injection or a server bug) reaches
// the runner and the cache as the server sent it: the answer is scored
// as the model gave it, and commands hide the key when they display it
// (RunData.Redactor). Until answers were kept whole, the answer and the
// cache file held "[REDACTED]" in its place.
func TestDefaultEnvRedactsAPIKey(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	t.Setenv("T2SBENCH_TEST_REDACT_KEY", key)
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "my key is " + key + "\n```sql\nSELECT 1\n```", ReasoningContent: "the header said " + key}
	}})
	env, closeEnv := DefaultEnv()
	cacheDir := t.TempDir()
	m := spec.ModelSpec{Backend: "openai", BaseURL: srv.BaseURL(), Model: "m", APIKeyEnv: "T2SBENCH_TEST_REDACT_KEY"}
	c, err := env.NewClient(context.Background(), "m", m, nil, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: "the key " + key + " is in the prompt"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Choices[0], key) || !strings.Contains(resp.ReasoningOf(0), key) {
		t.Errorf("answer %q / reasoning %q; want them as the server sent them", resp.Choices[0], resp.ReasoningOf(0))
	}
	if err := closeEnv(); err != nil {
		t.Fatal(err)
	}
	rd, err := llm.OpenCacheReader(filepath.Join(cacheDir, runstore.ModelCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	call, err := rd.Call(context.Background(), resp.CacheKey, 1)
	if err != nil {
		t.Fatal(err)
	}
	if call.Request == nil || call.Request.Messages[0].Content != "the key [REDACTED] is in the prompt" {
		t.Errorf("stored request %+v; want the key redacted from its messages", call.Request)
	}
	if !strings.Contains(call.Samples[0].Answer, key) {
		t.Errorf("stored answer %q; want it as the server sent it", call.Samples[0].Answer)
	}
}
