// Command genstore writes a synthetic run directory (internal/synthstore)
// of any size, for measuring status, summaries and reports over large
// stores (scripts/bench-store.sh):
//
//	go run ./scripts/genstore --out /tmp/synth-20k --items 20000
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/internal/synthstore"
)

func main() {
	out := flag.String("out", "", "run directory to write (required; must not hold a store yet)")
	items := flag.Int("items", 20000, "number of items")
	questions := flag.Int("questions", 1000, "questions of the benchmark (items per trial)")
	traceKB := flag.Int("trace-kb", 48, "approximate JSON size of a search item's result, in KB")
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: genstore --out DIR [--items N] [--questions Q] [--trace-kb KB] [--seed S]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out + "/run.db"); err == nil {
		fmt.Fprintf(os.Stderr, "genstore: %s already holds a store; remove it first\n", *out)
		os.Exit(1)
	}
	start := time.Now()
	st, err := synthstore.Generate(*out, synthstore.Options{Items: *items, Questions: *questions, TraceKB: *traceKB, Seed: *seed})
	if err != nil {
		fmt.Fprintf(os.Stderr, "genstore: %v\n", err)
		os.Exit(1)
	}
	fi, _ := os.Stat(*out + "/run.db")
	size := int64(0)
	if fi != nil {
		size = fi.Size()
	}
	fmt.Printf("%s: %d trials, %d items, %d calls, %.1f MB of result JSON stored in %.1f MB of run.db, in %s\n",
		*out, st.Trials, st.Items, st.Calls, float64(st.ResultBytes)/1e6, float64(size)/1e6, time.Since(start).Round(time.Millisecond))
}
