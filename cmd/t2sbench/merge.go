package main

import (
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/bench"
)

func init() {
	register(command{
		name:    "merge",
		summary: "join the run directories of shards into one",
		run:     runMerge,
	})
}

func runMerge(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("merge", "OUT_DIR SHARD_DIR...", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return fmt.Errorf("%w: merge takes an output directory and at least one shard directory", errUsage)
	}
	st, err := bench.Merge(fs.Arg(0), fs.Args()[1:]...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shards into %s: %d trials, %d items, %d model calls, %d conflicting items kept from the first shard\n",
		fs.NArg()-1, fs.Arg(0), st.Trials, st.Items, st.Calls, st.Conflicts)
	return nil
}
