package metrics

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/checksum"
	"github.com/t2sbench/t2sbench/internal/codec"
)

// GoldCacheFile is the SQLite file holding a gold cache directory's entries.
const GoldCacheFile = "gold.db"

// goldBatchMax bounds the entries committed in one transaction; a batch
// that reaches it is committed at once, without waiting goldWriteDelay.
const goldBatchMax = 256

// goldWriteDelay is how long the background writer gathers new entries
// before it commits them, so that a cold run commits a few large
// transactions instead of one per gold (each commit writes and syncs the
// WAL); a crash loses at most the entries of that last moment.
const goldWriteDelay = 100 * time.Millisecond

// GoldCache computes each gold result once per (database content, executed
// gold SQL) and keeps it in memory and, when it has a directory, on disk in
// one SQLite file, <dir>/gold.db (WAL mode, table entries(key TEXT PRIMARY
// KEY, value BLOB, sum INTEGER)), which several processes may share: the
// first entry stored under a key wins, except that a stored timeout is
// replaced by a result that supersedes it (see below) and a damaged entry
// (one failing its checksum, sum, or not decoding) by a fresh one. A
// damaged entry is never served: its gold is executed again and counted
// (Corrupt; see goldsum.go). A directory written by older versions, which kept one JSON file per
// entry (<dir>/<key[:2]>/<key>.json), is used as if empty: those files are
// ignored and never read.
//
// The key is the SHA-256 of the database fingerprint
// (datasets.Database.Fingerprint), its dialect and the SQL after the mode's
// gold rewrites (PrepareGold), so a changed database file or rewrite never
// hits a stale entry. Errors are cached too; timeouts are cached with the
// timeout they ran under and reused only for runs with the same or a
// shorter timeout (a timeout under the engine's default, 0, answers only
// runs under the default); a later run with a longer timeout executes the
// gold again and its result replaces the stored timeout. Values are stored
// with type tags so that int64, float64, string (even invalid UTF-8),
// []byte and nil round-trip exactly.
//
// The file is read once, in one query, on the first lookup; entries other
// processes store later are not seen by this GoldCache (it computes them
// itself, and the first stored copy stays). New entries are written by a
// background writer, never by the goroutine that called Get: it gathers
// the entries queued for goldWriteDelay (or until goldBatchMax are queued)
// and commits them in one transaction, then every entry queued meanwhile,
// up to goldBatchMax per transaction, until the queue is empty. Flush and
// Close wake it and wait until everything queued before them is
// committed; other processes see an entry once it is committed. A crash
// loses at most the entries not yet committed (those of about the last
// goldWriteDelay).
//
// A GoldCache is safe for concurrent use, and concurrent requests for one
// key run the gold once. Close releases the file.
type GoldCache struct {
	dir  string
	path string
	db   *sql.DB // nil for a memory-only cache

	loadOnce sync.Once

	mu       sync.Mutex
	mem      map[string]GoldResult
	disk     map[string]goldStored // entries read from the file, not yet decoded
	inflight map[string]*goldFlight
	hits     int
	runs     int
	corrupt  int
	writeErr error

	wmu     sync.Mutex
	wdone   *sync.Cond    // signalled when the writer goroutine ends
	kick    chan struct{} // wakes the writer before goldWriteDelay (capacity 1)
	pending []goldWrite
	writing bool // a writer goroutine runs; it ends when pending is empty
	closed  bool
}

type goldFlight struct {
	done chan struct{}
	res  GoldResult
	err  error
}

// goldWrite is one entry waiting to be committed.
type goldWrite struct {
	key   string
	value []byte
	res   GoldResult // Status and Timeout decide whether it supersedes a stored entry
}

// ExecStatus is the outcome of one execution.
type ExecStatus string

// Execution outcomes.
const (
	ExecOK      ExecStatus = "ok"
	ExecFailed  ExecStatus = "error"
	ExecTimeout ExecStatus = "timeout"
)

// execUnstable is the status of a stored marker entry: the gold gave two
// different results when first computed, so it is executed afresh on
// every Get (GoldResult.Unstable) and its result is never stored.
const execUnstable ExecStatus = "unstable"

