package llm

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// TestCacheBatch commits a cache's answers in batches (SetBatch): the
// Cache answers from its open batch at once, another connection sees the
// answers of a model in this process (InProcess) only once a batch is
// committed (by count, by time, or by Flush), those of a server at once,
// and a hit then reads them back.
func TestCacheBatch(t *testing.T) {
	tests := []struct {
		name     string
		items    int
		wait     time.Duration
		requests int
		sleep    time.Duration
		server   bool // the model is not InProcess
		maxBytes int  // the batch's text bound; 0 for CacheBatchBytes
		wantSeen int  // rows another connection sees before Flush
	}{
		{name: "open batch", items: 100, wait: time.Hour, requests: 5, wantSeen: 0},
		// Batches of 2 answers: 5 requests leave 4 committed.
		{name: "by count", items: 2, wait: time.Hour, requests: 5, wantSeen: 4},
		// The batch is committed 20 ms after its first write; the test
		// waits 200 ms.
		{name: "by time", items: 100, wait: 20 * time.Millisecond, requests: 3, sleep: 200 * time.Millisecond, wantSeen: 3},
		// A server's answer is committed as it arrives: a kill loses
		// no answer a server billed.
		{name: "server answer", items: 100, wait: time.Hour, requests: 5, server: true, wantSeen: 5},
		// Each put holds 59 bytes (its key's 32, the prompt "question
		// i" 10, the answer "callK sample0 T=0" 17): with at most 100
		// bytes a batch, the second put of each pair writes the pair,
		// so 5 requests leave 4 committed.
		{name: "by bytes", items: 100, wait: time.Hour, requests: 5, maxBytes: 100, wantSeen: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, path := openTestCache(t)
			if err := cache.SetBatch(tt.items, tt.wait); err != nil {
				t.Fatal(err)
			}
			if tt.maxBytes > 0 {
				cache.b.maxBytes = tt.maxBytes
			}
			inner := &countingClient{}
			var opts []CacheOption
			if !tt.server {
				opts = append(opts, InProcess())
			}
			cc := Cached(inner, cache, testIdent, opts...)
			ctx := context.Background()
			req := func(i int) Request {
				return Request{Role: "reason", Messages: []Message{{Role: "user", Content: fmt.Sprintf("question %d", i)}}}
			}
			for i := 0; i < tt.requests; i++ {
				if _, err := cc.Complete(ctx, req(i)); err != nil {
					t.Fatal(err)
				}
			}
			// Asked again, every request is a hit, from the open batch
			// or the file.
			for i := 0; i < tt.requests; i++ {
				r, err := cc.Complete(ctx, req(i))
				if err != nil {
					t.Fatal(err)
				}
				if !r.Cached {
					t.Errorf("request %d asked again: not cached; want a hit", i)
				}
			}
			if got := inner.calls.Load(); got != int32(tt.requests) {
				t.Errorf("inner calls = %d; want %d", got, tt.requests)
			}
			time.Sleep(tt.sleep)
			if got := samplesInFile(t, path); got != tt.wantSeen {
				t.Errorf("answers in the file before Flush = %d; want %d", got, tt.wantSeen)
			}
			if err := cache.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := samplesInFile(t, path); got != tt.requests {
				t.Errorf("answers in the file after Flush = %d; want %d", got, tt.requests)
			}
		})
	}
}

// shortBusy makes c wait at most ms milliseconds for another writer's
// lock (the file's default is 30 s), on the one connection it then uses.
func shortBusy(t *testing.T, c *Cache, ms int) {
	t.Helper()
	c.db.SetMaxOpenConns(1)
	if _, err := c.db.Exec(fmt.Sprintf(`PRAGMA busy_timeout = %d`, ms)); err != nil {
		t.Fatal(err)
	}
}

