package bench

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
)

// StoreFile is the name of the run database inside a run directory.
const StoreFile = "run.db"

// Item statuses.
const (
	// StatusDone: the item ran and was scored (a wrong or failed prediction
	// is still done: it is data). Done items are skipped on resume.
	StatusDone = "done"
	// StatusFailed: the runner failed permanently (a model error that
	// retrying cannot fix, such as an HTTP 400 for a too-long prompt, or
	// the runner's own error), with its class and message. The item is
	// scored with an empty prediction, so it counts as wrong when its gold
	// runs, and it is skipped on resume like a done item.
	StatusFailed = "failed"
	// StatusError: an infrastructure failure (endpoint down after
	// retries, ...) with its class; the item counts as pending and is
	// retried on resume.
	StatusError = "error"
)

// Verdict is the score of one prediction: metrics.Verdict, whose JSON is
// what a store keeps per item.
type Verdict = metrics.Verdict

// Call is one logged model request.
type Call struct {
	Role             string  `json:"role"`
	N                int     `json:"n"`
	Cached           bool    `json:"cached"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LatencyMS        float64 `json:"latency_ms"`
	Error            string  `json:"error,omitempty"`
	// Sent marks a call logged before it was sent whose answer was never
	// recorded: it was in flight when the run was killed.
	Sent bool `json:"sent,omitempty"`
	// CacheKey is the model cache's request key of the call
	// (llm.Response.CacheKey): llm.CacheReader.Call(CacheKey, N) reads its
	// messages and every sample back. "" when no cache answered (no cache
	// configured, or the call failed).
	CacheKey string `json:"cache_key,omitempty"`

	// logged is true when the scheduler wrote the call to the store as it
	// happened (CallStarted, CallFinished); Commit does not write it again.
	logged bool
}

// Item is the record of one (trial, question) work item.
type Item struct {
	TrialID    string          `json:"trial_id"`
	QuestionID string          `json:"question_id"`
	Index      int             `json:"index"`
	Status     string          `json:"status"`
	Verdict    *Verdict        `json:"verdict,omitempty"`
	Result     *runners.Result `json:"result,omitempty"`
	// ErrorClass classifies a runner failure (StatusFailed), an
	// infrastructure failure (StatusError) or a per-item timeout
	// (StatusDone); see Classify and FailureOf.
	ErrorClass string    `json:"error_class,omitempty"`
	Error      string    `json:"error,omitempty"`
	Attempts   int       `json:"attempts"`
	Started    time.Time `json:"started"`
	WallMS     float64   `json:"wall_ms"`
	// Session numbers the invocation of `run` that produced the item.
	Session int    `json:"session"`
	Calls   []Call `json:"calls,omitempty"`
}

// Store is a run directory's SQLite database (WAL mode). All writes go
// through one goroutine, which commits the finished items and their call
// log in batches (see BatchItems). The SQLite driver must be registered as "sqlite3" by the
// program (cmd/t2sbench imports it).
type Store struct {
	dir     string
	db      *sql.DB
	session int
	reqs    chan writeReq
	done    chan struct{}
	lock    *dirLock

	// batchItems and batchWait bound a batch of writes (BatchItems,
	// BatchWait); commits counts the batches committed; closeErr is the
	// error of the last batch's commit at Close.
	batchItems int
	batchWait  time.Duration
	commits    atomic.Int64
	closeErr   error
	// beforeCommit, when set, runs before each batch's commit: Run sets
	// it to commit the model caches' batches first, so that every cache
	// key a committed call names is in its cache.
	beforeCommit atomic.Pointer[func() error]
	// notices are what OpenStore has to say that is not an error
	// (Notices).
	notices []string
}

// Notices returns one-line notices of opening the store that did not fail
// it, such as a vacuum after a migration that could not run.
func (s *Store) Notices() []string { return s.notices }

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
	return openStoreWith(dir, BatchItems, BatchWait)
}

// openStoreWith is OpenStore with batches of at most items items, each
// committed at most wait after its first write (BatchItems, BatchWait).
func openStoreWith(dir string, items int, wait time.Duration) (*Store, error) {
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
	s.reqs = make(chan writeReq)
	s.done = make(chan struct{})
	go s.writer()
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

// Call states in model_calls.state.
const (
	callSent = "sent" // written before the request is sent
	callDone = "done" // the answer or error is recorded
)

// CallStarted writes a model call of item (trialID, questionID) to the
// call log before it is sent, marked sent, and returns its row id for
// CallFinished. A call whose row stays sent was in flight when the run
// stopped: the server may have answered (and billed) it, the run never
// saw the answer. The row joins the open batch (see BatchItems); the run
// flushes the batch before a request leaves for a server (the model
// cache's llm.WithBeforeSend hook), so that a call a server may bill is
// on disk before it is sent, while a call the cache answers costs no
// commit. A call that sends nothing is written once, complete, when it
// returns (CallDone).
func (s *Store) CallStarted(trialID, questionID string, c Call) (int64, error) {
	var id int64
	err := s.writeOne(func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state)
			VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0, '', ?)`, trialID, questionID, s.session, c.Role, c.N, callSent)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// CallFinished completes the row CallStarted wrote with the call's
