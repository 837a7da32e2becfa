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
