package llm

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/checksum"
)

// flipSamples flips one bit of byte i of every value of table samples
// (the compressed answers) in the cache file at path, as damage on disk
// would; it returns how many rows it changed.
func flipSamples(t *testing.T, path string, i int) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT rk, first, v FROM samples`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		rk    []byte
		first int
		v     []byte
	}
	var rs []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.rk, &r.first, &r.v); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	rows.Close()
	for _, r := range rs {
		j := min(i, len(r.v)-1)
		r.v[j] ^= 0x10
		if _, err := db.Exec(`UPDATE samples SET v = ? WHERE rk = ? AND first = ?`, r.v, r.rk, r.first); err != nil {
			t.Fatal(err)
		}
	}
	return len(rs)
}

// TestCacheChecksumMiss: a sample whose stored row was damaged (one bit
// of its compressed answers flipped) is a miss: the model is asked again,
// the answer returned is the model's (never the damaged one), the count
// of corrupt samples says so, the fresh samples replace the row, and the
// next request is a hit again. The byte flipped is the codec byte (0),
// which makes the row undecodable ("unknown codec"), and a byte of the
// payload (5), which on a raw row decodes to other text.
func TestCacheChecksumMiss(t *testing.T) {
	for _, at := range []int{0, 5} {
		t.Run(fmt.Sprintf("byte%d", at), func(t *testing.T) {
			cache, path := openTestCache(t)
			inner := &countingClient{}
			cc := Cached(inner, cache, testIdent)
			ctx := context.Background()
			req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8, N: 3}
			first, err := cc.Complete(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if n := flipSamples(t, path, at); n != 1 {
				t.Fatalf("flipped %d rows; want 1", n)
			}
			again, err := cc.Complete(ctx, req)
			if err != nil {
				t.Fatalf("damaged entry: %v; want a miss, not an error", err)
			}
			if again.Cached || inner.calls.Load() != 2 {
				t.Errorf("damaged entry: cached %v, model calls %d; want a miss (2 calls)", again.Cached, inner.calls.Load())
			}
			for i, ch := range again.Choices {
				if want := fmt.Sprintf("call2 sample%d T=0.8", i); ch != want {
					t.Errorf("sample %d = %q; want the model's new answer %q (first answers were %q)", i, ch, want, first.Choices)
				}
			}
			if got := cc.Stats().Corrupt; got != 3 {
				t.Errorf("client Corrupt = %d; want 3 (the samples of the damaged row)", got)
			}
			if got := cache.Stats().Corrupt; got != 3 {
				t.Errorf("cache Corrupt = %d; want 3", got)
			}
			third, err := cc.Complete(ctx, req)
			if err != nil || !third.Cached || fmt.Sprint(third.Choices) != fmt.Sprint(again.Choices) {
				t.Errorf("after repair: %+v, %v; want a hit with %q", third, err, again.Choices)
			}
			chk, err := VerifyCache(ctx, path)
			if err != nil || chk.Mismatch != 0 || chk.OK == 0 {
				t.Errorf("VerifyCache after repair: %+v, %v; want no mismatch", chk, err)
			}
		})
	}
}

// TestCacheOldRowsUnchecked: rows written before checksums (column sum
// NULL) are served as they are, and counted unchecked by VerifyCache; one
// that does not decode is a miss, not an error.
func TestCacheOldRowsUnchecked(t *testing.T) {
	cache, path := openTestCache(t)
	inner := &countingClient{}
	cc := Cached(inner, cache, testIdent)
	ctx := context.Background()
	reqA := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "a"}}}
	reqB := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "b"}}}
	a, err := cc.Complete(ctx, reqA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Complete(ctx, reqB); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.db.Exec(`UPDATE samples SET sum = NULL`); err != nil {
		t.Fatal(err)
	}
	chk, err := VerifyCache(ctx, path)
	if err != nil || chk.Unchecked != 2 || chk.Mismatch != 0 {
		t.Errorf("VerifyCache: %+v, %v; want 2 unchecked rows", chk, err)
	}
	// Request b's row no longer decodes.
	rkB, _, _ := requestKey(testIdent, reqB)
	if _, err := cache.db.Exec(`UPDATE samples SET v = x'07' WHERE rk = unhex(?)`, rkB); err != nil {
		t.Fatal(err)
	}
	gotA, err := cc.Complete(ctx, reqA)
	if err != nil || !gotA.Cached || gotA.Choices[0] != a.Choices[0] {
		t.Errorf("unchecked row: %+v, %v; want the stored answer %q", gotA, err, a.Choices[0])
	}
	gotB, err := cc.Complete(ctx, reqB)
	if err != nil || gotB.Cached {
		t.Errorf("undecodable unchecked row: %+v, %v; want a miss", gotB, err)
	}
	if cc.Stats().Corrupt != 1 {
		t.Errorf("Corrupt = %d; want 1", cc.Stats().Corrupt)
	}
}

// TestCacheMigratesSum: a cache file made before checksums (table samples
// without column sum) opens read-only (its rows unchecked) and, opened
// for writing, gains the column; what it held before stays served.
func TestCacheMigratesSum(t *testing.T) {
	cache, path := openTestCache(t)
	inner := &countingClient{}
	ctx := context.Background()
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, N: 2}
	first, err := Cached(inner, cache, testIdent).Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Rebuild table samples as the earlier version made it.
	for _, q := range []string{
		`CREATE TABLE old_samples (rk BLOB NOT NULL, first INTEGER NOT NULL, model TEXT NOT NULL, n INTEGER NOT NULL, v BLOB NOT NULL, p BLOB, PRIMARY KEY (rk, first)) WITHOUT ROWID`,
		`INSERT INTO old_samples SELECT rk, first, model, n, v, p FROM samples`,
		`DROP TABLE samples`,
		`ALTER TABLE old_samples RENAME TO samples`,
	} {
		if _, err := cache.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	cache.Close()
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	call, err := rd.Call(ctx, first.CacheKey, 2)
	rd.Close()
	if err != nil || !call.Samples[1].Found || call.Samples[1].Answer != first.Choices[1] {
		t.Fatalf("reader of the old file: %+v, %v; want its samples", call, err)
	}
	chk, err := VerifyCache(ctx, path)
	if err != nil || chk.Unchecked != 1 || chk.Mismatch != 0 {
		t.Errorf("VerifyCache of the old file: %+v, %v; want 1 unchecked row", chk, err)
	}
	re, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if ok, err := checksum.HasColumn(ctx, re.db, "samples"); err != nil || !ok {
		t.Fatalf("after OpenCache: column sum %v, %v; want added", ok, err)
	}
	again, err := Cached(inner, re, testIdent).Complete(ctx, req)
	if err != nil || !again.Cached || fmt.Sprint(again.Choices) != fmt.Sprint(first.Choices) {
		t.Errorf("migrated file: %+v, %v; want a hit with %q", again, err, first.Choices)
	}
}

// TestVerifyCacheNamesMismatches: VerifyCache counts and names the rows
// that fail (samples by request key and first sample, paragraphs by id).
func TestVerifyCacheNamesMismatches(t *testing.T) {
	cache, path := openTestCache(t)
	cc := Cached(&countingClient{}, cache, testIdent)
	ctx := context.Background()
	for _, q := range []string{"a", "b", "c"} {
		if _, err := cc.Complete(ctx, Request{Role: "reason", Messages: []Message{{Role: "user", Content: q}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cache.db.Exec(`UPDATE paragraphs SET v = x'0078' WHERE id = (SELECT max(id) FROM paragraphs)`); err != nil {
		t.Fatal(err)
	}
	flipSamples(t, path, 3)
	chk, err := VerifyCache(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if chk.Mismatch != 4 || len(chk.First) != 4 {
		t.Fatalf("VerifyCache: %+v; want 4 mismatches (3 sample rows, 1 paragraph)", chk)
	}
	tables := map[string]int{}
	for _, m := range chk.First {
		tables[m.Table]++
		if m.Table == "samples" && (!strings.Contains(m.Key, "samples from 0") || m.Reason != "checksum mismatch") {
			t.Errorf("mismatch %+v; want a request key, its first sample and the reason", m)
		}
	}
	if tables["samples"] != 3 || tables["paragraphs"] != 1 {
		t.Errorf("mismatches by table: %v; want samples 3, paragraphs 1", tables)
	}
	missing, err := VerifyCache(ctx, path+".none")
	if err != nil || !missing.Missing {
		t.Errorf("VerifyCache of no file: %+v, %v; want Missing", missing, err)
	}
}
