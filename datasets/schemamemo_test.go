package datasets

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit"
)

// TestSchemaSharedAcrossHandles opens one file several times: every handle
// gives the first one's schema, until the file is written again, when the
// next handle introspects it afresh.
func TestSchemaSharedAcrossHandles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memo.sqlite")
	testkit.SQLiteAt(t, path, `CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO singer VALUES (1, 'Joe')`)
	schema := func() *Schema {
		t.Helper()
		db, err := OpenSQLite(path, "memo", SQLiteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err := db.Schema(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := schema()
	if again := schema(); again != first {
		t.Errorf("second handle's schema %p; want the first handle's %p", again, first)
	}
	testkit.SQLiteAt(t, path, `CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT)`)
	// A file rewritten within the clock's resolution keeps its time: set
	// one that differs.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	changed := schema()
	if changed == first {
		t.Fatalf("handle on the rewritten file gave the old schema")
	}
	if got, want := len(changed.Tables), 2; got != want {
		t.Errorf("rewritten file's schema has %d tables; want %d", got, want)
	}
	if again := schema(); again != changed {
		t.Errorf("handle after the rewrite gave schema %p; want the rewrite's %p", again, changed)
	}
}