// GoldResult is the cached outcome of one gold query.
type GoldResult struct {
	Status ExecStatus
	// Result is the gold result when Status is ExecOK.
	Result *datasets.ResultSet
	// Err is the failure message otherwise.
	Err string
	// Elapsed is the execution time when the gold first ran.
	Elapsed time.Duration
	// Timeout is the per-query timeout it ran under (0: the engine's).
	Timeout time.Duration
	// Cached is true when the result came from the cache.
	Cached bool
	// Unstable is true when the gold gave two different results (as bags
	// of rows) on the two executions made when it was first computed (on
	// engines where they can differ: mayDiffer);
	// such a gold is executed afresh on every Get, never served from the
	// cache, and the result returned is that fresh execution's.
	Unstable bool
}

// DefaultGoldCacheDir returns os.UserCacheDir()/t2sbench/gold.
func DefaultGoldCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("metrics: gold cache dir: %w", err)
	}
	return filepath.Join(d, "t2sbench", "gold"), nil
}

// NewGoldCache returns a cache stored in dir/gold.db, both created if
// needed; an empty dir gives a cache held in memory only. The SQLite driver
// "sqlite3" must be registered by the program (its main package imports
// github.com/mattn/go-sqlite3). Call Close when done with a cache that has
// a directory.
func NewGoldCache(dir string) (*GoldCache, error) {
	c := &GoldCache{dir: dir, mem: map[string]GoldResult{}, inflight: map[string]*goldFlight{}, kick: make(chan struct{}, 1)}
	c.wdone = sync.NewCond(&c.wmu)
	if dir == "" {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("metrics: gold cache: %w", err)
	}
	c.path = filepath.Join(dir, GoldCacheFile)
	db, err := sql.Open("sqlite3", goldURI(c.path, "_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=30000&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("metrics: open gold cache %s: %w", c.path, err)
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB NOT NULL, sum INTEGER)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("metrics: init gold cache %s: %w", c.path, err)
	}
	if err := checksum.AddColumn(context.Background(), db, "entries"); err != nil {
		db.Close()
		return nil, fmt.Errorf("metrics: migrate gold cache %s: %w", c.path, err)
	}
	c.db = db
	return c, nil
}

// goldURI is the SQLite URI of the gold cache file at path with the
// query params: path with the characters special in a URI filename ('%',
// '?', '#') percent-encoded.
func goldURI(path, params string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?" + params
}

// Dir returns the cache directory ("" for a memory-only cache).
func (c *GoldCache) Dir() string { return c.dir }

// Stats returns how many lookups were answered from the cache and how many
// golds were executed.
func (c *GoldCache) Stats() (hits, runs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.runs
}

// Corrupt returns how many stored entries failed their checksum (or did
// not decode) and were executed again instead of served.
func (c *GoldCache) Corrupt() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.corrupt
}

// WriteErr returns the first error met reading or writing the disk store,
// if any. The disk store is an optimisation: such errors never fail a Get.
func (c *GoldCache) WriteErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeErr
}

// Flush waits until every entry queued so far is committed and returns
// WriteErr.
func (c *GoldCache) Flush() error {
	c.wmu.Lock()
	c.drainLocked()
	c.wmu.Unlock()
	return c.WriteErr()
}

// drainLocked wakes the writer and waits until it has committed every
// queued entry; c.wmu is held.
func (c *GoldCache) drainLocked() {
	for c.writing {
		c.wake()
		c.wdone.Wait()
	}
}

// wake tells the writer to commit now instead of after goldWriteDelay.
func (c *GoldCache) wake() {
	select {
	case c.kick <- struct{}{}:
	default: // already woken
	}
}