// outcome: cached or not, tokens, latency, error and cache key.
func (s *Store) CallFinished(id int64, c Call) error {
	return s.writeOne(func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE model_calls SET cached = ?, prompt_tokens = ?, completion_tokens = ?, latency_ms = ?, error = ?, state = ?, cache_key = ?
			WHERE id = ?`, boolInt(c.Cached), c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Error, callDone, storedKey(c.CacheKey), id)
		return err
	})
}

// CallDone writes a model call of item (trialID, questionID) that sent
// no request (the model cache answered it, or a model in the process did)
// to the call log once it returned, complete: one row in the open batch,
// where a call to a server takes CallStarted and CallFinished.
func (s *Store) CallDone(trialID, questionID string, c Call) error {
	return s.writeOne(func(tx *sql.Tx) error {
		return insertCall(tx, trialID, questionID, s.session, c)
	})
}

// Dir returns the run directory.
func (s *Store) Dir() string { return s.dir }

// Session returns the number of this invocation's session.
func (s *Store) Session() int { return s.session }

// Group commit. The writer goroutine keeps one transaction open across
// writes: the finished items (Commit) and the call log's rows (CallStarted,
// CallFinished) of a run are committed together, every BatchItems items or
// BatchWait after the batch's first write, whichever comes first. Any other
// write (meta, trials, plan, Flush) commits the open batch with it. Each
// write runs in a savepoint of the batch, so that one that fails leaves
// the others of its batch as they were.
//
// The writes reach the database in the order they were made, so a batch
// that is lost (the process killed before its commit) is a suffix of the
// run's writes: every committed item has its calls committed before or
// with it, and the item of a committed call row is either committed or
// pending (a loose call, as a run killed mid-item always left). A kill
// loses at most the items and call rows of the open batch; those items
// are pending on resume and run again, their model calls answered from
// the model cache where it holds them. A committed item is never lost and
// never duplicated: resume skips it (resumeState).
const (
	// BatchItems is the most items one batch commits: a replay from the
	// model cache finishes a few thousand items a second, which BatchWait
	// alone would hold in memory by the thousand; 256 still commits such
	// a run only a dozen times a second (the store's part of
	// BenchmarkReplay is then its statements, not its commits).
	BatchItems = 256
	// BatchWait is the longest a write waits in the open batch: a kill
	// loses at most the work of the last BatchWait (plus the items in
	// flight), and readers (status, view) see a run's items this late at
	// most. Each batch of the store commits the model cache's batch
	// first, whose answers land all over its file (their keys are
	// hashes): on the paper-scale spec's first 100 questions, 2 s wrote
	// half the bytes 0.5 s did.
	BatchWait = 2 * time.Second
	// WALCheckpointPages is the write-ahead log's size, in pages of 4 KiB,
	// past which a commit copies it into the database
	// (wal_autocheckpoint; SQLite's default is 1,000). A larger log
	// copies a page the run writes again and again (the tails of the
	// items and model_calls tables, their indexes) once per checkpoint
	// rather than once per 4 MB of log. Close checkpoints the whole log
	// and truncates it.
	WALCheckpointPages = 8192
	// CacheBatchAnswers is the most answers the model cache commits in
	// one batch (llm.Cache.SetBatch); its batches last at most BatchWait
	// too, and Run commits one before each of the store's, so that in
	// practice a batch holds the answers of the last BatchWait (about
	// 3,600 in the paper-scale spec). Only the answers of a model in
	// the process (sim) wait in a batch; a server's answer is committed
	// as it arrives. A kill loses the open batch's answers, which are
	// computed again when next needed.
	CacheBatchAnswers = 8192
)

// ErrBatchLost is the error of every write, Flush and Close of a Store
// after a batch of its writes was lost (its commit failed, the model
// cache's commit before it failed, or a write failed in a way that ends
// SQLite's transaction): the batch's items are pending, and a run stops
// with it rather than go on past them.
var ErrBatchLost = errors.New("a batch of writes was lost")

// writeReq is one write for the writer goroutine: fn (nil for a flush),
// run in the open batch; item counts it toward BatchItems; durable commits
// the batch with it; one says that fn runs one statement, which SQLite
// undoes by itself when it fails (no savepoint needed).
type writeReq struct {
	fn      func(tx *sql.Tx) error
	item    bool
	durable bool
	one     bool
	reply   chan error
}

func (s *Store) writer() {
	defer close(s.done)
	var (
		tx    *sql.Tx
		items int
		timer = time.NewTimer(time.Hour)
		// lost is the error that lost a batch (its commit failed, or
		// a write failed in a way that ends SQLite's transaction, such
		// as a full disk), wrapping ErrBatchLost: every later write,
		// Flush and Close fails with it, so that the run stops rather
		// than go on past lost items.
		lost error
	)
	timer.Stop()
	drop := func(err error) error {
		timer.Stop()
		if tx != nil {
			tx.Rollback()
		}
		tx, items = nil, 0
		lost = fmt.Errorf("%w: %w", ErrBatchLost, err)
		return lost
	}
	commit := func() error {
		if tx == nil {
			return nil
		}
		timer.Stop()
		if fn := s.beforeCommit.Load(); fn != nil {
			if err := (*fn)(); err != nil {
				return drop(err)
			}
		}
		err := tx.Commit()
		tx, items = nil, 0
		if err != nil {
			return drop(fmt.Errorf("commit: %w", err))
		}
		s.commits.Add(1)
		return nil
	}
	do := func(r writeReq) error {
		if lost != nil {
			return lost
		}
		if r.fn != nil {
			var err error
			if tx == nil {
				if tx, err = s.db.Begin(); err != nil {
					return err
				}
				timer.Reset(s.batchWait)
			}
			if r.one {
				err = r.fn(tx)
			} else {
				err = savepoint(tx, r.fn)
			}
			if err != nil {
				if endsTx(err) {
					return drop(err)
				}
				return err
			}
			if r.item {
				items++
			}
		}
		if r.durable || items >= s.batchItems {
			if err := commit(); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				if lost != nil {
					s.closeErr = lost
				} else if err := commit(); err != nil {
					s.closeErr = err
				}
				return
			}
			r.reply <- do(r)
		case <-timer.C:
			commit()
		}
	}
}

// endsTx reports whether err, a write's, may have ended SQLite's
// transaction (SQLite rolls back by itself on a full disk, an I/O error,
// a lock or memory failure): any SQLite error but a constraint's, which
// undoes its statement only.
func endsTx(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code != sqlite3.ErrConstraint
}

// savepoint runs fn in a savepoint of tx, rolled back when fn fails.
func savepoint(tx *sql.Tx, fn func(tx *sql.Tx) error) error {
	if _, err := tx.Exec(`SAVEPOINT w`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if _, rerr := tx.Exec(`ROLLBACK TO w`); rerr != nil {
			return errors.Join(err, rerr)
		}
		tx.Exec(`RELEASE w`)
		return err
	}
	_, err := tx.Exec(`RELEASE w`)
	return err
}

// write runs fn on the writer goroutine and commits it, with the open
// batch, before it returns.
func (s *Store) write(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, durable: true})
}

// writeItem runs fn, which writes one item, on the writer goroutine in
// the open batch, which a later commit makes durable (see BatchItems); it
// counts as one item of the batch.
func (s *Store) writeItem(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, item: true})
}

// writeOne runs fn, which runs one statement, on the writer goroutine in
// the open batch, which a later commit makes durable (see BatchItems).
func (s *Store) writeOne(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, one: true})
}

// Flush commits the open batch of writes: once it returns, every item and
// call the store was given is on disk (as far as SQLite's synchronous=NORMAL
// in WAL mode makes it: a power loss may still undo the last commits, a
// killed process never does).
func (s *Store) Flush() error {
	return s.send(writeReq{durable: true})
}

func (s *Store) send(r writeReq) error {
	r.reply = make(chan error, 1)
	s.reqs <- r
	if err := <-r.reply; err != nil {
		return fmt.Errorf("store %s: %w", s.dir, err)
	}
	return nil
}

// Close stops the writer, closes the database and releases the run
// directory's lock. Closing twice is harmless.
func (s *Store) Close() error {
	var err error
	if s.reqs != nil {
		close(s.reqs)
		<-s.done
		s.reqs = nil
		if err = s.closeErr; err != nil {
			err = fmt.Errorf("store %s: %w", s.dir, err)
		} else if _, cerr := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); cerr != nil {
			err = fmt.Errorf("store %s: checkpoint: %w", s.dir, cerr)
		}
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	s.lock = nil
	return err
}

// MetaRunOptions is the meta key of the options `run` was given that
// change results or resources (--limit, --workers, --shard, --models,
// --set, --backbone, ...): a JSON list with one string per session whose
// options differed from the session before (AddRunOptions).
const MetaRunOptions = "run_options"

// AddRunOptions appends one session's options (as the command line gave
// them, secrets redacted) to the run's list (MetaRunOptions) when they
// differ from the last session's; restart (--fresh) starts the list again.
// A list that does not decode is started again.
func (s *Store) AddRunOptions(opts string, secrets []string, restart bool) error {
	opts = redact(opts, secrets)
	var list []string
	if !restart {
		var raw string
		err := s.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, MetaRunOptions).Scan(&raw)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store: read meta %s: %w", MetaRunOptions, err)
		default:
			if json.Unmarshal([]byte(raw), &list) != nil {
				list = nil
			}
		}
	}
	if len(list) > 0 && list[len(list)-1] == opts {
		return nil
	}
	raw, err := json.Marshal(append(list, opts))
	if err != nil {
		return err
	}
	return s.SetMeta(map[string]string{MetaRunOptions: string(raw)})
}

// SetMeta records run-level facts (name, simulated, spec).
func (s *Store) SetMeta(kv map[string]string) error {
	return s.write(func(tx *sql.Tx) error { return putMeta(tx, kv) })
}

// putMeta sets the meta keys of kv in transaction tx.
func putMeta(tx *sql.Tx, kv map[string]string) error {
	for k, v := range kv {
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return err
		}
	}
	return nil
}

// PutTrials records the trials of a plan; trials already stored (same id)
// are kept. Any simulated trial marks the run simulated. It does not
// record them as the run's spec (MetaPlan): Run does, with putPlan.
func (s *Store) PutTrials(trials []*Trial) error {
	return s.write(func(tx *sql.Tx) error {
		if err := putTrials(tx, trials); err != nil {
			return err
		}
		for _, t := range trials {
			if t.Simulated() {
				_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('simulated', '1') ON CONFLICT(key) DO UPDATE SET value = '1'`)
				return err
			}
		}
		return nil
	})
}

