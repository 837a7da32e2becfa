package steinersql

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
)

// fixtureDB builds a SQLite database from script in t.TempDir() and opens
// it read-only through datasets.
func fixtureDB(t testing.TB, script string) datasets.Database {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fixture.sqlite")
	raw, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(script); err != nil {
		t.Fatalf("fixture script: %v", err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := datasets.OpenSQLite(p, "fixture", datasets.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// miniDB opens one database of the bundled mini benchmark, built from its
// .sql script.
func miniDB(t testing.TB, name string) datasets.Database {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mini", "databases", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	return fixtureDB(t, string(script))
}

// mustSchema is a two-table schema for tests that need no database.
func mustSchema() *datasets.Schema {
	return &datasets.Schema{Tables: []datasets.Table{
		{Name: "a", Columns: []datasets.Column{{Name: "id", Type: "INTEGER", Primary: true}, {Name: "b", Type: "REAL"}}},
		{Name: "t", Columns: []datasets.Column{{Name: "a_id", Type: "INTEGER"}}},
	}}
}
