package bench

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// probeClient calls probe with the question id of each request (the fake
// benchmark's "question number N?") before answering it.
type probeClient struct {
	llm.Client
	probe func(questionID string)
}

func (c *probeClient) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	var i int
	prompt := req.Messages[len(req.Messages)-1].Content
	if k := strings.Index(prompt, "question number "); k >= 0 {
		fmt.Sscanf(prompt[k:], "question number %d?", &i)
	}
	c.probe(fmt.Sprintf("q%03d", i))
	return c.Client.Complete(ctx, req)
}

// roDB opens file path read-only, as another process would.
func roDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sentRows counts the calls of question q another connection sees
// committed in state sent in the store of run directory dir.
func sentRows(t *testing.T, dir, q string) int {
	var n int
	if err := roDB(t, filepath.Join(dir, runstore.StoreFile)).QueryRow(`SELECT count(*) FROM model_calls WHERE question_id = ? AND state = ?`, q, "sent").Scan(&n); err != nil {
		t.Error(err)
	}
	return n
}

// batchedCache opens a model cache in batch mode, its batches committed
// only by Flush (or by the store's commit in a run).
func batchedCache(t *testing.T) (*llm.Cache, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), runstore.ModelCacheFile)
	cache, err := llm.OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	if err := cache.SetBatch(cacheBatchAnswers, time.Hour); err != nil {
		t.Fatal(err)
	}
	return cache, path
}

// TestDurability runs three questions with the store's batches committed
// only when a write asks for it, and checks what another process sees of
// a call when the model gets its request: a server's request leaves only
// once its call row is committed (WithBeforeSend), while a model in the
// process (InProcess) answers with its call row still in the open batch.
func TestDurability(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		inProcess bool
		wantSent  int // committed 'sent' rows of the question when the model gets it
	}{
		{name: "server", wantSent: 1},
		{name: "in process", inProcess: true, wantSent: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, directFakeSpec)
			dir := t.TempDir()
			st, err := runstore.OpenStoreWith(dir, 1000, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cache, _ := batchedCache(t)
			var probes atomic.Int32
			env, _ := testEnv(3, 1, func(c llm.Client) llm.Client {
				probe := &probeClient{Client: c, probe: func(q string) {
					probes.Add(1)
					if got := sentRows(t, dir, q); got != tt.wantSent {
						t.Errorf("question %s: %d committed calls in state sent when the model got the request; want %d", q, got, tt.wantSent)
					}
				}}
				var opts []llm.CacheOption
				if tt.inProcess {
					opts = append(opts, llm.InProcess())
				}
				return llm.Cached(probe, cache, llm.Ident{Backend: "sim", Model: "m"}, opts...)
			})
			if _, err := Run(context.Background(), p, st, env, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := probes.Load(); got != 3 {
				t.Errorf("requests the model got = %d; want 3", got)
			}
		})
	}
}

// TestCacheCommittedFirst runs three questions with the model cache and
// the store both in batch mode: when the store commits the calls, every
// cache key they name is already in the cache's file.
func TestCacheCommittedFirst(t *testing.T) {
	t.Parallel()
	p := mustPlan(t, directFakeSpec)
	dir := t.TempDir()
	st, err := runstore.OpenStoreWith(dir, 1000, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cache, cachePath := batchedCache(t)
	env, _ := testEnv(3, 1, func(c llm.Client) llm.Client {
		return llm.Cached(c, cache, llm.Ident{Backend: "sim", Model: "m"}, llm.InProcess())
	})
	if _, err := Run(context.Background(), p, st, env, Options{}); err != nil {
		t.Fatal(err)
	}
	// The cache is still open, its batch committed only by the store's
	// final commit.
	rows, err := roDB(t, filepath.Join(dir, runstore.StoreFile)).Query(`SELECT cache_key FROM model_calls`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cdb := roDB(t, cachePath)
	n := 0
	for rows.Next() {
		var key []byte // the store keeps the key's 32 bytes
		if err := rows.Scan(&key); err != nil {
			t.Fatal(err)
		}
		n++
		var found int
		if err := cdb.QueryRow(`SELECT count(*) FROM samples WHERE rk = ?`, key).Scan(&found); err != nil {
			t.Fatal(err)
		}
		if len(key) == 0 || found != 1 {
			t.Errorf("call with cache key %x: %d rows in the cache's file; want 1", key, found)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("committed calls = %d; want 3", n)
	}
}