// putTrials inserts trials; a trial already stored (same id, so the same
// identity) takes the new configuration: its label, plan position and
// the settings that are not part of its identity.
func putTrials(tx *sql.Tx, trials []*Trial) error {
	for _, t := range trials {
		cfg, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("trial %s: %w", t.Label, err)
		}
		if _, err := tx.Exec(`INSERT INTO trials (id, label, runner, benchmark, seed, ord, simulated, config, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, ord = excluded.ord, config = excluded.config`,
			t.ID, t.Label, t.Runner, t.Benchmark.Name, t.Seed, t.Order, boolInt(t.Simulated()), string(cfg),
			time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}

// ErrAlreadyDone is returned by Commit for an item the store holds as done:
// a finished item is never redone.
var ErrAlreadyDone = errors.New("item already done")

// Commit stores one finished item and its model-call log in the open
// batch of writes (see BatchItems): a later commit of the batch, Flush or
// Close makes it durable, all at once. An error item replaces an earlier error record; a done item
// replaces an error record; nothing replaces a done item. The item's
// verdict, result and digest are encoded by the caller's goroutine, so
// that the store's one writer only runs the statements.
func (s *Store) Commit(it *Item) error {
	if it.Session == 0 {
		it.Session = s.session
	}
	e, err := encodeItem(it)
	if err != nil {
		return fmt.Errorf("store %s: item %s/%s: %w", s.dir, it.TrialID, it.QuestionID, err)
	}
	return s.writeItem(func(tx *sql.Tx) error { return insertItemRow(tx, it, e.verdict, e.result, e.digest, e.correct) })
}

// encodedItem is the stored form of an item's verdict, result and digest
// (insertItemRow).
type encodedItem struct {
	verdict, digest []byte
	result, correct any
}

// encodeItem returns the stored form of it's verdict, result and digest.
func encodeItem(it *Item) (encodedItem, error) {
	var e encodedItem
	var err error
	if it.Verdict != nil {
		if e.verdict, err = json.Marshal(it.Verdict); err != nil {
			return e, err
		}
		e.correct = boolInt(it.Verdict.Correct)
	}
	if it.Result != nil {
		if e.result, err = encodeResult(it.Result); err != nil {
			return e, err
		}
		if e.digest, err = json.Marshal(digestOf(it.Result)); err != nil {
			return e, err
		}
	}
	return e, nil
}

// insertItemRow writes item it with its verdict, result (stored form: see
// encodeResult) and digest already encoded.
//
// The result goes to table results, not to items.result (where stores
// written before kept it): a row of items stays a few hundred bytes, so
// that reading statuses and verdicts (SummarizeDir) never pages through
// the results, which SQLite stores inline or in the row's overflow pages.
func insertItemRow(tx *sql.Tx, it *Item, verdict []byte, result any, digest []byte, correct any) error {
	res, err := tx.Exec(`INSERT INTO items (trial_id, question_id, idx, status, correct, verdict, result, error_class, error, attempts, started, wall_ms, session, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(trial_id, question_id) DO UPDATE SET status = excluded.status, correct = excluded.correct,
			verdict = excluded.verdict, result = excluded.result, error_class = excluded.error_class, error = excluded.error,
			attempts = items.attempts + excluded.attempts, started = excluded.started, wall_ms = excluded.wall_ms, session = excluded.session,
			digest = excluded.digest
		WHERE items.status NOT IN ('done', 'failed')`,
		it.TrialID, it.QuestionID, it.Index, it.Status, correct, nullStr(verdict), nil, it.ErrorClass, it.Error,
		it.Attempts, it.Started.UTC().Format(time.RFC3339Nano), it.WallMS, it.Session, nullStr(digest))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("trial %s question %s: %w", it.TrialID, it.QuestionID, ErrAlreadyDone)
	}
	if result == nil {
		_, err = tx.Exec(`DELETE FROM results WHERE trial_id = ? AND question_id = ?`, it.TrialID, it.QuestionID)
	} else {
		// The row's checksum covers the item's whole stored outcome
		// (itemSum), verified before a run resumes.
		raw, _ := result.([]byte)
		sum := itemSum(it.TrialID, it.QuestionID, it.Status, correct, verdict, digest, raw)
		_, err = tx.Exec(`INSERT INTO results (trial_id, question_id, result, sum) VALUES (?, ?, ?, ?)
			ON CONFLICT(trial_id, question_id) DO UPDATE SET result = excluded.result, sum = excluded.sum`, it.TrialID, it.QuestionID, result, sum)
	}
	if err != nil {
		return err
	}
	for _, c := range it.Calls {
		if c.logged {
			continue
		}
		if err := insertCall(tx, it.TrialID, it.QuestionID, it.Session, c); err != nil {
			return err
		}
	}
	return nil
}

