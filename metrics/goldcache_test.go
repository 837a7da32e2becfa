package metrics

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
)

// fakeDB is a datasets.Database whose results are computed by exec from
// the SQL text, counting executions. Its dialect is "sqlite" unless
// dialect says otherwise.
type fakeDB struct {
	fp      string
	dialect string
	exec    func(sql string) (*datasets.ResultSet, error)
	calls   atomic.Int64
}

func (f *fakeDB) ID() string { return "fake" }
func (f *fakeDB) Dialect() string {
	if f.dialect == "" {
		return "sqlite"
	}
	return f.dialect
}
func (f *fakeDB) Execute(ctx context.Context, sql string) (*datasets.ResultSet, error) {
	f.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, &datasets.ExecError{Kind: datasets.ExecCanceled, Msg: err.Error()}
	}
	return f.exec(sql)
}
func (f *fakeDB) Schema(context.Context) (*datasets.Schema, error) { return &datasets.Schema{}, nil }
func (f *fakeDB) Fingerprint() string                              { return f.fp }
func (f *fakeDB) Close() error                                     { return nil }

// numbered answers "q<k>" with one row {k, "v<k>", tag}.
func numbered(tag string) func(string) (*datasets.ResultSet, error) {
	return func(q string) (*datasets.ResultSet, error) {
		var k int64
		if _, err := fmt.Sscanf(q, "q%d", &k); err != nil {
			return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "bad query " + q}
		}
		return &datasets.ResultSet{Columns: []string{"k", "v", "tag"}, Rows: [][]any{{k, fmt.Sprintf("v%d", k), tag}}}, nil
	}
}

func mustGoldCache(t *testing.T, dir string) *GoldCache {
	t.Helper()
	c, err := NewGoldCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sameResult compares two gold results field by field, floats by bits.
func sameResult(a, b GoldResult) bool {
	if a.Status != b.Status || a.Err != b.Err || a.Elapsed != b.Elapsed || a.Timeout != b.Timeout || (a.Result == nil) != (b.Result == nil) {
		return false
	}
	if a.Result == nil {
		return true
	}
	x, y := a.Result, b.Result
	if x.Truncated != y.Truncated || !reflect.DeepEqual(x.Columns, y.Columns) || len(x.Rows) != len(y.Rows) {
		return false
	}
	for i := range x.Rows {
		if len(x.Rows[i]) != len(y.Rows[i]) {
			return false
		}
		for j := range x.Rows[i] {
			if !sameValue(x.Rows[i][j], y.Rows[i][j]) {
				return false
			}
		}
	}
	return true
}

// allTypes is a result holding every value type and edge the encoding
// must keep exactly.
var allTypes = &datasets.ResultSet{
	Columns: []string{"a", "", "c,\x00d", "é"},
	Rows: [][]any{
		{nil, int64(math.MinInt64), int64(math.MaxInt64), int64(0)},
		{0.1, math.Copysign(0, -1), math.Inf(1), math.NaN()},
		{"", "héllo", string([]byte{0xff, 'a', 0xc3}), "i123"},
		{[]byte{}, []byte{0, 1, 255}, "n", nil},
	},
	Truncated: true,
}

func TestGoldCacheSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db := &fakeDB{fp: "content-1", exec: func(q string) (*datasets.ResultSet, error) {
		switch q {
		case "types":
			rs := *allTypes
			rs.Elapsed = 3 * time.Millisecond
			return &rs, nil
		case "fails":
			return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "no such table: t", Elapsed: time.Millisecond}
		case "slow":
			return nil, &datasets.ExecError{Kind: datasets.ExecTimeout, Msg: "timeout", Elapsed: 40 * time.Millisecond}
		}
		return &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{}}, nil
	}}
	queries := []struct {
		sql     string
		timeout time.Duration
		status  ExecStatus
	}{{"types", 0, ExecOK}, {"fails", 0, ExecFailed}, {"slow", 40 * time.Millisecond, ExecTimeout}, {"empty", 0, ExecOK}}
	ctx := context.Background()
	c1, err := NewGoldCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]GoldResult{}
	for _, q := range queries {
		r, err := c1.Get(ctx, db, q.sql, q.timeout)
		if err != nil || r.Status != q.status || r.Cached {
			t.Fatalf("cold Get(%s) = %+v, %v; want a fresh %s", q.sql, r, err, q.status)
		}
		first[q.sql] = r
	}
	if err := c1.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, GoldCacheFile)); err != nil {
		t.Fatalf("cache file: %v", err)
	}
	c2 := mustGoldCache(t, dir)
	for _, q := range queries {
		r, err := c2.Get(ctx, db, q.sql, q.timeout)
		if err != nil || !r.Cached {
			t.Fatalf("reopened Get(%s) = %+v, %v; want a cached entry", q.sql, r, err)
		}
		if !sameResult(r, first[q.sql]) {
			t.Errorf("reopened Get(%s):\n got %+v %+v\nwant %+v %+v", q.sql, r, r.Result, first[q.sql], first[q.sql].Result)
		}
	}
	// On SQLite every gold is executed once when first computed (no
	// stability check: see mayDiffer), and never after reopening.
	if got := db.calls.Load(); got != int64(len(queries)) {
		t.Errorf("executions: got %d; want %d (one per query, none after reopening)", got, len(queries))
	}
	if hits, runs := c2.Stats(); hits != len(queries) || runs != 0 {
		t.Errorf("reopened Stats: hits %d runs %d; want %d and 0", hits, runs, len(queries))
	}
}

func TestGoldCacheTwoInstancesConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 300 // queries; each instance runs them all, 4 workers each
	// The two instances stand for two processes sharing the directory. They
	// answer with different tags so that the stored copy shows who won.
	dbA := &fakeDB{fp: "shared", exec: numbered("A")}
	dbB := &fakeDB{fp: "shared", exec: numbered("B")}
	a, b := mustGoldCache(t, dir), mustGoldCache(t, dir)
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, p := range []struct {
		c  *GoldCache
		db *fakeDB
	}{{a, dbA}, {b, dbB}} {
		for w := range 4 {
			wg.Go(func() {
				for k := w; k < n; k += 4 {
					r, err := p.c.Get(ctx, p.db, fmt.Sprintf("q%d", k), 0)
					if err != nil || r.Status != ExecOK || r.Result.Rows[0][0] != int64(k) {
						t.Errorf("Get(q%d) = %+v, %v", k, r, err)
					}
				}
			})
		}
	}
	wg.Wait()
	for name, c := range map[string]*GoldCache{"A": a, "B": b} {
		if err := c.Flush(); err != nil {
			t.Fatalf("instance %s: Flush: %v", name, err)
		}
		// Whether an instance sees the other's entries depends on when it
		// first read the file (it loads the file once, lazily), so only the
		// total is fixed: every question answered exactly once.
		if hits, runs := c.Stats(); hits+runs != n {
			t.Errorf("instance %s: hits %d runs %d; want hits+runs = %d", name, hits, runs, n)
		}
	}
	// A third instance finds every entry, each the copy of one of the two.
	c := mustGoldCache(t, dir)
	dbC := &fakeDB{fp: "shared", exec: numbered("C")}
	for k := range n {
		r, err := c.Get(ctx, dbC, fmt.Sprintf("q%d", k), 0)
		if err != nil || !r.Cached {
			t.Fatalf("third instance Get(q%d) = %+v, %v; want a cached entry", k, r, err)
		}
		row := r.Result.Rows[0]
		if row[0] != int64(k) || row[1] != fmt.Sprintf("v%d", k) || (row[2] != "A" && row[2] != "B") {
			t.Fatalf("third instance Get(q%d) row %v; want {%d v%d A|B}", k, row, k, k)
		}
	}
	if calls := dbC.calls.Load(); calls != 0 {
		t.Errorf("third instance executed %d golds; want 0", calls)
	}
	var rows int
	sdb, err := sql.Open("sqlite3", filepath.Join(dir, GoldCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if err := sdb.QueryRow("SELECT count(*) FROM entries").Scan(&rows); err != nil || rows != n {
		t.Errorf("entries: %d, %v; want %d", rows, err, n)
	}
}

func TestGoldCacheFirstWriterWins(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	a, b := mustGoldCache(t, dir), mustGoldCache(t, dir)
	// Both read the (empty) file before either writes.
	for _, c := range []*GoldCache{a, b} {
		if _, err := c.Get(ctx, &fakeDB{fp: "other", exec: numbered("x")}, "q0", 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Get(ctx, &fakeDB{fp: "fp", exec: numbered("A")}, "q1", 0); err != nil {
		t.Fatal(err)
	}
	if r, _ := b.Get(ctx, &fakeDB{fp: "fp", exec: numbered("B")}, "q1", 0); r.Cached || r.Result.Rows[0][2] != "B" {
		t.Fatalf("second instance: %+v; want its own fresh result", r.Result)
	}
	// A commits first, then B, whose INSERT OR IGNORE keeps A's entry.
	for _, x := range []*GoldCache{a, b} {
		if err := x.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	c := mustGoldCache(t, dir)
	if r, _ := c.Get(ctx, &fakeDB{fp: "fp", exec: numbered("C")}, "q1", 0); !r.Cached || r.Result.Rows[0][2] != "A" {
		t.Fatalf("reopened: cached=%v row %v; want the first writer's (A)", r.Cached, r.Result.Rows[0])
	}
}

func TestGoldCacheTimeoutSuperseded(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var limit atomic.Int64 // the query "needs" this long; shorter timeouts time out
	limit.Store(int64(time.Hour))
	db := &fakeDB{fp: "fp", exec: func(string) (*datasets.ResultSet, error) {
		if limit.Load() > 0 {
			return nil, &datasets.ExecError{Kind: datasets.ExecTimeout, Msg: "timeout"}
		}
		return &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{{int64(1)}}}, nil
	}}
	steps := []struct {
		timeout    time.Duration
		slow       bool
		wantStatus ExecStatus
		wantCached bool
		wantStored time.Duration // Timeout of the entry a fresh instance then finds
	}{
		{100 * time.Millisecond, true, ExecTimeout, false, 100 * time.Millisecond},
		{50 * time.Millisecond, true, ExecTimeout, true, 100 * time.Millisecond},   // shorter: reused
		{200 * time.Millisecond, true, ExecTimeout, false, 200 * time.Millisecond}, // longer: rerun, replaces
		{0, true, ExecTimeout, false, 200 * time.Millisecond},                      // engine default: rerun, not comparable, first kept
		{300 * time.Millisecond, false, ExecOK, false, 300 * time.Millisecond},     // completes: replaces the timeout
		{10 * time.Millisecond, true, ExecOK, true, 300 * time.Millisecond},        // a result answers every timeout
	}
	for i, s := range steps {
		if s.slow {
			limit.Store(1)
		} else {
			limit.Store(0)
		}
		c := mustGoldCache(t, dir)
		r, err := c.Get(ctx, db, "q", s.timeout)
		if err != nil || r.Status != s.wantStatus || r.Cached != s.wantCached {
			t.Fatalf("step %d (timeout %v): %s cached=%v, %v; want %s cached=%v", i, s.timeout, r.Status, r.Cached, err, s.wantStatus, s.wantCached)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		probe := mustGoldCache(t, dir)
		probe.loadOnce.Do(func() { probe.loadAll(ctx) })
		key, _ := goldKey(db, "q")
		stored, err := probe.disk[key].decode(key)
		if err != nil || stored.Timeout != s.wantStored {
			t.Fatalf("step %d: stored entry %+v, %v; want timeout %v", i, stored, err, s.wantStored)
		}
	}
}

func TestGoldCacheCorruptEntryReplaced(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := &fakeDB{fp: "fp", exec: numbered("fresh")}
	c := mustGoldCache(t, dir)
	if _, err := c.Get(ctx, db, "q0", 0); err != nil { // creates the file
		t.Fatal(err)
	}
	key, _ := goldKey(db, "q7")
	if _, err := c.db.Exec(`INSERT INTO entries (key, value) VALUES (?, ?)`, key, []byte{goldEntryVersion, 2, 'o', 'k', 0, 0, 0, 0, 9}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c2 := mustGoldCache(t, dir)
	if r, err := c2.Get(ctx, db, "q7", 0); err != nil || r.Cached || r.Result.Rows[0][0] != int64(7) {
		t.Fatalf("corrupt entry: %+v, %v; want a fresh run", r, err)
	}
	c2.Close()
	c3 := mustGoldCache(t, dir)
	if r, err := c3.Get(ctx, db, "q7", 0); err != nil || !r.Cached || r.Result.Rows[0][0] != int64(7) {
		t.Fatalf("after replacement: %+v, %v; want the cached fresh entry", r, err)
	}
}

func TestGoldCacheIgnoresOldJSONLayout(t *testing.T) {
	dir := t.TempDir()
	db := &fakeDB{fp: "fp", exec: numbered("x")}
	key, _ := goldKey(db, "q1")
	old := filepath.Join(dir, key[:2], key+".json")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte(`{"v":1,"status":"ok","columns":["k"],"rows":[["i99"]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mustGoldCache(t, dir)
	if r, err := c.Get(context.Background(), db, "q1", 0); err != nil || r.Cached || r.Result.Rows[0][0] != int64(1) {
		t.Fatalf("old JSON entry: %+v, %v; want it ignored and a fresh run", r, err)
	}
}

func TestGoldCacheAfterClose(t *testing.T) {
	c := mustGoldCache(t, t.TempDir())
	db := &fakeDB{fp: "fp", exec: numbered("x")}
	ctx := context.Background()
	if _, err := c.Get(ctx, db, "q1", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(ctx, db, "q1", 0); err != nil || !r.Cached {
		t.Fatalf("memory hit after Close: %+v, %v", r, err)
	}
	if r, err := c.Get(ctx, db, "q2", 0); err != nil || r.Status != ExecOK {
		t.Fatalf("miss after Close: %+v, %v; want a fresh run", r, err)
	}
	if err := c.WriteErr(); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Fatalf("WriteErr after a miss past Close: %v; want it to say the entry was not saved", err)
	}
	if err := c.Close(); err == nil {
		t.Fatal("second Close: want the recorded write error again")
	}
}

func TestGoldCacheMemoryOnly(t *testing.T) {
	c := mustGoldCache(t, "")
	db := &fakeDB{fp: "fp", exec: numbered("x")}
	for i := range 2 {
		if r, err := c.Get(context.Background(), db, "q3", 0); err != nil || r.Cached != (i == 1) {
			t.Fatalf("Get %d: %+v, %v", i, r, err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestGoldEntryRoundTrip(t *testing.T) {
	cases := []GoldResult{
		{Status: ExecOK, Result: allTypes, Elapsed: 5, Timeout: 7},
		{Status: ExecOK, Result: &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{}}},
		{Status: ExecFailed, Err: "no such column: é", Elapsed: time.Second},
		{Status: ExecTimeout, Err: "timeout", Elapsed: -1, Timeout: time.Hour},
	}
	for i, r := range cases {
		b, err := encodeGoldEntry(r)
		if err != nil {
			t.Fatalf("case %d: encode: %v", i, err)
		}
		got, err := decodeGoldEntry(b)
		if err != nil {
			t.Fatalf("case %d: decode: %v", i, err)
		}
		if r.Result != nil {
			r.Result = &datasets.ResultSet{Columns: r.Result.Columns, Rows: r.Result.Rows, Truncated: r.Result.Truncated, Elapsed: r.Elapsed}
		}
		if !sameResult(got, r) || (got.Result != nil && got.Result.Elapsed != r.Elapsed) {
			t.Errorf("case %d: round trip\n got %+v %+v\nwant %+v %+v", i, got, got.Result, r, r.Result)
		}
		for cut := range len(b) {
			if _, err := decodeGoldEntry(b[:cut]); err == nil {
				t.Errorf("case %d: decoding the first %d of %d bytes: want an error", i, cut, len(b))
			}
		}
		if _, err := decodeGoldEntry(append(b, 0)); err == nil {
			t.Errorf("case %d: trailing byte: want an error", i)
		}
	}
	if _, err := encodeGoldEntry(GoldResult{Status: ExecOK, Result: &datasets.ResultSet{Columns: []string{"a"}, Rows: [][]any{{true}}}}); err == nil {
		t.Error("encode bool value: want an error")
	}
}

func FuzzDecodeGoldEntry(f *testing.F) {
	b, _ := encodeGoldEntry(GoldResult{Status: ExecOK, Result: allTypes})
	f.Add(b)
	f.Add([]byte{goldEntryVersion, 7, 't', 'i', 'm', 'e', 'o', 'u', 't', 0, 2, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeGoldEntry(b) // arbitrary input: error or value, never a panic
		if err != nil {
			return
		}
		again, err := encodeGoldEntry(r)
		if err != nil {
			t.Fatalf("re-encoding a decoded entry: %v", err)
		}
		r2, err := decodeGoldEntry(again)
		if err != nil || !sameResult(r, r2) {
			t.Fatalf("decode(encode(decode(b))) differs: %+v vs %+v, %v", r, r2, err)
		}
	})
}

// BenchmarkGoldCacheStore measures the disk store's cost per new entry: 500
// fresh golds (answered instantly by a fake database, so only the cache
// works) into an empty directory, against the same into a memory-only
// cache (the baseline), with 1 and 4 callers. It reports each time per
// entry and "disk/mem" ratios.
func BenchmarkGoldCacheStore(b *testing.B) {
	const n = 500
	db := &fakeDB{fp: "fp", exec: numbered("x")}
	queries := make([]string, n)
	for k := range queries {
		queries[k] = fmt.Sprintf("q%d", k)
	}
	fill := func(dir string, callers int) time.Duration {
		c, err := NewGoldCache(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range callers {
			wg.Go(func() {
				for k := w; k < n; k += callers {
					if _, err := c.Get(context.Background(), db, queries[k], 0); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if err := c.Flush(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var mem1, disk1, mem4, disk4 time.Duration
	for b.Loop() {
		mem1 += fill("", 1)
		disk1 += fill(b.TempDir(), 1)
		mem4 += fill("", 4)
		disk4 += fill(b.TempDir(), 4)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N*n) }
	b.ReportMetric(per(mem1), "mem-1-µs/entry")
	b.ReportMetric(per(disk1), "disk-1-µs/entry")
	b.ReportMetric(per(disk4), "disk-4-µs/entry")
	b.ReportMetric(float64(disk1)/float64(mem1), "disk/mem-1")
	b.ReportMetric(float64(disk4)/float64(mem4), "disk/mem-4")
}

func TestGoldCacheNotADatabase(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, GoldCacheFile)
	if err := os.WriteFile(p, []byte(strings.Repeat("not an sqlite file\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := NewGoldCache(dir)
	if err == nil {
		c.Close()
		t.Fatal("NewGoldCache over a file that is not a database: want an error")
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("error %q does not name %s", err, p)
	}
}

// TestGoldCacheUnstable checks that a gold giving a different result on
// its second execution is never served from the cache, in this process or
// after reopening, while a stable gold is; on SQLite only a gold calling
// a volatile function is executed twice (mayDiffer), any other is
// executed once and cached.
func TestGoldCacheUnstable(t *testing.T) {
	cases := []struct {
		dialect, sql string
		unstable     bool
		executions   int64
	}{
		// 2 executions when first computed, then 1 per Get (2 more in
		// round 0, 3 in round 1).
		{"mysql", "SELECT SUM(x) FROM t", true, 2 + 2 + 3},
		{"sqlite", "SELECT x + random() FROM t", true, 2 + 2 + 3},
		{"sqlite", "SELECT date('now')", true, 2 + 2 + 3},
		// Executed once, then served from the cache (a real SQLite file
		// gives the same result every time).
		{"sqlite", "SELECT SUM(x) FROM t", false, 1},
	}
	for _, c := range cases {
		t.Run(c.dialect+"/"+c.sql, func(t *testing.T) {
			dir := t.TempDir()
			var n atomic.Int64
			db := &fakeDB{fp: "content-1", dialect: c.dialect, exec: func(q string) (*datasets.ResultSet, error) {
				if q == "stable" {
					return &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{{int64(1)}}}, nil
				}
				// A float sum that changes in its last bits from run to run.
				return &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{{0.1 + float64(n.Add(1))*1e-15}}}, nil
			}}
			ctx := context.Background()
			for round := 0; round < 2; round++ {
				cache := mustGoldCache(t, dir)
				for i := 0; i < 3; i++ {
					r, err := cache.Get(ctx, db, c.sql, 0)
					wantCached := !c.unstable && (round > 0 || i > 0)
					if err != nil || r.Unstable != c.unstable || r.Cached != wantCached {
						t.Fatalf("round %d, Get %d of the gold = %+v, %v; want unstable %v, cached %v", round, i, r, err, c.unstable, wantCached)
					}
					s, err := cache.Get(ctx, db, "stable", 0)
					if err != nil || s.Unstable || s.Cached != (round > 0 || i > 0) {
						t.Fatalf("round %d, Get %d of the stable gold = %+v, %v; want it cached after the first", round, i, s, err)
					}
				}
				if err := cache.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if got := n.Load(); got != c.executions {
				t.Errorf("gold executions = %d; want %d", got, c.executions)
			}
		})
	}
}
