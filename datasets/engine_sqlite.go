package datasets

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Defaults for SQLiteOptions.
const (
	// DefaultTimeout is the per-query timeout: BIRD's official evaluator
	// (DAMO-ConvAI bird/llm/src/evaluation.py, meta_time_out=30.0) and the
	// mini-dev run_evaluation.sh both give each query pair 30 seconds.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRows is the number of result rows kept per query. No
	// official scorer caps rows; this is the harness's own bound on
	// memory, far above any gold result in Spider or BIRD dev (the largest
	// are a few thousand rows), so a capped result is never a correct one
	// by accident of truncation.
	DefaultMaxRows = 100000
	// DefaultMaxBytes is the byte budget of one query result (see
	// ResultBytes for what is counted): 64 MiB. It is the bound that holds
	// when rows are large (zeroblob, group_concat, long texts), where the
	// row cap alone let one result reach gigabytes. It is a budget per
	// query, and queries run in parallel (eval's --workers, a run's
	// workers; 8 by default), so it is kept well below a machine's memory
	// divided by them: reading a result allocates about twice what it
	// keeps. It is far above every gold result of Spider and BIRD dev
	// and above the row cap's worth of ordinary rows (100,000 rows of ten
	// short values are a few tens of MiB at most in Go), so it changes no
	// verdict the row cap would give.
	DefaultMaxBytes = 64 << 20
	// maxValueLength caps one TEXT or BLOB value (SQLITE_LIMIT_LENGTH) so
	// that zeroblob/randomblob/group_concat cannot exhaust memory; the
	// largest benchmark value is far below it.
	maxValueLength = 64 << 20
)

// SQLiteOptions configures SQLite databases. Zero fields take the defaults
// DefaultTimeout and DefaultMaxRows.
type SQLiteOptions struct {
	// Timeout bounds each Execute call; the running statement is
	// interrupted when it expires.
	Timeout time.Duration
	// MaxRows is the number of rows kept; further rows are dropped and the
	// result is marked Truncated.
	MaxRows int
	// MaxBytes is the byte budget of one result (ResultBytes); a result
	// that exceeds it stops the statement and fails with ExecTooLarge.
	MaxBytes int64
}

func (o SQLiteOptions) withDefaults() SQLiteOptions {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// sandboxDriver is the name of the registered read-only SQLite driver: every
// connection it opens carries the authorizer and limits below.
const sandboxDriver = "sqlite3_t2sbench_ro"

func init() {
	sql.Register(sandboxDriver, &sqlite3.SQLiteDriver{ConnectHook: sandboxConn})
}

// sandboxConn hardens a fresh connection: no ATTACH (limit 0), bounded value
// length, and the read-only authorizer. go-sqlite3 only enables extension
// loading inside its own LoadExtension call and the driver's Extensions list
// is empty, so sqlite3_enable_load_extension stays off; the authorizer also
// refuses the load_extension() SQL function.
func sandboxConn(c *sqlite3.SQLiteConn) error {
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, maxValueLength)
	c.RegisterAuthorizer(authorize)
	return nil
}

// sqliteRecursive is SQLITE_RECURSIVE (33), which go-sqlite3 does not export.
const sqliteRecursive = 33

// readPragmas are the pragmas a sandboxed connection may run: read-only
// introspection only (a value argument, as in "PRAGMA table_info = x", is
// still a read for these).
var readPragmas = map[string]bool{
	"table_info":       true,
	"table_xinfo":      true,
	"table_list":       true,
	"foreign_key_list": true,
	"index_list":       true,
	"index_info":       true,
	"index_xinfo":      true,
}

// deniedFunctions are SQL functions refused even in a read: they reach the
// file system or process state (load_extension, readfile, writefile, edit
// from the CLI's shell extensions; fts3_tokenizer can register C pointers).
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"readfile":       true,
	"writefile":      true,
	"edit":           true,
	"fts3_tokenizer": true,
}