// insertCall writes one complete (or, when c.Sent, unanswered) call row.
func insertCall(tx *sql.Tx, trialID, questionID string, session int, c Call) error {
	state := callDone
	if c.Sent {
		state = callSent
	}
	_, err := tx.Exec(`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state, cache_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, trialID, questionID, session, c.Role, c.N, boolInt(c.Cached),
		c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Error, state, storedKey(c.CacheKey))
	return err
}

func nullStr(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resumeState reads, in one pass over the items, what Run resumes from:
// the keys (itemKey) of the finished items (done or failed), which resume
// never redoes, and the pending items left by an infrastructure error
// (StatusError), item key -> trial id, retried by the next run that
// selects them. A finished item whose stored outcome fails its checksum
// is made pending first (redoDamaged) and is errored, not done.
func (s *Store) resumeState(ctx context.Context) (done map[string]bool, errored map[string]string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+outcomeColumns+` FROM items i
		LEFT JOIN results r ON r.trial_id = i.trial_id AND r.question_id = i.question_id
		WHERE i.status IN (?, ?, ?)`, StatusDone, StatusFailed, StatusError)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
	}
	done, errored = map[string]bool{}, map[string]string{}
	var bad [][2]string
	for rows.Next() {
		var o storedOutcome
		if err := o.scan(rows); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
		}
		k := itemKey(o.trial, o.question)
		switch ok, _ := o.ok(); {
		case o.status == StatusError:
			errored[k] = o.trial
		case !ok:
			bad = append(bad, [2]string{o.trial, o.question})
			errored[k] = o.trial
		default:
			done[k] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
	}
	if err := s.redoDamaged(bad); err != nil {
		return nil, nil, err
	}
	return done, errored, nil
}

// Reset deletes every item and call of the run (for --fresh).
func (s *Store) Reset() error {
	return s.write(func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM items`, `DELETE FROM results`, `DELETE FROM model_calls`, `DELETE FROM trials`, `DELETE FROM meta`} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
}

