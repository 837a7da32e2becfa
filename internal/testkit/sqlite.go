package testkit

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	// The SQLite driver, registered as "sqlite3"; testkit is imported by
	// tests only.
	_ "github.com/mattn/go-sqlite3"
)

// SQLite builds a SQLite database in a new file under t.TempDir() by
// running scripts in order, and returns the file's path. A script may hold
// several statements. It stops the test (t.Fatal) with the script's
// number when one fails.
func SQLite(t testing.TB, scripts ...string) string {
	t.Helper()
	return SQLiteAt(t, filepath.Join(t.TempDir(), "fixture.sqlite"), scripts...)
}

// SQLiteAt is SQLite with the file at path (its directory is created when
// missing), for tests that need a file layout such as Spider's
// database/<db_id>/<db_id>.sqlite. It returns path.
func SQLiteAt(t testing.TB, path string, scripts ...string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	for i, s := range scripts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("build %s: script %d of %d: %v", path, i+1, len(scripts), err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatalf("close %s: %v", path, err)
	}
	return path
}

// SQLFile returns the text of the SQL script file (testdata/*.sql, say),
// or stops the test with the file's name when it cannot be read.
func SQLFile(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("fixture script: %v", err)
	}
	return string(b)
}
