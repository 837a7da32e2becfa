package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/sqllex"
)

// mysqlImportVersion changes whenever the dump rewrites change, so that an
// older import is redone.
const mysqlImportVersion = "t2sbench-import-v1"

// MySQLMetaSchema is the database holding the import markers.
const MySQLMetaSchema = "t2sbench_meta"

// MySQLImportOptions configures ImportMySQLDumps.
type MySQLImportOptions struct {
	// PasswordEnv names the variable holding the admin DSN's password.
	PasswordEnv string
	// ROUser, when set, is created (or updated) as a SELECT-only account
	// with a SELECT grant on each imported database only (never *.*, which
	// would expose mysql.global_priv). It is created for 'localhost' and
	// '127.0.0.1'.
	ROUser string
	// ROPasswordEnv names the variable holding ROUser's password;
	// ROPassword gives it directly instead (the CLI generates one when no
	// variable is named and the account does not exist yet). One of the
	// two is required to create the account, or with ResetROPassword.
	// An account that exists keeps its password: a password given is only
	// checked by logging in with it (a *ROPasswordError when it does not
	// log in), and none need be given.
	ROPasswordEnv string
	ROPassword    string
	// ResetROPassword sets an existing ROUser's password to the one given,
	// locking out every other user of the account who holds the old one.
	ResetROPassword bool
	// Log receives one line per dump (nil: silent).
	Log func(format string, args ...any)
}

// MySQLImport reports one dump.
type MySQLImport struct {
	File   string `json:"file"`
	Schema string `json:"schema"`
	SHA256 string `json:"sha256"`
	// Status is "loaded" (imported now) or "present" (an earlier import
	// with the same dump hash was found complete).
	Status  string        `json:"status"`
	Tables  int           `json:"tables"`
	Rows    int64         `json:"rows"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// MySQLDump is a parsed Navicat/mysqldump file.
type MySQLDump struct {
	File string
	// Schema is the name from the "Source Schema : X" header (else the
	// file name without .sql).
	Schema string
	// SHA256 is the hash of the file as read.
	SHA256     string
	Statements []string
	// Rows is the number of row tuples inserted per table.
	Rows map[string]int64
	// Tables lists the tables the dump creates, in order.
	Tables []string
}

var (
	reSourceSchema = regexp.MustCompile(`(?m)^\s*Source Schema\s*:\s*(\S+)\s*$`)
	reDefiner      = regexp.MustCompile("DEFINER\\s*=\\s*(`[^`]*`|'[^']*'|\\S+?)@(`[^`]*`|'[^']*'|\\S+)\\s*")
	reCreateTable  = regexp.MustCompile("(?i)^CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`([^`]+)`")
	reInsert       = regexp.MustCompile("(?is)^INSERT\\s+INTO\\s+`([^`]+)`.*?\\bVALUES\\b")
)

// ParseMySQLDump reads a dump, applies the rewrites MariaDB needs
// (collation utf8mb4_0900_ai_ci -> collation; DEFINER clauses removed, see
// shared/datasets/logiccat/MARIADB.md §3) and splits it into statements.
// An empty collation leaves the collation names unchanged.
func ParseMySQLDump(path, collation string) (*MySQLDump, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read dump: %w", err)
	}
	sum := sha256.Sum256(raw)
	d := &MySQLDump{File: path, SHA256: hex.EncodeToString(sum[:]), Rows: map[string]int64{}}
	if m := reSourceSchema.FindSubmatch(raw); m != nil {
		d.Schema = string(m[1])
	} else {
		d.Schema = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	text := string(raw)
	if collation != "" {
		text = strings.ReplaceAll(text, "utf8mb4_0900_ai_ci", collation)
	}
	stmts, err := splitMySQLScript(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, st := range stmts {
		s := st.text
		if strings.Contains(s, "DEFINER") {
			s = reDefiner.ReplaceAllString(s, "")
		}
		d.Statements = append(d.Statements, s)
		if m := reCreateTable.FindStringSubmatch(s); m != nil {
			d.Tables = append(d.Tables, m[1])
		}
		if loc := reInsert.FindStringSubmatchIndex(s); loc != nil {
			table := s[loc[2]:loc[3]]
			n, err := countValueTuples(s[loc[1]:])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, st.line, err)
			}
			d.Rows[table] += n
		}
	}
	return d, nil
}

type scriptStmt struct {
	text string
	line int
}