// authorize is the sqlite3_set_authorizer callback: a whitelist of read
// actions; everything else (writes, DDL, ATTACH/DETACH, transactions,
// savepoints, VACUUM, ANALYZE, REINDEX, virtual-table DDL, other pragmas)
// is denied at prepare time.
func authorize(op int, arg1, arg2, _ string) int {
	switch op {
	case sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqliteRecursive:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		// arg1 is NULL (""), arg2 the function name.
		if deniedFunctions[strings.ToLower(arg2)] {
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_PRAGMA:
		if readPragmas[strings.ToLower(arg1)] {
			return sqlite3.SQLITE_OK
		}
		return sqlite3.SQLITE_DENY
	default:
		return sqlite3.SQLITE_DENY
	}
}

// SQLiteEngine opens SQLite benchmark databases by id, read-only and
// sandboxed, caching one Database per id. It is safe for concurrent use.
type SQLiteEngine struct {
	locate func(dbID string) (string, bool)
	opt    SQLiteOptions

	mu  sync.Mutex
	dbs map[string]*sqliteDB
}

// NewSQLiteEngine returns an engine that finds database files with locate
// (false means the database does not exist). opt applies to every database.
func NewSQLiteEngine(locate func(dbID string) (path string, ok bool), opt SQLiteOptions) *SQLiteEngine {
	return &SQLiteEngine{locate: locate, opt: opt.withDefaults(), dbs: map[string]*sqliteDB{}}
}

// Open returns the cached handle on dbID, opening it on first use. A
// database that locate does not find gives an error wrapping ErrMissingDB.
func (e *SQLiteEngine) Open(ctx context.Context, dbID string) (Database, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if db, ok := e.dbs[dbID]; ok {
		return db, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, ok := e.locate(dbID)
	if !ok {
		return nil, fmt.Errorf("sqlite engine: %q: %w", dbID, ErrMissingDB)
	}
	db, err := openSQLite(path, dbID, e.opt)
	if err != nil {
		return nil, err
	}
	e.dbs[dbID] = db
	return db, nil
}

// Dialect returns "sqlite".
func (e *SQLiteEngine) Dialect() string { return "sqlite" }

// Close closes every database the engine opened. Handles returned by Open
// are unusable afterwards.
func (e *SQLiteEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for id, db := range e.dbs {
		if err := db.pool.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", id, err))
		}
		delete(e.dbs, id)
	}
	return errors.Join(errs...)
}

// OpenSQLite opens the SQLite file at path as a read-only, sandboxed
// Database named dbID. A missing file gives an error wrapping ErrMissingDB.
func OpenSQLite(path, dbID string, opt SQLiteOptions) (Database, error) {
	db, err := openSQLite(path, dbID, opt.withDefaults())
	if err != nil {
		return nil, err
	}
	return db, nil
}

// sqliteDB is the SQLite Database: a database/sql pool over the sandbox
// driver.
type sqliteDB struct {
	id   string
	path string
	opt  SQLiteOptions
	pool *sql.DB

	fpOnce sync.Once
	fp     string

	schemaMu sync.Mutex
	schema   *Schema
}

func openSQLite(path, dbID string, opt SQLiteOptions) (*sqliteDB, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open sqlite %s (%s): %w", dbID, path, ErrMissingDB)
	}
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", dbID, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("open sqlite %s: %s is a directory", dbID, path)
	}
	pool, err := sql.Open(sandboxDriver, sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", dbID, err)
	}
	n := runtime.GOMAXPROCS(0) * 2
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	// Open the first connection now, so that a file that is not a database
	// fails here rather than on the first query.
	ctx, cancel := context.WithTimeout(context.Background(), opt.Timeout)
	defer cancel()
	var one int
	if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&one); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open sqlite %s (%s): %w", dbID, path, err)
	}
	return &sqliteDB{id: dbID, path: path, opt: opt, pool: pool}, nil
}

// sqliteDSN builds the connection URI. mode=ro makes SQLite refuse every
// write at the pager; _query_only=1 (PRAGMA query_only, set by the driver
// before the authorizer is installed) refuses writes at the statement level.
// immutable=1 tells SQLite the file cannot change, so it takes no locks and
// creates no -shm/-journal files next to the shared data; it is used only
// when no -wal file sits beside the database, because an immutable open
// ignores a WAL and would miss committed content in it.
// _stmt_cache_size keeps each connection's last 32 prepared statements: a
// run executes the same text again and again (the samples of a
// self-consistency item that agree, the trials that predict the same
// query), and SQLite then reuses the compiled statement. Only statements
// the authorizer allowed are ever cached, and each is reset before reuse.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_stmt_cache_size", "32")
	if _, err := os.Stat(path + "-wal"); err != nil {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Opaque: escapePath(path), RawQuery: q.Encode()}
	return u.String()
}

// escapePath percent-encodes the characters that are special in an SQLite
// URI filename ('?', '#', '%').
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// ID returns the database id.
func (d *sqliteDB) ID() string { return d.id }

// Dialect returns "sqlite".
func (d *sqliteDB) Dialect() string { return "sqlite" }

