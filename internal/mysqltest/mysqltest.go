// Package mysqltest gives tests outside package datasets a LogicCat
// database on the MySQL/MariaDB server of $T2SBENCH_MYSQL_DSN, reached
// through a SELECT-only account, the way a run reaches it. Tests skip when
// no server is configured or the shared data is absent.
package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

var (
	importOnce sync.Once
	importErr  error
	imported   []datasets.MySQLImport
)

// Imported lists the databases the import of LogicCatDB covered (empty
// before the first call).
func Imported() []datasets.MySQLImport { return imported }

// LogicCatDB imports the LogicCat dumps once per test binary (idempotent,
// and serialised with other processes by ImportMySQLDumps), grants the
// read-only account roUser, and opens database id through it. Each test
// package passes its own account name so parallel test binaries never
// reset each other's password.
func LogicCatDB(t *testing.T, roUser, id string) datasets.Database {
	t.Helper()
	eng := LogicCatEngine(t, roUser)
	db, err := eng.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// LogicCatEngine is LogicCatDB's engine: a MySQL engine reaching the
// LogicCat databases through the read-only account roUser, with a 5 s
// timeout, closed when t ends.
func LogicCatEngine(t *testing.T, roUser string) *datasets.MySQLEngine {
	t.Helper()
	eng, err := datasets.NewMySQLEngine(LogicCatConfig(t, roUser))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// LogicCatConfig imports the LogicCat dumps once per test binary (as
// LogicCatDB), grants the read-only account roUser, and returns the engine
// configuration that reaches them through it, with a 5 s timeout: what
// datasets.LoadOptions.MySQL takes to open the whole benchmark.
func LogicCatConfig(t *testing.T, roUser string) datasets.MySQLConfig {
	t.Helper()
	dsn := testenv.MySQLDSN(t)
	dir := testenv.Datasets(t, "logiccat")
	pwEnv := "T2SBENCH_TEST_" + strings.ToUpper(roUser) + "_PASSWORD"
	importOnce.Do(func() {
		// The import waits while another test binary has a database
		// broken on purpose (datasets' import test), so that it never
		// repairs that database behind the test's back.
		defer takeDataLock(t)()
		b := make([]byte, 16)
		rand.Read(b)
		os.Setenv(pwEnv, hex.EncodeToString(b))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		imported, importErr = datasets.ImportMySQLDumps(ctx, dsn, filepath.Join(dir, "mysql", "database"), datasets.MySQLImportOptions{
			ROUser: roUser, ROPasswordEnv: pwEnv, ResetROPassword: true,
		})
	})
	if importErr != nil {
		t.Fatalf("import LogicCat dumps: %v", importErr)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd, cfg.DBName = roUser, "", ""
	return datasets.MySQLConfig{DSN: cfg.FormatDSN(), PasswordEnv: pwEnv, Timeout: 5 * time.Second}
}

// DataLock is the server-wide named lock a test holds while it changes the
// LogicCat data (datasets' import test drops a table and reloads it), and
// while it needs every LogicCat database intact (gold health and
// gold-as-prediction over the whole benchmark): test binaries of different
// packages run at once against one server.
const DataLock = "t2sbench_test_logiccat_data"

// HoldDataLock takes DataLock on the server of $T2SBENCH_MYSQL_DSN (waiting
// up to 5 minutes) and releases it when t ends.
func HoldDataLock(t testing.TB) {
	t.Helper()
	t.Cleanup(takeDataLock(t))
}

// takeDataLock takes DataLock on the server of $T2SBENCH_MYSQL_DSN
// (waiting up to 5 minutes) and returns what releases it.
func takeDataLock(t testing.TB) (release func()) {
	t.Helper()
	db, err := sql.Open("mysql", testenv.MySQLDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(context.Background(), "SELECT GET_LOCK(?, 300)", DataLock).Scan(&got); err != nil || got.Int64 != 1 {
		conn.Close()
		db.Close()
		t.Fatalf("take lock %s: %v (got %v)", DataLock, err, got)
	}
	return func() {
		conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", DataLock)
		conn.Close()
		db.Close()
	}
}
