package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/internal/checksum"
	"github.com/t2sbench/t2sbench/runstore"
)

func init() {
	register(command{
		name:    "cache",
		summary: "verify the checksums of a run's model cache, gold cache and run store",
		run:     runCache,
	})
}

func runCache(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "Usage: t2sbench cache verify RUN_DIR [--json]")
		return fmt.Errorf("%w: cache needs a subcommand (verify; t2sbench help cache lists its flags)", errUsage)
	}
	if args[0] == "-h" || args[0] == "--help" {
		// verify is the only subcommand: its usage is the command's.
		_ = cacheVerify(stdout, stderr, []string{"-h"})
		return nil
	}
	if args[0] == "verify" {
		return cacheVerify(stdout, stderr, args[1:])
	}
	return fmt.Errorf("%w: unknown cache subcommand %q (want verify)", errUsage, args[0])
}

// cacheVerify reads every entry of a run directory's stores against its
// checksum (runstore.VerifyRun): the model cache and gold cache of the cache
// directory the run used, and the run store. It prints a line per store
// (entries ok, mismatched, and unchecked: written before checksums) and
// the first mismatches, and fails (exit status 1) when any entry
// mismatches. A mismatch does no harm to results: a run asks again for a
// damaged sample, executes a damaged gold again and redoes an item whose
// stored result is damaged; the command tells whether the disk or a copy
// damaged the files.
func cacheVerify(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("cache verify", "RUN_DIR [--json]", stderr)
	asJSON := fs.Bool("json", false, "print the counts and first mismatches of each store as one JSON array")
	dir, err := parseOne(fs, args, "cache verify takes one run directory")
	if err != nil {
		return err
	}
	checks, err := runstore.VerifyRun(context.Background(), dir)
	if err != nil {
		return fmt.Errorf("cache verify: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(checks); err != nil {
			return err
		}
	} else {
		writeChecks(stdout, checks)
	}
	bad := 0
	for _, c := range checks {
		bad += c.Mismatch
	}
	if bad > 0 {
		return fmt.Errorf("cache verify: %s: entries failing their checksum: %d; a run asks again for damaged samples, executes damaged golds again and redoes damaged items (rerun the same command), but check the disk or the copy that damaged them", dir, bad)
	}
	return nil
}

// writeChecks prints one line per store and its first mismatches.
func writeChecks(w io.Writer, checks []checksum.Check) {
	for _, c := range checks {
		if c.Missing {
			fmt.Fprintf(w, "%-12s %s: absent (nothing to check)\n", c.Store, c.Path)
			continue
		}
		fmt.Fprintf(w, "%-12s %s: %d ok, %d mismatch, %d unchecked\n", c.Store, c.Path, c.OK, c.Mismatch, c.Unchecked)
		for _, m := range c.First {
			fmt.Fprintf(w, "  MISMATCH %s %s: %s\n", m.Table, m.Key, m.Reason)
		}
		if n := c.Mismatch - len(c.First); n > 0 {
			fmt.Fprintf(w, "  ... and %d more\n", n)
		}
	}
	fmt.Fprintln(w, "unchecked: entries written before checksums, served as they are; ok and mismatch: entries verified against their checksum")
}
