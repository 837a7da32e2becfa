package llm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// countingClient answers sample i of a call with a text naming the call, so
// a test can tell fresh samples from cached ones.
type countingClient struct {
	calls atomic.Int32
	lastN atomic.Int32
	err   error
}

func (c *countingClient) Complete(ctx context.Context, req Request) (*Response, error) {
	return c.from(req, 0)
}

func (c *countingClient) from(req Request, first int) (*Response, error) {
	k := c.calls.Add(1)
	c.lastN.Store(int32(req.Samples()))
	if c.err != nil {
		return nil, c.err
	}
	r := &Response{Model: "m", Usage: Usage{PromptTokens: 100, CompletionTokens: 7 * req.Samples()}, Latency: time.Duration(k) * time.Millisecond}
	for i := range req.Samples() {
		r.Choices = append(r.Choices, fmt.Sprintf("call%d sample%d T=%g", k, first+i, req.Temperature))
	}
	return r, nil
}

// offsetClient is a countingClient implementing OffsetClient.
type offsetClient struct{ countingClient }

func (c *offsetClient) CompleteFrom(ctx context.Context, req Request, first int) (*Response, error) {
	return c.from(req, first)
}

func openTestCache(t *testing.T) (*Cache, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache.db")
	c, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

var testIdent = Ident{Backend: "openai", BaseURL: "http://localhost:8000/v1", Model: "qwen"}

func TestCacheHit(t *testing.T) {
	cache, _ := openTestCache(t)
	inner := &countingClient{}
	cc := Cached(inner, cache, testIdent)
	ctx := context.Background()
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8, N: 3}
	first, err := cc.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cc.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if inner.calls.Load() != 1 {
		t.Errorf("inner calls = %d; want 1", inner.calls.Load())
	}
	if first.Cached || !second.Cached {
		t.Errorf("Cached = %v, %v; want false, true", first.Cached, second.Cached)
	}
	if fmt.Sprint(first.Choices) != fmt.Sprint(second.Choices) {
		t.Errorf("hit choices %q differ from original %q", second.Choices, first.Choices)
	}
	if second.Usage != first.Usage || second.Latency != first.Latency || second.Model != "m" {
		t.Errorf("hit usage/latency/model = %+v %v %q; want original %+v %v m", second.Usage, second.Latency, second.Model, first.Usage, first.Latency)
	}
	want := CacheStats{Hits: 1, Misses: 1, Stored: 3}
	if got := cc.Stats(); got != want {
		t.Errorf("client stats = %+v; want %+v", got, want)
	}
	if got := cache.Stats(); got != want {
		t.Errorf("cache stats = %+v; want %+v", got, want)
	}
}