// dumpLex are the sqllex options the dump loader reads a script with:
// MySQL's (mysqlLex), executable comments read as comments, which stay in
// the statement text for the server to run.
var dumpLex = sqllex.Options{MySQL: true, Strict: true, WordChars: "_$@", Executable: true}

// lexDump lexes a dump's text with dumpLex; an error names the line of the
// unterminated literal or comment.
func lexDump(s string) ([]sqllex.Token, error) {
	toks, err := sqllex.Lex(s, dumpLex)
	var le *sqllex.Error
	switch {
	case errors.As(err, &le) && le.Delim == "/*":
		return nil, fmt.Errorf("line %d: unterminated comment", lineAt(s, le.Offset))
	case errors.As(err, &le):
		return nil, fmt.Errorf("line %d: unterminated %s literal", lineAt(s, le.Offset), le.Delim)
	}
	return toks, err
}

// lineAt returns the 1-based line of s holding byte offset i.
func lineAt(s string, i int) int { return 1 + strings.Count(s[:i], "\n") }

// splitMySQLScript splits a SQL script on ';' outside quotes and comments
// (no DELIMITER support; the dumps have none), read by sqllex as MySQL
// reads them (dumpLex). Comments are kept inside statements;
// comment-only pieces are dropped. A statement's text starts at its first
// token, or at the end of the statement before it when that token is a
// quoted one.
func splitMySQLScript(s string) ([]scriptStmt, error) {
	toks, err := lexDump(s)
	if err != nil {
		return nil, err
	}
	var out []scriptStmt
	from, line, counted := 0, 1, 0 // from: where the piece starts; line: that of byte counted
	first := -1                    // the piece's first token
	emit := func(end int) {
		if first < 0 {
			return
		}
		t := toks[first]
		start := t.Start
		if t.Kind == sqllex.String || t.Kind == sqllex.Ident {
			start = from
		}
		line += strings.Count(s[counted:t.Start], "\n")
		counted = t.Start
		out = append(out, scriptStmt{text: strings.TrimSpace(s[start:end]), line: line})
		first = -1
	}
	for i, t := range toks {
		switch {
		case t.Kind == sqllex.Punct && t.Text == ";":
			emit(t.Start)
			from = t.End
		case first < 0:
			first = i
		}
	}
	emit(len(s))
	return out, nil
}

// countValueTuples counts the top-level "(...)" groups of a VALUES list,
// read by sqllex (dumpLex).
func countValueTuples(s string) (int64, error) {
	toks, err := sqllex.Lex(s, dumpLex)
	var le *sqllex.Error
	switch {
	case errors.As(err, &le) && le.Delim == "/*":
		return 0, errors.New("unterminated comment in VALUES")
	case err != nil:
		return 0, errors.New("unterminated literal in VALUES")
	}
	var n int64
	depth := 0 // after the last token
	for _, t := range toks {
		if t.Kind == sqllex.Punct && t.Text == ")" && depth == 0 {
			return 0, errors.New("unbalanced parentheses in VALUES")
		}
		if t.Kind == sqllex.Punct && t.Text == "(" && t.Depth == 0 {
			n++
		}
		depth = t.DepthAfter()
	}
	if depth != 0 {
		return 0, errors.New("unbalanced parentheses in VALUES")
	}
	return n, nil
}

// mysqlImportLock is the server-wide named lock an import holds, and
// mysqlImportLockWait how long it waits for another import to finish.
const (
	mysqlImportLock     = "t2sbench_import"
	mysqlImportLockWait = 10 * time.Minute
)