// Close flushes the queued entries and closes the file; it returns the
// first error met reading or writing it. The cache keeps answering from
// memory afterwards, and records (WriteErr) that new entries were not
// saved. Close is idempotent.
func (c *GoldCache) Close() error {
	c.wmu.Lock()
	c.drainLocked()
	wasClosed := c.closed
	c.closed = true
	c.wmu.Unlock()
	var cerr error
	if c.db != nil && !wasClosed {
		if err := c.db.Close(); err != nil {
			cerr = fmt.Errorf("metrics: close gold cache %s: %w", c.path, err)
		}
	}
	return errors.Join(c.WriteErr(), cerr)
}

func (c *GoldCache) noteErr(err error) {
	c.mu.Lock()
	if c.writeErr == nil {
		c.writeErr = err
	}
	c.mu.Unlock()
}

func goldKey(db datasets.Database, sql string) (key string, persistent bool) {
	fp := db.Fingerprint()
	id := "fp:" + fp
	if fp == "" {
		// Without a content fingerprint the entry is kept in memory only,
		// keyed by the database id.
		id = "id:" + db.ID()
	}
	parts := [...]string{"t2sbench-gold-v1", id, db.Dialect(), sql}
	n := 0
	for _, s := range parts {
		n += len(s) + 24
	}
	b := make([]byte, 0, n)
	for _, s := range parts {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, 0)
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), fp != ""
}

// usable reports whether a cached entry answers a request with timeout.
func (r GoldResult) usable(timeout time.Duration) bool {
	if r.Status != ExecTimeout {
		return true
	}
	if r.Timeout == 0 || timeout == 0 {
		return r.Timeout == timeout
	}
	return timeout <= r.Timeout
}

// supersedes reports whether r should replace the stored entry old: a
// completed result (or error) replaces a timeout, and a timeout under a
// longer explicit timeout replaces one under a shorter explicit timeout.
// Otherwise the first stored entry wins.
func (r GoldResult) supersedes(old GoldResult) bool {
	if r.Status == execUnstable {
		return old.Status != execUnstable // instability found once outweighs a stored result
	}
	if old.Status != ExecTimeout {
		return false
	}
	if r.Status != ExecTimeout {
		return true
	}
	return old.Timeout > 0 && r.Timeout > old.Timeout
}

// Get returns the result of gold SQL sql (already prepared for the mode) on
// db, executing it at most once per key. timeout, when positive, bounds the
// execution. Get returns an error only when ctx is canceled; failures of
// the gold itself are data in the GoldResult.
func (c *GoldCache) Get(ctx context.Context, db datasets.Database, sql string, timeout time.Duration) (GoldResult, error) {
	key, persistent := goldKey(db, sql)
	for {
		c.mu.Lock()
		if r, ok := c.mem[key]; ok && r.Status == execUnstable {
			c.runs++
			c.mu.Unlock()
			return c.fresh(ctx, db, sql, timeout)
		}
		if r, ok := c.mem[key]; ok && r.usable(timeout) {
			c.hits++
			c.mu.Unlock()
			r.Cached = true
			return r, nil
		}
		if f, ok := c.inflight[key]; ok {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return GoldResult{}, ctx.Err()
			}
			if f.err == nil && f.res.Unstable {
				return c.fresh(ctx, db, sql, timeout)
			}
			if f.err == nil && f.res.usable(timeout) {
				c.mu.Lock()
				c.hits++
				c.mu.Unlock()
				r := f.res
				r.Cached = true
				return r, nil
			}
			if err := ctx.Err(); err != nil {
				return GoldResult{}, err
			}
			continue // the leader was canceled or ran a shorter timeout: try again
		}
		f := &goldFlight{done: make(chan struct{})}
		c.inflight[key] = f
		c.mu.Unlock()

		f.res, f.err = c.fill(ctx, key, persistent, db, sql, timeout)
		c.mu.Lock()
		delete(c.inflight, key)
		switch {
		case f.err == nil && f.res.Unstable:
			c.mem[key] = GoldResult{Status: execUnstable}
		case f.err == nil:
			c.mem[key] = f.res
		}
		c.mu.Unlock()
		close(f.done)
		return f.res, f.err
	}
}

