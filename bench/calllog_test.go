package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestCallCacheKey checks model_calls.cache_key end to end in the store:
// a store made before the column existed reads "" (read-only, not
// migrated), OpenStore adds the column, CallFinished and Commit write the
// key, ItemReader and ReadRun read it, and Merge carries it for loose and
// committed calls alike.
func TestCallCacheKey(t *testing.T) {
	shard, out := t.TempDir(), t.TempDir()
	testkit.SQLiteAt(t, filepath.Join(shard, runstore.StoreFile),
		`PRAGMA journal_mode = WAL`, // as every store is
		`CREATE TABLE model_calls (id INTEGER PRIMARY KEY AUTOINCREMENT, trial_id TEXT NOT NULL, question_id TEXT NOT NULL, session INTEGER NOT NULL,
			role TEXT, n INTEGER, cached INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, latency_ms REAL, error TEXT,
			state TEXT NOT NULL DEFAULT 'done')`,
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE trials (id TEXT PRIMARY KEY, label TEXT NOT NULL, runner TEXT NOT NULL, benchmark TEXT NOT NULL,
			seed INTEGER NOT NULL, ord INTEGER NOT NULL, simulated INTEGER NOT NULL, config TEXT NOT NULL, created TEXT NOT NULL)`,
		`CREATE TABLE items (trial_id TEXT NOT NULL, question_id TEXT NOT NULL, idx INTEGER NOT NULL, status TEXT NOT NULL,
			correct INTEGER, verdict TEXT, result TEXT, error_class TEXT, error TEXT, attempts INTEGER NOT NULL,
			started TEXT, wall_ms REAL, session INTEGER NOT NULL, PRIMARY KEY (trial_id, question_id))`,
		`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error)
			VALUES ('t', 'q0', 1, 'reason', 1, 0, 100, 20, 5, '')`,
	)
	ctx := context.Background()
	rd, err := runstore.OpenItemReader(shard)
	if err != nil {
		t.Fatal(err)
	}
	old, err := rd.QuestionCalls(ctx, "q0")
	rd.Close()
	if err != nil || len(old["t"]) != 1 || old["t"][0].CacheKey != "" || old["t"][0].PromptTokens != 100 {
		t.Fatalf("old store: %+v, %v; want one call without a cache key", old, err)
	}

	st, err := runstore.OpenStore(shard)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CallStarted("t", "q1", runstore.Call{Role: "reason", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CallFinished(id, runstore.Call{Role: "reason", N: 2, Cached: true, CacheKey: "k-loose"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(&runstore.Item{TrialID: "t", QuestionID: "q2", Status: runstore.StatusDone, Attempts: 1,
		Calls: []runstore.Call{{Role: "reason", N: 1, CacheKey: "k-item"}, {Role: "reason", N: 1}}}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	if _, err := runstore.Merge(out, shard); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{shard, out} {
		rd, err := runstore.OpenItemReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		if err := rd.EachCall(ctx, func(c runstore.ItemCall) error { keys = append(keys, c.QuestionID+"="+c.CacheKey); return nil }); err != nil {
			t.Fatal(err)
		}
		q2, err := rd.QuestionCalls(ctx, "q2")
		rd.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, k := range keys {
			got[k] = true
		}
		for _, want := range []string{"q0=", "q1=k-loose", "q2=k-item", "q2="} {
			if !got[want] {
				t.Errorf("%s: call log %v; want %s", filepath.Base(dir), keys, want)
			}
		}
		if len(q2["t"]) != 2 || q2["t"][0].CacheKey != "k-item" || q2["t"][1].CacheKey != "" {
			t.Errorf("%s: QuestionCalls(q2) = %+v; want k-item then none", filepath.Base(dir), q2)
		}
	}
}

// TestSetSpecText checks that the spec's text is stored with the secrets
// redacted.
func TestSetSpecText(t *testing.T) {
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetSpecText("models: {gpt: {api_key: sk-live-123}}\n", []string{"sk-live-123", "x"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Meta[runstore.MetaSpec], "models: {gpt: {api_key: [REDACTED]}}\n"; got != want {
		t.Errorf("meta spec = %q; want %q", got, want)
	}
}