// ImportMySQLDumps imports every dir/*.sql dump into its own database on the
// server of adminDSN (an account allowed to create databases and users;
// password from opt.PasswordEnv). It is idempotent: a dump whose marker row
// in t2sbench_meta.imports holds the same hash (and import version) with
// status 'ok' is left alone; any other database of that name (a
// half-finished or older import) is dropped and imported again. The marker
// is written only after every statement ran and the row count of every
// table equals the dump's INSERT tuple count. The utf8mb4_0900_ai_ci
// collation (MySQL 8) is rewritten to utf8mb4_uca1400_nopad_ai_ci on
// MariaDB >= 10.10 (UCA 14, NO PAD, the closest), else utf8mb4_unicode_ci.
// Concurrent imports into one server take turns (a named server lock).
// With opt.ROUser it creates the read-only account, or grants an existing
// one SELECT on the databases without changing its password (unless
// opt.ResetROPassword): other users of a shared server's account keep
// logging in.
func ImportMySQLDumps(ctx context.Context, adminDSN, dir string, opt MySQLImportOptions) ([]MySQLImport, error) {
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	cfg, err := adminConfig(adminDSN, opt.PasswordEnv)
	if err != nil {
		return nil, err
	}
	var roPass string
	if opt.ROUser != "" {
		switch {
		case opt.ROPassword != "":
			roPass = opt.ROPassword
		case opt.ROPasswordEnv == "":
			// None given: an existing account needs none (checked below).
		default:
			var ok bool
			if roPass, ok = os.LookupEnv(opt.ROPasswordEnv); !ok || roPass == "" {
				return nil, fmt.Errorf("import: password variable %s is not set or empty: export it, or leave out --ro-password-env to have a password generated", opt.ROPasswordEnv)
			}
		}
	}
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)

	// Imports from several processes (parallel test binaries, a user's two
	// shells) take turns: each holds a server-wide named lock for its whole
	// run, so one never drops a database another is loading. The second
	// then finds every marker and loads nothing.
	lockDB, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer lockDB.Close()
	lock, err := lockDB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer lock.Close() // closing the session releases the lock too
	var got sql.NullInt64
	if err := lock.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", mysqlImportLock, int(mysqlImportLockWait.Seconds())).Scan(&got); err != nil {
		return nil, fmt.Errorf("import: take the import lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		return nil, fmt.Errorf("import: another import still holds the lock %q after %s", mysqlImportLock, mysqlImportLockWait)
	}
	defer lock.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(?)", mysqlImportLock)

	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("import: no *.sql dumps in %s", dir)
	}
	sort.Strings(files)

	collation, err := mysqlTargetCollation(ctx, admin)
	if err != nil {
		return nil, err
	}
	// The read-only account is checked before any import: an existing
	// account keeps its password, so a password given for it must log in.
	setROPassword := false
	if opt.ROUser != "" {
		exists, err := mysqlUserExists(ctx, admin, opt.ROUser)
		if err != nil {
			return nil, err
		}
		setROPassword = !exists || opt.ResetROPassword
		switch {
		case setROPassword && roPass == "":
			return nil, errors.New("import: the read-only account needs a password: name the variable holding it with --ro-password-env")
		case !setROPassword && roPass != "":
			if err := mysqlLogin(ctx, cfg, opt.ROUser, roPass); err != nil {
				return nil, &ROPasswordError{User: opt.ROUser, Env: opt.ROPasswordEnv, Err: err}
			}
		}
	}
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS " + MySQLMetaSchema + " CHARACTER SET utf8mb4",
		"CREATE TABLE IF NOT EXISTS " + MySQLMetaSchema + `.imports (
			db VARCHAR(64) NOT NULL PRIMARY KEY, dump_sha256 CHAR(64) NOT NULL, import_key VARCHAR(200) NOT NULL,
			status VARCHAR(16) NOT NULL, tables_n INT NOT NULL, rows_n BIGINT NOT NULL, loaded_at DATETIME NOT NULL)`,
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("import: meta schema: %w", err)
		}
	}

	var out []MySQLImport
	for _, f := range files {
		start := time.Now()
		dump, err := ParseMySQLDump(f, collation)
		if err != nil {
			return out, fmt.Errorf("import: %w", err)
		}
		key := mysqlImportVersion + ":" + collation + ":" + dump.SHA256
		var status, gotKey string
		var tables int
		var rowsN int64
		err = admin.QueryRowContext(ctx, "SELECT status, import_key, tables_n, rows_n FROM "+MySQLMetaSchema+".imports WHERE db = ?",
			dump.Schema).Scan(&status, &gotKey, &tables, &rowsN)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return out, fmt.Errorf("import %s: read marker: %w", f, err)
		}
		if err == nil && status == "ok" && gotKey == key && mysqlSchemaExists(ctx, admin, dump.Schema) {
			out = append(out, MySQLImport{File: f, Schema: dump.Schema, SHA256: dump.SHA256, Status: "present",
				Tables: tables, Rows: rowsN, Elapsed: time.Since(start)})
			logf("%s: present (%d tables, %d rows)", dump.Schema, tables, rowsN)
			continue
		}
		imp, err := importMySQLDump(ctx, admin, cfg, dump, key)
		if err != nil {
			return out, err
		}
		imp.Elapsed = time.Since(start)
		out = append(out, imp)
		logf("%s: loaded %d tables, %d rows in %s", dump.Schema, imp.Tables, imp.Rows, imp.Elapsed.Round(time.Millisecond))
	}
	if opt.ROUser != "" {
		schemas := make([]string, len(out))
		for i, imp := range out {
			schemas[i] = imp.Schema
		}
		if err := ensureReadOnlyUser(ctx, admin, opt.ROUser, roPass, setROPassword, schemas); err != nil {
			return out, err
		}
		logf("read-only account %s: SELECT on %d databases", opt.ROUser, len(schemas))
	}
	return out, nil
}

