package main

import (
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/runstore"
)

func init() {
	register(command{
		name:    "status",
		summary: "show a run's done, failed and pending items per trial",
		run:     runStatus,
	})
}

func runStatus(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("status", "RUN_DIR [--all-trials]", stderr)
	all := fs.Bool("all-trials", false, allTrialsUsage)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: status takes one run directory", errUsage)
	}
	r, rows, err := runstore.SummarizeDirWith(pos[0], runstore.ReadOptions{AllTrials: *all})
	if err != nil {
		return err
	}
	runstore.WriteSummary(stdout, r, rows)
	writeStaleNote(stderr, r, *all)
	if c := r.CallLog; c.Calls > 0 {
		fmt.Fprintf(stdout, "model calls logged: %d (%d cached); %d of items not committed, %d without an answer (in flight when a run stopped)\n",
			c.Calls, c.Cached, c.Loose, c.Sent)
	}
	return nil
}

// allTrialsUsage is the help of the --all-trials flag of status, report
// and compare.
const allTrialsUsage = "also show the trials the run directory holds that are not in its spec (only a store written before a run directory held one spec has them; by default they are left out, and a note names them)"

// writeStaleNote writes the note on the trials of run r that are not in
// its spec (runstore.RunData.StaleNote), shown when all.
func writeStaleNote(w io.Writer, r *runstore.RunData, all bool) {
	if note := r.StaleNote(all); note != "" {
		fmt.Fprintln(w, "note:", note)
	}
}