// TestCacheBatchShared has two Caches on one file, as two processes
// sharing a cache directory are, both batching: A keeps answering (a
// model in this process) while B stores a server's answer, which must not
// wait for A's batch.
func TestCacheBatchShared(t *testing.T) {
	a, path := openTestCache(t)
	b, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []*Cache{a, b} {
		shortBusy(t, c, 1000)
		if err := c.SetBatch(8192, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	ca := Cached(&countingClient{}, a, testIdent, InProcess())
	stop, done := make(chan struct{}), make(chan error, 1)
	started := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			_, err := ca.Complete(ctx, Request{Role: "reason", Messages: []Message{{Role: "user", Content: fmt.Sprintf("a %d", i)}}})
			if i == 0 {
				close(started)
			}
			if err != nil {
				done <- err
				return
			}
			select {
			case <-stop:
				done <- nil
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	<-started
	cb := Cached(&countingClient{}, b, testIdent)
	_, err = cb.Complete(ctx, Request{Role: "reason", Messages: []Message{{Role: "user", Content: "b"}}})
	close(stop)
	if err != nil {
		t.Errorf("B's put: %v; want nil", err)
	}
	if err := <-done; err != nil {
		t.Errorf("A's put: %v; want nil", err)
	}
	for name, c := range map[string]*Cache{"A": a, "B": b} {
		if err := c.Flush(); err != nil {
			t.Errorf("%s's Flush: %v; want nil", name, err)
		}
	}
}

// TestCacheBatchLost loses a batch (another connection holds the file's
// write lock when it is written): the put that wrote it fails, and so
// does the next Flush, since an answer whose put had returned is lost.
func TestCacheBatchLost(t *testing.T) {
	cache, path := openTestCache(t)
	shortBusy(t, cache, 50)
	if err := cache.SetBatch(2, time.Hour); err != nil {
		t.Fatal(err)
	}
	cc := Cached(&countingClient{}, cache, testIdent, InProcess())
	ctx := context.Background()
	req := func(i int) Request {
		return Request{Role: "reason", Messages: []Message{{Role: "user", Content: fmt.Sprintf("question %d", i)}}}
	}
	if _, err := cc.Complete(ctx, req(0)); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	_, err = cc.Complete(ctx, req(1))
	lock.Rollback()
	if err == nil {
		t.Errorf("the put that wrote a batch while the file was locked: nil; want an error")
	}
	if err := cache.Flush(); err == nil {
		t.Errorf("Flush after a lost batch: nil; want the lost batch's error")
	}
	if err := cache.Flush(); err != nil {
		t.Errorf("second Flush: %v; want nil", err)
	}
}

// TestCacheSetBatchOff turns batching off: the open batch is committed
// and a later put commits at once.
func TestCacheSetBatchOff(t *testing.T) {
	cache, path := openTestCache(t)
	if err := cache.SetBatch(100, time.Hour); err != nil {
		t.Fatal(err)
	}
	cc := Cached(&countingClient{}, cache, testIdent, InProcess())
	ctx := context.Background()
	for i := range 2 {
		if i == 1 {
			if err := cache.SetBatch(0, 0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cc.Complete(ctx, Request{Role: "reason", Messages: []Message{{Role: "user", Content: fmt.Sprintf("q %d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := samplesInFile(t, path); n != 2 {
		t.Errorf("answers in the file = %d; want 2", n)
	}
}

// TestCacheBatchPartial answers one request from the file and the batch
// together: 2 samples committed, 2 more in the open batch, and a request
// for the 4 is a hit with each sample as first stored.
func TestCacheBatchPartial(t *testing.T) {
	cache, _ := openTestCache(t)
	if err := cache.SetBatch(100, time.Hour); err != nil {
		t.Fatal(err)
	}
	inner := &countingClient{}
	cc := Cached(inner, cache, testIdent, InProcess())
	ctx := context.Background()
	req := func(n int) Request {
		return Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8, N: n}
	}
	if _, err := cc.Complete(ctx, req(2)); err != nil {
		t.Fatal(err)
	}
	if err := cache.Flush(); err != nil {
		t.Fatal(err)
	}
	first, err := cc.Complete(ctx, req(4))
	if err != nil {
		t.Fatal(err)
	}
	again, err := cc.Complete(ctx, req(4))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || inner.calls.Load() != 2 {
		t.Errorf("third request: cached %v after %d inner calls; want a hit after 2", again.Cached, inner.calls.Load())
	}
	for i := range 4 {
		if got, want := again.Choices[i], first.Choices[i]; got != want {
			t.Errorf("sample %d = %q; want %q as stored first", i, got, want)
		}
	}
}

// samplesInFile counts the rows of table samples in the cache file at
// path, as another connection sees them.
func samplesInFile(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM samples`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
