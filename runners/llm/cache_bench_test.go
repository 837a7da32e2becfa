package llm

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// The cache benchmarks replay the recorded workload (loadWorkload: 801
// requests, 2,053 samples of a quickstart run) in the first format (the
// code of f094e51, putFirstFormat and its read query) and in the compact
// one. Compare format=first with format=compact as ratios of ns/op, and
// of cpu-us/op (the process's CPU time per op, cpuTime), which other
// processes on a busy machine disturb less than the wall clock.

// reportCPU reports the CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
}

// freshKey is a request key no other op of a benchmark uses.
func freshKey(key string, i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", key, i)))
	return hex.EncodeToString(h[:])
}

// BenchmarkCachePut stores one request and all its samples per op (a
// miss), under a new key each time; the prompts repeat every 801 ops, as
// prompts repeat in a run, so paragraphs are mostly stored already.
func BenchmarkCachePut(b *testing.B) {
	calls := loadWorkload(b)
	ctx := context.Background()
	b.Run("format=first", func(b *testing.B) {
		db := openFirstFormat(b, filepath.Join(b.TempDir(), "first.db"))
		defer db.Close()
		i := 0
		start := cpuTime()
		for b.Loop() {
			c := calls[i%len(calls)]
			if err := putFirstFormat(ctx, db, freshKey(c.key, i), &c.doc, c.errs); err != nil {
				b.Fatal(err)
			}
			i++
		}
		reportCPU(b, start)
	})
	b.Run("format=compact", func(b *testing.B) {
		cache, err := OpenCache(filepath.Join(b.TempDir(), "compact.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer cache.Close()
		i := 0
		start := cpuTime()
		for b.Loop() {
			c := calls[i%len(calls)]
			rk := freshKey(c.key, i)
			putCall(b, ctx, cache, rk, &c)
			i++
		}
		reportCPU(b, start)
	})
}

// putCall stores every sample of c under request key rk with Cache.put,
// as a miss stores them, and returns their sample keys.
func putCall(tb testing.TB, ctx context.Context, cache *Cache, rk string, c *loadCall) []string {
	tb.Helper()
	keys, _ := SampleKeys(rk, len(c.errs))
	idx := make([]int, len(c.errs))
	for j := range idx {
		idx[j] = j
	}
	if _, _, err := cache.put(rk, &c.doc, keys, idx, c.errs, false, false); err != nil {
		tb.Fatal(err)
	}
	return keys
}

// BenchmarkCacheGet reads all samples of one stored request per op (a
// hit): format=first with the first format's query, format=compact with
// Cache.get, and first-read-by-compact with Cache.get on a file of the
// first format (an old cache read by this version).
func BenchmarkCacheGet(b *testing.B) {
	calls := loadWorkload(b)
	ctx := context.Background()
	dir := b.TempDir()
	firstPath := filepath.Join(dir, "first.db")
	db := openFirstFormat(b, firstPath)
	cache, err := OpenCache(filepath.Join(dir, "compact.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close()
	keys := make([][]string, len(calls))
	for i, c := range calls {
		if err := putFirstFormat(ctx, db, c.key, &c.doc, c.errs); err != nil {
			b.Fatal(err)
		}
		keys[i] = putCall(b, ctx, cache, c.key, &c)
	}
	db.Close()
	check := func(b *testing.B, got map[int]entry, err error, i int) {
		if err != nil || len(got) != len(calls[i].errs) {
			b.Fatalf("request %d: got %d samples, %v; want %d", i, len(got), err, len(calls[i].errs))
		}
	}
	b.Run("format=first", func(b *testing.B) {
		db, err := sql.Open("sqlite3", "file:"+firstPath+"?_busy_timeout=30000")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		i := 0
		start := cpuTime()
		for b.Loop() {
			n := i % len(calls)
			got, err := loadOldSamples(ctx, db, keys[n], map[int]entry{})
			check(b, got, err, n)
			i++
		}
		reportCPU(b, start)
	})
	b.Run("format=compact", func(b *testing.B) {
		i := 0
		start := cpuTime()
		for b.Loop() {
			n := i % len(calls)
			got, _, err := cache.get(ctx, calls[n].key, len(keys[n]))
			check(b, got, err, n)
			i++
		}
		reportCPU(b, start)
	})
	b.Run("format=first-read-by-compact", func(b *testing.B) {
		old, err := OpenCache(firstPath)
		if err != nil {
			b.Fatal(err)
		}
		defer old.Close()
		i := 0
		start := cpuTime()
		for b.Loop() {
			n := i % len(calls)
			got, _, err := old.get(ctx, calls[n].key, len(keys[n]))
			check(b, got, err, n)
			i++
		}
		reportCPU(b, start)
	})
}

// BenchmarkCacheReadChecksum reads all samples of one stored request per
// op from a compact cache file, verifying each row's checksum
// (verify=on, what Cache.get does) or not (verify=off: the same query and
// decoding without reading or computing the checksum). The ratio of their
// ns/op (and cpu-us/op) is the cost of verification on a cache hit.
func BenchmarkCacheReadChecksum(b *testing.B) {
	calls := loadWorkload(b)
	ctx := context.Background()
	cache, err := OpenCache(filepath.Join(b.TempDir(), "compact.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close()
	keys := make([][]string, len(calls))
	for i, c := range calls {
		keys[i] = putCall(b, ctx, cache, c.key, &c)
	}
	for _, verify := range []bool{false, true} {
		name := "verify=off"
		if verify {
			name = "verify=on"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			start := cpuTime()
			for b.Loop() {
				n := i % len(calls)
				got, bad, err := loadSamples(ctx, cache.db, cache.old, verify, calls[n].key, len(keys[n]))
				if err != nil || len(bad) > 0 || len(got) != len(calls[n].errs) {
					b.Fatalf("request %d: got %d samples, %d bad rows, %v; want %d", n, len(got), len(bad), err, len(calls[n].errs))
				}
				i++
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkCacheReaderCall reads one request with its messages and
// samples per op, as the viewer does, from a file of each format.
func BenchmarkCacheReaderCall(b *testing.B) {
	calls := loadWorkload(b)
	ctx := context.Background()
	dir := b.TempDir()
	firstPath, compactPath := filepath.Join(dir, "first.db"), filepath.Join(dir, "compact.db")
	db := openFirstFormat(b, firstPath)
	cache, err := OpenCache(compactPath)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range calls {
		if err := putFirstFormat(ctx, db, c.key, &c.doc, c.errs); err != nil {
			b.Fatal(err)
		}
		putCall(b, ctx, cache, c.key, &c)
	}
	db.Close()
	cache.Close()
	for _, f := range []struct{ name, path string }{{"first", firstPath}, {"compact", compactPath}} {
		b.Run("format="+f.name, func(b *testing.B) {
			rd, err := OpenCacheReader(f.path)
			if err != nil {
				b.Fatal(err)
			}
			defer rd.Close()
			i := 0
			start := cpuTime()
			for b.Loop() {
				c := calls[i%len(calls)]
				got, err := rd.Call(ctx, c.key, len(c.errs))
				if err != nil || got.Request == nil || !got.Samples[len(c.errs)-1].Found {
					b.Fatalf("request %s: %+v, %v; want the request and its samples", c.key, got, err)
				}
				i++
			}
			reportCPU(b, start)
		})
	}
}