func itemKey(trialID, questionID string) string { return trialID + "\x00" + questionID }

// RunData is a run directory's content, as reports and compare read it.
type RunData struct {
	Dir  string
	Meta map[string]string
	// Simulated is true when any trial used the sim backend; reports then
	// title the run "simulated model".
	Simulated bool
	// Trials are the trials of the run's spec, in plan order (read with
	// ReadOptions.AllTrials: then the stale ones too).
	Trials []RunTrial
	// Stale are the trials the store holds that are not in the run's
	// spec: only a store written before a run directory held one spec
	// has any (see splitStale). StaleNote describes them.
	Stale []Trial
	// Totals is the number of items each trial (by id) had in its last
	// run, for pending counts.
	Totals map[string]int
	// CallLog counts every model call of the call log, those of items
	// never committed included.
	CallLog CallTotals
	// LooseCalls are, when read withResults, the calls of items the store
	// does not hold (in flight or canceled when a session stopped); Merge
	// copies them.
	LooseCalls []ItemCall
	// FailedByClass and ErroredByClass count the failed items
	// (StatusFailed) and those left by an infrastructure error
	// (StatusError) by error class, over every trial.
	FailedByClass, ErroredByClass map[string]int
	// Endpoints are the per-endpoint counters of the models served by
	// several endpoints (ModelSpec.Replicas), summed over sessions and
	// merged shards, sorted by model and endpoint.
	Endpoints []EndpointStat
	// Integrity counts the damaged entries of the run's stores that were
	// replaced (model samples asked again, golds executed again, items
	// redone), from the meta.
	Integrity Integrity
	// BadCounts name the call-log rows whose token counts are outside [0,
	// llm.MaxTokenCount], each with its item (a store written before
	// servers' counts were validated). The run's totals count them
	// clamped; status, report, view and run print these lines.
	BadCounts []string
	// stream, for a run read by ReadRunStream, whose trials hold no
	// item, is its open store: EachItem reads them from it.
	stream *itemStream
}

