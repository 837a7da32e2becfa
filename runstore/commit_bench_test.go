package runstore

import (
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per op since start (cpu-ns/op):
// on a loaded machine it varies less than ns/op, and it counts the store's
// writer goroutine as well as the caller.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
}

// commitItems reads testdata/commit_items.json: a direct item (2.6 KB of
// result JSON, one call) and a self-consistency item with 8 samples (6.6
// KB, one call of n=8), as a replay of the mini benchmark from the model
// cache stores them.
func commitItems(tb testing.TB) []Item {
	tb.Helper()
	raw, err := os.ReadFile("testdata/commit_items.json")
	if err != nil {
		tb.Fatal(err)
	}
	var items []Item
	if err := json.Unmarshal(raw, &items); err != nil {
		tb.Fatal(err)
	}
	return items
}

// BenchmarkCommit stores items as a run does: each call of an item with
// CallDone, then the item with Commit, in batches of BatchItems. One op
// is the direct and the self-consistency item of commitItems.
func BenchmarkCommit(b *testing.B) {
	items := commitItems(b)
	st, err := OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU(b)
	for i := 0; i < b.N; i++ {
		q := strconv.Itoa(i)
		for _, proto := range items {
			it := proto
			it.QuestionID = q
			it.Calls = nil
			for _, c := range proto.Calls {
				if err := st.CallDone(it.TrialID, q, c); err != nil {
					b.Fatal(err)
				}
				c.MarkLogged()
				it.Calls = append(it.Calls, c)
			}
			if err := st.Commit(&it); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := st.Flush(); err != nil {
		b.Fatal(err)
	}
	reportCPU(b, cpu)
}

// BenchmarkEncodeItem is the caller's part of Commit: encoding the
// verdict, result (compressed when long) and digest of each item of
// commitItems.
func BenchmarkEncodeItem(b *testing.B) {
	items := commitItems(b)
	for _, it := range items {
		b.Run(it.TrialID, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU(b)
			for i := 0; i < b.N; i++ {
				if _, err := encodeItem(&it); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}
