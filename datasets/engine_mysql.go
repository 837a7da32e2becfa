package datasets

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/sqllex"
)

// MySQL engine defaults. They match the SQLite engine's (30 s, 100,000 rows)
// so that both engines cap predictions the same way; the authors' LogicCat
// scorer (IESR-SLM eval_exec_acc.py) used a 60 s timeout, which a spec can
// set explicitly.
const (
	defaultMySQLTimeout = 30 * time.Second
	defaultMySQLMaxRows = 100000
	// mysqlKillMargin is how long past the server-side limit the client
	// waits before it gives up on the statement and sends KILL QUERY.
	mysqlKillMargin = 250 * time.Millisecond
	// mysqlExamples is how many distinct sample values Schema keeps per
	// column (METHODS.md "Schema text": up to 3 are rendered).
	mysqlExamples = 3
)

// MySQLConfig configures a MySQL/MariaDB engine.
type MySQLConfig struct {
	// DSN is a go-sql-driver/mysql DSN of a SELECT-only account, e.g.
	// "t2s_ro@unix(/tmp/x/sock)/". It must not hold a password; use
	// PasswordEnv. The database part is ignored (each Open picks its own).
	DSN string
	// PasswordEnv names an environment variable holding the password. The
	// password is read when the engine is created and never stored in the
	// config or printed.
	PasswordEnv string
	// Timeout is the per-query limit (default 30 s). It is enforced by the
	// server (SET STATEMENT max_statement_time) and by the client, which
	// sends KILL QUERY when the server has not stopped shortly after it.
	Timeout time.Duration
	// MaxRows caps the rows kept per result (default 100,000).
	MaxRows int
	// MaxBytes is the byte budget of one result (default
	// DefaultMaxBytes, counted as ResultBytes does); over it the statement
	// is killed and Execute fails with ExecTooLarge.
	MaxBytes int64
	// DBMap maps benchmark db ids to schema names where they differ (for
	// LogicCat: concert -> Concert, exerciseclub -> exercise_club). Ids
	// not in the map are used as schema names unchanged.
	DBMap map[string]string
}

// MySQLEngine opens schemas of one MySQL/MariaDB server as read-only
// Databases. Every statement runs through a SELECT-only account: the
// engine refuses, at creation, an account holding any privilege other than
// SELECT and USAGE.
//
// Every Execute (a prediction, a gold, a runner's query) runs on a
// connection of its own, opened for it and closed after it, so that it
// starts from a clean session: no user variable (SELECT @v := 42), no
// LAST_INSERT_ID(n), no user lock and no other session state left by an
// earlier statement can change its result, whichever worker ran what
// before. The driver (go-sql-driver/mysql) does not expose
// COM_RESET_CONNECTION, and a reset made of SQL statements (releasing
// locks, clearing the user variables one by one) would cover only the
// state it knows of; a new session covers all of it, and closing it
// releases whatever it held. Its cost is one connect per execution:
// BenchmarkMySQLSessionIsolation measures it against a pooled connection.
// User locks are refused as well (CheckMySQLReadOnly): a lock is visible
// to every session while it is held, so a prediction running beside
// another could still see one. The engine's own statements (fingerprint,
// schema, checksums) use a pool.
type MySQLEngine struct {
	cfg      MySQLConfig
	base     *mysql.Config
	timeout  time.Duration
	maxRows  int
	maxBytes int64

	mu  sync.Mutex
	dbs map[string]*MySQLDatabase
}