// Close closes the connection pool.
func (d *sqliteDB) Close() error { return d.pool.Close() }

// Fingerprint returns the SHA-256 (hex) of the database file, computed on
// first use. A file that cannot be read gives "unreadable:<path>", which
// still keys a cache safely (it matches nothing real).
func (d *sqliteDB) Fingerprint() string {
	d.fpOnce.Do(func() {
		fp, err := fileSHA256(d.path)
		if err != nil {
			d.fp = "unreadable:" + d.path
			return
		}
		d.fp = fp
	})
	return d.fp
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errOurTimeout is the cause attached to the per-query deadline, so that it
// can be told apart from the caller's own deadline or cancellation.
var errOurTimeout = errors.New("sqlite query timeout")

// Execute runs one read-only statement (SingleStatement: text holding a
// NUL byte or a second statement is refused, ExecDenied) with the
// configured timeout, row cap and byte budget. Every failure is an
// *ExecError; a result over the byte budget is one of kind ExecTooLarge.
func (d *sqliteDB) Execute(ctx context.Context, query string) (*ResultSet, error) {
	return d.execute(ctx, nil, query)
}

// execute is Execute on conn, or on a connection of the pool when conn is
// nil.
func (d *sqliteDB) execute(ctx context.Context, conn *sql.Conn, query string) (*ResultSet, error) {
	start := time.Now()
	fail := func(kind ExecKind, msg string) (*ResultSet, error) {
		return nil, &ExecError{Kind: kind, Msg: msg, Elapsed: time.Since(start)}
	}
	stmt, err := SingleStatement(query)
	if err != nil {
		if errors.Is(err, ErrMultipleStatements) || errors.Is(err, ErrNULByte) {
			return fail(ExecDenied, err.Error())
		}
		return fail(ExecErrorKind, err.Error())
	}
	qctx, cancel := context.WithTimeoutCause(ctx, d.opt.Timeout, errOurTimeout)
	defer cancel()
	rs, err := d.query(qctx, conn, cancel, stmt, d.opt.MaxRows, d.opt.MaxBytes)
	var big *tooLargeError
	if errors.As(err, &big) {
		return fail(ExecTooLarge, big.Error())
	}
	if err != nil {
		return fail(d.classify(ctx, qctx, err), err.Error())
	}
	rs.Elapsed = time.Since(start)
	return rs, nil
}

// Pin returns a Database whose statements all run on one connection of
// d's pool, held until its Close (Pinner), with Execute's sandbox,
// timeout, row cap and byte budget.
func (d *sqliteDB) Pin(ctx context.Context) (Database, error) {
	c, err := d.pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("pin sqlite %s: %w", d.id, err)
	}
	return &pinnedSQLite{sqliteDB: d, conn: c}, nil
}

// pinnedSQLite is a sqliteDB that runs every statement on conn.
type pinnedSQLite struct {
	*sqliteDB
	conn *sql.Conn
}

// Execute runs one read-only statement on the pinned connection.
func (p *pinnedSQLite) Execute(ctx context.Context, query string) (*ResultSet, error) {
	return p.execute(ctx, p.conn, query)
}

// Close returns the pinned connection to the pool; the database stays
// open.
func (p *pinnedSQLite) Close() error { return p.conn.Close() }

// classify maps a query error to an ExecKind: the caller's context first,
// then our deadline, then the authorizer.
func (d *sqliteDB) classify(ctx, qctx context.Context, err error) ExecKind {
	switch {
	case ctx.Err() != nil:
		return ExecCanceled
	case errors.Is(context.Cause(qctx), errOurTimeout):
		return ExecTimeout
	}
	// The authorizer's refusals surface as SQLITE_AUTH ("not authorized")
	// for statements and as SQLITE_ERROR "not authorized to use function:
	// X" for denied functions.
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrAuth || se.Code == sqlite3.ErrReadonly ||
		strings.Contains(se.Error(), "not authorized")) {
		return ExecDenied
	}
	return ExecErrorKind
}