// EndpointStat counts one endpoint's traffic for one model of a run (see
// llm.EndpointStats): attempts sent (Calls), failed (Errors), ejections,
// and latency (sum and maximum, over answered attempts) and tokens of the
// answered attempts.
type EndpointStat struct {
	Model            string  `json:"model"`
	Endpoint         string  `json:"endpoint"`
	Calls            int64   `json:"calls"`
	Errors           int64   `json:"errors"`
	Ejections        int64   `json:"ejections"`
	LatencyMSSum     float64 `json:"latency_ms_sum"`
	LatencyMSMax     float64 `json:"latency_ms_max"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
}

// MeanLatencyMS is the mean latency of the answered attempts (0: none).
func (e EndpointStat) MeanLatencyMS() float64 {
	if ok := e.Calls - e.Errors; ok > 0 {
		return e.LatencyMSSum / float64(ok)
	}
	return 0
}

// AddEndpointStats adds counters to the store's endpoint_stats: counts and
// sums add up, maxima take the larger, so that a resumed run, periodic
// writes of the increments and merged shards all total correctly. They are
// committed (with the open batch) before it returns, so that a kill loses
// none of the calls they count.
func (s *Store) AddEndpointStats(stats []EndpointStat) error {
	if len(stats) == 0 {
		return nil
	}
	return s.write(func(tx *sql.Tx) error { return addEndpointStats(tx, stats) })
}

func addEndpointStats(tx *sql.Tx, stats []EndpointStat) error {
	for _, e := range stats {
		if _, err := tx.Exec(`INSERT INTO endpoint_stats (model, endpoint, calls, errors, ejections, latency_ms_sum, latency_ms_max, prompt_tokens, completion_tokens)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(model, endpoint) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
			ejections = ejections + excluded.ejections, latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum,
			latency_ms_max = max(latency_ms_max, excluded.latency_ms_max), prompt_tokens = `+satSQL("prompt_tokens", "excluded.prompt_tokens")+`,
			completion_tokens = `+satSQL("completion_tokens", "excluded.completion_tokens")+``,
			e.Model, e.Endpoint, e.Calls, e.Errors, e.Ejections, e.LatencyMSSum, e.LatencyMSMax, e.PromptTokens, e.CompletionTokens); err != nil {
			return fmt.Errorf("endpoint_stats: %w", err)
		}
	}
	return nil
}

// readEndpointStats reads endpoint_stats (absent from stores made before
// it existed: none).
func readEndpointStats(db *sql.DB) ([]EndpointStat, error) {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'endpoint_stats'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := db.Query(`SELECT model, endpoint, calls, errors, ejections, latency_ms_sum, latency_ms_max, prompt_tokens, completion_tokens
		FROM endpoint_stats ORDER BY model, endpoint`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EndpointStat
	for rows.Next() {
		var e EndpointStat
		if err := rows.Scan(&e.Model, &e.Endpoint, &e.Calls, &e.Errors, &e.Ejections, &e.LatencyMSSum, &e.LatencyMSMax, &e.PromptTokens, &e.CompletionTokens); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// CallTotals counts the rows of a run's call log. Every call is written
// before it is sent, so Calls is what the servers were asked, including
// calls of items that were never committed (Loose) and calls whose answer
// never came back because the run was killed (Sent, their tokens unknown
// and counted as 0).
type CallTotals struct {
	Calls, Cached, Sent, Loose     int
	PromptTokens, CompletionTokens int
	// Bad is the number of calls whose token counts are outside [0,
	// llm.MaxTokenCount] (counted clamped; RunData.BadCounts names them).
	Bad int
}

// ItemCall is a call with the item it belongs to.
type ItemCall struct {
	TrialID, QuestionID string
	Session             int
	Call
}

// MetaPrices is the meta key holding the spec's price table (JSON of
// model name -> Price, USD per million tokens).
const MetaPrices = "prices"

// MetaSpec is the meta key holding the text of the spec file the last
// `run` read (SetSpecText); MetaCacheDir the absolute cache directory the
// run's clients used (its model cache is ModelCacheFile inside).
const (
	MetaSpec     = "spec"
	MetaCacheDir = "cache_dir"
)

// SetSpecText records the spec file's text in the meta (MetaSpec), each
// of secrets that could be a secret (llm.IsSecret: at least
// llm.MinSecretLen characters, not a placeholder) replaced by
// "[REDACTED]".
func (s *Store) SetSpecText(text string, secrets []string) error {
	return s.SetMeta(map[string]string{MetaSpec: redact(text, secrets)})
}

// Name is the run's name: the spec's, else the run directory's base name.
func (r *RunData) Name() string {
	if n := r.Meta["name"]; n != "" {
		return n
	}
	return filepath.Base(r.Dir)
}

// Prices returns the price table the run's spec gave (model name -> USD per
// million prompt and completion tokens), or nil when it gave none.
func (r *RunData) Prices() (map[string]Price, error) {
	raw := r.Meta[MetaPrices]
	if raw == "" {
		return nil, nil
	}
	var p map[string]Price
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, fmt.Errorf("%s: meta %q: %w", r.Dir, MetaPrices, err)
	}
	return p, nil
}

// RunTrial is one trial with its items, sorted by question index.
type RunTrial struct {
	Trial
	Items []Item
}

// Status counts a trial's items: done, failed (StatusFailed), and pending
// out of total (items not yet run and items left by an infrastructure
// error, which resume retries).
func (t *RunTrial) Status(total int) (done, failed, pending int) {
	for _, it := range t.Items {
		switch it.Status {
		case StatusDone:
			done++
		case StatusFailed:
			failed++
		}
	}
	return done, failed, max(0, total-done-failed)
}

// ReadMode selects how much of each item ReadRunMode decodes.
type ReadMode int

const (
	// ReadVerdicts reads each item's status, verdict, error, attempts and
	// timing: no result, no call.
	ReadVerdicts ReadMode = iota
	// ReadReport adds each item's final SQL, usage by role and trace
	// counters, as an Item.Result holding only those three (no candidate,
	// trace step or trace data), and the calls of the done and failed
	// items with a verdict whose result has no usage (the reports count
	// their usage from the call log): what report tables read, without
	// decoding any trace.
	ReadReport
	// ReadResults adds each item's whole result (SQL, candidates, trace,
	// usage), every call, and the calls of items the store does not hold
	// (RunData.LooseCalls).
	ReadResults
)

// ReadRun reads the trials of the run's spec (in plan order) and their
// items from run directory dir.
// withResults also decodes each item's result (SQL, candidates, trace,
// usage) and call log, which reports of traces need: ReadRunMode with
// ReadResults, else ReadVerdicts. Memory grows with every trace of the
// run; status, summaries, compare and reports use lighter reads
// (SummarizeDir, LoadRunSystems, ReadRunMode with ReadReport) and a
// viewer reads traces one item at a time (OpenItemReader).
func ReadRun(dir string, withResults bool) (*RunData, error) {
	if withResults {
		return ReadRunMode(dir, ReadResults)
	}
	return ReadRunMode(dir, ReadVerdicts)
}

// ReadRunMode reads the trials of the run's spec (in plan order) and
// their items from run directory dir, decoding what mode says.
func ReadRunMode(dir string, mode ReadMode) (*RunData, error) {
	return ReadRunModeWith(dir, mode, ReadOptions{})
}

// ReadRunModeWith is ReadRunMode reading the trials o selects.
func ReadRunModeWith(dir string, mode ReadMode, o ReadOptions) (*RunData, error) {
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	r, idx, err := readRunHead(s.db, dir, o)
	if err != nil {
		return nil, err
	}
	cols, err := itemColumns(s.db, mode)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	irows, err := s.db.Query(`SELECT ` + itemFields + cols + ` FROM items ORDER BY idx, question_id`)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	defer irows.Close()
	for irows.Next() {
		it, err := scanItemRow(irows, dir, mode)
		if err != nil {
			return nil, err
		}
		i, ok := idx[it.TrialID]
		if !ok {
			continue
		}
		r.Trials[i].Items = append(r.Trials[i].Items, it)
	}
	if err := irows.Err(); err != nil {
		return nil, err
	}
	irows.Close()
	r.countClasses()
	switch mode {
	case ReadResults:
		err = readCalls(s.db, r, idx, func(*Item) bool { return true }, true)
	case ReadReport:
		// Reports count the usage of the finished, scored items only.
		err = readCalls(s.db, r, idx, reportWantsCalls, false)
	}
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if _, _, err := trialCallTotals(s.db, &r.CallLog); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if err := readRunTail(s.db, r, r.CallLog.Bad); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return r, nil
}

// countClasses fills FailedByClass and ErroredByClass from the items.
func (r *RunData) countClasses() {
	r.FailedByClass, r.ErroredByClass = map[string]int{}, map[string]int{}
	for _, t := range r.Trials {
		for _, it := range t.Items {
			switch it.Status {
			case StatusFailed:
				r.FailedByClass[it.ErrorClass]++
			case StatusError:
				r.ErroredByClass[it.ErrorClass]++
			}
		}
	}
}

// readRunHead reads the meta and the trials of a run (no item), and
// returns the trials' positions by id. The trials are those of the run's
// spec, in plan order; the others are RunData.Stale, and with o.AllTrials
// they follow the spec's in RunData.Trials too (see splitStale).
func readRunHead(db *sql.DB, dir string, o ReadOptions) (*RunData, map[string]int, error) {
	r := &RunData{Dir: dir, Meta: map[string]string{}}
	rows, err := db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, nil, err
		}
		r.Meta[k] = v
	}
	rows.Close()
	r.Simulated = r.Meta["simulated"] == "1"
	r.Integrity = integrityOf(r.Meta)
	r.Totals = map[string]int{}
	for k, v := range r.Meta {
		if id, ok := strings.CutPrefix(k, "items:"); ok {
			n, _ := strconv.Atoi(v)
			r.Totals[id] = n
		}
	}
	stored, err := readTrials(db)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	// Identities are derived over every stored trial: they group the
	// trials of one entry, whichever spec they came from.
	all := make([]RunTrial, len(stored))
	for i := range stored {
		all[i] = RunTrial{Trial: stored[i].Trial}
	}
	DeriveIdentities(all)
	cur, stale, err := splitStale(r.Meta, stored)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	for _, i := range cur {
		r.Trials = append(r.Trials, all[i])
	}
	for _, i := range stale {
		r.Stale = append(r.Stale, all[i].Trial)
		if o.AllTrials {
			r.Trials = append(r.Trials, all[i])
		}
	}
	idx := map[string]int{}
	for i := range r.Trials {
		idx[r.Trials[i].ID] = i
	}
	return r, idx, nil
}

// readRunTail reads the lines of the bad call-log counts, of which there
// are bad, and the endpoint counters.
func readRunTail(db *sql.DB, r *RunData, bad int) error {
	var err error
	if r.BadCounts, err = readBadCounts(db, bad); err != nil {
		return err
	}
	r.Endpoints, err = readEndpointStats(db)
	return err
}

// callColumns returns the columns of model_calls that scanCallRow decodes,
// for db's layout (callState, callCacheKey).
func callColumns(db *sql.DB) (string, error) {
	state, err := callState(db, "")
	if err != nil {
		return "", err
	}
	ck, err := callCacheKey(db)
	if err != nil {
		return "", err
	}
	return `trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, ` + state + `, ` + ck, nil
}

// scanCallRow decodes one row of callColumns: the call's trial, question
// and session, and the call, its token counts clamped.
func scanCallRow(rows *sql.Rows) (trial, question string, session int, c Call, err error) {
	var st string
	var cached int
	var e sql.NullString
	if err := rows.Scan(&trial, &question, &session, &c.Role, &c.N, &cached, &c.PromptTokens, &c.CompletionTokens, &c.LatencyMS, &e, &st, &c.CacheKey); err != nil {
		return "", "", 0, Call{}, err
	}
	c.Cached, c.Error, c.Sent = cached == 1, e.String, st == callSent
	c.PromptTokens, c.CompletionTokens = clampTokens(c.PromptTokens), clampTokens(c.CompletionTokens)
	return trial, question, session, c, nil
}

// readCalls attaches the call log to the items want selects and, when
// loose, collects the other calls (want must then select every item, so
// that these are the calls of items the store does not hold).
func readCalls(db *sql.DB, r *RunData, idx map[string]int, want func(*Item) bool, loose bool) error {
	pos := map[string]int{}
	for _, t := range r.Trials {
		for j := range t.Items {
			if it := &t.Items[j]; want(it) {
				pos[itemKey(it.TrialID, it.QuestionID)] = j
			}
		}
	}
	if len(pos) == 0 && !loose {
		return nil // no call wanted: no pass over the call log
	}
	cols, err := callColumns(db)
	if err != nil {
		return err
	}
	rows, err := db.Query(`SELECT ` + cols + ` FROM model_calls ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t, q, session, c, err := scanCallRow(rows)
		if err != nil {
			return err
		}
		i, ok := idx[t]
		j, ok2 := pos[itemKey(t, q)]
		switch {
		case ok && ok2:
			r.Trials[i].Items[j].Calls = append(r.Trials[i].Items[j].Calls, c)
		case loose:
			r.LooseCalls = append(r.LooseCalls, ItemCall{TrialID: t, QuestionID: q, Session: session, Call: c})
		}
	}
	return rows.Err()
}

