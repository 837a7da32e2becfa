package main

import (
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/bench"
)

func init() {
	register(command{
		name:    "status",
		summary: "show a run's done, failed and pending items per trial",
		run:     runStatus,
	})
}

func runStatus(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("status", "RUN_DIR", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: status takes one run directory", errUsage)
	}
	r, rows, err := bench.SummarizeDir(fs.Arg(0))
	if err != nil {
		return err
	}
	bench.WriteSummary(stdout, r, rows)
	if c := r.CallLog; c.Calls > 0 {
		fmt.Fprintf(stdout, "model calls logged: %d (%d cached); %d of items not committed, %d without an answer (in flight when a run stopped)\n",
			c.Calls, c.Cached, c.Loose, c.Sent)
	}
	return nil
}
