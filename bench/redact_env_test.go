package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestDefaultEnvRedactsAPIKey: a model answer that echoes the API key (a
// prompt-injection or a server bug) reaches neither the runner nor the
// model cache on disk: DefaultEnv wraps the OpenAI backend's cache with
// llm.WithRedact over the spec's secrets.
func TestDefaultEnvRedactsAPIKey(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	t.Setenv("T2SBENCH_TEST_REDACT_KEY", key)
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "my key is " + key + "\n```sql\nSELECT 1\n```", ReasoningContent: "the header said " + key}
	}})
	env, closeEnv := DefaultEnv()
	cacheDir := t.TempDir()
	m := ModelSpec{Backend: "openai", BaseURL: srv.BaseURL(), Model: "m", APIKeyEnv: "T2SBENCH_TEST_REDACT_KEY"}
	c, err := env.NewClient(context.Background(), "m", m, nil, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Choices[0], key) || strings.Contains(resp.ReasoningOf(0), key) {
		t.Errorf("answer %q / reasoning %q carries the API key; want it redacted", resp.Choices[0], resp.ReasoningOf(0))
	}
	if err := closeEnv(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*"))
	if len(files) == 0 {
		t.Fatal("no model cache written")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the API key; want it redacted before storing", f)
		}
	}
}