// TestCacheKeyCoversSamplingParams guards against the cache bugs reported
// for lm-evaluation-harness (EleutherAI issues #3881 and #3046: changed
// generation kwargs such as temperature served old cached answers).
func TestCacheKeyCoversSamplingParams(t *testing.T) {
	seed1, seed2 := int64(1), int64(2)
	base := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.0, TopP: 0.9,
		MaxTokens: 100, Stop: []string{"\n"}, Seed: &seed1, Answer: AnswerJSON,
		Schema: json.RawMessage(`{"type":"object","required":["a"]}`), SchemaName: "s", Responder: "x/y"}
	variants := map[string]func(r *Request){
		"temperature":  func(r *Request) { r.Temperature = 0.7 },
		"temperature2": func(r *Request) { r.Temperature = 1.0 },
		"top_p":        func(r *Request) { r.TopP = 0.95 },
		"max_tokens":   func(r *Request) { r.MaxTokens = 101 },
		"stop":         func(r *Request) { r.Stop = []string{"\n\n"} },
		"seed":         func(r *Request) { r.Seed = &seed2 },
		"no seed":      func(r *Request) { r.Seed = nil },
		"answer":       func(r *Request) { r.Answer = AnswerSQL },
		"schema":       func(r *Request) { r.Schema = json.RawMessage(`{"type":"object","required":["b"]}`) },
		"schema name":  func(r *Request) { r.SchemaName = "t" },
		"responder":    func(r *Request) { r.Responder = "x/z" },
		"role":         func(r *Request) { r.Role = "discriminator" },
		"message":      func(r *Request) { r.Messages = []Message{{Role: "user", Content: "q2"}} },
		"message role": func(r *Request) { r.Messages = []Message{{Role: "system", Content: "q"}} },
	}
	cache, _ := openTestCache(t)
	ctx := context.Background()
	for name, mod := range variants {
		t.Run(name, func(t *testing.T) {
			inner := &countingClient{}
			cc := Cached(inner, cache, testIdent)
			if _, err := cc.Complete(ctx, base); err != nil {
				t.Fatal(err)
			}
			r := base
			mod(&r)
			resp, err := cc.Complete(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Cached {
				t.Errorf("changed %s hit the old answer %q", name, resp.Choices)
			}
		})
	}
	t.Run("ident", func(t *testing.T) {
		for _, id := range []Ident{{"openai", testIdent.BaseURL, "other", "", ""}, {"openai", "http://other/v1", "qwen", "", ""}, {"sim", testIdent.BaseURL, "qwen", "", ""}, {"openai", testIdent.BaseURL, "qwen", "structured=none", ""}, {"openai", testIdent.BaseURL, "qwen", "", "id=qwen root=/models/other"}} {
			resp, err := Cached(&countingClient{}, cache, id).Complete(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Cached {
				t.Errorf("ident %+v hit another backend's answer", id)
			}
		}
	})
	t.Run("schema key order is canonical", func(t *testing.T) {
		r := base
		r.Schema = json.RawMessage(`{ "required": ["a"], "type": "object" }`)
		resp, err := Cached(&countingClient{}, cache, testIdent).Complete(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Cached {
			t.Error("the same schema with keys reordered missed")
		}
	})
}

func TestCacheLargerNReusesSamples(t *testing.T) {
	ctx := context.Background()
	req := Request{Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8, N: 2}
	t.Run("plain client", func(t *testing.T) {
		cache, _ := openTestCache(t)
		inner := &countingClient{}
		cc := Cached(inner, cache, testIdent)
		small, _ := cc.Complete(ctx, req)
		r5 := req
		r5.N = 5
		big, err := cc.Complete(ctx, r5)
		if err != nil {
			t.Fatal(err)
		}
		if inner.lastN.Load() != 3 {
			t.Errorf("second call asked for %d samples; want 3", inner.lastN.Load())
		}
		want := []string{small.Choices[0], small.Choices[1], "call2 sample0 T=0.8", "call2 sample1 T=0.8", "call2 sample2 T=0.8"}
		if fmt.Sprint(big.Choices) != fmt.Sprint(want) {
			t.Errorf("choices = %q; want %q", big.Choices, want)
		}
		if big.Cached {
			t.Error("partial hit marked Cached")
		}
		if s := cc.Stats(); s.PartialHits != 1 || s.Stored != 5 {
			t.Errorf("stats = %+v; want 1 partial hit, 5 stored", s)
		}
		// n=3 is now a full hit.
		r3 := req
		r3.N = 3
		if again, _ := cc.Complete(ctx, r3); !again.Cached || fmt.Sprint(again.Choices) != fmt.Sprint(want[:3]) {
			t.Errorf("n=3 after n=5: %q cached=%v; want %q cached", again.Choices, again.Cached, want[:3])
		}
	})
	t.Run("offset client", func(t *testing.T) {
		cache, _ := openTestCache(t)
		inner := &offsetClient{}
		cc := Cached(inner, cache, testIdent)
		cc.Complete(ctx, req)
		r5 := req
		r5.N = 5
		big, err := cc.Complete(ctx, r5)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"call1 sample0 T=0.8", "call1 sample1 T=0.8", "call2 sample2 T=0.8", "call2 sample3 T=0.8", "call2 sample4 T=0.8"}
		if fmt.Sprint(big.Choices) != fmt.Sprint(want) {
			t.Errorf("choices = %q; want %q (samples 2..4 asked with their own indices)", big.Choices, want)
		}
	})
}

func TestCachePersistsAcrossOpen(t *testing.T) {
	cache, path := openTestCache(t)
	ctx := context.Background()
	req := Request{Messages: []Message{{Role: "user", Content: "q"}}}
	first, _ := Cached(&countingClient{}, cache, testIdent).Complete(ctx, req)
	cache.Close()
	c2, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	inner := &countingClient{}
	got, err := Cached(inner, c2, testIdent).Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Cached || got.Choices[0] != first.Choices[0] || inner.calls.Load() != 0 {
		t.Errorf("after reopen: %q cached=%v calls=%d; want %q from cache, no call", got.Choices, got.Cached, inner.calls.Load(), first.Choices)
	}
}

// TestCacheKeepsWorkersConnections holds as many connections at once as a
// run's workers look up with, gives them back, and checks that the pool
// kept them all open for the next lookups rather than closing all but two.
func TestCacheKeepsWorkersConnections(t *testing.T) {
	cache, _ := openTestCache(t)
	ctx := context.Background()
	const workers = 8
	conns := make([]*sql.Conn, workers)
	for i := range conns {
		c, err := cache.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Close()
	}
	if st := cache.db.Stats(); st.MaxIdleClosed != 0 || st.Idle != workers {
		t.Errorf("after %d connections came back: %d idle, %d closed as surplus; want %d idle, none closed", workers, st.Idle, st.MaxIdleClosed, workers)
	}
}

// TestCacheOpensWhileAnotherWrites opens a cache file while another
// connection holds its write lock, as a run committing its batch does: the
// open only reads the file that has its tables, so it does not wait for
// the lock (the busy timeout is 30 s).
func TestCacheOpensWhileAnotherWrites(t *testing.T) {
	cache, path := openTestCache(t)
	ctx := context.Background()
	conn, err := cache.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	opened := make(chan error, 1)
	go func() {
		c, err := OpenCache(path)
		if err == nil {
			c.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenCache waited for another connection's write lock")
	}
}

func TestCacheConcurrentFirstWriterWins(t *testing.T) {
	cache, _ := openTestCache(t)
	inner := &countingClient{}
	cc := Cached(inner, cache, testIdent)
	req := Request{Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 1, N: 2}
	var wg sync.WaitGroup
	results := make([][]string, 16)
	for i := range results {
		wg.Go(func() {
			resp, err := cc.Complete(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = resp.Choices
		})
	}
	wg.Wait()
	for i, r := range results {
		if fmt.Sprint(r) != fmt.Sprint(results[0]) {
			t.Errorf("goroutine %d got %q; goroutine 0 got %q; want the same stored answer", i, r, results[0])
		}
	}
	if s := cache.Stats(); s.Stored != 2 || s.Hits+s.Misses != 16 {
		t.Errorf("stats = %+v; want 2 stored, 16 requests", s)
	}
}

func TestCacheCallLog(t *testing.T) {
	cache, _ := openTestCache(t)
	var mu sync.Mutex
	var recs []CallRecord
	log := WithCallLog(func(r CallRecord) { mu.Lock(); recs = append(recs, r); mu.Unlock() })
	ctx := context.Background()
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, N: 2}
	cc := Cached(&countingClient{}, cache, testIdent, log)
	cc.Complete(ctx, req)
	cc.Complete(ctx, req) // hit: no record
	failing := Cached(&countingClient{err: &StatusError{StatusCode: 429}}, cache, testIdent, log)
	other := req
	other.Role = "understand"
	if _, err := failing.Complete(ctx, other); err == nil {
		t.Fatal("want the inner error")
	}
	if len(recs) != 2 {
		t.Fatalf("got %d call records; want 2 (hits are not calls)", len(recs))
	}
	if r := recs[0]; r.Role != "reason" || r.Samples != 2 || r.Usage.CompletionTokens != 14 || r.ErrorClass != "" || r.Ident != testIdent {
		t.Errorf("record 0 = %+v", r)
	}
	if r := recs[1]; r.Role != "understand" || r.ErrorClass != "rate_limited" {
		t.Errorf("record 1 = %+v; want role understand, class rate_limited", r)
	}
}

func TestCachedNilCachePassesThrough(t *testing.T) {
	inner := &countingClient{}
	cc := Cached(inner, nil, testIdent)
	req := Request{Messages: []Message{{Role: "user", Content: "q"}}}
	for range 2 {
		if _, err := cc.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if inner.calls.Load() != 2 {
		t.Errorf("calls = %d; want 2", inner.calls.Load())
	}
}

func TestErrorClass(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&StatusError{StatusCode: 401}, "auth"},
		{fmt.Errorf("x: %w", &StatusError{StatusCode: 503}), "server_error"},
		{&StatusError{StatusCode: 404}, "not_found"},
		{&StatusError{StatusCode: 409}, "http_409"},
		{fmt.Errorf("x: %w", context.Canceled), "canceled"},
		{fmt.Errorf("x: %w", ErrNetwork), "network"},
		// An *Error's Class decides, wrapped or not, whatever the text.
		{fmt.Errorf("runner: %w", &Error{Class: ClassRateLimited, StatusCode: 429, Err: &StatusError{StatusCode: 429}}), "rate_limited"},
		{&Error{Class: ClassTimeout, Err: errors.New("connection reset; HTTP 500")}, "timeout"},
		{&Error{Class: ClassOther, Err: errors.New("request timed out")}, "other"},
		// A backend's own error gets no class of its own from its text.
		{errors.New("sim: no benchmark question found in prompt"), "other"},
		{errors.New("boom"), "other"},
	}
	for _, tt := range tests {
		if got := ErrorClass(tt.err); got != tt.want {
			t.Errorf("ErrorClass(%v) = %q; want %q", tt.err, got, tt.want)
		}
	}
}

func TestRouter(t *testing.T) {
	a, b := &countingClient{}, &countingClient{}
	r := Router{Roles: map[string]Client{"reason": a}, Default: b}
	ctx := context.Background()
	r.Complete(ctx, Request{Role: "reason"})
	r.Complete(ctx, Request{Role: "other"})
	if a.calls.Load() != 1 || b.calls.Load() != 1 {
		t.Errorf("calls = %d, %d; want 1, 1", a.calls.Load(), b.calls.Load())
	}
	_, err := Router{Roles: map[string]Client{"reason": a}}.Complete(ctx, Request{Role: "discriminator"})
	if err == nil || !strings.Contains(err.Error(), `"discriminator"`) || !strings.Contains(err.Error(), "reason") {
		t.Errorf("err = %v; want it to name the unbound role and the bound ones", err)
	}
	if _, _, err := r.Embed(ctx, "reason", []string{"x"}); err == nil {
		t.Error("Embed on a non-embedder: want an error")
	}
}

// TestCacheReadsOldRows opens a cache file made before reasoning, finish
// reasons and structured modes were stored: its rows still answer, an
// inline <think> block in an old answer is split off on the way out, and
// new samples are stored beside them.
func TestCacheReadsOldRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	// The schema of cache files written before this change.
	if _, err := db.Exec(`CREATE TABLE responses (key TEXT PRIMARY KEY, sample INTEGER NOT NULL, choice TEXT NOT NULL,
		model TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
		latency_ns INTEGER NOT NULL, created TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8}
	keys, err := requestKeys(testIdent, req, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO responses VALUES (?, 0, ?, 'm', 10, 4, 1000, '2026-01-01T00:00:00Z')`, keys[0], "<think>old draft</think>SELECT 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cache, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	inner := &countingClient{}
	cc := Cached(inner, cache, testIdent)
	resp, err := cc.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Cached || inner.calls.Load() != 0 {
		t.Fatalf("old row: Cached %v, %d calls; want a hit", resp.Cached, inner.calls.Load())
	}
	if got := fmt.Sprint(resp.Choices, resp.Reasoning, resp.FinishReasons == nil); got != "[SELECT 1] [old draft] true" {
		t.Errorf("old row read as %s; want [SELECT 1] [old draft] true", got)
	}
	req.N = 2
	resp, err = cc.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 2 || resp.Choices[0] != "SELECT 1" || inner.calls.Load() != 1 {
		t.Errorf("n=2 on the old file: %q after %d calls; want the old sample and one call", resp.Choices, inner.calls.Load())
	}
	// A second open of the migrated file is a no-op.
	again, err := OpenCache(path)
	if err != nil {
		t.Fatalf("reopen migrated cache: %v", err)
	}
	again.Close()
}

// seedClient records the seed and n of each call and answers sample j of
// a call with the sample's seed (seed+j), like a seeded vLLM.
type seedClient struct {
	mu    sync.Mutex
	calls []string
}

func (c *seedClient) Complete(_ context.Context, req Request) (*Response, error) {
	c.mu.Lock()
	c.calls = append(c.calls, fmt.Sprintf("n=%d seed=%d", req.Samples(), *req.Seed))
	c.mu.Unlock()
	r := &Response{Model: "m"}
	for j := range req.Samples() {
		r.Choices = append(r.Choices, fmt.Sprintf("s%d", SampleSeed(*req.Seed, j)))
	}
	return r, nil
}

// TestCacheSeedsPerRun checks that missing samples with holes between them
// are asked for one contiguous run at a time, each with its first sample's
// seed.
func TestCacheSeedsPerRun(t *testing.T) {
	cache, _ := openTestCache(t)
	seed := int64(50)
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 1, N: 5, Seed: &seed}
	rk, _, err := requestKey(testIdent, req)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := SampleKeys(rk, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Samples 1 and 3 are cached (another process stored them).
	if _, _, err := cache.put(rk, nil, keys, []int{1, 3}, []entry{{choice: "s51", model: "m"}, {choice: "s53", model: "m"}}, false, false); err != nil {
		t.Fatal(err)
	}
	inner := &seedClient{}
	resp, err := Cached(inner, cache, testIdent).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(inner.calls), "[n=1 seed=50 n=1 seed=52 n=1 seed=54]"; got != want {
		t.Errorf("calls = %s; want %s", got, want)
	}
	if got, want := fmt.Sprint(resp.Choices), "[s50 s51 s52 s53 s54]"; got != want {
		t.Errorf("choices = %s; want %s", got, want)
	}
}

// TestCacheServersTable: a cache whose client never records a server
// identity has no table servers (files that never record one keep their
// format); setServer creates it with its first record, and a second
// record replaces the first, which serverOf reads back.
func TestCacheServersTable(t *testing.T) {
	cache, _ := openTestCache(t)
	ctx := context.Background()
	hasServers := func() bool {
		var n int
		if err := cache.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'servers'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	cc := Cached(&countingClient{}, cache, testIdent)
	if _, err := cc.Complete(ctx, Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	if got, err := cache.serverOf(ctx, testIdent); got != "" || err != nil || hasServers() {
		t.Fatalf("before a record: serverOf %q, %v, table servers %v; want \"\", nil, false", got, err, hasServers())
	}
	for _, server := range []string{"id=qwen root=/w/a", "id=qwen root=/w/b system_fingerprint=fp1"} {
		ident := testIdent
		ident.Server = server
		if err := cache.setServer(ctx, ident); err != nil {
			t.Fatal(err)
		}
		if got, err := cache.serverOf(ctx, testIdent); got != server || err != nil || !hasServers() {
			t.Errorf("after recording %q: serverOf %q, %v, table servers %v; want %q, nil, true", server, got, err, hasServers(), server)
		}
	}
}

// TestCacheLayouts checks that a new cache file keeps table samples in
// write order with the narrow key index, and that a file of the layout
// written before (samples WITHOUT ROWID, keyed by request key and first
// sample) keeps that layout and answers, takes new samples, and reads
// back through OpenCacheReader.
func TestCacheLayouts(t *testing.T) {
	ctx := context.Background()
	reqs := []Request{
		{Role: "reason", Messages: []Message{{Role: "user", Content: "q1"}}, N: 2},
		{Role: "reason", Messages: []Message{{Role: "user", Content: "q2"}}},
	}
	for _, layout := range []string{"rowid", "keyed"} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "models.db")
			cache, err := OpenCache(path)
			if err != nil {
				t.Fatal(err)
			}
			inner := &countingClient{}
			var first []*Response
			for _, req := range reqs {
				r, err := Cached(inner, cache, testIdent).Complete(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				first = append(first, r)
			}
			if layout == "keyed" {
				// Rebuild table samples as the earlier version made it.
				for _, q := range []string{
					`CREATE TABLE old_samples (rk BLOB NOT NULL, first INTEGER NOT NULL, model TEXT NOT NULL, n INTEGER NOT NULL, v BLOB NOT NULL, p BLOB, sum INTEGER, PRIMARY KEY (rk, first)) WITHOUT ROWID`,
					`INSERT INTO old_samples SELECT rk, first, model, n, v, p, sum FROM samples`,
					`DROP TABLE samples`,
					`ALTER TABLE old_samples RENAME TO samples`,
				} {
					if _, err := cache.db.Exec(q); err != nil {
						t.Fatal(err)
					}
				}
			}
			cache.Close()

			cache, err = OpenCache(path)
			if err != nil {
				t.Fatal(err)
			}
			var ddl string
			if err := cache.db.QueryRow(`SELECT group_concat(sql, ';') FROM sqlite_master WHERE tbl_name = 'samples'`).Scan(&ddl); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Contains(ddl, "WITHOUT ROWID"), layout == "keyed"; got != want {
				t.Errorf("samples is WITHOUT ROWID: got %v; want %v (%s)", got, want, ddl)
			}
			if got, want := strings.Contains(ddl, "samples_rk8"), layout == "rowid"; got != want {
				t.Errorf("samples has index samples_rk8: got %v; want %v (%s)", got, want, ddl)
			}
			cc := Cached(inner, cache, testIdent)
			for i, req := range reqs {
				r, err := cc.Complete(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Cached || fmt.Sprint(r.Choices) != fmt.Sprint(first[i].Choices) {
					t.Errorf("request %d: got %q (cached %v); want %q from the cache", i, r.Choices, r.Cached, first[i].Choices)
				}
			}
			calls := inner.calls.Load()
			more := reqs[0]
			more.N = 3
			r, err := cc.Complete(ctx, more)
			if err != nil {
				t.Fatal(err)
			}
			if inner.calls.Load() != calls+1 || len(r.Choices) != 3 || r.Choices[1] != first[0].Choices[1] {
				t.Errorf("n=3: got %q after %d calls; want the 2 stored samples and 1 call", r.Choices, inner.calls.Load()-calls)
			}
			cache.Close()

			rd, err := OpenCacheReader(path)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			call, err := rd.Call(ctx, r.CacheKey, 3)
			if err != nil {
				t.Fatal(err)
			}
			for j, s := range call.Samples {
				if !s.Found || s.Answer != r.Choices[j] {
					t.Errorf("reader, sample %d: got %+v; want %q", j, s, r.Choices[j])
				}
			}
			if call.Request == nil {
				t.Errorf("reader: request not found; want it stored")
			}
		})
	}
}

// TestCacheTablesCurrent: one read of the schema tells a file of the
// current format, which an open leaves as it is, from one that lacks a
// table or the checksum column or has tables of the first format, which
// an open migrates; and it finds the first format's tables as
// findOldTables does.
func TestCacheTablesCurrent(t *testing.T) {
	const (
		samplesNoSum = `CREATE TABLE samples (rk BLOB NOT NULL, first INTEGER NOT NULL, model TEXT NOT NULL, n INTEGER NOT NULL, v BLOB NOT NULL, p BLOB)`
		responses    = `CREATE TABLE responses (key TEXT PRIMARY KEY, choice TEXT)`
		requests     = `CREATE TABLE requests (key TEXT PRIMARY KEY, doc TEXT)`
		texts        = `CREATE TABLE texts (id INTEGER PRIMARY KEY, text TEXT)`
	)
	for _, tc := range []struct {
		name    string
		ddl     []string
		current bool
	}{
		{"empty", nil, false},
		{"current", []string{cacheSchema, paragraphsSchema}, true},
		{"no paragraphs", []string{cacheSchema}, false},
		{"no checksum column", []string{samplesNoSum, paragraphsSchema}, false},
		{"first format", []string{responses, requests, texts}, false},
		{"both formats", []string{cacheSchema, paragraphsSchema, responses, requests, texts}, false},
		{"requests without texts", []string{cacheSchema, paragraphsSchema, requests}, true},
		{"texts and requests", []string{cacheSchema, paragraphsSchema, requests, texts}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "c.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range tc.ddl {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			old, current, err := cacheTablesCurrent(db)
			if err != nil {
				t.Fatal(err)
			}
			want, err := findOldTables(db)
			if err != nil {
				t.Fatal(err)
			}
			if current != tc.current || old != want {
				t.Errorf("cacheTablesCurrent = %+v, %v; want %+v, %v", old, current, want, tc.current)
			}
		})
	}
}
