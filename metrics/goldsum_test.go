package metrics

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// damageGold rewrites the stored value of the entry of query q on db in
// the gold cache of dir with fn (the checksum left as it was).
func damageGold(t *testing.T, dir string, db *fakeDB, q string, fn func([]byte) []byte) {
	t.Helper()
	sdb, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, GoldCacheFile)+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	key, _ := goldKey(db, q)
	var v []byte
	if err := sdb.QueryRow(`SELECT value FROM entries WHERE key = ?`, key).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`UPDATE entries SET value = ? WHERE key = ?`, fn(v), key); err != nil {
		t.Fatal(err)
	}
}

// TestGoldCacheChecksum: an entry whose value was damaged so that it still
// decodes, to another result (the "v7" cell read as "v8"), is executed
// again and replaced, never served, and counted; an entry stored before
// checksums is served unverified; VerifyGoldCache counts each kind.
func TestGoldCacheChecksum(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := &fakeDB{fp: "fp", exec: numbered("fresh")}
	c := mustGoldCache(t, dir)
	for _, q := range []string{"q7", "q8"} {
		if _, err := c.Get(ctx, db, q, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	damageGold(t, dir, db, "q7", func(v []byte) []byte {
		i := strings.Index(string(v), "v7")
		if i < 0 {
			t.Fatalf("value %q does not hold v7", v)
		}
		v[i+1] = '8'
		return v
	})
	chk, err := VerifyGoldCache(ctx, dir)
	if err != nil || chk.OK != 1 || chk.Mismatch != 1 || len(chk.First) != 1 || chk.First[0].Reason != "checksum mismatch" || chk.First[0].Table != "entries" {
		t.Fatalf("VerifyGoldCache: %+v, %v; want 1 ok, 1 mismatch named", chk, err)
	}
	before := db.calls.Load()
	c2 := mustGoldCache(t, dir)
	r, err := c2.Get(ctx, db, "q7", 0)
	if err != nil || r.Cached || r.Result.Rows[0][1] != "v7" {
		t.Fatalf("damaged entry: %+v, %v; want a fresh execution giving v7", r, err)
	}
	if db.calls.Load() != before+1 || c2.Corrupt() != 1 {
		t.Errorf("executions %d, Corrupt %d; want 1 and 1", db.calls.Load()-before, c2.Corrupt())
	}
	if r, err := c2.Get(ctx, db, "q8", 0); err != nil || !r.Cached {
		t.Errorf("sound entry: %+v, %v; want it served", r, err)
	}
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	chk, err = VerifyGoldCache(ctx, dir)
	if err != nil || chk.OK != 2 || chk.Mismatch != 0 {
		t.Errorf("after replacement: %+v, %v; want 2 ok", chk, err)
	}
	// Entries stored before checksums.
	sdb, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, GoldCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`UPDATE entries SET sum = NULL`); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	chk, err = VerifyGoldCache(ctx, dir)
	if err != nil || chk.Unchecked != 2 || chk.Mismatch != 0 {
		t.Errorf("entries without checksums: %+v, %v; want 2 unchecked", chk, err)
	}
	c3 := mustGoldCache(t, dir)
	if r, err := c3.Get(ctx, db, "q7", 0); err != nil || !r.Cached || c3.Corrupt() != 0 {
		t.Errorf("unchecked entry: %+v, %v (corrupt %d); want it served", r, err, c3.Corrupt())
	}
}

// TestGoldCacheMigratesSum: a gold cache made before checksums (table
// entries of two columns) opens, gains column sum, and keeps serving its
// entries.
func TestGoldCacheMigratesSum(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := &fakeDB{fp: "fp", exec: numbered("old")}
	key, _ := goldKey(db, "q3")
	r, _, _, _, err := execute(ctx, db, "q3", 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := encodeGoldEntry(GoldResult{Status: ExecOK, Result: r})
	if err != nil {
		t.Fatal(err)
	}
	sdb, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, GoldCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB NOT NULL)`} {
		if _, err := sdb.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sdb.Exec(`INSERT INTO entries VALUES (?, ?)`, key, v); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	chk, err := VerifyGoldCache(ctx, dir)
	if err != nil || chk.Unchecked != 1 {
		t.Errorf("old file: %+v, %v; want 1 unchecked", chk, err)
	}
	c := mustGoldCache(t, dir)
	got, err := c.Get(ctx, db, "q3", 0)
	if err != nil || !got.Cached || got.Result.Rows[0][2] != "old" {
		t.Errorf("old entry: %+v, %v; want it served", got, err)
	}
	if _, err := c.Get(ctx, db, "q4", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	chk, err = VerifyGoldCache(ctx, dir)
	if err != nil || chk.Unchecked != 1 || chk.OK != 1 {
		t.Errorf("after a new entry: %+v, %v; want 1 unchecked, 1 ok", chk, err)
	}
}

// TestGoldCacheSpecialPath: a gold cache in a directory whose name holds
// the characters special in an SQLite URI ('?', '#', '%') is written by
// GoldCache and read back by VerifyGoldCache at that path, not at a
// truncated one (goldURI).
func TestGoldCacheSpecialPath(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a?b#c%20d")
	ctx := context.Background()
	c := mustGoldCache(t, dir)
	if _, err := c.Get(ctx, &fakeDB{fp: "fp", exec: numbered("fresh")}, "q1", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	chk, err := VerifyGoldCache(ctx, dir)
	if err != nil || chk.Missing || chk.OK != 1 || chk.Path != filepath.Join(dir, GoldCacheFile) {
		t.Fatalf("VerifyGoldCache(%q) = %+v, %v; want 1 ok entry in %s", dir, chk, err, GoldCacheFile)
	}
}
