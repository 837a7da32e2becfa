package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// spiderDBs opens the Spider dev databases of the shared data.
func spiderDBs(b *testing.B) []datasets.Database {
	dir := testenv.Datasets(b, "spider", "database")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var dbs []datasets.Database
	for _, e := range ents {
		p := filepath.Join(dir, e.Name(), e.Name()+".sqlite")
		if _, err := os.Stat(p); err != nil {
			continue
		}
		db, err := datasets.OpenSQLite(p, e.Name(), datasets.SQLiteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if len(dbs) == 0 {
		b.Skip("no Spider databases found")
	}
	return dbs
}

// BenchmarkBuild times building the value index of every Spider dev
// database against the baseline of only reading their distinct values; the
// ratio metric is index time / scan time.
func BenchmarkBuild(b *testing.B) {
	dbs := spiderDBs(b)
	ctx := context.Background()
	var scan, build time.Duration
	values := 0
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, db := range dbs {
			sch, err := db.Schema(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range sch.Tables {
				for _, c := range t.Columns {
					if !c.Primary && TextAffinity(c.Type) {
						if _, err := distinctValues(ctx, db, t.Name, c.Name, 0); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		}
		t1 := time.Now()
		values = 0
		for _, db := range dbs {
			ix, err := Build(ctx, db, Options{})
			if err != nil {
				b.Fatal(err)
			}
			values += ix.Len()
		}
		scan += t1.Sub(t0)
		build += time.Since(t1)
	}
	b.ReportMetric(float64(build)/float64(scan), "build/scan")
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "build-ms")
	b.ReportMetric(float64(values), "values")
	b.ReportMetric(float64(len(dbs)), "dbs")
}

// BenchmarkQuery times LSH queries of every 97th stored value's first 8
// characters against the baseline of a brute-force scan computing the
// exact 3-gram Jaccard with every value; the ratio metric is lsh / brute.
func BenchmarkQuery(b *testing.B) {
	dbs := spiderDBs(b)
	ctx := context.Background()
	sort.Slice(dbs, func(i, j int) bool { return dbs[i].ID() < dbs[j].ID() })
	type idx struct {
		ix    *Index
		keys  []string
		grams [][]string
	}
	var all []idx
	for _, db := range dbs {
		ix, err := Build(ctx, db, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var keys []string
		for i, v := range ix.Values {
			if i%97 == 0 {
				r := []rune(v.Value)
				keys = append(keys, string(r[:min(8, len(r))]))
			}
		}
		grams := make([][]string, len(ix.Values))
		for i, v := range ix.Values {
			grams[i] = CharNGrams(v.Value, 3)
		}
		all = append(all, idx{ix, keys, grams})
	}
	b.ResetTimer()
	var lsh, brute time.Duration
	queries := 0
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, a := range all {
			for _, k := range a.keys {
				a.ix.Query(k, DefaultTopK)
			}
		}
		t1 := time.Now()
		for _, a := range all {
			for _, k := range a.keys {
				g := CharNGrams(k, 3)
				for _, vg := range a.grams {
					Jaccard(g, vg)
				}
				queries++
			}
		}
		lsh += t1.Sub(t0)
		brute += time.Since(t1)
	}
	b.ReportMetric(float64(lsh)/float64(brute), "lsh/brute")
	b.ReportMetric(float64(lsh.Microseconds())/float64(max(queries, 1)), "lsh-us/query")
}
