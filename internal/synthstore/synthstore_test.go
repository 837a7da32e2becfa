package synthstore_test

import (
	"fmt"
	"runtime"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/internal/synthstore"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestGenerate writes a small store and reads it back: the counts
// Generate reports are the store's, the summary covers every trial, and
// failed and errored items are present (as a paper table's run has).
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	st, err := synthstore.Generate(dir, synthstore.Options{Items: 1500, Questions: 200, TraceKB: 4})
	if err != nil {
		t.Fatal(err)
	}
	// 1500 items of 200 questions: 7 full trials and one of 100.
	if st.Trials != 8 || st.Items != 1500 {
		t.Errorf("Generate = %+v; want 8 trials, 1500 items", st)
	}
	r, rows, err := runstore.SummarizeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("summary has %d rows; want 8", len(rows))
	}
	items := 0
	for _, s := range rows {
		items += s.Done + s.Failed + s.Errored
	}
	if items != 1500 || r.CallLog.Calls != st.Calls {
		t.Errorf("summary counts %d items and %d calls; want 1500 and %d", items, r.CallLog.Calls, st.Calls)
	}
	if len(r.FailedByClass) == 0 || len(r.ErroredByClass) == 0 {
		t.Errorf("failure classes %v, %v; want some failed and some errored items", r.FailedByClass, r.ErroredByClass)
	}
	if _, err := synthstore.Generate(t.TempDir(), synthstore.Options{}); err == nil {
		t.Error("Generate with 0 items succeeded; want an error")
	}
}

// BenchmarkReaders reads synthetic stores of two sizes (10x apart, the
// same mix of runners: 7 and 70 trials of 300 questions) with the
// status/summary reader (SummarizeDir) and the report reader (ReadRunMode
// ReadReport). Compare ns/op and the live heap after the
// read (heap-MB) between the sizes: SummarizeDir's heap stays flat (it
// streams), ReadReport's grows with the items (it holds each item's
// verdict and digest, never a trace).
func BenchmarkReaders(b *testing.B) {
	for _, n := range []int{2100, 21000} {
		dir := b.TempDir()
		if _, err := synthstore.Generate(dir, synthstore.Options{Items: n, Questions: 300, TraceKB: 8}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("summary/items=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, rows, err := runstore.SummarizeDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				reportHeap(b)
				runtime.KeepAlive(r)
				runtime.KeepAlive(rows)
			}
		})
		b.Run(fmt.Sprintf("report/items=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := runstore.ReadRunMode(dir, runstore.ReadReport)
				if err != nil {
					b.Fatal(err)
				}
				reportHeap(b)
				runtime.KeepAlive(r)
			}
		})
	}
}

// reportHeap reports the live heap, after a collection, as heap-MB.
func reportHeap(b *testing.B) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "heap-MB")
}
