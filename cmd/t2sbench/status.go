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
	r, err := bench.ReadRun(fs.Arg(0), true)
	if err != nil {
		return err
	}
	bench.WriteSummary(stdout, r, bench.Summarize(r))
	return nil
}