// LoadRunVerdicts returns, for run directory dir, the trial labels in plan
// order and trial label -> question id -> correct over the questions in
// EX's denominator (TrialOutcomes: done and failed items whose gold runs;
// failed ones are false).
func LoadRunVerdicts(dir string) ([]string, map[string]map[string]bool, error) {
	systems, err := LoadRunSystems(dir)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string]bool{}
	labels := make([]string, 0, len(systems))
	for _, s := range systems {
		labels = append(labels, s.Label)
		out[s.Label] = s.Correct
	}
	return labels, out, nil
}

// RunSystem is one trial's per-question outcomes, as compare reads them.
type RunSystem struct {
	// Trial is the trial's configuration (identity and seed included).
	Trial Trial
	Label string
	// Benchmark is the name (and "/split" when the spec sets one); trials on different benchmarks share
	// question ids and must never be paired.
	Benchmark string
	// Simulated is true for a trial whose roles use the sim backend.
	Simulated bool
	// Correct maps question id to its outcome over EX's one denominator
	// (see TrialOutcomes: done and failed items whose gold runs, failed
	// ones false); Failed holds the ids of failed items; DBs maps question
	// id to the verdict's database id; Candidates maps question id to
	// its verdict's candidate marks (Outcomes.Candidates).
	Correct    map[string]bool
	Failed     map[string]bool
	DBs        map[string]string
	Candidates map[string][]metrics.CandidateMark
	// Tally counts the attempted, correct and failed questions and, by
	// status, those whose gold does not run; Pending the items not yet
	// finished (failed by an infrastructure error or not run).
	Tally   metrics.Tally
	Pending int
}

