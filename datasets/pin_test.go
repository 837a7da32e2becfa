package datasets

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPinned: a pinned SQLite database keeps Execute's sandbox (a write
// is denied, the file unchanged) and timeout (an endless query is
// interrupted), and closing it releases only the connection: the
// database still answers.
func TestPinned(t *testing.T) {
	const timeout = 100 * time.Millisecond
	db, path := openFixture(t, SQLiteOptions{Timeout: timeout})
	p, ok := db.(Pinner)
	if !ok {
		t.Fatalf("%T is not a Pinner; want the SQLite database to be one", db)
	}
	pinned, err := p.Pin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := mustSHA(t, path)
	cases := []struct {
		sql  string
		kind ExecKind
	}{
		{"DELETE FROM singer", ExecDenied},
		{"CREATE TABLE x(a)", ExecDenied},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", ExecTimeout},
	}
	for _, c := range cases {
		_, err := pinned.Execute(context.Background(), c.sql)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Kind != c.kind {
			t.Errorf("pinned Execute(%q) = %v; want an *ExecError of kind %s", c.sql, err, c.kind)
		}
	}
	if after := mustSHA(t, path); after != before {
		t.Errorf("database file changed: %s -> %s", before, after)
	}
	if err := pinned.Close(); err != nil {
		t.Fatal(err)
	}
	rs, err := db.Execute(context.Background(), "SELECT count(*) FROM singer")
	if err != nil {
		t.Fatalf("after the pinned connection's Close: %v; want the database open", err)
	}
	if got := rs.Rows[0][0]; got != int64(5) {
		t.Errorf("singer rows = %v; want 5", got)
	}
}