func (c *GoldCache) fill(ctx context.Context, key string, persistent bool, db datasets.Database, sql string, timeout time.Duration) (GoldResult, error) {
	persistent = persistent && c.db != nil
	if persistent {
		c.loadOnce.Do(func() { c.loadAll(context.WithoutCancel(ctx)) })
		c.mu.Lock()
		stored, ok := c.disk[key]
		delete(c.disk, key)
		c.mu.Unlock()
		if ok {
			r, err := stored.decode(key)
			if err != nil {
				// A damaged entry is executed again (and replaced), never
				// served.
				c.mu.Lock()
				c.corrupt++
				c.mu.Unlock()
			}
			if err == nil && r.Status == execUnstable {
				c.mu.Lock()
				c.runs++
				c.mu.Unlock()
				r, err := c.fresh(ctx, db, sql, timeout)
				return r, err
			} else if err == nil {
				r.Cached = true
				c.mu.Lock()
				c.mem[key] = r // kept even when not usable now: it may answer a shorter timeout
				if r.usable(timeout) {
					c.hits++
					c.mu.Unlock()
					return r, nil
				}
				c.mu.Unlock()
			}
			// An unreadable entry is recomputed and replaced.
		}
	}
	rs, st, msg, elapsed, err := execute(ctx, db, sql, timeout)
	if err != nil {
		return GoldResult{}, err
	}
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	r := GoldResult{Status: st, Result: rs, Err: msg, Elapsed: elapsed, Timeout: timeout}
	if st == ExecOK && !rs.Truncated && mayDiffer(db, sql) {
		// Run it again: a result that changes between executions (float
		// sums in another order, rows picked among ties) must not be
		// cached, or a cached gold would disagree with a fresh run.
		rs2, st2, _, _, err := execute(ctx, db, sql, timeout)
		if err != nil {
			return GoldResult{}, err
		}
		if st2 != ExecOK || !sameBag(rs, rs2) {
			r.Unstable = true
			if persistent {
				b, _ := encodeGoldEntry(GoldResult{Status: execUnstable})
				c.enqueue(goldWrite{key: key, value: b, res: GoldResult{Status: execUnstable}})
			}
			return r, nil
		}
	}
	if persistent {
		if b, err := encodeGoldEntry(r); err != nil {
			c.noteErr(fmt.Errorf("metrics: gold cache %s: %w", c.path, err))
		} else {
			c.enqueue(goldWrite{key: key, value: b, res: r})
		}
	}
	return r, nil
}

// mayDiffer reports whether a second execution of sql on db could give
// another result than the first, so that fill must run it twice before
// caching it. MySQL and MariaDB can: parallel and hash-based plans, and
// rows read in another order, change float sums and the rows kept among
// ties. SQLite cannot, unless the query calls a volatile function
// (StaticFlags: random(), 'now', ...): it executes a statement in one
// thread, with the plan its version's query planner derives from the SQL
// and the schema, over a database file opened read-only, so the same
// query on the same content (the cache key holds its fingerprint) reads
// the same rows in the same order and returns the same result. A
// second SQLite execution would only double the cold cost of scoring.
// `datasets check` (CheckGolds) keeps its own two executions on every
// engine: it is a diagnostic, not scoring.
func mayDiffer(db datasets.Database, sql string) bool {
	if db.Dialect() != "sqlite" {
		return true
	}
	return len(StaticFlags(sql)) > 0
}

// fresh executes sql now, for a gold known to be unstable.
func (c *GoldCache) fresh(ctx context.Context, db datasets.Database, sql string, timeout time.Duration) (GoldResult, error) {
	rs, st, msg, elapsed, err := execute(ctx, db, sql, timeout)
	if err != nil {
		return GoldResult{}, err
	}
	return GoldResult{Status: st, Result: rs, Err: msg, Elapsed: elapsed, Timeout: timeout, Unstable: true}, nil
}

