package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/viewer"
)

// questionFile decodes a question file (data/q/N.js) as the page reads it.
func questionFile(t *testing.T, raw []byte) viewer.Question {
	t.Helper()
	i, j := bytes.IndexByte(raw, ','), bytes.LastIndexByte(raw, ')')
	if !bytes.HasPrefix(raw, []byte("T2S.question(")) || i < 0 || j < i {
		t.Fatalf("question file %.60q: not a T2S.question call", raw)
	}
	var q viewer.Question
	if err := json.Unmarshal(raw[i+1:j], &q); err != nil {
		t.Fatalf("question file: %v", err)
	}
	return q
}

// TestQuestionCallsFromCache runs the mini benchmark with the sim backend
// and its cache (miniRun) and checks each question file's calls against
// the model cache itself: every call names its cache entry, and the file
// holds the request's messages and every sample's answer, reasoning and
// finish reason as the cache stores them.
func TestQuestionCallsFromCache(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir)
	ctx := context.Background()
	cache, err := llm.OpenCacheReader(filepath.Join(dir, "cache", runstore.ModelCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	if got := v.Index().Runs[0].ModelCache; got != filepath.Join(dir, "cache", runstore.ModelCacheFile) {
		t.Errorf("index model cache %q; want the run's cache/models.db", got)
	}
	calls, messages, samples := 0, 0, 0
	for _, n := range []int{0, 1, 17} {
		raw, err := v.QuestionScript(ctx, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := questionFile(t, raw)
		for _, it := range q.Items {
			label := v.Index().Trials[it.T].Label
			for k, c := range it.Calls {
				calls++
				if c.CacheKey == "" || c.Missing != "" {
					t.Errorf("q%d %s call %d: cache key %q, missing %q; want a key and nothing missing", n, label, k, c.CacheKey, c.Missing)
					continue
				}
				want, err := cache.Call(ctx, c.CacheKey, c.N)
				if err != nil {
					t.Fatal(err)
				}
				if len(c.Messages) != len(want.Request.Messages) || len(c.Messages) == 0 {
					t.Errorf("q%d %s call %d: got %d messages; want %d (> 0)", n, label, k, len(c.Messages), len(want.Request.Messages))
					continue
				}
				for i, m := range c.Messages {
					messages++
					w := want.Request.Messages[i]
					if m.Role != w.Role || m.Text(q.Texts) != w.Content || m.Cut || m.Len != len(w.Content) {
						t.Errorf("q%d %s call %d message %d: got %s %.80q (cut %v); want %s %.80q", n, label, k, i, m.Role, m.Text(q.Texts), m.Cut, w.Role, w.Content)
					}
				}
				if len(c.Samples) != c.N {
					t.Errorf("q%d %s call %d: got %d samples; want n = %d", n, label, k, len(c.Samples), c.N)
					continue
				}
				for i, s := range c.Samples {
					samples++
					w := want.Samples[i]
					if !s.Found || s.Answer != w.Answer || s.Reasoning != w.Reasoning || s.Finish != w.Finish || s.CompletionTokens != w.CompletionTokens {
						t.Errorf("q%d %s call %d sample %d: got %+v; want %+v", n, label, k, i, s, w)
					}
				}
			}
		}
	}
	// Every runner of miniSpec calls the model on every question.
	if calls < 3*7 || messages < calls || samples < calls {
		t.Errorf("checked %d calls, %d messages, %d samples; want at least 21 calls and as many messages and samples", calls, messages, samples)
	}
	t.Logf("%d calls, %d messages, %d samples equal to the cache", calls, messages, samples)
}

// TestQuestionCallsWithoutCache: a run whose model cache is gone shows
// the calls of the call log and says why their messages are missing; a
// call the log holds no key for is "not cached: prompt not kept"; and
// Options.ModelCache finds a cache moved elsewhere.
func TestQuestionCallsWithoutCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := `
name: calls-nocache
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners: [{name: direct}]
`
	if err := runSpec(t, spec, dir); err != nil {
		t.Fatal(err)
	}
	// The cache moves away (the run closed it: no -wal file is left).
	moved := filepath.Join(t.TempDir(), "elsewhere.db")
	if err := os.Rename(filepath.Join(dir, "cache", runstore.ModelCacheFile), moved); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"-wal", "-shm"} {
		os.Remove(filepath.Join(dir, "cache", runstore.ModelCacheFile+f))
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	trial, question := r.Trials[0].ID, r.Trials[0].Items[0].QuestionID
	// A call made with no cache configured: the log holds no key.
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CallStarted(trial, question, runstore.Call{Role: "reason", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CallFinished(id, runstore.Call{Role: "reason", N: 1, PromptTokens: 9}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	v := openViewer(t, dir)
	if w := strings.Join(v.Index().Warnings, "\n"); !strings.Contains(w, "not found") {
		t.Errorf("warnings %q; want the missing model cache named", w)
	}
	q, err := v.Question(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 1 || len(q.Items[0].Calls) == 0 {
		t.Fatalf("items %+v; want one item with calls", q.Items)
	}
	calls := q.Items[0].Calls
	if q.ID != question || len(calls) < 2 {
		t.Fatalf("question %s, calls %+v; want %s with the run's call and the added one", q.ID, calls, question)
	}
	for _, c := range calls[:len(calls)-1] {
		if !strings.Contains(c.Missing, "model cache not available") || len(c.Messages) != 0 || c.CacheKey == "" {
			t.Errorf("call %+v; want a key, no messages and the missing cache said", c)
		}
	}
	if last := calls[len(calls)-1]; last.Missing != "not cached: prompt not kept" || last.PromptTokens != 9 {
		t.Errorf("keyless call %+v; want \"not cached: prompt not kept\"", last)
	}
	// Options.ModelCache (view --model-cache) points at the moved file.
	v2, err := viewer.Open(context.Background(), []string{dir}, viewer.Options{Benchmark: openBenchmark(dir), ModelCache: moved})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	q2, err := v2.Question(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range q2.Items[0].Calls[:len(calls)-1] {
		if len(c.Messages) == 0 || len(c.Samples) == 0 || c.Missing != "" {
			t.Errorf("with --model-cache: call %+v; want messages and samples", c)
		}
	}
}
