package datasets

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/internal/testkit"
)

// buildFixture creates testdata/sqlite_fixture.sql as a database file in a
// fresh temporary directory and returns its path.
func buildFixture(t testing.TB) string {
	t.Helper()
	return testkit.SQLite(t, testkit.SQLFile(t, filepath.Join("testdata", "sqlite_fixture.sql")))
}

func openFixture(t testing.TB, opt SQLiteOptions) (Database, string) {
	t.Helper()
	path := buildFixture(t)
	db, err := OpenSQLite(path, "fixture", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func mustSHA(t testing.TB, path string) string {
	t.Helper()
	h, err := fileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestExecuteValueTypes(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	ctx := context.Background()
	tests := []struct {
		name string
		sql  string
		want [][]any
	}{
		{"integer real text", "SELECT Stadium_ID, Average, Name FROM stadium WHERE Stadium_ID = 1",
			[][]any{{int64(1), 2106.0, "Stark's Park"}}},
		// Misc has no declared type: each value keeps its storage class.
		{"untyped mixed column", "SELECT Misc FROM singer ORDER BY Singer_ID",
			[][]any{{int64(42)}, {"forty-two"}, {4.25}, {[]byte{0xca, 0xfe}}, {nil}}},
		// DATE is converted to time.Time by the driver unless unwrapped;
		// the stored text and integer must come back unchanged.
		{"date column raw", "SELECT Birthday FROM singer ORDER BY Singer_ID",
			[][]any{{"1980-04-12"}, {"1972-03-10"}, {"not a date"}, {nil}, {int64(19800412)}}},
		{"boolean column raw", "SELECT Is_male FROM singer ORDER BY Singer_ID",
			[][]any{{int64(1)}, {int64(1)}, {int64(2)}, {int64(0)}, {nil}}},
		{"date through a join and alias", "SELECT s.Birthday AS b, c.Year FROM singer s JOIN singer_in_concert sc ON s.Singer_ID = sc.Singer_ID JOIN concert c ON c.concert_ID = sc.concert_ID ORDER BY c.concert_ID, s.Singer_ID DESC",
			[][]any{{"not a date", "2014"}, {"1972-03-10", "2014"}, {"1980-04-12", "2014"}, {int64(19800412), "2015"}}},
		{"duplicate column names with a date", "SELECT Birthday, Birthday FROM singer WHERE Singer_ID = 1",
			[][]any{{"1980-04-12", "1980-04-12"}}},
		// 0x42 0x65 0xf8 0x74 0x61: invalid UTF-8, kept byte for byte.
		{"invalid utf-8 text", "SELECT Name, typeof(Name) FROM singer WHERE Singer_ID = 5",
			[][]any{{"Be\xf8ta", "text"}}},
		{"blob", "SELECT Photo FROM singer WHERE Singer_ID IN (1, 3) ORDER BY Singer_ID",
			[][]any{{[]byte{0x00, 0xff, 0x10}}, {[]byte{}}}},
		{"null and expression", "SELECT NULL, 1 + 1, 1.5 * 2, 'a' || 'b'",
			[][]any{{nil, int64(2), 3.0, "ab"}}},
		{"empty result", "SELECT Name FROM singer WHERE 0", [][]any{}},
		{"trailing semicolon and comment", "SELECT count(*) FROM singer; -- done", [][]any{{int64(5)}}},
		{"semicolon in literal", "SELECT ';', \"Name\" FROM singer WHERE Singer_ID = 2", [][]any{{";", "Timbaland"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := db.Execute(ctx, tt.sql)
			if err != nil {
				t.Fatalf("Execute(%q): %v", tt.sql, err)
			}
			if !reflect.DeepEqual(rs.Rows, tt.want) {
				t.Errorf("rows = %#v; want %#v", rs.Rows, tt.want)
			}
			if rs.Truncated {
				t.Errorf("Truncated = true; want false")
			}
		})
	}
	rs, err := db.Execute(ctx, "SELECT Birthday AS b, Name FROM singer LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "Name"}; !reflect.DeepEqual(rs.Columns, want) {
		t.Errorf("columns = %q; want %q (original names survive the DATE unwrapping)", rs.Columns, want)
	}
}

// adversarial lists predictions that must not change the database.
func adversarial(dir string) []struct {
	name  string
	sql   string
	kinds []ExecKind
} {
	denied := []ExecKind{ExecDenied}
	return []struct {
		name  string
		sql   string
		kinds []ExecKind
	}{
		{"drop", "DROP TABLE singer", denied},
		{"delete", "DELETE FROM singer", denied},
		{"update", "UPDATE singer SET Name = 'x'", denied},
		{"insert", "INSERT INTO singer (Singer_ID, Name) VALUES (99, 'x')", denied},
		{"insert select", "INSERT INTO singer (Singer_ID, Name) SELECT 100, 'y'", denied},
		{"replace", "REPLACE INTO singer (Singer_ID, Name) VALUES (1, 'x')", denied},
		{"create", "CREATE TABLE evil (a)", denied},
		{"create temp", "CREATE TEMP TABLE evil (a)", denied},
		{"create index", "CREATE INDEX evil ON singer(Name)", denied},
		{"create view", "CREATE VIEW evil AS SELECT 1", denied},
		{"create trigger", "CREATE TEMP TRIGGER evil AFTER INSERT ON singer BEGIN DELETE FROM singer; END", denied},
		{"alter", "ALTER TABLE singer ADD COLUMN evil INT", denied},
		{"attach", "ATTACH DATABASE '" + filepath.Join(dir, "attached.sqlite") + "' AS evil", denied},
		{"detach", "DETACH DATABASE main", denied},
		{"pragma writable_schema", "PRAGMA writable_schema = 1", denied},
		{"pragma query_only off", "PRAGMA query_only = 0", denied},
		{"pragma journal_mode", "PRAGMA journal_mode = DELETE", denied},
		{"pragma user_version", "PRAGMA user_version = 7", denied},
		{"vacuum", "VACUUM", denied},
		{"vacuum into", "VACUUM INTO '" + filepath.Join(dir, "copy.sqlite") + "'", denied},
		{"analyze", "ANALYZE", denied},
		{"reindex", "REINDEX", denied},
		{"begin", "BEGIN", denied},
		{"savepoint", "SAVEPOINT s1", denied},
		{"load_extension", "SELECT load_extension('" + filepath.Join(dir, "evil.so") + "')", denied},
		// Not compiled into go-sqlite3; denied if it ever is.
		{"writefile", "SELECT writefile('" + filepath.Join(dir, "w.txt") + "', 'x')", []ExecKind{ExecDenied, ExecErrorKind}},
		{"multiple statements", "SELECT 1; DROP TABLE singer", denied},
		{"multiple selects", "SELECT 1; SELECT 2", denied},
		{"statement after comment", "SELECT 1; /* c */ DELETE FROM singer", denied},
		{"endless recursive cte", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", []ExecKind{ExecTimeout}},
		{"cartesian 10^12", "SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d", []ExecKind{ExecTimeout}},
		// No aggregate: the filter never matches, so the time goes into
		// stepping for the first row.
		{"cartesian filter", "SELECT a.n FROM numbers a, numbers b, numbers c, numbers d WHERE a.n + b.n + c.n + d.n < 0", []ExecKind{ExecTimeout}},
		// One row at once, then 10^9 steps to the next: interrupted in Next.
		{"rows then stall", "SELECT a.n FROM numbers a, numbers b, numbers c, numbers d WHERE (b.n = 1 AND c.n = 1 AND d.n = 1 AND a.n = 1) OR a.n < 0", []ExecKind{ExecTimeout}},
		{"syntax error", "SELEC 1", []ExecKind{ExecErrorKind}},
		{"empty", "  -- nothing\n ; ", []ExecKind{ExecErrorKind}},
	}
}

// runAdversarial executes every adversarial statement against db and checks
// the kind, the time taken and that the file at path is byte-identical.
func runAdversarial(t *testing.T, db Database, path string, timeout time.Duration) {
	t.Helper()
	// Margin over the timeout: interruption is prompt, but 2 shared CPU
	// cores can delay the goroutine that reports it.
	const margin = 2 * time.Second
	dir := t.TempDir()
	before := mustSHA(t, path)
	for _, tt := range adversarial(dir) {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			rs, err := db.Execute(context.Background(), tt.sql)
			elapsed := time.Since(start)
			var ee *ExecError
			if !errors.As(err, &ee) {
				t.Fatalf("Execute(%q) = %v, %v; want an *ExecError", tt.sql, rs, err)
			}
			ok := false
			for _, k := range tt.kinds {
				ok = ok || ee.Kind == k
			}
			if !ok {
				t.Errorf("kind = %q (%v); want one of %q", ee.Kind, ee, tt.kinds)
			}
			if elapsed > timeout+margin {
				t.Errorf("took %v; want under timeout %v + %v", elapsed, timeout, margin)
			}
			if ee.Elapsed <= 0 || ee.Elapsed > elapsed {
				t.Errorf("ExecError.Elapsed = %v; want in (0, %v]", ee.Elapsed, elapsed)
			}
		})
	}
	if after := mustSHA(t, path); after != before {
		t.Errorf("database file changed: sha256 %s -> %s", before, after)
	}
	for _, f := range []string{"attached.sqlite", "copy.sqlite", "w.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	for _, suffix := range []string{"-journal", "-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("%s%s was created next to the database", path, suffix)
		}
	}
	// The data is intact and still readable after every attempt.
	rs, err := db.Execute(context.Background(), "SELECT count(*) FROM sqlite_master")
	if err != nil || len(rs.Rows) != 1 {
		t.Fatalf("database unusable after adversarial input: %v, %v", rs, err)
	}
}

func TestExecuteAdversarialFixture(t *testing.T) {
	const timeout = 500 * time.Millisecond
	db, path := openFixture(t, SQLiteOptions{Timeout: timeout})
	runAdversarial(t, db, path, timeout)
	rs, err := db.Execute(context.Background(), "SELECT count(*) FROM singer")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rows[0][0]; got != int64(5) {
		t.Errorf("singer rows after adversarial input = %v; want 5", got)
	}
}

// TestExecuteAdversarialSpider runs the same statements on the shared Spider
// concert_singer database in place (no copy) and checks its SHA-256.
func TestExecuteAdversarialSpider(t *testing.T) {
	dir := testenv.Datasets(t, "spider", "database", "concert_singer")
	path := filepath.Join(dir, "concert_singer.sqlite")
	const timeout = 500 * time.Millisecond
	db, err := OpenSQLite(path, "concert_singer", SQLiteOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The fixture's numbers table does not exist here, so the cartesian
	// case cross-joins a 1000-row CTE four times.
	before := mustSHA(t, path)
	runAdversarialSpider(t, db, timeout)
	if after := mustSHA(t, path); after != before {
		t.Errorf("concert_singer.sqlite changed: sha256 %s -> %s", before, after)
	}
	if fp := db.Fingerprint(); fp != before {
		t.Errorf("Fingerprint = %s; want file sha256 %s", fp, before)
	}
}

func runAdversarialSpider(t *testing.T, db Database, timeout time.Duration) {
	const margin = 2 * time.Second
	cases := []struct {
		sql  string
		kind ExecKind
	}{
		{"DROP TABLE singer", ExecDenied},
		{"DELETE FROM singer", ExecDenied},
		{"UPDATE singer SET Name = 'x'", ExecDenied},
		{"INSERT INTO singer (Singer_ID) VALUES (999)", ExecDenied},
		{"CREATE TABLE evil (a)", ExecDenied},
		{"ATTACH DATABASE ':memory:' AS evil", ExecDenied},
		{"PRAGMA writable_schema = 1", ExecDenied},
		{"VACUUM INTO '" + filepath.Join(t.TempDir(), "copy.sqlite") + "'", ExecDenied},
		{"SELECT load_extension('evil')", ExecDenied},
		{"SELECT 1; DROP TABLE singer", ExecDenied},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", ExecTimeout},
		// 10^3 rows cross-joined four times: 10^12 rows.
		{"WITH n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) SELECT count(*) FROM n a, n b, n c, n d", ExecTimeout},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := db.Execute(context.Background(), c.sql)
		elapsed := time.Since(start)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Kind != c.kind {
			t.Errorf("Execute(%q) = %v; want kind %q", c.sql, err, c.kind)
		}
		if elapsed > timeout+margin {
			t.Errorf("Execute(%q) took %v; want under %v", c.sql, elapsed, timeout+margin)
		}
	}
	rs, err := db.Execute(context.Background(), "SELECT count(*) FROM singer")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rows[0][0]; got != int64(6) {
		t.Errorf("singer rows = %v; want 6 (Spider concert_singer)", got)
	}
}

func TestExecuteCancelVersusTimeout(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{Timeout: 10 * time.Second})
	endless := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

	t.Run("caller cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err := db.Execute(ctx, endless)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Kind != ExecCanceled {
			t.Fatalf("err = %v; want kind %q", err, ExecCanceled)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("cancel took %v; want well under the 10s timeout", d)
		}
	})
	t.Run("caller deadline shorter than ours", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := db.Execute(ctx, endless)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Kind != ExecCanceled {
			t.Fatalf("err = %v; want kind %q (the caller's deadline is not our timeout)", err, ExecCanceled)
		}
	})
	t.Run("already canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := db.Execute(ctx, "SELECT 1")
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Kind != ExecCanceled {
			t.Fatalf("err = %v; want kind %q", err, ExecCanceled)
		}
	})
}