// sameBag reports whether two results have the same columns and the same
// rows as a multiset, values compared exactly (EncodeValue).
func sameBag(a, b *datasets.ResultSet) bool {
	if len(a.Columns) != len(b.Columns) || len(a.Rows) != len(b.Rows) {
		return false
	}
	count := map[string]int{}
	key := func(row []any) string {
		var sb strings.Builder
		for _, v := range row {
			e, err := EncodeValue(v)
			if err != nil {
				e = fmt.Sprintf("?%T:%v", v, v)
			}
			sb.WriteString(strconv.Itoa(len(e)))
			sb.WriteByte(':')
			sb.WriteString(e)
		}
		return sb.String()
	}
	for _, r := range a.Rows {
		count[key(r)]++
	}
	for _, r := range b.Rows {
		k := key(r)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// loadAll reads every entry of the file into c.disk, undecoded.
func (c *GoldCache) loadAll(ctx context.Context) {
	disk := map[string]goldStored{}
	err := func() error {
		rows, err := c.db.QueryContext(ctx, `SELECT key, value, sum FROM entries`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var e goldStored
			if err := rows.Scan(&k, &e.value, &e.sum); err != nil {
				return err
			}
			disk[k] = e
		}
		return rows.Err()
	}()
	if err != nil {
		c.noteErr(fmt.Errorf("metrics: read gold cache %s: %w", c.path, err))
	}
	c.mu.Lock()
	c.disk = disk
	c.mu.Unlock()
}

// enqueue queues w for the background writer, starting it when none
// runs, and wakes it when a full batch is queued.
func (c *GoldCache) enqueue(w goldWrite) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		c.noteErr(fmt.Errorf("metrics: gold cache %s: entry computed after Close not saved", c.path))
		return
	}
	c.pending = append(c.pending, w)
	switch {
	case !c.writing:
		c.writing = true
		go c.writeLoop()
	case len(c.pending) >= goldBatchMax:
		c.wake()
	}
}

// writeLoop is the background writer: it waits goldWriteDelay (or a
// wake), then commits the queue, goldBatchMax entries per transaction,
// until it is empty, and ends.
func (c *GoldCache) writeLoop() {
	t := time.NewTimer(goldWriteDelay)
	select {
	case <-t.C:
	case <-c.kick:
		t.Stop()
	}
	c.wmu.Lock()
	for len(c.pending) > 0 {
		n := min(len(c.pending), goldBatchMax)
		batch := c.pending[:n:n]
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		c.wmu.Unlock()
		if err := c.commit(context.Background(), batch); err != nil {
			c.noteErr(err)
		}
		c.wmu.Lock()
	}
	c.writing = false
	c.wdone.Broadcast()
	c.wmu.Unlock()
}