// LoadRunSystems reads the outcomes of every trial of the spec of run
// directory dir, in plan order, streaming each trial's statuses and
// verdicts (no result, no call; see SummarizeDir).
func LoadRunSystems(dir string) ([]RunSystem, error) {
	out, _, err := LoadRunSystemsWith(dir, ReadOptions{})
	return out, err
}

// LoadRunSystemsWith is LoadRunSystems reading the trials o selects; it
// also returns the run's meta and trials (no item), whose Stale and
// StaleNote say which trials it left out.
func LoadRunSystemsWith(dir string, o ReadOptions) ([]RunSystem, *RunData, error) {
	st, err := openDB(dir, true)
	if err != nil {
		return nil, nil, err
	}
	defer st.db.Close()
	r, _, err := readRunHead(st.db, dir, o)
	if err != nil {
		return nil, nil, err
	}
	out := make([]RunSystem, 0, len(r.Trials))
	for _, t := range r.Trials {
		a := NewOutcomeAcc(true)
		if err := eachTrialItem(st.db, t.ID, func(it *Item) { a.Add(it) }); err != nil {
			return nil, nil, fmt.Errorf("store %s: %w", dir, err)
		}
		o := a.Outcomes(r.Totals[t.ID])
		out = append(out, RunSystem{
			Trial:      t.Trial,
			Label:      t.Label,
			Benchmark:  t.Benchmark.Key(),
			Simulated:  t.Simulated(),
			Correct:    o.Correct,
			Failed:     o.Failed,
			DBs:        o.DBs,
			Candidates: o.Candidates,
			Tally:      o.Tally,
			Pending:    o.Pending,
		})
	}
	return out, r, nil
}

// SessionCount returns how many sessions (invocations) the store has seen.
func (s *Store) SessionCount() (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n)
	return n, err
}
