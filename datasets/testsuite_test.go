package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// suiteDir builds a Spider-layout directory: dev.json with one question on
// db "shop", and database/shop/ holding shop.sqlite plus the variants
// a_variant.sqlite and b_variant.sqlite (each with different data), a file
// that is not a database by name (notes.txt) and a directory named like one
// (dir.sqlite). It returns the Spider directory and the database directory.
func suiteDir(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dev.json"), `[{"db_id": "shop", "query": "SELECT count(*) FROM t", "question": "How many?"}]`)
	dbDir := filepath.Join(dir, "database", "shop")
	for name, rows := range map[string]string{"shop": "(1),(2)", "b_variant": "(1),(2),(3)", "a_variant": "(7)"} {
		script := "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES " + rows + ";"
		if err := buildSQLite(filepath.Join(dbDir, name+".sqlite"), name+".sql", []byte(script)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dbDir, "notes.txt"), "not a database")
	if err := os.Mkdir(filepath.Join(dbDir, "dir.sqlite"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, dbDir
}

func TestTestSuiteFiles(t *testing.T) {
	_, dbDir := suiteDir(t)
	got, err := TestSuiteFiles(filepath.Join(dbDir, "shop.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dbDir, "shop.sqlite"), filepath.Join(dbDir, "a_variant.sqlite"), filepath.Join(dbDir, "b_variant.sqlite")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TestSuiteFiles = %q; want %q (primary first, then sorted, no directory or non-.sqlite file)", got, want)
	}
	if _, err := TestSuiteFiles(filepath.Join(dbDir, "absent.sqlite")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing primary: err %v; want os.ErrNotExist", err)
	}
	if _, err := TestSuiteFiles(filepath.Join(dbDir, "dir.sqlite")); err == nil {
		t.Error("directory as primary: no error")
	}
}

func TestSpiderVariants(t *testing.T) {
	dir, dbDir := suiteDir(t)
	b, err := Open("spider", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	ve, ok := b.Engine.(VariantEngine)
	if !ok {
		t.Fatalf("spider engine %T is not a VariantEngine", b.Engine)
	}
	if got := b.MissingDBs(); len(got) != 0 {
		t.Errorf("MissingDBs = %v; want none", got)
	}
	ctx := context.Background()
	vs, err := ve.Variants(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	primary, err := b.Engine.Open(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || vs[0] != primary {
		t.Fatalf("Variants = %d handles, first %p; want 3 with the Open handle %p first", len(vs), vs[0], primary)
	}
	// Counts written by suiteDir: shop 2 rows, a_variant 1, b_variant 3.
	wantCount := []int64{2, 1, 3}
	wantFile := []string{"shop.sqlite", "a_variant.sqlite", "b_variant.sqlite"}
	fps := map[string]bool{}
	for i, db := range vs {
		if db.ID() != "shop" {
			t.Errorf("variant %d ID = %q; want shop", i, db.ID())
		}
		p, ok := db.(interface{ Path() string })
		if !ok || p.Path() != filepath.Join(dbDir, wantFile[i]) {
			t.Errorf("variant %d path = %v; want %s", i, p, wantFile[i])
		}
		rs, err := db.Execute(ctx, "SELECT count(*) FROM t")
		if err != nil || rs.Rows[0][0] != wantCount[i] {
			t.Errorf("variant %d count = %v, %v; want %d", i, rs, err, wantCount[i])
		}
		fps[db.Fingerprint()] = true
	}
	if len(fps) != 3 {
		t.Errorf("%d distinct fingerprints; want 3 (different files key different gold-cache entries)", len(fps))
	}
	again, err := ve.Variants(ctx, "shop")
	if err != nil || !reflect.DeepEqual(again, vs) {
		t.Errorf("second Variants call = %v, %v; want the cached handles", again, err)
	}
	if _, err := ve.Variants(ctx, "gone"); !errors.Is(err, ErrMissingDB) {
		t.Errorf("Variants(gone) err = %v; want ErrMissingDB", err)
	}
	if _, err := ve.Variants(ctx, "../shop"); !errors.Is(err, ErrMissingDB) {
		t.Errorf("Variants(../shop) err = %v; want ErrMissingDB", err)
	}
	if err := b.Engine.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := vs[2].Execute(ctx, "SELECT 1"); err == nil {
		t.Error("variant still usable after Engine.Close")
	}
	if _, err := ve.Variants(ctx, "shop"); err == nil {
		t.Error("Variants after Close: no error")
	}
}

// TestSpiderVariantBroken: a variant that is not a database fails Variants
// with an error naming the file; Open of the primary is unaffected.
func TestSpiderVariantBroken(t *testing.T) {
	dir, dbDir := suiteDir(t)
	writeFile(t, filepath.Join(dbDir, "c_broken.sqlite"), "this is not an SQLite file, just text long enough to have a header")
	b, err := Open("spider", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	ctx := context.Background()
	_, err = b.Engine.(VariantEngine).Variants(ctx, "shop")
	if err == nil || errors.Is(err, ErrMissingDB) || !strings.Contains(err.Error(), "c_broken.sqlite") {
		t.Errorf("broken variant err = %v; want a non-missing error naming c_broken.sqlite", err)
	}
	if _, err := b.Engine.Open(ctx, "shop"); err != nil {
		t.Errorf("Open(shop) with a broken variant: %v", err)
	}
}

// TestSpiderVariantsAdversarial runs every adversarial statement on each
// variant of a three-file suite and checks that every file stays
// byte-identical (runAdversarial compares SHA-256 before and after).
func TestSpiderVariantsAdversarial(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("testdata", "sqlite_fixture.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dev.json"), `[{"db_id": "fx", "query": "SELECT count(*) FROM singer", "question": "How many?"}]`)
	dbDir := filepath.Join(dir, "database", "fx")
	for _, name := range []string{"fx", "fx_1", "fx_2"} {
		s := string(script) + "\nUPDATE singer SET Country = '" + name + "' WHERE Singer_ID = 1;"
		if err := buildSQLite(filepath.Join(dbDir, name+".sqlite"), name+".sql", []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	const timeout = 200 * time.Millisecond
	b, err := Open("spider", dir, LoadOptions{SQLite: SQLiteOptions{Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	vs, err := b.Engine.(VariantEngine).Variants(context.Background(), "fx")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 {
		t.Fatalf("%d variants; want 3", len(vs))
	}
	for _, db := range vs {
		path := db.(interface{ Path() string }).Path()
		t.Run(filepath.Base(path), func(t *testing.T) {
			runAdversarial(t, db, path, timeout)
			// Each file keeps its own data: Country of singer 1 is the
			// file's name (set when the fixture was built).
			rs, err := db.Execute(context.Background(), "SELECT Country FROM singer WHERE Singer_ID = 1")
			if want := strings.TrimSuffix(filepath.Base(path), ".sqlite"); err != nil || rs.Rows[0][0] != want {
				t.Errorf("country = %v, %v; want %s", rs, err, want)
			}
		})
	}
}