// query runs stmt (one statement) and collects at most maxRows rows. It
// counts the bytes of the values as it reads them (ResultBytes) and, as
// soon as they exceed maxBytes, interrupts the statement and returns a
// *tooLargeError, so that no more than about maxBytes plus one row is ever
// held. stop cancels ctx (go-sqlite3 then calls sqlite3_interrupt): the
// caller passes the cancel function of the context it made for the query,
// so that no second context is made per query.
//
// The statement runs on a pooled connection through the driver itself
// (sql.Conn.Raw): database/sql's Rows start a goroutine per query that
// waits on a cancellable context (and every query here has one, for the
// timeout), a cost comparable to running one of Spider dev's small
// queries (metrics' BenchmarkSpiderEvalVsBareLoop); the driver still
// interrupts the statement on ctx (context.AfterFunc, then
// sqlite3_interrupt), and the connection is the sandboxed one
// (sandboxConn) either way.
//
// go-sqlite3 converts values of columns declared DATE, DATETIME or
// TIMESTAMP to time.Time and of columns declared BOOLEAN to bool, which
// loses the stored value. When a result column carries such a declared
// type the statement is run again wrapped as
//
//	WITH _t2s_q(c0, ..., cn) AS (stmt) SELECT +c0, ..., +cn FROM _t2s_q
//
// where unary + keeps the value and storage class but drops the declared
// type; the result keeps the original column names and row order.
func (d *sqliteDB) query(ctx context.Context, conn *sql.Conn, stop context.CancelFunc, stmt string, maxRows int, maxBytes int64) (*ResultSet, error) {
	if conn == nil {
		c, err := d.pool.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		conn = c
	}
	var rs *ResultSet
	err := conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("sqlite driver connection %T cannot query", dc)
		}
		var err error
		rs, err = queryConn(ctx, stop, qc, stmt, maxRows, maxBytes)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// queryConn is query on one driver connection.
func queryConn(ctx context.Context, stop context.CancelFunc, qc driver.QueryerContext, stmt string, maxRows int, maxBytes int64) (*ResultSet, error) {
	rows, err := qc.QueryContext(ctx, stmt, nil)
	if err != nil {
		return nil, err
	}
	cols := slices.Clone(rows.Columns())
	if needsWrap(rows) {
		rows.Close()
		rows, err = qc.QueryContext(ctx, wrapQuery(stmt, len(cols)), nil)
		if err != nil {
			return nil, err
		}
	}
	defer rows.Close()
	rs := &ResultSet{Columns: cols, Rows: [][]any{}}
	vals := make([]driver.Value, len(cols))
	var size int64
	for {
		err := rows.Next(vals)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rs.Rows) >= maxRows {
			rs.Truncated = true
			break
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			nv, err := normalizeValue(v)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", cols[i], err)
			}
			row[i] = nv
			vals[i] = nil // the row holds the value; drop the buffer's reference
			size += valueBytes(nv)
		}
		if size > maxBytes {
			stop()
			return nil, &tooLargeError{limit: maxBytes, rows: len(rs.Rows) + 1}
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// tooLargeError is the failure of a result over the byte budget.
type tooLargeError struct {
	limit int64
	rows  int
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("result too large: over the %s byte budget after %d rows (statement interrupted)", formatBytes(e.limit), e.rows)
}

// formatBytes writes n in MiB when it is a whole number of them, else in
// bytes.
func formatBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d B", n)
}

// valueBytes is what one result value counts against the byte budget: the
// length of a TEXT or BLOB value, 8 for a number and 0 for NULL.
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case nil:
		return 0
	default:
		return 8
	}
}

// ResultBytes is the size of rs as the byte budget counts it: the sum over
// its values of the length of each TEXT or BLOB value and 8 for each
// number (NULL counts 0). Go's own overhead (about 16 bytes per value and
// 24 per row) comes on top.
func ResultBytes(rs *ResultSet) int64 {
	var n int64
	for _, row := range rs.Rows {
		for _, v := range row {
			n += valueBytes(v)
		}
	}
	return n
}

// needsWrap reports whether a result column has a declared type that the
// driver converts lossily.
func needsWrap(rows driver.Rows) bool {
	var types []string
	switch r := rows.(type) {
	case interface{ DeclTypes() []string }:
		types = r.DeclTypes() // go-sqlite3's own, lower case, cached for the rows
	case driver.RowsColumnTypeDatabaseTypeName:
		for i := range rows.Columns() {
			types = append(types, r.ColumnTypeDatabaseTypeName(i))
		}
	}
	for _, t := range types {
		switch strings.ToLower(t) {
		case "date", "datetime", "timestamp", "boolean":
			return true
		}
	}
	return false
}

func wrapQuery(stmt string, n int) string {
	var names, sel strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			names.WriteString(", ")
			sel.WriteString(", ")
		}
		fmt.Fprintf(&names, "c%d", i)
		fmt.Fprintf(&sel, "+c%d", i)
	}
	// The newline ends a trailing "--" comment inside stmt.
	return "WITH _t2s_q(" + names.String() + ") AS (\n" + stmt + "\n) SELECT " + sel.String() + " FROM _t2s_q"
}

