package runstore

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// storedItems counts the items another connection sees committed in the
// store of run directory dir.
func storedItems(t *testing.T, dir string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGroupCommit commits items in batches: a batch is on disk once it
// holds batchItems items, or batchWait after its first write, or at
// Flush, and not before; what another process sees is always whole
// batches, so a kill loses the open batch only.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	item := func(i int) *Item {
		return &Item{TrialID: "t", QuestionID: fmt.Sprintf("q%02d", i), Index: i, Status: StatusDone, Attempts: 1,
			Verdict: &Verdict{QuestionID: fmt.Sprintf("q%02d", i), Status: "ok", Correct: i%2 == 0},
			Calls:   []Call{{Role: "reason", N: 1, PromptTokens: 3, CompletionTokens: 1}}}
	}
	tests := []struct {
		name      string
		items     int
		wait      time.Duration
		commit    int // items committed through Commit
		sleep     time.Duration
		wantSeen  int // items another connection sees before Flush
		wantBatch int // batches committed before Flush
	}{
		// Batches of 3: 7 items leave 6 on disk (two batches) and one
		// in the open batch.
		{name: "by count", items: 3, wait: time.Hour, commit: 7, wantSeen: 6, wantBatch: 2},
		// An open batch is committed batchWait after its first write
		// (20 ms here; the test waits 200 ms).
		{name: "by time", items: 100, wait: 20 * time.Millisecond, commit: 2, sleep: 200 * time.Millisecond, wantSeen: 2, wantBatch: 1},
		{name: "open batch", items: 100, wait: time.Hour, commit: 5, wantSeen: 0, wantBatch: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st, err := OpenStoreWith(dir, tt.items, tt.wait)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for i := 0; i < tt.commit; i++ {
				if err := st.Commit(item(i)); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(tt.sleep)
			if got := storedItems(t, dir); got != tt.wantSeen {
				t.Errorf("items on disk before Flush = %d; want %d", got, tt.wantSeen)
			}
			if got := st.commits.Load(); got != int64(tt.wantBatch) {
				t.Errorf("batches committed before Flush = %d; want %d", got, tt.wantBatch)
			}
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := storedItems(t, dir); got != tt.commit {
				t.Errorf("items on disk after Flush = %d; want %d", got, tt.commit)
			}
			// A committed item is never committed again.
			if err := st.Commit(item(0)); !errors.Is(err, ErrAlreadyDone) {
				t.Errorf("second commit of a done item: %v; want ErrAlreadyDone", err)
			}
			if err := st.Flush(); err != nil {
				t.Errorf("flush after a refused commit: %v; want nil (the batch's other writes kept)", err)
			}
		})
	}
}

// TestMigrationShrinksStore opens a store written before results were
// compressed (each result inline in items, as JSON): the migration moves
// them out, compressed, and vacuums, so the file shrinks; without the
// vacuum it kept its size.
func TestMigrationShrinksStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFormatStore(t, dir, true)
	path := filepath.Join(dir, StoreFile)
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// formatItems' a/q1 holds a trace of 40 prompts of 1.6 KB (about 64
	// KB of JSON inline), which compresses to under 4 KB.
	if after := size(); after > before-32<<10 {
		t.Errorf("store size after migration = %d bytes; want at least 32 KiB under the %d before", after, before)
	}
}

// TestMigrationVacuumFails fails the vacuum after a migration (as on a
// nearly full disk): the store opens, whole and migrated, with a notice
// saying so. Not parallel: it swaps vacuumMigrated, which parallel tests
// use only once the sequential ones are done.
func TestMigrationVacuumFails(t *testing.T) {
	dir := t.TempDir()
	writeFormatStore(t, dir, true)
	defer func(v func(*sql.DB) error) { vacuumMigrated = v }(vacuumMigrated)
	vacuumMigrated = func(*sql.DB) error { return errors.New("database or disk is full") }
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatalf("open: %v; want the store opened with a notice", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if n := st.Notices(); len(n) != 1 || !strings.Contains(n[0], "could not vacuum") || !strings.Contains(n[0], "disk is full") {
		t.Errorf("notices %q; want one saying the vacuum failed and why", n)
	}
	r, err := ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Trials); got == 0 || len(r.Trials[0].Items) == 0 {
		t.Errorf("read after the failed vacuum: %d trials; want the migrated store's items", got)
	}
}

