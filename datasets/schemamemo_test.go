package datasets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit"
)

// schemaOf opens path afresh and returns its schema.
func schemaOf(t *testing.T, path string) *Schema {
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

// setTime gives the file at path the modification time at.
func setTime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaSharedAcrossHandles opens one file several times: every handle
// gives the first one's schema, until the file is written again, when the
// next handle introspects it afresh.
func TestSchemaSharedAcrossHandles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memo.sqlite")
	testkit.SQLiteAt(t, path, `CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO singer VALUES (1, 'Joe')`)
	// A file written well before it is read, as a benchmark's is.
	setTime(t, path, time.Now().Add(-time.Hour))
	first := schemaOf(t, path)
	if again := schemaOf(t, path); again != first {
		t.Errorf("second handle's schema %p; want the first handle's %p", again, first)
	}
	testkit.SQLiteAt(t, path, `CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT)`)
	setTime(t, path, time.Now().Add(-30*time.Minute))
	changed := schemaOf(t, path)
	if changed == first {
		t.Fatalf("handle on the rewritten file gave the old schema")
	}
	if got, want := len(changed.Tables), 2; got != want {
		t.Errorf("rewritten file's schema has %d tables; want %d", got, want)
	}
	if again := schemaOf(t, path); again != changed {
		t.Errorf("handle after the rewrite gave schema %p; want the rewrite's %p", again, changed)
	}
}

// TestSchemaOfJustWrittenFile opens a small file just built, as a run
// builds the mini benchmark's databases: it is known by its content, so a
// second handle shares the first one's schema at once, and one opened
// after a write of the same size within the same timestamp tick does not.
// A file over schemaHashMax, known by its size and time, is introspected
// by every handle while it is that recent.
func TestSchemaOfJustWrittenFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "fresh.sqlite")
	testkit.SQLiteAt(t, path, `CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO singer VALUES (1, 'Joe')`)
	first := schemaOf(t, path)
	if again := schemaOf(t, path); again != first {
		t.Errorf("second handle on a file just written gave schema %p; want the first handle's %p", again, first)
	}
	big := filepath.Join(t.TempDir(), "big.sqlite")
	testkit.SQLiteAt(t, big, `CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB); INSERT INTO t VALUES (1, zeroblob(1048576))`)
	if st, err := os.Stat(big); err != nil || st.Size() <= schemaHashMax {
		t.Fatalf("big file: %v; want over %d bytes", err, schemaHashMax)
	}
	if a, b := schemaOf(t, big), schemaOf(t, big); a == b {
		t.Errorf("two handles on a large file just written shared schema %p; want each its own while within the racy margin", a)
	}
}

// TestSchemaRewrittenWithinTimestampTick rewrites a file just read in
// place, to the same size, within the same tick of the file system's
// clock (its time set back to what it was): a handle opened after it
// gives the new schema, not the one introspected before the write.
func TestSchemaRewrittenWithinTimestampTick(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, rewrite string
		check         func(*Schema) string
	}{
		{
			name:    "column renamed",
			rewrite: `ALTER TABLE singer RENAME COLUMN name TO nick`,
			check: func(s *Schema) string {
				return s.Tables[0].Columns[1].Name
			},
		},
		{
			name:    "sample value updated",
			rewrite: `UPDATE singer SET name = 'Ann' WHERE id = 1`,
			check: func(s *Schema) string {
				return strings.Join(s.Tables[0].Columns[1].Examples, ",")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "tick.sqlite")
			testkit.SQLiteAt(t, path, `CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO singer VALUES (1, 'Joe')`)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			before := tc.check(schemaOf(t, path))
			testkit.SQLiteAt(t, path, tc.rewrite)
			setTime(t, path, st.ModTime())
			if st2, err := os.Stat(path); err != nil || st2.Size() != st.Size() {
				t.Fatalf("rewrite changed the size (%v): the case needs the same size", err)
			}
			if got := tc.check(schemaOf(t, path)); got == before {
				t.Errorf("schema after the rewrite gives %q; want other than the old %q", got, before)
			}
		})
	}
}
