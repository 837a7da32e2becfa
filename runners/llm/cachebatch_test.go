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
// answers only once a batch is committed (by count, by time, or by
// Flush), and a hit then reads them back.
func TestCacheBatch(t *testing.T) {
	tests := []struct {
		name     string
		items    int
		wait     time.Duration
		requests int
		sleep    time.Duration
		wantSeen int // rows another connection sees before Flush
	}{
		{name: "open batch", items: 100, wait: time.Hour, requests: 5, wantSeen: 0},
		// Batches of 2 answers: 5 requests leave 4 committed.
		{name: "by count", items: 2, wait: time.Hour, requests: 5, wantSeen: 4},
		// The batch is committed 20 ms after its first write; the test
		// waits 200 ms.
		{name: "by time", items: 100, wait: 20 * time.Millisecond, requests: 3, sleep: 200 * time.Millisecond, wantSeen: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, path := openTestCache(t)
			if err := cache.SetBatch(tt.items, tt.wait); err != nil {
				t.Fatal(err)
			}
			inner := &countingClient{}
			cc := Cached(inner, cache, testIdent)
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
			seen := func() int {
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
			if got := seen(); got != tt.wantSeen {
				t.Errorf("answers in the file before Flush = %d; want %d", got, tt.wantSeen)
			}
			if err := cache.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := seen(); got != tt.requests {
				t.Errorf("answers in the file after Flush = %d; want %d", got, tt.requests)
			}
		})
	}
}
