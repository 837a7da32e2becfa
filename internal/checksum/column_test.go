package checksum

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestAddColumn: AddColumn adds the checksum column to a table made
// without it, whose rows then read NULL there, and does nothing to a
// table that has it (a second call, a file another process migrated).
func TestAddColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB); INSERT INTO entries VALUES ('k', x'00')`); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, true} {
		got, err := HasColumn(ctx, db, "entries")
		if err != nil || got != want {
			t.Fatalf("before call %d: HasColumn = %v, %v; want %v", i+1, got, err, want)
		}
		if err := AddColumn(ctx, db, "entries"); err != nil {
			t.Fatalf("AddColumn call %d: %v; want nil", i+1, err)
		}
	}
	var sum sql.NullInt64
	if err := db.QueryRow(`SELECT ` + Column + ` FROM entries WHERE key = 'k'`).Scan(&sum); err != nil || sum.Valid {
		t.Errorf("the old row's %s = %v, %v; want NULL", Column, sum, err)
	}
	if got, err := HasColumn(ctx, db, "missing"); err != nil || got {
		t.Errorf("HasColumn(missing table) = %v, %v; want false, nil", got, err)
	}
}

// TestSelected: the expression Selected gives reads a row's checksum from
// a table with the column and NULL from one without it (a query naming
// Column there would fail with "no such column").
func TestSelected(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "sel.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE old (k TEXT); INSERT INTO old VALUES ('a');
		CREATE TABLE new (k TEXT, ` + Column + ` INTEGER); INSERT INTO new VALUES ('a', 42)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		table string
		want  sql.NullInt64
	}{
		{"old", sql.NullInt64{}},
		{"new", sql.NullInt64{Int64: 42, Valid: true}},
	} {
		t.Run(tc.table, func(t *testing.T) {
			has, err := HasColumn(context.Background(), db, tc.table)
			if err != nil {
				t.Fatal(err)
			}
			var got sql.NullInt64
			if err := db.QueryRow(`SELECT ` + Selected(has) + ` FROM ` + tc.table).Scan(&got); err != nil || got != tc.want {
				t.Errorf("SELECT %s FROM %s = %v, %v; want %v, nil", Selected(has), tc.table, got, err, tc.want)
			}
		})
	}
}
