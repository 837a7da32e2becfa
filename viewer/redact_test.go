package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestViewerRedactsEchoedKey: a model that echoes its API key in its
// answer and its reasoning has them stored as sent (the run's store and
// model cache keep what the server returned); the viewer's question data
// (item SQL, result preview, the calls' cached answers and reasoning)
// shows the key as [REDACTED], whether the key's variable is set when the
// viewer runs (the run's credentials) or not (the key looks like one).
func TestViewerRedactsEchoedKey(t *testing.T) {
	const key = "sk-t2sbench-view-0123456789abcdef"
	t.Setenv("T2SBENCH_TEST_VIEW_KEY", key)
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "```sql\nSELECT '" + key + "'\n```", ReasoningContent: "the key is " + key}
	}})
	spec := fmt.Sprintf(`name: view-key
benchmarks: [{name: mini}]
models:
  m: {backend: openai, base_url: %q, model: x, api_key_env: T2SBENCH_TEST_VIEW_KEY}
roles: {reason: m}
runners: [{name: direct}]
`, srv.BaseURL())
	dir := t.TempDir()
	if _, err := benchkit.Run(t, dir, benchkit.Plan(t, benchkit.Spec(t, spec, "spec.yaml")), bench.Options{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	rd, err := runstore.OpenItemReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	it, ok, err := rd.Item(context.Background(), r.Trials[0].ID, r.Trials[0].Items[0].QuestionID)
	rd.Close()
	if err != nil || !ok || it.Result.SQL != "SELECT '"+key+"'" {
		t.Fatalf("stored item %+v, %v, %v; want the answer as the model sent it", it, ok, err)
	}
	for _, env := range []string{key, ""} {
		t.Run(fmt.Sprintf("key set %v", env != ""), func(t *testing.T) {
			t.Setenv("T2SBENCH_TEST_VIEW_KEY", env)
			v := openViewer(t, dir)
			q, err := v.Question(context.Background(), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(q)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), key) {
				t.Errorf("question data holds the key:\n%s", raw)
			}
			if q.Items[0].SQL != "SELECT '[REDACTED]'" {
				t.Errorf("item SQL %q; want the key redacted", q.Items[0].SQL)
			}
			if p := q.Items[0].Preview; p == nil || len(p.Rows) != 1 || p.Rows[0][0] != "[REDACTED]" {
				t.Errorf("preview %+v; want its one cell redacted", p)
			}
			if len(q.Items[0].Calls) == 0 || !strings.Contains(string(raw), "the key is [REDACTED]") {
				t.Errorf("calls %+v; want the cached reasoning shown redacted", q.Items[0].Calls)
			}
		})
	}
}
