package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/runstore"
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
	out := fs.Arg(0)
	st, err := runstore.Merge(out, fs.Args()[1:]...)
	if errors.Is(err, runstore.ErrMergeRefused) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	_, rows, err := runstore.SummarizeDirTrials(out)
	if err != nil {
		return err
	}
	// The counts are those of the store Merge wrote, counted there.
	fmt.Fprintf(stdout, "merged %d shards into %s: %d trials, %d items, %d model calls\n",
		fs.NArg()-1, out, st.Trials, st.Items, st.Calls)
	if st.Damaged > 0 {
		fmt.Fprintf(stderr, "warning: %d finished items of the shards failed their stored-result checksum and were left out (pending in %s: rerun the run there to redo them)\n",
			st.Damaged, out)
	}
	// The merge itself succeeded: say what the shards left undone without
	// failing, so that a script can go on to report.
	failed, pending := 0, 0
	for _, row := range rows {
		failed += row.Failed
		pending += row.Pending
	}
	if failed > 0 || pending > 0 {
		fmt.Fprintf(stderr, "warning: the shards left %d items failed (counted wrong) and %d pending; rerun the shards that hold pending items and merge again (t2sbench status %s lists them per trial)\n",
			failed, pending, out)
	}
	return nil
}