// NewMySQLEngine checks cfg, connects once to verify that the account is
// SELECT-only, and returns the engine.
func NewMySQLEngine(cfg MySQLConfig) (*MySQLEngine, error) {
	if cfg.DSN == "" {
		return nil, errors.New("mysql engine: DSN is empty")
	}
	base, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("mysql engine: parse DSN: %w", err)
	}
	if base.Passwd != "" {
		return nil, errors.New("mysql engine: DSN must not contain a password; name an environment variable in PasswordEnv")
	}
	if cfg.PasswordEnv != "" {
		pw, ok := os.LookupEnv(cfg.PasswordEnv)
		if !ok {
			return nil, fmt.Errorf("mysql engine: password variable %s is not set", cfg.PasswordEnv)
		}
		base.Passwd = pw
	}
	hardenMySQLConfig(base)
	e := &MySQLEngine{cfg: cfg, base: base, timeout: cfg.Timeout, maxRows: cfg.MaxRows, maxBytes: cfg.MaxBytes, dbs: map[string]*MySQLDatabase{}}
	if e.timeout <= 0 {
		e.timeout = defaultMySQLTimeout
	}
	if e.maxRows <= 0 {
		e.maxRows = defaultMySQLMaxRows
	}
	if e.maxBytes <= 0 {
		e.maxBytes = DefaultMaxBytes
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.checkSelectOnly(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// hardenMySQLConfig forces the client options the sandbox relies on: one
// statement per query, no LOAD DATA LOCAL, values as text.
func hardenMySQLConfig(c *mysql.Config) {
	c.MultiStatements = false
	c.AllowAllFiles = false
	c.ParseTime = false
	c.InterpolateParams = false
	c.ClientFoundRows = false
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	if _, ok := c.Params["charset"]; !ok {
		c.Params["charset"] = "utf8mb4"
	}
}

// checkSelectOnly connects without a default schema and reads SHOW GRANTS.
func (e *MySQLEngine) checkSelectOnly(ctx context.Context) error {
	c := *e.base
	c.DBName = ""
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		return fmt.Errorf("mysql engine: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW GRANTS FOR CURRENT_USER()")
	if err != nil {
		return fmt.Errorf("mysql engine: connect as %s: %w", c.User, err)
	}
	defer rows.Close()
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return fmt.Errorf("mysql engine: read grants: %w", err)
		}
		if bad := grantBeyondSelect(g); bad != "" {
			return fmt.Errorf("mysql engine: account %s is not SELECT-only (grant %q holds %s); create one with `t2sbench datasets load-mysql --ro-user`", c.User, g, bad)
		}
	}
	return rows.Err()
}

// grantBeyondSelect returns the first privilege in a SHOW GRANTS line other
// than SELECT or USAGE, or "" when there is none. Roles granted to the
// account count as privileges beyond SELECT.
func grantBeyondSelect(g string) string {
	u := strings.ToUpper(g)
	if !strings.HasPrefix(u, "GRANT ") {
		return ""
	}
	on := strings.Index(u, " ON ")
	if on < 0 {
		return "a role"
	}
	if strings.Contains(u[on:], "WITH GRANT OPTION") {
		return "GRANT OPTION"
	}
	privs := u[len("GRANT "):on]
	for { // drop column lists: SELECT (a, b)
		i := strings.IndexByte(privs, '(')
		j := strings.IndexByte(privs, ')')
		if i < 0 || j < i {
			break
		}
		privs = privs[:i] + privs[j+1:]
	}
	for _, p := range strings.Split(privs, ",") {
		p = strings.TrimSpace(p)
		if p != "SELECT" && p != "USAGE" {
			return p
		}
	}
	return ""
}

// Dialect returns "mysql".
func (e *MySQLEngine) Dialect() string { return "mysql" }

// SchemaName returns the schema a benchmark db id maps to.
func (e *MySQLEngine) SchemaName(dbID string) string {
	if s, ok := e.cfg.DBMap[dbID]; ok {
		return s
	}
	return dbID
}

// Open returns the database for dbID, opening and fingerprinting it on
// first use. A schema that does not exist yields an error wrapping
// ErrMissingDB.
func (e *MySQLEngine) Open(ctx context.Context, dbID string) (Database, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d, ok := e.dbs[dbID]; ok {
		return d, nil
	}
	d, err := e.open(ctx, dbID)
	if err != nil {
		return nil, err
	}
	e.dbs[dbID] = d
	return d, nil
}

func (e *MySQLEngine) open(ctx context.Context, dbID string) (*MySQLDatabase, error) {
	schema := e.SchemaName(dbID)
	c := *e.base
	c.DBName = schema
	pool, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("mysql engine: open %s: %w", dbID, err)
	}
	pool.SetMaxOpenConns(16)
	pool.SetMaxIdleConns(8)
	pool.SetConnMaxIdleTime(time.Minute)
	// fresh holds Execute's connections: each dials a new session, and
	// execute discards it after its statement (MySQLEngine).
	fresh, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("mysql engine: open %s: %w", dbID, err)
	}
	fresh.SetMaxOpenConns(16)
	c.DBName = ""
	admin, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		pool.Close()
		fresh.Close()
		return nil, fmt.Errorf("mysql engine: open %s: %w", dbID, err)
	}
	admin.SetMaxOpenConns(2)
	d := &MySQLDatabase{id: dbID, schemaName: schema, db: pool, exec: fresh, admin: admin, timeout: e.timeout, maxRows: e.maxRows, maxBytes: e.maxBytes}
	fp, err := d.fingerprint(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.fp = fp
	return d, nil
}