func mysqlTargetCollation(ctx context.Context, db *sql.DB) (string, error) {
	for _, c := range []string{"utf8mb4_0900_ai_ci", "utf8mb4_uca1400_nopad_ai_ci", "utf8mb4_unicode_ci"} {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE COLLATION_NAME = ?", c).Scan(&n); err != nil {
			return "", fmt.Errorf("import: list collations: %w", err)
		}
		if n > 0 {
			if c == "utf8mb4_0900_ai_ci" {
				return "", nil // MySQL 8: no rewrite needed
			}
			return c, nil
		}
	}
	return "utf8mb4_general_ci", nil
}

func mysqlSchemaExists(ctx context.Context, db *sql.DB, name string) bool {
	var n int
	err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n)
	return err == nil && n > 0
}

// importMySQLDump drops and recreates the database, runs every statement
// on one connection, verifies row counts and writes the marker.
func importMySQLDump(ctx context.Context, admin *sql.DB, cfg *mysql.Config, d *MySQLDump, key string) (MySQLImport, error) {
	imp := MySQLImport{File: d.File, Schema: d.Schema, SHA256: d.SHA256, Status: "loaded"}
	fail := func(err error) (MySQLImport, error) {
		return imp, fmt.Errorf("import %s (database %s): %w", d.File, d.Schema, err)
	}
	if _, err := admin.ExecContext(ctx, "DELETE FROM "+MySQLMetaSchema+".imports WHERE db = ?", d.Schema); err != nil {
		return fail(err)
	}
	qs := mysqlQuoteIdent(d.Schema)
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+qs); err != nil {
		return fail(err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+qs+" CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"); err != nil {
		return fail(err)
	}
	c := *cfg
	c.DBName = d.Schema
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	for i, st := range d.Statements {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return fail(fmt.Errorf("statement %d (%.80q): %w", i+1, st, err))
		}
	}
	for _, t := range d.Tables {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+mysqlQuoteIdent(t)).Scan(&n); err != nil {
			return fail(fmt.Errorf("count %s: %w", t, err))
		}
		if n != d.Rows[t] {
			return fail(fmt.Errorf("table %s has %d rows; the dump inserts %d", t, n, d.Rows[t]))
		}
		imp.Rows += n
	}
	imp.Tables = len(d.Tables)
	if _, err := admin.ExecContext(ctx, "INSERT INTO "+MySQLMetaSchema+".imports VALUES (?, ?, ?, 'ok', ?, ?, NOW())",
		d.Schema, d.SHA256, key, imp.Tables, imp.Rows); err != nil {
		return fail(fmt.Errorf("write marker: %w", err))
	}
	return imp, nil
}

// ReadOnlyDSN is adminDSN with its user replaced by user and no password
// or database: the DSN of the read-only account ImportMySQLDumps made,
// reaching the same server the same way.
func ReadOnlyDSN(adminDSN, user string) (string, error) {
	cfg, err := mysql.ParseDSN(adminDSN)
	if err != nil {
		return "", fmt.Errorf("parse DSN: %w", err)
	}
	cfg.User, cfg.Passwd, cfg.DBName = user, "", ""
	return cfg.FormatDSN(), nil
}

// ROPasswordError says that the password given for an existing read-only
// account does not log in as it: ImportMySQLDumps leaves an existing
// account's password alone unless MySQLImportOptions.ResetROPassword.
type ROPasswordError struct {
	User string
	// Env names the variable the password came from ("" when given
	// directly).
	Env string
	Err error
}

