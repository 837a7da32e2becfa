package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// echoKey is a real-looking API key a model echoes in test answers.
const echoKey = "sk-t2sbench-live-0123456789abcdef"

// keyBenchmark has four questions over one SQLite database whose table t
// holds the words the tests' keys could rewrite: case 0 asks for 'EMPTY',
// case 1 for 'department', case 2 is answered by the server with an HTTP
// 400 whose message names a column "department" (and echoes echoKey),
// case 3's gold selects the row holding echoKey.
func keyBenchmark(t *testing.T) *datasets.Benchmark {
	path := testkit.SQLite(t, `CREATE TABLE t (v TEXT)`,
		`INSERT INTO t VALUES ('EMPTY'), ('department'), ('other'), ('`+echoKey+`')`)
	golds := []string{
		`SELECT v FROM t WHERE v = 'EMPTY'`,
		`SELECT v FROM t WHERE v = 'department'`,
		`SELECT v FROM t WHERE v = 'other'`,
		`SELECT v FROM t WHERE v LIKE 'sk-%'`,
	}
	b := &datasets.Benchmark{Name: "keys", Mode: "spider",
		Engine: datasets.NewSQLiteEngine(func(id string) (string, bool) { return path, id == "db" }, datasets.SQLiteOptions{})}
	for i, g := range golds {
		b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprint(i), Index: i, DBID: "db",
			Question: fmt.Sprintf("Which value does case %d ask for?", i), GoldSQL: g})
	}
	return b
}

// keyServer answers each case of keyBenchmark as a model that gets it
// right: cases 0 and 1 with their gold SQL, case 3 with a literal of the
// key it read somewhere, `SELECT '<echoKey>'` (the same single value as
// the gold's), and case 2 with an HTTP 400.
func keyServer(t *testing.T, b *datasets.Benchmark) string {
	answer := func(req *fakeopenai.Request) string {
		for _, m := range req.Messages {
			for i, ex := range b.Examples {
				if strings.Contains(m.Content, ex.Question) {
					if i == 3 {
						return "SELECT '" + echoKey + "'"
					}
					return ex.GoldSQL
				}
			}
		}
		return "SELECT 'not found'"
	}
	fake := fakeopenai.NewUnstarted(fakeopenai.Options{Responder: func(req *fakeopenai.Request, _ fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "```sql\n" + answer(req) + "\n```"}
	}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(b.Examples[2].Question)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
				"message": "column department does not exist (request key " + echoKey + ")", "type": "invalid_request_error"}})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestKeyNeverRewritesAnswer runs the direct runner through the real
// client, model cache and scorer (DefaultEnv's) against keyServer with
// three API keys. With vLLM's placeholder EMPTY the answer holding 'EMPTY'
// is scored correct; with a one-letter key "department" survives in the
// prediction and in the error text; with a real key echoed in an answer
// the answer is stored and scored as sent (correct) and shown redacted,
// and the key is redacted from the error text. Before keys were checked
// and answers kept whole, the client and the cache replaced the key
// wherever it occurred: 'EMPTY' became '[REDACTED]' (wrong), "department"
// became "dep[REDACTED]rtment" (wrong, and so in the error), and the
// echoed key's answer read SELECT '[REDACTED]' (wrong).
func TestKeyNeverRewritesAnswer(t *testing.T) {
	tests := []struct {
		name, key string
	}{
		{"placeholder EMPTY", "EMPTY"},
		{"one-letter key", "a"},
		{"real key", echoKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("T2SBENCH_TEST_KEY_SCORE", tt.key)
			b := keyBenchmark(t)
			url := keyServer(t, b)
			def, closeEnv := DefaultEnv()
			defer closeEnv()
			env := def
			env.OpenBenchmark = func(context.Context, spec.BenchmarkSpec, string) (*datasets.Benchmark, error) { return b, nil }
			p := mustPlan(t, fmt.Sprintf(`name: keys
benchmarks: [{name: keys}]
models:
  m: {backend: openai, base_url: %q, model: x, api_key_env: T2SBENCH_TEST_KEY_SCORE, max_retries: 0}
roles: {reason: m}
workers: 1
runners: [{name: direct}]
`, url))
			dir := t.TempDir()
			if _, err := runOnce(t, dir, p, env, Options{CacheDir: filepath.Join(dir, "cache")}); err != nil {
				t.Fatal(err)
			}
			r, err := runstore.ReadRun(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			items := map[string]runstore.Item{}
			for _, it := range r.Trials[0].Items {
				items[it.QuestionID] = it
			}
			for _, q := range []string{"0", "1", "3"} {
				it := items[q]
				if it.Verdict == nil || !it.Verdict.Correct {
					t.Errorf("case %s: verdict %+v, SQL %q; want correct", q, it.Verdict, sqlOf(it))
				}
			}
			if got := sqlOf(items["1"]); !strings.Contains(got, "'department'") {
				t.Errorf("case 1: prediction %q; want 'department' as the model wrote it", got)
			}
			if got := sqlOf(items["3"]); got != "SELECT '"+echoKey+"'" {
				t.Errorf("case 3: stored prediction %q; want the answer as the model sent it", got)
			}
			failed := items["2"]
			if failed.Status != runstore.StatusFailed || !strings.Contains(failed.Error, "column department does not exist") {
				t.Errorf("case 2: %s, error %q; want failed, with the server's message intact", failed.Status, failed.Error)
			}
			red := r.Redactor()
			shown := red.Redact(sqlOf(items["3"]))
			if tt.key == echoKey {
				if shown != "SELECT '[REDACTED]'" {
					t.Errorf("case 3 displayed as %q; want the key redacted", shown)
				}
				if strings.Contains(failed.Error, echoKey) || !strings.Contains(failed.Error, "[REDACTED]") {
					t.Errorf("case 2: error %q; want the key redacted", failed.Error)
				}
			}
		})
	}
}

func sqlOf(it runstore.Item) string {
	if it.Result == nil {
		return ""
	}
	return it.Result.SQL
}