// Close closes every opened database.
func (e *MySQLEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for id, d := range e.dbs {
		errs = append(errs, d.Close())
		delete(e.dbs, id)
	}
	return errors.Join(errs...)
}

// MySQLDatabase is one schema on a MySQL/MariaDB server, reached through a
// SELECT-only account. It is safe for concurrent use.
type MySQLDatabase struct {
	id, schemaName string
	db             *sql.DB // pooled connections with the schema as default database, for the engine's own statements
	exec           *sql.DB // Execute's connections: a new session each, discarded after it
	admin          *sql.DB // the watchdog's connections (KILL QUERY)
	timeout        time.Duration
	maxRows        int
	maxBytes       int64
	fp             string
	// reuse puts Execute's connection back into exec for the next
	// Execute instead of discarding it: only the pooled baseline of
	// BenchmarkMySQLSessionIsolation sets it.
	reuse bool

	schemaOnce sync.Mutex
	schema     *Schema
}

// ID returns the benchmark db id.
func (d *MySQLDatabase) ID() string { return d.id }

// Dialect returns "mysql".
func (d *MySQLDatabase) Dialect() string { return "mysql" }

// SchemaName returns the server-side schema name.
func (d *MySQLDatabase) SchemaName() string { return d.schemaName }

// Fingerprint is a SHA-256 over the server version, the schema's column
// definitions and the CHECKSUM TABLE result of each of its tables,
// computed once when the database is opened.
func (d *MySQLDatabase) Fingerprint() string { return d.fp }

// Close closes the connection pools.
func (d *MySQLDatabase) Close() error {
	return errors.Join(d.db.Close(), d.exec.Close(), d.admin.Close())
}