func (e *ROPasswordError) Error() string {
	from := "the password given"
	if e.Env != "" {
		from = "the password in $" + e.Env
	}
	return fmt.Sprintf("import: the read-only account %s already exists and %s does not log in as it (%v); its password is left unchanged: give the account's own password, or pass --reset-ro-password to set it to this one (every other user of the account then needs the new one)",
		e.User, from, e.Err)
}

func (e *ROPasswordError) Unwrap() error { return e.Err }

// roAccountHosts are the hosts ImportMySQLDumps creates the read-only
// account for.
var roAccountHosts = []string{"localhost", "127.0.0.1"}

// MySQLUserExists reports whether the server of adminDSN (password from
// the variable passwordEnv, "" for none) has an account named user for
// one of the hosts ImportMySQLDumps creates it for.
func MySQLUserExists(ctx context.Context, adminDSN, passwordEnv, user string) (bool, error) {
	cfg, err := adminConfig(adminDSN, passwordEnv)
	if err != nil {
		return false, err
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return false, err
	}
	defer db.Close()
	return mysqlUserExists(ctx, db, user)
}

// adminConfig is the administrator's connection of an import: adminDSN,
// which must not hold a password, with the password read from the
// variable passwordEnv (when named; it must be set), no database, single
// statements and utf8mb4.
func adminConfig(adminDSN, passwordEnv string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(adminDSN)
	if err != nil {
		return nil, fmt.Errorf("import: parse DSN: %w", err)
	}
	if cfg.Passwd != "" {
		return nil, errors.New("import: DSN must not contain a password; use --password-env")
	}
	if passwordEnv != "" {
		pw, ok := os.LookupEnv(passwordEnv)
		if !ok {
			return nil, fmt.Errorf("import: password variable %s is not set", passwordEnv)
		}
		cfg.Passwd = pw
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["charset"] = "utf8mb4"
	return cfg, nil
}

func mysqlUserExists(ctx context.Context, admin *sql.DB, user string) (bool, error) {
	n, err := countMySQLAccounts(ctx, admin, user, roAccountHosts...)
	if err != nil {
		return false, fmt.Errorf("import: look up account %s: %w", user, err)
	}
	return n > 0, nil
}

// countMySQLAccounts counts the accounts of the server named user for
// any of hosts (at least one).
func countMySQLAccounts(ctx context.Context, admin *sql.DB, user string, hosts ...string) (int, error) {
	args := []any{user}
	for _, h := range hosts {
		args = append(args, h)
	}
	var n int
	err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host IN (?"+strings.Repeat(", ?", len(hosts)-1)+")", args...).Scan(&n)
	return n, err
}

// mysqlLogin connects as user with pass the way adminCfg reaches the
// server.
func mysqlLogin(ctx context.Context, adminCfg *mysql.Config, user, pass string) error {
	c := *adminCfg
	c.User, c.Passwd, c.DBName = user, pass, ""
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// ensureReadOnlyUser creates user@localhost and user@127.0.0.1 where
// absent, with password pass, sets their password to pass when
// setPassword, and grants SELECT on each schema. An account that exists
// keeps its password unless setPassword; without a password (pass "") an
// absent host's account is not created.
func ensureReadOnlyUser(ctx context.Context, admin *sql.DB, user, pass string, setPassword bool, schemas []string) error {
	for _, host := range roAccountHosts {
		acct := mysqlQuoteString(user) + "@" + mysqlQuoteString(host)
		var stmts []string
		if pass != "" {
			stmts = append(stmts, "CREATE USER IF NOT EXISTS "+acct+" IDENTIFIED BY "+mysqlQuoteString(pass))
		} else {
			n, err := countMySQLAccounts(ctx, admin, user, host)
			if err != nil {
				return fmt.Errorf("import: look up account %s@%s: %w", user, host, err)
			}
			if n == 0 {
				continue
			}
		}
		if setPassword {
			stmts = append(stmts, "ALTER USER "+acct+" IDENTIFIED BY "+mysqlQuoteString(pass))
		}
		for _, s := range schemas {
			stmts = append(stmts, "GRANT SELECT ON "+mysqlQuoteIdent(s)+".* TO "+acct)
		}
		for _, q := range stmts {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				// Never echo the statement: it may hold the password.
				return fmt.Errorf("import: read-only account %s@%s: %w", user, host, err)
			}
		}
	}
	return nil
}

func mysqlQuoteString(s string) string {
	var b bytes.Buffer
	b.WriteByte('\'')
	for _, r := range []byte(s) {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