func TestExecuteRowCap(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{MaxRows: 10})
	ctx := context.Background()
	tests := []struct {
		sql       string
		rows      int
		truncated bool
	}{
		{"SELECT n FROM numbers ORDER BY n", 10, true},
		{"SELECT n FROM numbers WHERE n <= 10", 10, false},
		{"SELECT n FROM numbers WHERE n <= 9", 9, false},
		// Endless, but only MaxRows+1 rows are ever stepped.
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", 10, true},
	}
	for _, tt := range tests {
		rs, err := db.Execute(ctx, tt.sql)
		if err != nil {
			t.Fatalf("Execute(%q): %v", tt.sql, err)
		}
		if len(rs.Rows) != tt.rows || rs.Truncated != tt.truncated {
			t.Errorf("Execute(%q): %d rows, truncated %v; want %d, %v", tt.sql, len(rs.Rows), rs.Truncated, tt.rows, tt.truncated)
		}
		if len(rs.Rows) > 0 && rs.Rows[0][0] != int64(1) {
			t.Errorf("Execute(%q): first value %v; want 1", tt.sql, rs.Rows[0][0])
		}
	}
}

func TestExecuteConcurrent(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	want, err := db.Execute(context.Background(), "SELECT sum(n), count(*) FROM numbers WHERE n % 7 = 0")
	if err != nil {
		t.Fatal(err)
	}
	// 1000 // 7 = 142 multiples of 7, summing to 7 * 142 * 143 / 2 = 71071.
	if !reflect.DeepEqual(want.Rows, [][]any{{int64(71071), int64(142)}}) {
		t.Fatalf("rows = %v; want [[71071 142]]", want.Rows)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs, err := db.Execute(context.Background(), "SELECT sum(n), count(*) FROM numbers WHERE n % 7 = 0")
			if err != nil {
				errs <- err
				return
			}
			if !reflect.DeepEqual(rs.Rows, want.Rows) {
				errs <- errors.New("concurrent result differs")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSQLiteEngine(t *testing.T) {
	path := buildFixture(t)
	e := NewSQLiteEngine(func(id string) (string, bool) {
		if id == "fixture" {
			return path, true
		}
		if id == "gone" {
			return filepath.Join(t.TempDir(), "gone.sqlite"), true
		}
		return "", false
	}, SQLiteOptions{})
	ctx := context.Background()
	a, err := e.Open(ctx, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Open(ctx, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("Open twice returned different handles; want the cached one")
	}
	if a.ID() != "fixture" || a.Dialect() != "sqlite" || e.Dialect() != "sqlite" {
		t.Errorf("ID/Dialect = %q/%q/%q; want fixture/sqlite/sqlite", a.ID(), a.Dialect(), e.Dialect())
	}
	if fp, want := a.Fingerprint(), mustSHA(t, path); fp != want {
		t.Errorf("Fingerprint = %s; want %s", fp, want)
	}
	for _, id := range []string{"unknown", "gone"} {
		if _, err := e.Open(ctx, id); !errors.Is(err, ErrMissingDB) {
			t.Errorf("Open(%q) = %v; want ErrMissingDB", id, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Execute(ctx, "SELECT 1"); err == nil {
		t.Errorf("Execute after engine Close succeeded; want an error")
	}
}

func TestOpenSQLiteErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notdb.sqlite")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSQLite(filepath.Join(dir, "missing.sqlite"), "m", SQLiteOptions{}); !errors.Is(err, ErrMissingDB) {
		t.Errorf("missing file: %v; want ErrMissingDB", err)
	}
	if _, err := OpenSQLite(notDB, "n", SQLiteOptions{}); err == nil || !strings.Contains(err.Error(), notDB) {
		t.Errorf("not a database: %v; want an error naming %s", err, notDB)
	}
	if _, err := OpenSQLite(dir, "d", SQLiteOptions{}); err == nil {
		t.Errorf("directory: no error; want one")
	}
}

func TestSingleStatement(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"SELECT 1", "SELECT 1", false},
		{"  SELECT 1 ;  ", "SELECT 1", false},
		{"SELECT 1;;\n-- trailing\n/* block */", "SELECT 1", false},
		{"SELECT ';' AS x", "SELECT ';' AS x", false},
		{"SELECT 'it''s;' AS x;", "SELECT 'it''s;' AS x", false},
		{`SELECT "a;b" FROM t`, `SELECT "a;b" FROM t`, false},
		{"SELECT [a;b], `c;d` FROM t", "SELECT [a;b], `c;d` FROM t", false},
		{"SELECT 1 -- ; DROP TABLE t", "SELECT 1 -- ; DROP TABLE t", false},
		{"SELECT 1 /* ; */ + 1", "SELECT 1 /* ; */ + 1", false},
		{"SELECT 1; DROP TABLE t", "", true},
		{"SELECT 1; SELECT 2;", "", true},
		{"", "", true},
		{" ; -- x", "", true},
		{"SELECT 'unterminated; DROP", "SELECT 'unterminated; DROP", false},
		// SQLite would stop reading at the NUL and run "SELECT 1".
		{"SELECT 1\x00 AND 1=0", "", true},
		{"SELECT 'a\x00b'", "", true},
		{"SELECT 1;\x00", "", true},
		{"SELECT 1; -- note", "SELECT 1", false},
		{"SELECT 1 /* c */ ; /* d */ ;", "SELECT 1 /* c */", false},
		{"SELECT 1; SELECT 2", "", true},
		{"SELECT x FROM t; DROP TABLE x", "", true},
		{"SELECT 1; /* c */ SELECT 2", "", true},
	}
	for _, tt := range tests {
		got, err := SingleStatement(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("SingleStatement(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func FuzzSingleStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT ';'; DROP", "SELECT [x;]", "-- a\nSELECT 1 /* ; */;", "SELECT \"a\"\"b\";",
		"SELECT 1 WHERE d = 'CS'\x00 AND 1=0", "SELECT 1;;", "SELECT 1; -- note"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := SingleStatement(s)
		if err != nil {
			return
		}
		// SQLite reads a statement up to its first NUL: none may be left.
		if strings.IndexByte(got, 0) >= 0 {
			t.Errorf("SingleStatement(%q) = %q holds a NUL byte", s, got)
		}
		// A statement that was accepted is accepted again unchanged: it has
		// no top-level ';' left.
		again, err := SingleStatement(got)
		if err != nil || again != got {
			t.Errorf("SingleStatement(%q) = %q; re-applied = %q, %v", s, got, again, err)
		}
	})
}

// BenchmarkExecute compares a query on a warm pool (connections open) with
// one on a fresh handle each time (open, first connection, query, close);
// read the ratio of the two.
func BenchmarkExecute(b *testing.B) {
	path := buildFixture(b)
	const q = "SELECT Name, Country FROM singer WHERE Singer_ID = 2"
	ctx := context.Background()
	b.Run("warm", func(b *testing.B) {
		db, err := OpenSQLite(path, "fixture", SQLiteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for b.Loop() {
			if _, err := db.Execute(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			db, err := OpenSQLite(path, "fixture", SQLiteOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.Execute(ctx, q); err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
	})
}

func TestOpenSQLiteSpecialPath(t *testing.T) {
	src := buildFixture(t)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// '?', '#' and '%' are special in SQLite URI filenames.
	dir := filepath.Join(t.TempDir(), "a?b#c%20d ü")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.sqlite")
	if err := os.WriteFile(path, data, 0o444); err != nil {
		t.Fatal(err)
	}
	db, err := OpenSQLite(path, "x", SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Execute(context.Background(), "SELECT count(*) FROM numbers")
	if err != nil || rs.Rows[0][0] != int64(1000) {
		t.Fatalf("Execute = %v, %v; want 1000", rs, err)
	}
}

// TestExecuteRepeatedStatement runs each statement several times on one
// connection, whose prepared-statement cache then serves the repeats: a
// refused statement stays refused, a statement the row cap or the byte
// budget stopped half-way gives the same outcome again, and a complete one
// the same rows.
func TestExecuteRepeatedStatement(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{MaxRows: 10, MaxBytes: 1 << 10})
	ctx := context.Background()
	pinned, err := db.(Pinner).Pin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	kindOf := func(err error) ExecKind {
		var ee *ExecError
		if errors.As(err, &ee) {
			return ee.Kind
		}
		return ""
	}
	var first any
	for i := 0; i < 3; i++ {
		if _, err := pinned.Execute(ctx, "DELETE FROM singer"); kindOf(err) != ExecDenied {
			t.Errorf("run %d of a DELETE: err %v; want kind %q", i, err, ExecDenied)
		}
		rs, err := pinned.Execute(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
		if err != nil || len(rs.Rows) != 10 || !rs.Truncated || rs.Rows[9][0] != int64(10) {
			t.Errorf("run %d of an endless query under a cap of 10 rows: %+v, %v; want rows 1..10, truncated", i, rs, err)
		}
		if _, err := pinned.Execute(ctx, "SELECT zeroblob(4096)"); kindOf(err) != ExecTooLarge {
			t.Errorf("run %d of a result over the byte budget: err %v; want kind %q", i, err, ExecTooLarge)
		}
		rs, err = pinned.Execute(ctx, "SELECT Name FROM singer WHERE Singer_ID = 2")
		if err != nil || len(rs.Rows) != 1 || rs.Truncated {
			t.Fatalf("run %d of a point query: %+v, %v; want one row", i, rs, err)
		}
		if i == 0 {
			first = rs.Rows[0][0]
		} else if rs.Rows[0][0] != first {
			t.Errorf("run %d of a point query: %v; want %v as on the first run", i, rs.Rows[0][0], first)
		}
	}
}
