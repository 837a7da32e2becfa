package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
)

// checkReport is the output of datasets check.
type checkReport struct {
	Benchmark string `json:"benchmark"`
	Split     string `json:"split,omitempty"`
	Data      string `json:"data"`
	Mode      string `json:"mode"`
	// Release states which release the recorded checksums stand for.
	Release string               `json:"release,omitempty"`
	Files   []datasets.FileCheck `json:"files"`
	// PreviousVersion names the version gold changes are counted against
	// ("" when none is at hand); Compared is how many questions matched.
	PreviousVersion string                `json:"previous_version,omitempty"`
	Compared        int                   `json:"previous_version_compared,omitempty"`
	Totals          metrics.GoldTotals    `json:"totals"`
	Questions       []metrics.GoldCheck   `json:"questions"`
	GoldChanges     []datasets.GoldChange `json:"gold_changes,omitempty"`
}

func datasetsCheck(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets check", "--benchmark NAME --data DIR [--json] [flags]", stderr)
	benchName := fs.String("benchmark", "", "benchmark: spider, bird, bird-minidev, archer, logiccat, ... (any name datasets accepts)")
	data := fs.String("data", "", "benchmark data directory (empty for the bundled mini benchmark)")
	asJSON := fs.Bool("json", false, "print the whole report (every question) as one JSON object")
	mode := fs.String("mode", "", "EX mode deciding gold rewrites and when two executions agree (default: the benchmark's)")
	timeout := fs.Duration("timeout", defaultEvalTimeout, "per-query timeout")
	workers := fs.Int("workers", runtime.NumCPU(), "golds checked in parallel")
	limit := fs.Int("limit", 0, "check only the first N questions (0: all)")
	list := fs.Int("list", 20, "text output: list at most this many flagged questions per finding (0: none)")
	mysql := addMySQLFlags(fs)
	quiet := fs.Bool("quiet", false, "no progress output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: datasets check: unexpected arguments %q", errUsage, fs.Args())
	}
	if *benchName == "" {
		return fmt.Errorf("%w: datasets check: --benchmark is required", errUsage)
	}
	if *workers < 1 || *timeout <= 0 || *limit < 0 {
		return fmt.Errorf("%w: datasets check: --workers must be >= 1, --timeout > 0, --limit >= 0", errUsage)
	}
	var m metrics.Mode
	if *mode != "" {
		var err error
		if m, err = metrics.ParseMode(*mode); err != nil {
			return fmt.Errorf("%w: datasets check: %v", errUsage, err)
		}
	}
	opt := datasets.LoadOptions{Limit: *limit, SQLite: datasets.SQLiteOptions{Timeout: *timeout}}
	var err error
	if opt.MySQL, err = mysql.config(stderr, "datasets check", *benchName, *timeout, 0); err != nil {
		return err
	}
	b, err := openBenchmark("datasets check", *benchName, *data, opt)
	if err != nil {
		return err
	}
	if b.Engine != nil {
		defer b.Engine.Close()
	}
	if m == "" {
		m = metrics.Mode(b.Mode)
	}
	rep := checkReport{Benchmark: b.Name, Split: b.Split, Data: *data, Mode: string(m)}

	fam, files, err := datasets.VerifyChecksums(*benchName, *data)
	if err != nil {
		return fmt.Errorf("datasets check: %w", err)
	}
	rep.Release, rep.Files = datasets.Release[fam], files

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	last := time.Time{}
	tty := isTerminal(stderr)
	var plain *plainProgress
	progress := func(done, total int) {
		if *quiet {
			return
		}
		if !tty { // a log: plain lines, no \r frames
			if plain == nil {
				plain = newPlainProgress(stderr, "checked golds", total)
			}
			plain.update(done, "")
			return
		}
		if time.Since(last) < 2*time.Second && done != total {
			return
		}
		last = time.Now()
		fmt.Fprintf(stderr, "\rchecked %d/%d golds", done, total)
		if done == total {
			fmt.Fprintln(stderr)
		}
	}
	checks, err := metrics.CheckGolds(ctx, b, metrics.GoldCheckOptions{Mode: m, Timeout: *timeout, Workers: *workers, Progress: progress})
	if err != nil {
		return fmt.Errorf("datasets check: %w", err)
	}

	if prev, what := datasets.PreviousVersion(*benchName); prev != "" {
		old, err := datasets.Open(prev, *data, datasets.LoadOptions{})
		if err == nil {
			if old.Engine != nil {
				old.Engine.Close()
			}
			changes, matched := datasets.GoldChanges(old, b)
			rep.PreviousVersion, rep.Compared, rep.GoldChanges = what, matched, changes
			idx := map[string]int{}
			for i, c := range checks {
				idx[c.QuestionID] = i
			}
			for _, ch := range changes {
				if i, ok := idx[ch.ID]; ok {
					checks[i].ChangedSince = prev
				}
			}
		} else if !*quiet {
			fmt.Fprintf(stderr, "note: previous version %s not compared: %v\n", prev, err)
		}
	}
	rep.Questions, rep.Totals = checks, metrics.SumGoldChecks(checks)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printCheckText(stdout, rep, *list)
	if !*quiet {
		fmt.Fprintf(stderr, "checked in %s\n", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func printCheckText(w io.Writer, r checkReport, list int) {
	t := r.Totals
	split := ""
	if r.Split != "" {
		split = " (" + r.Split + ")"
	}
	fmt.Fprintf(w, "benchmark %s%s, mode %s: %d questions\n", r.Benchmark, split, r.Mode, t.Questions)
	fmt.Fprintf(w, "golds: %d run, %d gold_error, %d gold_timeout, %d missing_db\n", t.Runnable, t.GoldError, t.GoldTimeout, t.MissingDB)
	fmt.Fprintf(w, "results: %d empty, %d all-NULL, %d truncated by the row cap\n", t.Empty, t.AllNull, t.Truncated)
	fmt.Fprintf(w, "nondeterministic: %d golds (run beside each prediction, never from the gold cache)\n", t.Nondeterministic)
	for _, f := range t.SortedFlags() {
		fmt.Fprintf(w, "  %-32s %d\n", f, t.ByFlag[f])
	}
	if t.GroupPick > 0 {
		fmt.Fprintf(w, "  (group_pick is not counted as nondeterministic: MariaDB's ONLY_FULL_GROUP_BY also refuses columns that depend on the grouped key)\n")
	}
	if t.Unchecked > 0 {
		fmt.Fprintf(w, "LIMIT not checkable: %d golds (see --json)\n", t.Unchecked)
	}
	fmt.Fprintf(w, "duplicate questions (same db and text): %d, %d of them with a different gold\n", t.Duplicates, t.DuplicatesDiffGold)
	if r.PreviousVersion != "" {
		fmt.Fprintf(w, "gold SQL changed since %s: %d of %d questions compared\n", r.PreviousVersion, t.GoldChanged, r.Compared)
	}
	if len(r.Files) == 0 {
		fmt.Fprintln(w, "files: no checksums recorded for this benchmark")
	} else {
		n := map[string]int{}
		for _, f := range r.Files {
			n[f.Status]++
		}
		fmt.Fprintf(w, "files: %d match the recorded SHA-256, %d differ, %d absent; release: %s\n", n["ok"], n["mismatch"], n["absent"], r.Release)
		for _, f := range r.Files {
			if f.Status != "ok" {
				fmt.Fprintf(w, "  %-8s %s\n", f.Status, filepath.ToSlash(f.Path))
			}
		}
	}
	if list <= 0 {
		return
	}
	show := func(title string, keep func(metrics.GoldCheck) string) {
		var lines []string
		for _, c := range r.Questions {
			if s := keep(c); s != "" {
				lines = append(lines, fmt.Sprintf("  %s [%s] %s", c.QuestionID, c.DBID, s))
			}
		}
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(w, "%s (%d):\n", title, len(lines))
		for i, l := range lines {
			if i == list {
				fmt.Fprintf(w, "  ... and %d more\n", len(lines)-list)
				break
			}
			fmt.Fprintln(w, l)
		}
	}
	show("nondeterministic golds that run", func(c metrics.GoldCheck) string {
		if c.Status != metrics.StatusOK || !c.Nondeterministic() {
			return ""
		}
		return strings.Join(c.Flags, ", ")
	})
	show("failing golds", func(c metrics.GoldCheck) string {
		if c.Status != metrics.StatusGoldError && c.Status != metrics.StatusGoldTimeout {
			return ""
		}
		return string(c.Status) + ": " + truncateText(c.Error, 100)
	})
}

func truncateText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
