package runstore

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// schema creates the tables of a new store; openDB migrates an older one.
const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
	id TEXT PRIMARY KEY, label TEXT NOT NULL, runner TEXT NOT NULL, benchmark TEXT NOT NULL,
	seed INTEGER NOT NULL, ord INTEGER NOT NULL, simulated INTEGER NOT NULL, config TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
	trial_id TEXT NOT NULL, question_id TEXT NOT NULL, idx INTEGER NOT NULL, status TEXT NOT NULL,
	correct INTEGER, verdict TEXT, result TEXT, error_class TEXT, error TEXT, attempts INTEGER NOT NULL,
	started TEXT, wall_ms REAL, session INTEGER NOT NULL, digest TEXT,
	PRIMARY KEY (trial_id, question_id));
CREATE TABLE IF NOT EXISTS results (
	trial_id TEXT NOT NULL, question_id TEXT NOT NULL, result BLOB NOT NULL, sum INTEGER, PRIMARY KEY (trial_id, question_id));
CREATE TABLE IF NOT EXISTS model_calls (
	id INTEGER PRIMARY KEY AUTOINCREMENT, trial_id TEXT NOT NULL, question_id TEXT NOT NULL, session INTEGER NOT NULL,
	role TEXT, n INTEGER, cached INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, latency_ms REAL, error TEXT,
	state TEXT NOT NULL DEFAULT 'done', cache_key TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS sessions (id INTEGER PRIMARY KEY, started TEXT NOT NULL, args TEXT);
CREATE TABLE IF NOT EXISTS endpoint_stats (
	model TEXT NOT NULL, endpoint TEXT NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL,
	ejections INTEGER NOT NULL, latency_ms_sum REAL NOT NULL, latency_ms_max REAL NOT NULL,
	prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
	PRIMARY KEY (model, endpoint));
`

// OpenStore opens (creating when needed) the store of run directory dir
// and starts a new session. It holds the directory's lock (LockFile) until
// Close; when another process holds it, OpenStore fails at once with a
// *LockedError naming that process.
func OpenStore(dir string) (*Store, error) {
	return OpenStoreWith(dir, BatchItems, BatchWait)
}

// OpenStoreWith is OpenStore with batches of at most items items, each
// committed at most wait after its first write (BatchItems, BatchWait).
func OpenStoreWith(dir string, items int, wait time.Duration) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	s, err := openDB(dir, false)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	fail := func(err error) (*Store, error) {
		s.db.Close()
		lock.release()
		return nil, err
	}
	if _, err := s.db.Exec(schema); err != nil {
		return fail(fmt.Errorf("store %s: create schema: %w", dir, err))
	}
	if err := migrateCallState(s.db); err != nil {
		return fail(fmt.Errorf("store %s: add model_calls.state: %w", dir, err))
	}
	if err := migrateCallCacheKey(s.db); err != nil {
		return fail(fmt.Errorf("store %s: add model_calls.cache_key: %w", dir, err))
	}
	if err := migrateItemDigest(s.db); err != nil {
		return fail(fmt.Errorf("store %s: add items.digest: %w", dir, err))
	}
	moved, err := migrateResults(s.db)
	if err != nil {
		return fail(fmt.Errorf("store %s: move results out of items: %w", dir, err))
	}
	if err := migrateResultSum(s.db); err != nil {
		return fail(fmt.Errorf("store %s: add results.sum: %w", dir, err))
	}
	if moved > 0 {
		// The migration freed the pages of the results it moved out of
		// items: the file shrinks to what it holds now. The vacuum
		// writes the whole store again (twice its size free): on a
		// nearly full disk it fails, and the store, whole, keeps its
		// size.
		if err := vacuumMigrated(s.db); err != nil {
			s.notices = append(s.notices, fmt.Sprintf("store %s: moved %d results out of items, but could not vacuum the file to free the space they held (%v); the store is whole; `sqlite3 %s VACUUM` frees it later",
				dir, moved, err, filepath.Join(dir, StoreFile)))
		}
	}
	res, err := s.db.Exec(`INSERT INTO sessions (started) VALUES (?)`, time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fail(fmt.Errorf("store %s: %w", dir, err))
	}
	id, _ := res.LastInsertId()
	s.session = int(id)
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, WALCheckpointPages)); err != nil {
		return fail(fmt.Errorf("store %s: %w", dir, err))
	}
	s.batchItems, s.batchWait = items, wait
	s.w.open = true
	return s, nil
}

// ErrNotRunDir marks the error of a reader given a path that holds no run
// (no run.db there): a bad argument, which the CLI reports as such.
var ErrNotRunDir = errors.New("not a run directory")

func openDB(dir string, readOnly bool) (*Store, error) {
	path := filepath.Join(dir, StoreFile)
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("store: %s is %w: %w", dir, ErrNotRunDir, err)
			}
			return nil, fmt.Errorf("store: %s is not a run directory: %w", dir, err)
		}
	}
	// Each connection keeps its last 32 prepared statements
	// (_stmt_cache_size): a run writes every item and call with the same
	// few statements, which SQLite would otherwise compile each time.
	dsn := "file:" + path + "?_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL&_foreign_keys=0&_stmt_cache_size=32"
	if readOnly {
		dsn += "&mode=ro"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return &Store{dir: dir, db: db}, nil
}

// migrateCallState adds model_calls.state to a store created before calls
// were logged as they happen; its rows are all complete ('done').
func migrateCallState(db *sql.DB) error {
	return addColumn(db, "model_calls", "state", `TEXT NOT NULL DEFAULT 'done'`)
}

// migrateCallCacheKey adds model_calls.cache_key to a store created before
// calls named their cache entries; its rows read "" (not known).
func migrateCallCacheKey(db *sql.DB) error {
	return addColumn(db, "model_calls", "cache_key", `TEXT NOT NULL DEFAULT ''`)
}

// migrateItemDigest adds items.digest to a store created before results
// were digested; its rows read NULL there, and readers take the digest
// from the result itself (see resultDigest).
func migrateItemDigest(db *sql.DB) error {
	return addColumn(db, "items", "digest", `TEXT`)
}

// addColumn adds column name, declared decl, to table in a store that
// lacks it (one created by an older version).
func addColumn(db *sql.DB, table, name, decl string) error {
	ok, err := hasColumn(db, table, name)
	if err != nil || ok {
		return err
	}
	_, err = db.Exec(`ALTER TABLE ` + table + ` ADD COLUMN ` + name + ` ` + decl)
	return err
}

// resultColumn is the SQL expression of the stored result of the items
// row named items: in table results, else (stores written before it
// existed) in items.result.
func resultColumn(db *sql.DB, items string) (string, error) {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'results'`).Scan(&n); err != nil || n == 0 {
		return items + `.result`, err
	}
	return `coalesce(` + items + `.result, (SELECT r.result FROM results r WHERE r.trial_id = ` + items + `.trial_id AND r.question_id = ` + items + `.question_id))`, nil
}

