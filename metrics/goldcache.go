package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/datasets"
)

// GoldCache computes each gold result once per (database content, executed
// gold SQL) and keeps it in memory and, when it has a directory, on disk as
// one JSON file per entry (<dir>/<key[:2]>/<key>.json, written atomically,
// so several processes may share a directory). The key is the SHA-256 of
// the database fingerprint (datasets.Database.Fingerprint), its dialect and
// the SQL after the mode's gold rewrites (PrepareGold), so a changed
// database file or rewrite never hits a stale entry. Errors are cached too;
// timeouts are cached with the timeout they ran under and reused only for
// runs with the same or a shorter timeout. Values are stored with type tags
// so that int64, float64, string (even invalid UTF-8), []byte and nil
// round-trip exactly. A GoldCache is safe for concurrent use, and
// concurrent requests for one key run the gold once.
type GoldCache struct {
	dir string

	mu       sync.Mutex
	mem      map[string]GoldResult
	inflight map[string]*goldFlight
	hits     int
	runs     int
	writeErr error
}

type goldFlight struct {
	done chan struct{}
	res  GoldResult
	err  error
}

// ExecStatus is the outcome of one execution.
type ExecStatus string

// Execution outcomes.
const (
	ExecOK      ExecStatus = "ok"
	ExecFailed  ExecStatus = "error"
	ExecTimeout ExecStatus = "timeout"
)

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
}

// DefaultGoldCacheDir returns os.UserCacheDir()/t2sbench/gold.
func DefaultGoldCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("metrics: gold cache dir: %w", err)
	}
	return filepath.Join(d, "t2sbench", "gold"), nil
}

// NewGoldCache returns a cache stored under dir, created if needed; an
// empty dir gives a cache held in memory only.
func NewGoldCache(dir string) (*GoldCache, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("metrics: gold cache: %w", err)
		}
	}
	return &GoldCache{dir: dir, mem: map[string]GoldResult{}, inflight: map[string]*goldFlight{}}, nil
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

func goldKey(db datasets.Database, sql string) (key string, persistent bool) {
	fp := db.Fingerprint()
	id := "fp:" + fp
	if fp == "" {
		// Without a content fingerprint the entry is kept in memory only,
		// keyed by the database id.
		id = "id:" + db.ID()
	}
	h := sha256.New()
	for _, s := range []string{"t2sbench-gold-v1", id, db.Dialect(), sql} {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)), fp != ""
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

// Get returns the result of gold SQL sql (already prepared for the mode) on
// db, executing it at most once per key. timeout, when positive, bounds the
// execution. Get returns an error only when ctx is canceled; failures of
// the gold itself are data in the GoldResult.
func (c *GoldCache) Get(ctx context.Context, db datasets.Database, sql string, timeout time.Duration) (GoldResult, error) {
	key, persistent := goldKey(db, sql)
	for {
		c.mu.Lock()
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
		if f.err == nil {
			c.mem[key] = f.res
		}
		c.mu.Unlock()
		close(f.done)
		return f.res, f.err
	}
}

func (c *GoldCache) fill(ctx context.Context, key string, persistent bool, db datasets.Database, sql string, timeout time.Duration) (GoldResult, error) {
	if persistent && c.dir != "" {
		if r, ok := c.load(key); ok && r.usable(timeout) {
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			r.Cached = true
			return r, nil
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
	if persistent && c.dir != "" {
		if err := c.store(key, db, sql, r); err != nil {
			// The disk cache is an optimisation: a failed write (full disk,
			// read-only directory) leaves the in-memory entry in place and
			// is reported by WriteErr.
			c.mu.Lock()
			if c.writeErr == nil {
				c.writeErr = err
			}
			c.mu.Unlock()
		}
	}
	return r, nil
}

// WriteErr returns the first error met writing an entry to disk, if any.
func (c *GoldCache) WriteErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeErr
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

// goldFile is the on-disk form of one entry.
type goldFile struct {
	Version     int        `json:"v"`
	Fingerprint string     `json:"fingerprint"`
	DBID        string     `json:"db_id"`
	SQL         string     `json:"sql"`
	Status      ExecStatus `json:"status"`
	Err         string     `json:"error,omitempty"`
	ElapsedNS   int64      `json:"elapsed_ns"`
	TimeoutNS   int64      `json:"timeout_ns"`
	Columns     []string   `json:"columns,omitempty"`
	Rows        [][]string `json:"rows,omitempty"`
	Truncated   bool       `json:"truncated,omitempty"`
}

func (c *GoldCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

func (c *GoldCache) load(key string) (GoldResult, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return GoldResult{}, false
	}
	var f goldFile
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		return GoldResult{}, false // unreadable entries are recomputed and overwritten
	}
	r := GoldResult{Status: f.Status, Err: f.Err, Elapsed: time.Duration(f.ElapsedNS), Timeout: time.Duration(f.TimeoutNS)}
	if f.Status == ExecOK {
		rs := &datasets.ResultSet{Columns: f.Columns, Truncated: f.Truncated, Elapsed: r.Elapsed}
		rs.Rows = make([][]any, len(f.Rows))
		for i, row := range f.Rows {
			out := make([]any, len(row))
			for j, s := range row {
				v, err := DecodeValue(s)
				if err != nil {
					return GoldResult{}, false
				}
				out[j] = v
			}
			rs.Rows[i] = out
		}
		r.Result = rs
	}
	return r, true
}

func (c *GoldCache) store(key string, db datasets.Database, sql string, r GoldResult) error {
	f := goldFile{Version: 1, Fingerprint: db.Fingerprint(), DBID: db.ID(), SQL: sql, Status: r.Status, Err: r.Err,
		ElapsedNS: int64(r.Elapsed), TimeoutNS: int64(r.Timeout)}
	if r.Result != nil {
		f.Columns = r.Result.Columns
		f.Truncated = r.Result.Truncated
		f.Rows = make([][]string, len(r.Result.Rows))
		for i, row := range r.Result.Rows {
			out := make([]string, len(row))
			for j, v := range row {
				s, err := EncodeValue(v)
				if err != nil {
					return err
				}
				out[j] = s
			}
			f.Rows[i] = out
		}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("metrics: gold cache: %w", err)
	}
	return nil
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
