package steinersql

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
)

// Stats are the data statistics of one join pair A.colA = B.colB, measured
// on (up to Sample rows of) each table:
//
//	dA, dB       distinct non-null values of A.colA and of B.colB
//	m            distinct values of A.colA that occur in B.colB
//	Selectivity  = m / min(dA, dB)     (share of the smaller domain that joins)
//	Correlation  = m / (dA + dB - m)   (value overlap, Jaccard of the domains)
//
// Both are 0 when a side is empty. Err notes a statistics query that failed
// (a timeout on a huge table); the pair then counts as unknown (0.5, 0.5).
type Stats struct {
	DistinctA   int64   `json:"distinct_a"`
	DistinctB   int64   `json:"distinct_b"`
	Matching    int64   `json:"matching"`
	Selectivity float64 `json:"selectivity"`
	Correlation float64 `json:"correlation"`
	Err         string  `json:"err,omitempty"`
}

// StatsFunc returns the statistics of the join pair a.colA = b.colB.
type StatsFunc func(ctx context.Context, a, colA, b, colB string) (Stats, error)

// quoteIdent quotes an identifier for the dialect.
func quoteIdent(dialect, s string) string {
	if dialect == "mysql" {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// scalar runs a one-value query and returns it as an int64.
func scalar(ctx context.Context, db datasets.Database, q string) (int64, error) {
	rs, err := db.Execute(ctx, q)
	if err != nil {
		return 0, err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return 0, fmt.Errorf("%s: want one value, got %d rows", q, len(rs.Rows))
	}
	switch v := rs.Rows[0][0].(type) {
	case int64:
		return v, nil
	case float64:
		return int64(v), nil
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("%s: unexpected value %T", q, rs.Rows[0][0])
}

// MeasureStats measures the Stats of a.colA = b.colB with three SQL
// queries on db, each reading at most sample rows per table. Query
// failures are not errors: they are recorded in Stats.Err with neutral
// values; only ctx cancellation is returned.
func MeasureStats(ctx context.Context, db datasets.Database, sample int, a, colA, b, colB string) (Stats, error) {
	d := db.Dialect()
	sub := func(t, c string) string {
		return fmt.Sprintf("SELECT %s AS v FROM %s WHERE %s IS NOT NULL LIMIT %d",
			quoteIdent(d, c), quoteIdent(d, t), quoteIdent(d, c), sample)
	}
	var st Stats
	var err error
	if st.DistinctA, err = scalar(ctx, db, "SELECT COUNT(DISTINCT v) FROM ("+sub(a, colA)+") AS sa"); err == nil {
		if st.DistinctB, err = scalar(ctx, db, "SELECT COUNT(DISTINCT v) FROM ("+sub(b, colB)+") AS sb"); err == nil {
			st.Matching, err = scalar(ctx, db, "SELECT COUNT(DISTINCT v) FROM ("+sub(a, colA)+") AS sa WHERE v IN (SELECT v FROM ("+sub(b, colB)+") AS sb)")
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return Stats{}, ctx.Err()
		}
		return Stats{Selectivity: 0.5, Correlation: 0.5, Err: err.Error()}, nil
	}
	if lo := min(st.DistinctA, st.DistinctB); lo > 0 {
		st.Selectivity = float64(st.Matching) / float64(lo)
		st.Correlation = float64(st.Matching) / float64(st.DistinctA+st.DistinctB-st.Matching)
	}
	return st, nil
}

// StatsCache caches join statistics per database fingerprint, in memory
// and, when Dir is set, on disk as <Dir>/steinersql-stats-<fingerprint
// prefix>.json (written atomically after each new measurement batch).
// It is safe for concurrent use.
type StatsCache struct {
	Dir string

	mu  sync.Mutex
	dbs map[string]*dbStats
}

type dbStats struct {
	mu     sync.Mutex
	loaded bool
	vals   map[string]Stats
	dirty  bool
}

// NewStatsCache returns an empty cache (dir "" keeps it in memory only).
func NewStatsCache(dir string) *StatsCache { return &StatsCache{Dir: dir, dbs: map[string]*dbStats{}} }

func (c *StatsCache) file(fp string) string {
	h := sha256.Sum256([]byte(fp))
	return filepath.Join(c.Dir, "steinersql-stats-"+hex.EncodeToString(h[:8])+".json")
}

func (c *StatsCache) entry(fp string) *dbStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.dbs[fp]
	if !ok {
		e = &dbStats{vals: map[string]Stats{}}
		c.dbs[fp] = e
	}
	return e
}

// Func returns a StatsFunc over db that consults the cache first. Call
// Flush when done to write new values to disk.
func (c *StatsCache) Func(db datasets.Database, sample int) StatsFunc {
	fp := dbKey(db)
	e := c.entry(fp)
	return func(ctx context.Context, a, colA, b, colB string) (Stats, error) {
		key := fmt.Sprintf("%s.%s=%s.%s@%d", a, colA, b, colB, sample)
		e.mu.Lock()
		defer e.mu.Unlock()
		if !e.loaded {
			e.loaded = true
			if c.Dir != "" {
				if raw, err := os.ReadFile(c.file(fp)); err == nil {
					var disk struct {
						Fingerprint string           `json:"fingerprint"`
						Stats       map[string]Stats `json:"stats"`
					}
					if err := json.Unmarshal(raw, &disk); err == nil && disk.Fingerprint == fp {
						for k, v := range disk.Stats {
							e.vals[k] = v
						}
					}
				}
			}
		}
		if v, ok := e.vals[key]; ok {
			return v, nil
		}
		v, err := MeasureStats(ctx, db, sample, a, colA, b, colB)
		if err != nil {
			return Stats{}, err
		}
		e.vals[key] = v
		e.dirty = true
		return v, nil
	}
}

// Flush writes the new statistics of db to disk (no-op without Dir).
func (c *StatsCache) Flush(db datasets.Database) error {
	if c.Dir == "" {
		return nil
	}
	fp := dbKey(db)
	e := c.entry(fp)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.dirty {
		return nil
	}
	raw, err := json.MarshalIndent(map[string]any{"fingerprint": fp, "stats": e.vals}, "", " ")
	if err != nil {
		return fmt.Errorf("stats cache: %w", err)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("stats cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, ".steinersql-stats-*")
	if err != nil {
		return fmt.Errorf("stats cache: %w", err)
	}
	_, werr := tmp.Write(raw)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("stats cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.file(fp)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("stats cache: %w", err)
	}
	e.dirty = false
	return nil
}

// dbKey identifies a database's content: its fingerprint, else its id.
func dbKey(db datasets.Database) string {
	if fp := db.Fingerprint(); fp != "" {
		return db.Dialect() + ":" + fp
	}
	return db.Dialect() + ":id:" + db.ID()
}