// commit stores batch in one transaction: INSERT OR IGNORE (the first
// writer wins), then, for keys already present, a replacement only when
// the new entry supersedes the stored one or the stored one is unreadable.
func (c *GoldCache) commit(ctx context.Context, batch []goldWrite) error {
	wrap := func(err error) error { return fmt.Errorf("metrics: write gold cache %s: %w", c.path, err) }
	if len(batch) == 1 {
		// One statement in autocommit mode is its own transaction and saves
		// the BEGIN/PREPARE/COMMIT round trips; a key already present takes
		// the transaction below, which decides whether to replace it.
		res, err := c.db.ExecContext(ctx, `INSERT OR IGNORE INTO entries (key, value, sum) VALUES (?, ?, ?)`, batch[0].key, batch[0].value, goldSum(batch[0].key, batch[0].value))
		if err != nil {
			return wrap(err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			return nil
		}
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return wrap(err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO entries (key, value, sum) VALUES (?, ?, ?)`)
	if err != nil {
		return wrap(err)
	}
	defer ins.Close()
	for _, w := range batch {
		sum := goldSum(w.key, w.value)
		res, err := ins.ExecContext(ctx, w.key, w.value, sum)
		if err != nil {
			return wrap(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			continue
		}
		var old goldStored
		if err := tx.QueryRowContext(ctx, `SELECT value, sum FROM entries WHERE key = ?`, w.key).Scan(&old.value, &old.sum); err != nil {
			return wrap(err)
		}
		// A stored entry that fails its checksum or does not decode is
		// replaced; a sound one only by an entry that supersedes it.
		if o, err := old.decode(w.key); err == nil && !w.res.supersedes(o) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET value = ?, sum = ? WHERE key = ?`, w.value, sum, w.key); err != nil {
			return wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap(err)
	}
	return nil
}

// execute runs sql on db with an optional timeout and classifies the
// outcome. It returns an error only when ctx itself is canceled.
func execute(ctx context.Context, db datasets.Database, sql string, timeout time.Duration) (*datasets.ResultSet, ExecStatus, string, time.Duration, error) {
	qctx := ctx
	cancel := func() {}
	if timeout > 0 {
		qctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	start := time.Now()
	rs, err := db.Execute(qctx, sql)
	elapsed := time.Since(start)
	if err == nil {
		if rs.Elapsed > 0 {
			elapsed = rs.Elapsed
		}
		return rs, ExecOK, "", elapsed, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, "", "", elapsed, cerr
	}
	var ee *datasets.ExecError
	if errors.As(err, &ee) {
		if ee.Elapsed > 0 {
			elapsed = ee.Elapsed
		}
		switch {
		case ee.Kind == datasets.ExecTimeout:
			return nil, ExecTimeout, err.Error(), elapsed, nil
		case ee.Kind == datasets.ExecCanceled && qctx.Err() != nil:
			return nil, ExecTimeout, fmt.Sprintf("timeout: interrupted after %v", timeout), elapsed, nil
		}
		return nil, ExecFailed, err.Error(), elapsed, nil
	}
	if errors.Is(err, context.DeadlineExceeded) || qctx.Err() != nil {
		return nil, ExecTimeout, fmt.Sprintf("timeout: interrupted after %v: %v", timeout, err), elapsed, nil
	}
	return nil, ExecFailed, err.Error(), elapsed, nil
}

// goldEntryVersion is the first byte of every stored value.
const goldEntryVersion = 1

// encodeGoldEntry encodes r as a stored value:
//
//	version byte (1)
//	status, error message               (uvarint length + bytes each)
//	elapsed ns, timeout ns              (varint each)
//	when status is "ok":
//	  truncated byte (0 or 1)
//	  column count, then each name      (uvarint length + bytes)
//	  row count, then row by row each value as EncodeValue's tag byte and
//	  'n': nothing, 'i': varint, 'f': 8 bytes (IEEE 754 bits, little
//	  endian), 's' and 'b': uvarint length + the bytes as they are
//
// so every value round-trips exactly, as with EncodeValue (a string's bytes
// are kept even when they are not valid UTF-8).
func encodeGoldEntry(r GoldResult) ([]byte, error) {
	e := codec.Encoder{B: make([]byte, 0, 64)}
	e.B = append(e.B, goldEntryVersion)
	e.Str(string(r.Status))
	e.Str(r.Err)
	e.Int(int64(r.Elapsed))
	e.Int(int64(r.Timeout))
	if r.Status != ExecOK {
		return e.B, nil // error, timeout and the unstable marker hold no result
	}
	if r.Result == nil {
		return nil, errors.New("ok result without a result set")
	}
	rs := r.Result
	if rs.Truncated {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
	e.Uint(uint64(len(rs.Columns)))
	for _, col := range rs.Columns {
		e.Str(col)
	}
	e.Uint(uint64(len(rs.Rows)))
	for _, row := range rs.Rows {
		if len(row) != len(rs.Columns) {
			return nil, fmt.Errorf("result row has %d values for %d columns", len(row), len(rs.Columns))
		}
		for _, v := range row {
			switch x := v.(type) {
			case nil:
				e.B = append(e.B, 'n')
			case int64:
				e.B = append(e.B, 'i')
				e.Int(x)
			case float64:
				e.B = binary.LittleEndian.AppendUint64(append(e.B, 'f'), math.Float64bits(x))
			case string:
				e.B = append(e.B, 's')
				e.Str(x)
			case []byte:
				e.B = append(e.B, 'b')
				e.Str(string(x))
			default:
				return nil, fmt.Errorf("metrics: cannot encode result value of type %T", v)
			}
		}
	}
	return e.B, nil
}

// errBadEntry marks a stored value that does not decode.
var errBadEntry = errors.New("metrics: malformed gold cache entry")

// decodeGoldEntry reverses encodeGoldEntry. The result owns its memory.
func decodeGoldEntry(b []byte) (GoldResult, error) {
	d := &codec.Decoder{B: b}
	if d.Byte() != goldEntryVersion {
		return GoldResult{}, errBadEntry
	}
	r := GoldResult{Status: ExecStatus(d.Bytes()), Err: string(d.Bytes())}
	r.Elapsed = time.Duration(d.Int())
	r.Timeout = time.Duration(d.Int())
	switch r.Status {
	case ExecFailed, ExecTimeout, execUnstable:
		if d.Err != nil || len(d.B) != 0 {
			return GoldResult{}, errBadEntry
		}
		return r, nil
	case ExecOK:
	default:
		return GoldResult{}, errBadEntry
	}
	rs := &datasets.ResultSet{Elapsed: r.Elapsed}
	switch d.Byte() {
	case 0:
	case 1:
		rs.Truncated = true
	default:
		d.Fail()
	}
	rs.Columns = make([]string, d.Count(1))
	for i := range rs.Columns {
		rs.Columns[i] = string(d.Bytes())
	}
	nrows := d.Count(max(1, len(rs.Columns)))
	rs.Rows = make([][]any, nrows)
	for i := range rs.Rows {
		rs.Rows[i] = decodeGoldRow(d, len(rs.Columns))
	}
	if d.Err != nil || len(d.B) != 0 {
		return GoldResult{}, errBadEntry
	}
	r.Result = rs
	return r, nil
}

// decodeGoldRow reads one row of n values of encodeGoldEntry's format.
func decodeGoldRow(d *codec.Decoder, n int) []any {
	row := make([]any, n)
	for j := range row {
		switch d.Byte() {
		case 'n':
		case 'i':
			row[j] = d.Int()
		case 'f':
			if len(d.B) < 8 {
				d.Fail()
				break
			}
			row[j] = math.Float64frombits(binary.LittleEndian.Uint64(d.B))
			d.B = d.B[8:]
		case 's':
			row[j] = string(d.Bytes())
		case 'b':
			row[j] = append([]byte{}, d.Bytes()...)
		default:
			d.Fail()
		}
	}
	return row
}

// EncodeValue encodes a normalised result value as a tagged string:
// "n" nil, "i<decimal>" int64, "f<shortest round-trip>" float64,
// "s<text>" valid UTF-8 text, "x<base64>" text holding invalid UTF-8
// (kept byte for byte), "b<base64>" []byte.
func EncodeValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "n", nil
	case int64:
		return "i" + strconv.FormatInt(x, 10), nil
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), nil
	case string:
		if utf8.ValidString(x) {
			return "s" + x, nil
		}
		return "x" + base64.StdEncoding.EncodeToString([]byte(x)), nil
	case []byte:
		return "b" + base64.StdEncoding.EncodeToString(x), nil
	}
	return "", fmt.Errorf("metrics: cannot encode result value of type %T", v)
}

// DecodeValue reverses EncodeValue.
func DecodeValue(s string) (any, error) {
	if s == "" {
		return nil, errors.New("metrics: empty encoded value")
	}
	body := s[1:]
	switch s[0] {
	case 'n':
		if body != "" {
			break
		}
		return nil, nil
	case 'i':
		i, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: decode value %q: %w", s, err)
		}
		return i, nil
	case 'f':
		f, err := strconv.ParseFloat(body, 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: decode value %q: %w", s, err)
		}
		return f, nil
	case 's':
		return body, nil
	case 'x':
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return nil, fmt.Errorf("metrics: decode value %q: %w", s, err)
		}
		return string(b), nil
	case 'b':
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return nil, fmt.Errorf("metrics: decode value %q: %w", s, err)
		}
		if b == nil {
			b = []byte{}
		}
		return b, nil
	}
	return nil, fmt.Errorf("metrics: decode value %q: unknown tag", s)
}