// TestBatchLost loses a batch (the model cache's commit before the
// store's fails once): the loss is sticky, so every later write, Flush
// and Close fails with ErrBatchLost rather than the run going on past
// the lost items.
func TestBatchLost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := OpenStoreWith(dir, 100, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var fails atomic.Int32
	fails.Store(1)
	hook := func() error {
		if fails.Add(-1) >= 0 {
			return errors.New("cache commit failed")
		}
		return nil
	}
	st.beforeCommit.Store(&hook)
	item := func(q string) *Item {
		return &Item{TrialID: "t", QuestionID: q, Status: StatusDone, Attempts: 1, Verdict: &Verdict{QuestionID: q, Status: "ok"}}
	}
	if err := st.Commit(item("q1")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the timer's commit fails: the batch is lost
	for i, step := range []struct {
		name string
		do   func() error
	}{
		{"Flush", st.Flush},
		{"Commit", func() error { return st.Commit(item("q2")) }},
		{"second Flush", st.Flush},
		{"Close", st.Close},
	} {
		if err := step.do(); !errors.Is(err, ErrBatchLost) || !strings.Contains(err.Error(), "cache commit failed") {
			t.Errorf("step %d, %s after the lost batch: %v; want ErrBatchLost naming its cause", i, step.name, err)
		}
	}
	if got := storedItems(t, dir); got != 0 {
		t.Errorf("items on disk = %d; want 0 (q1's batch lost, q2 refused)", got)
	}
}

// TestCountersCommittedAtOnce: the integrity and endpoint counters are
// on disk, seen from another connection, as soon as they are added, even
// while a batch of items is open, since a kill must not lose what a
// resume does not count again.
func TestCountersCommittedAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := OpenStoreWith(dir, 1000, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.AddIntegrity(map[string]int{MetaSamplesReasked: 3}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEndpointStats([]EndpointStat{{Model: "m", Endpoint: "http://a", Calls: 5}}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var reasked string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = ?`, MetaSamplesReasked).Scan(&reasked); err != nil || reasked != "3" {
		t.Errorf("integrity count seen by another connection = %q (%v); want 3", reasked, err)
	}
	var calls int
	if err := db.QueryRow(`SELECT calls FROM endpoint_stats WHERE model = 'm'`).Scan(&calls); err != nil || calls != 5 {
		t.Errorf("endpoint calls seen by another connection = %d (%v); want 5", calls, err)
	}
}

// TestConcurrentWrites writes items and their calls from many goroutines
// at once, in batches that commit by count and by time while others
// write: every write is on disk after Flush, once, and a write after
// Close fails rather than wait.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := OpenStoreWith(dir, 7, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const workers, each = 8, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < each; i++ {
				q := fmt.Sprintf("q%d-%d", w, i)
				c := Call{Role: "reason", N: 1, Cached: true, CacheKey: strings.Repeat("ab", 32)}
				if err := st.CallDone("t", q, c); err != nil {
					errs <- err
					return
				}
				c.MarkLogged()
				it := &Item{TrialID: "t", QuestionID: q, Status: StatusDone, Attempts: 1,
					Verdict: &Verdict{QuestionID: q, Status: "ok"}, Calls: []Call{c}}
				if err := st.Commit(it); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := storedItems(t, dir); got != workers*each {
		t.Errorf("items on disk = %d; want %d", got, workers*each)
	}
	var calls, loose int
	if err := st.db.QueryRow(`SELECT count(*), count(*) - count(DISTINCT question_id) FROM model_calls`).Scan(&calls, &loose); err != nil {
		t.Fatal(err)
	}
	if calls != workers*each || loose != 0 {
		t.Errorf("call rows = %d, %d of them a question's second; want %d, 0", calls, loose, workers*each)
	}
	if st.commits.Load() < workers*each/7 {
		t.Errorf("batches committed = %d; want at least %d", st.commits.Load(), workers*each/7)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(&Item{TrialID: "t", QuestionID: "late", Status: StatusDone}); !errors.Is(err, errClosed) {
		t.Errorf("Commit after Close: %v; want errClosed", err)
	}
}

// TestQueuedWritesRunInOrder queues writes behind one that runs (a
// write blocked in its statement) and checks that the goroutine running
// it then runs the queued ones in the order they were queued, in the same
// batch, and that each caller gets its own write's error.
func TestQueuedWritesRunInOrder(t *testing.T) {
	t.Parallel()
	st, err := OpenStoreWith(t.TempDir(), 100, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var order []string // appended to by the write running, one at a time
	release := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.writeOne(func(tx *sql.Tx) error {
			<-release
			order = append(order, "first")
			_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('first', '1')`)
			return err
		})
	}()
	waitFor := func(cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatal("timed out")
			}
		}
	}
	queued := func() int {
		st.q.mu.Lock()
		defer st.q.mu.Unlock()
		if !st.q.running {
			return -1
		}
		return len(st.q.waiting)
	}
	waitFor(func() bool { return queued() == 0 })
	errBad := errors.New("write refused")
	results := make([]chan error, 4)
	for i := range results {
		results[i] = make(chan error, 1)
		name := fmt.Sprintf("w%d", i)
		go func() {
			results[i] <- st.writeOne(func(tx *sql.Tx) error {
				order = append(order, name)
				if name == "w2" {
					return errBad
				}
				_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, '1')`, name)
				return err
			})
		}()
		// One at a time, so that the queue's order is known.
		waitFor(func() bool { return queued() == i+1 })
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, c := range results {
		err := <-c
		if (i == 2) != errors.Is(err, errBad) {
			t.Errorf("write w%d: %v; want the error only for w2", i, err)
		}
	}
	if got := strings.Join(order, " "); got != "first w0 w1 w2 w3" {
		t.Errorf("writes ran in the order %q; want first w0 w1 w2 w3", got)
	}
	if n := st.commits.Load(); n != 0 {
		t.Errorf("batches committed = %d; want the writes in the open batch", n)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM meta WHERE key IN ('first', 'w0', 'w1', 'w2', 'w3')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("rows written = %d; want 4 (every write but the refused one)", n)
	}
	if st.q.running || len(st.q.waiting) != 0 {
		t.Errorf("queue left running %v with %d writes", st.q.running, len(st.q.waiting))
	}
}