// migrateResults moves the results a store written before compression
// kept in items.result into table results, compressed, and fills their
// digests, in one transaction, and returns how many it moved: once done,
// reading statuses no longer pages through the traces. Run when a store
// is opened for writing (run, merge); readers of a store never opened so
// read both layouts. OpenStore then vacuums the file, which would
// otherwise keep its size.
func migrateResults(db *sql.DB) (int, error) {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM items WHERE result IS NOT NULL`).Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// Chunks of 256 rows: each moved row leaves the query's selection.
	total := 0
	for {
		moved, err := moveResults(tx, 256)
		if err != nil {
			return 0, err
		}
		if moved == 0 {
			return total, tx.Commit()
		}
		total += moved
	}
}

// vacuumMigrated is the vacuum OpenStore runs after a migration freed
// pages; a test makes it fail.
var vacuumMigrated = vacuum

// vacuum rebuilds the database file of db without its free pages
// (VACUUM), then truncates the write-ahead log, through which SQLite
// writes the new file in WAL mode. db must have no open transaction.
func vacuum(db *sql.DB) error {
	if _, err := db.Exec(`VACUUM`); err != nil {
		return err
	}
	_, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// moveResults moves up to limit results out of items (migrateResults).
func moveResults(tx *sql.Tx, limit int) (int, error) {
	type row struct {
		trial, question string
		result          []byte
	}
	rows, err := tx.Query(`SELECT trial_id, question_id, result FROM items WHERE result IS NOT NULL LIMIT ?`, limit)
	if err != nil {
		return 0, err
	}
	var batch []row
	for rows.Next() {
		var m row
		var raw []byte
		if err := rows.Scan(&m.trial, &m.question, &raw); err != nil {
			rows.Close()
			return 0, err
		}
		batch = append(batch, row{trial: m.trial, question: m.question, result: raw})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, m := range batch {
		js, err := storedJSON(m.result)
		if err != nil {
			return 0, fmt.Errorf("item %s/%s: %w", m.trial, m.question, err)
		}
		d, err := digestFromResult(js)
		if err != nil {
			return 0, fmt.Errorf("item %s/%s: %w", m.trial, m.question, err)
		}
		digest, err := json.Marshal(d)
		if err != nil {
			return 0, err
		}
		stored, err := compressJSON(js)
		if err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`INSERT INTO results (trial_id, question_id, result) VALUES (?, ?, ?)
			ON CONFLICT(trial_id, question_id) DO UPDATE SET result = excluded.result`, m.trial, m.question, stored); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`UPDATE items SET result = NULL, digest = ? WHERE trial_id = ? AND question_id = ?`, string(digest), m.trial, m.question); err != nil {
			return 0, err
		}
	}
	return len(batch), nil
}

// hasColumn reports whether table has column name.
func hasColumn(db *sql.DB, table, name string) (bool, error) {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, name).Scan(&n)
	return n > 0, err
}

// hasCallColumn reports whether model_calls has column name (stores made
// by older versions lack the later ones).
func hasCallColumn(db *sql.DB, name string) (bool, error) {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('model_calls') WHERE name = ?`, name).Scan(&n)
	return n > 0, err
}

// callState is the SQL expression of a call's state (callSent or 'done')
// in db, its column prefixed with prefix ("c." or ""): the column, or
// 'done' in a store made before calls were logged as they happen (every
// row complete).
func callState(db *sql.DB, prefix string) (string, error) {
	ok, err := hasCallColumn(db, "state")
	if err != nil || !ok {
		return `'done'`, err
	}
	return prefix + `state`, nil
}

// callCacheKey is the SQL expression of a call's cache key in db: the
// column (a key stored in its 32 bytes, see storedKey, read back as its
// lowercase hex), or an empty text in a store made before it existed.
func callCacheKey(db *sql.DB) (string, error) {
	ok, err := hasCallColumn(db, "cache_key")
	if err != nil || !ok {
		return `''`, err
	}
	return `(CASE WHEN typeof(cache_key) = 'blob' THEN lower(hex(cache_key)) ELSE cache_key END)`, nil
}

// storedKey is the form model_calls.cache_key stores key in: a model
// cache key, the lowercase hex of a SHA-256, as its 32 bytes (a blob,
// half the size of the text, on each of a run's hundreds of thousands of
// calls); any other key as the text itself. callCacheKey reads both.
func storedKey(key string) any {
	if len(key) != 2*sha256.Size || strings.ToLower(key) != key {
		return key
	}
	b, err := hex.DecodeString(key)
	if err != nil {
		return key
	}
	return b
}