// normalizeValue maps a driver value to the ResultSet types. go-sqlite3
// returns TEXT as a string (bytes exactly as stored) and BLOB as a []byte
// of its own (C.GoBytes, a copy), which the row may keep.
func normalizeValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, float64, string, []byte:
		return x, nil
	default:
		return nil, fmt.Errorf("unexpected driver value type %T", v)
	}
}

// Schema introspects the database once and returns the cached result. The
// *Schema is shared by every caller: treat it as read-only (copy it before
// adding comments, or pass them through RenderOptions.Comments).
//
// A file's schema is introspected once per process while the file stays as
// it was (schemaKeyOf): handles opened again on it, as every run of a
// process opens its benchmark's databases, share the first one's. A file
// of at most schemaHashMax bytes is known by its content's SHA-256, so a
// file just written shares its schema too; a larger one, known by its size
// and time, is introspected by every handle while it was written within
// schemaRacyMargin of its introspection (schemaKey.racy).
func (d *sqliteDB) Schema(ctx context.Context) (*Schema, error) {
	d.schemaMu.Lock()
	defer d.schemaMu.Unlock()
	if d.schema != nil {
		return d.schema, nil
	}
	start := time.Now()
	key, keyed := schemaKeyOf(d.path, d.id)
	if key.sum != "" {
		d.fpOnce.Do(func() { d.fp = key.sum }) // the same hash Fingerprint takes
	}
	if keyed {
		if s := schemaMemo.get(key); s != nil {
			d.schema = s
			return s, nil
		}
	}
	s, err := introspectSQLite(ctx, d.pool, d.id, d.opt.Timeout)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", d.id, err)
	}
	if after, ok := schemaKeyOf(d.path, d.id); keyed && ok && after == key && !key.racy(start) {
		schemaMemo.put(key, s)
	}
	d.schema = s
	return s, nil
}

// schemaKey identifies an SQLite file's content for schemaMemo: its path,
// size and modification time, the id its schema names, and the SHA-256
// (hex) of a file of at most schemaHashMax bytes.
type schemaKey struct {
	path, id  string
	size, mod int64
	sum       string
}

// schemaHashMax is the largest file whose content keys schemaMemo: hashing
// it takes well under the introspection it saves (a few hundred
// microseconds for 1 MiB; the bundled mini benchmark's files are 32 KB).
const schemaHashMax = 1 << 20

// schemaRacyMargin is how long before an introspection began a file keyed
// by its size and time must have been last written for schemaMemo to keep
// its schema: more than the coarsest timestamp resolution of a file system
// (FAT's 2 s; Linux stamps times from a clock that advances in ticks of
// several milliseconds).
const schemaRacyMargin = 3 * time.Second

// racy reports whether the file k names, keyed by its size and time, was
// written so shortly before start that a later write could leave its size
// and time as k holds them (a write within the same timestamp tick): its
// schema is not kept, as git does not trust an index entry as recent as
// the index itself. A file keyed by its content is never racy.
func (k schemaKey) racy(start time.Time) bool {
	return k.sum == "" && !time.Unix(0, k.mod).Before(start.Add(-schemaRacyMargin))
}

// schemaKeyOf returns the key of the file at path, false when it cannot be
// read or has a write-ahead log beside it (whose content the file does not
// show).
func schemaKeyOf(path, id string) (schemaKey, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return schemaKey{}, false
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		return schemaKey{}, false
	}
	k := schemaKey{path: path, id: id, size: st.Size(), mod: st.ModTime().UnixNano()}
	if k.size <= schemaHashMax {
		if k.sum, err = fileSHA256(path); err != nil {
			return schemaKey{}, false
		}
	}
	return k, true
}

// schemaMemoMax bounds schemaMemo: past it the memo starts again empty.
const schemaMemoMax = 4096

// schemaMemo holds the introspected schema of each SQLite file opened in
// the process, by schemaKey.
var schemaMemo = &schemaCache{m: map[schemaKey]*Schema{}}

type schemaCache struct {
	mu sync.Mutex
	m  map[schemaKey]*Schema
}

func (c *schemaCache) get(k schemaKey) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *schemaCache) put(k schemaKey, s *Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= schemaMemoMax {
		clear(c.m)
	}
	c.m[k] = s
}