func (d *MySQLDatabase) fingerprint(ctx context.Context) (string, error) {
	var n int
	err := d.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", d.schemaName).Scan(&n)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1049 || me.Number == 1044) {
			return "", fmt.Errorf("mysql engine: schema %q for %s: %w", d.schemaName, d.id, ErrMissingDB)
		}
		return "", fmt.Errorf("mysql engine: open %s: %w", d.id, err)
	}
	if n == 0 {
		return "", fmt.Errorf("mysql engine: schema %q for %s: %w", d.schemaName, d.id, ErrMissingDB)
	}
	h := sha256.New()
	var version string
	if err := d.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return "", fmt.Errorf("mysql engine: fingerprint %s: %w", d.id, err)
	}
	fmt.Fprintf(h, "mysql\x00%s\x00%s\x00", version, d.schemaName)
	rows, err := d.db.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IFNULL(COLLATION_NAME, '')
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, d.schemaName)
	if err != nil {
		return "", fmt.Errorf("mysql engine: fingerprint %s: %w", d.id, err)
	}
	var tables []string
	for rows.Next() {
		var t, c, ty, coll string
		if err := rows.Scan(&t, &c, &ty, &coll); err != nil {
			rows.Close()
			return "", fmt.Errorf("mysql engine: fingerprint %s: %w", d.id, err)
		}
		if len(tables) == 0 || tables[len(tables)-1] != t {
			tables = append(tables, t)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", t, c, ty, coll)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("mysql engine: fingerprint %s: %w", d.id, err)
	}
	sums, err := d.Checksums(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tables {
		if s, ok := sums[t]; ok {
			fmt.Fprintf(h, "checksum\x00%s\x00%s\n", t, s)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Checksums returns CHECKSUM TABLE for every base table of the schema,
// keyed by table name (the value is "NULL" for a table the server cannot
// checksum).
func (d *MySQLDatabase) Checksums(ctx context.Context) (map[string]string, error) {
	names, err := d.baseTables(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	if len(names) == 0 {
		return out, nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = mysqlQuoteIdent(d.schemaName) + "." + mysqlQuoteIdent(n)
	}
	rows, err := d.db.QueryContext(ctx, "CHECKSUM TABLE "+strings.Join(quoted, ", "))
	if err != nil {
		return nil, fmt.Errorf("mysql engine: checksum %s: %w", d.id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var sum sql.NullString
		if err := rows.Scan(&name, &sum); err != nil {
			return nil, fmt.Errorf("mysql engine: checksum %s: %w", d.id, err)
		}
		name = strings.TrimPrefix(name, d.schemaName+".")
		if sum.Valid {
			out[name] = sum.String
		} else {
			out[name] = "NULL"
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mysql engine: checksum %s: %w", d.id, err)
	}
	return out, nil
}

func (d *MySQLDatabase) baseTables(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, d.schemaName)
	if err != nil {
		return nil, fmt.Errorf("mysql engine: list tables of %s: %w", d.id, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("mysql engine: list tables of %s: %w", d.id, err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func mysqlQuoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// Execute runs one read-only statement (see CheckMySQLReadOnly) on a new
// session (see MySQLEngine), with the server-side limit SET STATEMENT
// max_statement_time=<timeout> FOR ... and a client deadline a little
// later; when the client deadline or the caller's ctx ends first, a
// watchdog sends KILL QUERY <connection id> on a separate connection so
// that the server stops working. The connection is closed afterwards,
// whatever the outcome. Failures are *ExecError: 1969/1317/3024 and the
// deadline -> ExecTimeout; 1142/1044/1045/1227/1370 and statements refused
// before sending -> ExecDenied; the caller's ctx -> ExecCanceled; others
// -> ExecErrorKind.
func (d *MySQLDatabase) Execute(ctx context.Context, query string) (*ResultSet, error) {
	return d.execute(ctx, query, "")
}

// execute is Execute with more SET STATEMENT variables (", name=value...")
// after max_statement_time.
func (d *MySQLDatabase) execute(ctx context.Context, query, vars string) (*ResultSet, error) {
	start := time.Now()
	stmt, err := CheckMySQLReadOnly(query)
	if err != nil {
		return nil, &ExecError{Kind: ExecDenied, Msg: err.Error()}
	}
	fail := func(kind ExecKind, msg string) (*ResultSet, error) {
		return nil, &ExecError{Kind: kind, Msg: msg, Elapsed: time.Since(start)}
	}
	conn, err := d.exec.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return fail(ExecCanceled, ctx.Err().Error())
		}
		return nil, fmt.Errorf("mysql engine: connect to %s: %w", d.id, err)
	}
	var connID int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&connID); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
		if ctx.Err() != nil {
			return fail(ExecCanceled, ctx.Err().Error())
		}
		return nil, fmt.Errorf("mysql engine: connection id on %s: %w", d.id, err)
	}

	qctx, cancel := context.WithTimeout(ctx, d.timeout+mysqlKillMargin)
	done := make(chan struct{})
	killed := make(chan bool, 1)
	go func() { // watchdog
		select {
		case <-done:
			killed <- false
		case <-qctx.Done():
			kctx, kcancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = d.admin.ExecContext(kctx, "KILL QUERY "+strconv.FormatInt(connID, 10))
			kcancel()
			killed <- true
		}
	}()
	wrapped := fmt.Sprintf("SET STATEMENT max_statement_time=%s%s FOR %s",
		strconv.FormatFloat(d.timeout.Seconds(), 'f', 3, 64), vars, stmt)
	rs, qerr := d.readRows(qctx, conn, wrapped, cancel)
	close(done)
	wasKilled := <-killed
	deadline := errors.Is(qctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	callerGone := ctx.Err() != nil
	cancel()
	if wasKilled || qerr != nil || !d.reuse {
		// Marked bad, the connection is closed, ending its session: a
		// connection closed as sound would go to an Execute waiting for
		// one (with 16 open), session state and all. And it may hold a
		// pending kill or a half-read result.
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
	if rs != nil && rs.Truncated {
		rs.Elapsed = time.Since(start)
		return rs, nil
	}
	var big *tooLargeError
	if errors.As(qerr, &big) {
		return fail(ExecTooLarge, big.Error())
	}
	if qerr != nil {
		var me *mysql.MySQLError
		switch {
		case callerGone:
			return fail(ExecCanceled, ctx.Err().Error())
		case deadline:
			return fail(ExecTimeout, fmt.Sprintf("interrupted after %s", d.timeout))
		case errors.As(qerr, &me):
			switch me.Number {
			case 1969, 1317, 3024:
				return fail(ExecTimeout, me.Error())
			case 1142, 1143, 1044, 1045, 1227, 1370:
				return fail(ExecDenied, me.Error())
			}
			return fail(ExecErrorKind, me.Error())
		}
		return fail(ExecErrorKind, qerr.Error())
	}
	rs.Elapsed = time.Since(start)
	return rs, nil
}

// readRows runs q on conn and reads up to maxRows rows. When the cap is
// reached it cancels the statement (the watchdog then kills it) instead of
// draining the rest of the result; so it does, returning a *tooLargeError,
// when the values read exceed the byte budget.
func (d *MySQLDatabase) readRows(ctx context.Context, conn *sql.Conn, q string, cancel context.CancelFunc) (*ResultSet, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	rs := &ResultSet{Columns: make([]string, len(cts)), Rows: [][]any{}}
	for i, ct := range cts {
		rs.Columns[i] = ct.Name()
	}
	raw := make([]sql.RawBytes, len(cts))
	ptrs := make([]any, len(cts))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var size int64
	for rows.Next() {
		if len(rs.Rows) >= d.maxRows {
			rs.Truncated = true
			cancel()
			return rs, nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cts))
		for i, b := range raw {
			row[i] = mysqlValue(cts[i].DatabaseTypeName(), b)
			size += valueBytes(row[i])
		}
		if size > d.maxBytes {
			cancel()
			return nil, &tooLargeError{limit: d.maxBytes, rows: len(rs.Rows) + 1}
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// mysqlValue converts one text-protocol value to the engine-neutral Go
// types (ResultSet):
//
//	NULL                                   -> nil
//	TINYINT..BIGINT, YEAR (signed/unsigned) -> int64 (float64 above MaxInt64)
//	DECIMAL                                -> int64 when the text has no
//	                                          fractional part and fits, else float64
//	FLOAT, DOUBLE                          -> float64
//	DATE, DATETIME, TIMESTAMP, TIME        -> string, MySQL's text form
//	BINARY, VARBINARY, *BLOB, BIT, GEOMETRY -> []byte
//	everything else (CHAR, TEXT, ENUM, SET, JSON) -> string, bytes as sent
//
// DECIMAL: the authors' scorer (pymysql) sees decimal.Decimal. Python
// compares Decimal with int and float by exact value, which float64 matches
// for every value the LogicCat golds produce except decimals without an
// exact binary form (Decimal('0.1') != 0.1 in Python, equal here). When
// the logiccat comparator falls back to str() on mixed types,
// str(Decimal('3.50')) is '3.50' while the float gives '3.5'; results of
// the same query on both sides always agree, so gold-as-prediction is
// unaffected. Integral decimals (SUM over integers, DECIMAL(n,0)) become
// int64 so that their str() form ('15') matches Python's.
func mysqlValue(typ string, b sql.RawBytes) any {
	if b == nil {
		return nil
	}
	s := string(b)
	switch typ {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR",
		"UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT":
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
		return s
	case "DECIMAL":
		if !strings.ContainsAny(s, ".eE") {
			if v, err := strconv.ParseInt(s, 10, 64); err == nil {
				return v
			}
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) {
			return v
		}
		return s
	case "FLOAT", "DOUBLE":
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
		return s
	case "BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BIT", "GEOMETRY":
		return append([]byte(nil), b...)
	}
	return s
}

// Schema introspects the schema through information_schema: base tables,
// columns (COLUMN_TYPE as the type, NOT NULL, column comments), primary and
// foreign keys, exact row counts (COUNT(*)) and up to 3 distinct non-null
// sample values per column. The result is cached.
func (d *MySQLDatabase) Schema(ctx context.Context) (*Schema, error) {
	d.schemaOnce.Lock()
	defer d.schemaOnce.Unlock()
	if d.schema != nil {
		return d.schema, nil
	}
	s, err := d.introspect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mysql engine: schema of %s: %w", d.id, err)
	}
	d.schema = s
	return s, nil
}

func (d *MySQLDatabase) introspect(ctx context.Context) (*Schema, error) {
	names, err := d.baseTables(ctx)
	if err != nil {
		return nil, err
	}
	s := &Schema{DBID: d.id, Tables: []Table{}, ForeignKeys: []ForeignKey{}}
	idx := map[string]int{}
	for _, n := range names {
		idx[n] = len(s.Tables)
		s.Tables = append(s.Tables, Table{Name: n})
	}
	rows, err := d.db.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, COLUMN_COMMENT
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, d.schemaName)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t, c, ty, nullable, key, comment string
		if err := rows.Scan(&t, &c, &ty, &nullable, &key, &comment); err != nil {
			rows.Close()
			return nil, err
		}
		i, ok := idx[t]
		if !ok { // a view
			continue
		}
		s.Tables[i].Columns = append(s.Tables[i].Columns, Column{
			Name: c, Type: strings.ToUpper(ty), Comment: comment, NotNull: nullable == "NO",
		})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = d.db.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME, CONSTRAINT_NAME,
		IFNULL(REFERENCED_TABLE_NAME, ''), IFNULL(REFERENCED_COLUMN_NAME, '')
		FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ?
		ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, d.schemaName)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t, c, cons, rt, rc string
		if err := rows.Scan(&t, &c, &cons, &rt, &rc); err != nil {
			rows.Close()
			return nil, err
		}
		i, ok := idx[t]
		if !ok {
			continue
		}
		if cons == "PRIMARY" {
			s.Tables[i].PrimaryKey = append(s.Tables[i].PrimaryKey, c)
			for j := range s.Tables[i].Columns {
				if s.Tables[i].Columns[j].Name == c {
					s.Tables[i].Columns[j].Primary = true
				}
			}
		}
		if rt != "" {
			s.ForeignKeys = append(s.ForeignKeys, ForeignKey{FromTable: t, FromColumn: c, ToTable: rt, ToColumn: rc})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		q := "SELECT COUNT(*) FROM " + mysqlQuoteIdent(t.Name)
		if err := d.db.QueryRowContext(ctx, q).Scan(&t.RowCount); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		if t.RowCount == 0 {
			continue
		}
		for j := range t.Columns {
			ex, err := d.examples(ctx, t.Name, t.Columns[j].Name)
			if err != nil {
				return nil, err
			}
			t.Columns[j].Examples = ex
		}
	}
	return s, nil
}

// examples returns up to mysqlExamples distinct non-null values of a
// column as text, in the server's order of first occurrence. Binary values
// are skipped; values are kept whole (the renderers apply the length
// rules of METHODS.md "Schema text").
func (d *MySQLDatabase) examples(ctx context.Context, table, col string) ([]string, error) {
	q := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL LIMIT %d",
		mysqlQuoteIdent(col), mysqlQuoteIdent(table), mysqlQuoteIdent(col), mysqlExamples)
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("examples %s.%s: %w", table, col, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		if _, bin := mysqlValue(cts[0].DatabaseTypeName(), b).([]byte); bin {
			continue
		}
		out = append(out, string(b))
	}
	return out, rows.Err()
}

// CheckMySQLReadOnly accepts exactly one SELECT statement (SELECT, WITH
// ... SELECT, or a parenthesised SELECT), with optional trailing ';', and
// returns it without the trailing ';' and comments. It rejects text
// holding a NUL byte (ErrNULByte); anything else than a SELECT (SET, SET
// STATEMENT ... FOR, CALL, LOAD, HANDLER, DO, SHOW, EXPLAIN, VALUES, DML,
// DDL, ...); several statements (ErrMultipleStatements); SELECT ... INTO
// (OUTFILE, DUMPFILE, @var); FOR UPDATE and LOCK IN SHARE MODE; the
// reserved words UPDATE, DELETE, LOCK, DROP, CREATE, ALTER, RENAME, GRANT,
// REVOKE, LOAD, CALL, KILL, PURGE anywhere outside strings and quoted
// identifiers (INSERT and REPLACE only when not a function call); and
// executable comments (/*! ... */, /*M! ... */), which the server would
// run as code; and GET_LOCK, whose user lock outlives the statement and is
// seen by every other session (IS_FREE_LOCK and IS_USED_LOCK, which only
// read, are allowed). The SELECT-only account is the second line of
// defence.
func CheckMySQLReadOnly(q string) (string, error) {
	if err := checkNUL(q); err != nil {
		return "", err
	}
	toks, err := mysqlTokens(q)
	if err != nil {
		return "", err
	}
	return checkMySQLTokens(q, toks)
}

// checkMySQLTokens is CheckMySQLReadOnly on the tokens of q.
func checkMySQLTokens(q string, toks []mysqlToken) (string, error) {
	// Drop trailing semicolons.
	for len(toks) > 0 && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return "", errors.New("empty statement")
	}
	first := 0
	for first < len(toks) && toks[first].text == "(" {
		first++
	}
	if first == len(toks) || (toks[first].upper != "SELECT" && toks[first].upper != "WITH") {
		return "", fmt.Errorf("only a single SELECT/WITH statement may run (statement starts with %q)", toks[min(first, len(toks)-1)].text)
	}
	for i, t := range toks {
		if t.text == ";" {
			return "", ErrMultipleStatements
		}
		if !t.word {
			continue
		}
		switch t.upper {
		case "INTO", "OUTFILE", "DUMPFILE":
			return "", fmt.Errorf("SELECT ... %s is not allowed", t.upper)
		case "INSERT", "REPLACE":
			// INSERT() and REPLACE() are also string functions.
			if i+1 < len(toks) && toks[i+1].text == "(" {
				continue
			}
			return "", fmt.Errorf("keyword %s is not allowed in a read-only query", t.upper)
		case "UPDATE", "DELETE", "LOCK", "UNLOCK", "DROP", "CREATE", "ALTER", "RENAME", "GRANT", "REVOKE",
			"LOAD", "CALL", "KILL", "PURGE":
			// All reserved words: they cannot be unquoted identifiers.
			return "", fmt.Errorf("keyword %s is not allowed in a read-only query", t.upper)
		}
	}
	for i, t := range toks {
		// GET_LOCK(...), `GET_LOCK`(...) or GET_LOCK (...): a function
		// call, whatever the letter case; a column of that name is not.
		if i+1 < len(toks) && toks[i+1].text == "(" && strings.EqualFold(strings.Trim(t.text, "`"), "GET_LOCK") {
			return "", errors.New("function GET_LOCK is not allowed in a read-only query: a user lock outlives the statement and is seen by other sessions")
		}
	}
	return q[toks[0].start:toks[len(toks)-1].end], nil
}

type mysqlToken struct {
	text, upper string
	word        bool
	start, end  int
}

// mysqlLex are the sqllex options of mysqlTokens: MySQL's comments,
// escapes and identifier characters, an unterminated literal or comment
// an error.
var mysqlLex = sqllex.Options{MySQL: true, Strict: true, WordChars: "_$@"}

// mysqlTokens splits q into words and punctuation with sqllex, skipping
// whitespace and comments (#, "-- ", /* */); string literals ('...',
// "...", with backslash escapes and doubled quotes) and `quoted
// identifiers` become single non-word tokens, and punctuation is one byte
// a token. Executable comments and unterminated literals are errors.
func mysqlTokens(q string) ([]mysqlToken, error) {
	lt, err := sqllex.Lex(q, mysqlLex)
	var le *sqllex.Error
	switch {
	case errors.As(err, &le) && le.Executable:
		return nil, errors.New("executable comments (/*! ... */) are not allowed")
	case errors.As(err, &le) && le.Delim == "/*":
		return nil, errors.New("unterminated comment")
	case errors.As(err, &le):
		return nil, fmt.Errorf("unterminated %s literal at byte %d", le.Delim, le.Offset)
	case err != nil:
		return nil, err
	}
	toks := make([]mysqlToken, 0, len(lt))
	for _, t := range lt {
		switch t.Kind {
		case sqllex.Word, sqllex.Number:
			w := q[t.Start:t.End]
			toks = append(toks, mysqlToken{text: w, upper: strings.ToUpper(w), word: true, start: t.Start, end: t.End})
		case sqllex.String, sqllex.Ident:
			toks = append(toks, mysqlToken{text: q[t.Start:t.End], start: t.Start, end: t.End})
		default:
			for i := t.Start; i < t.End; i++ { // <= and the like: a token a byte
				toks = append(toks, mysqlToken{text: q[i : i+1], start: i, end: i + 1})
			}
		}
	}
	return toks, nil
}
