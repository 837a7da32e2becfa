package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
)

func init() {
	register(command{
		name:    "eval",
		summary: "score a prediction file with a benchmark's official execution accuracy (EX)",
		run:     runEval,
	})
}

// defaultEvalTimeout is the per-query timeout: BIRD's official
// meta_time_out (run_evaluation.sh, 30 s).
const defaultEvalTimeout = 30 * time.Second

// evalReport is the --json output.
type evalReport struct {
	Benchmark string `json:"benchmark"`
	Split     string `json:"split,omitempty"`
	Pred      string `json:"pred"`
	Questions int    `json:"questions"`
	// TestSuite is set when each prediction was judged on every database
	// variant (--test-suite).
	TestSuite bool     `json:"test_suite,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	// EXAllQuestions is, for a partial prediction file, the correct count
	// over every question of the benchmark (unscored ones counted wrong),
	// the number to compare with a full run's EX.
	EXAllQuestions *float64 `json:"ex_all_questions,omitempty"`
	metrics.EXSummary
}

func runEval(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("eval", "--benchmark NAME [--data DIR] (--pred FILE | --gold-as-pred) [flags]", stderr)
	benchName := fs.String("benchmark", "", "benchmark: spider, bird, bird-minidev, archer, mini (or any name datasets accepts)")
	data := fs.String("data", "", "benchmark data directory (empty for the bundled mini benchmark)")
	pred := fs.String("pred", "", "prediction file")
	mode := fs.String("mode", "", "EX mode: spider, spider-keep-distinct, bird, bird-minidev, archer, logiccat (default: the benchmark's)")
	format := fs.String("format", "", "prediction format: sql-lines, bird-json, jsonl (default: from the extension: .json bird-json, .jsonl jsonl, else sql-lines)")
	out := fs.String("out", "", "write one JSON verdict per scored question to this file")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	workers := fs.Int("workers", runtime.NumCPU(), "questions scored in parallel")
	allowPartial := fs.Bool("allow-partial", false, "score a prediction file with fewer predictions than questions; the rest are listed as unscored")
	timeout := fs.Duration("timeout", defaultEvalTimeout, "per-query timeout (gold and prediction each); interrupts the query")
	maxResultMB := fs.Int64("max-result-mb", datasets.DefaultMaxBytes>>20, "byte budget of one query result in MiB (TEXT/BLOB lengths, 8 per number); over it the query is interrupted and scores pred_error \"result too large\"")
	cacheDir := fs.String("cache-dir", "", "gold-result cache directory (default: the user cache dir's t2sbench/gold; \"off\" keeps it in memory)")
	limit := fs.Int("limit", 0, "score only the first N questions (0: all); predictions beyond them are ignored")
	goldAsPred := fs.Bool("gold-as-pred", false, "score each gold SQL as its own prediction (a check: runnable questions should all be correct)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	testSuite := fs.Bool("test-suite", false, "spider modes: correct only if the result matches the gold on every *.sqlite in the database's directory (Spider test-suite accuracy)")
	mysqlDSN := fs.String("mysql-dsn", os.Getenv("T2SBENCH_MYSQL_DSN"), "LogicCat: DSN of the SELECT-only account, without password (default $T2SBENCH_MYSQL_DSN)")
	mysqlPwEnv := fs.String("mysql-password-env", "", "LogicCat: environment variable holding that account's password")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: eval: unexpected arguments %q", errUsage, fs.Args())
	}
	if *benchName == "" {
		return fmt.Errorf("%w: eval: --benchmark is required", errUsage)
	}
	if (*pred == "") == !*goldAsPred {
		return fmt.Errorf("%w: eval: give exactly one of --pred FILE and --gold-as-pred", errUsage)
	}
	if *workers < 1 {
		return fmt.Errorf("%w: eval: --workers must be at least 1, got %d", errUsage, *workers)
	}
	if *limit < 0 {
		return fmt.Errorf("%w: eval: --limit must be >= 0, got %d", errUsage, *limit)
	}
	if *timeout <= 0 {
		return fmt.Errorf("%w: eval: --timeout must be positive, got %v", errUsage, *timeout)
	}
	if *maxResultMB <= 0 || *maxResultMB > 1<<20 {
		return fmt.Errorf("%w: eval: --max-result-mb must be in [1, 1048576], got %d", errUsage, *maxResultMB)
	}
	var m metrics.Mode
	if *mode != "" {
		var err error
		if m, err = metrics.ParseMode(*mode); err != nil {
			return fmt.Errorf("%w: eval: %v", errUsage, err)
		}
	}
	var pf metrics.PredFormat
	if *format != "" {
		var err error
		if pf, err = metrics.ParsePredFormat(*format); err != nil {
			return fmt.Errorf("%w: eval: %v", errUsage, err)
		}
	} else {
		pf = metrics.FormatForPath(*pred)
	}

	opt := datasets.LoadOptions{Limit: *limit, SQLite: datasets.SQLiteOptions{Timeout: *timeout, MaxBytes: *maxResultMB << 20}}
	if needsMySQL(*benchName) {
		if *mysqlDSN == "" {
			return fmt.Errorf("%w: eval: %s runs MySQL-dialect gold SQL on a MySQL/MariaDB server: pass --mysql-dsn (or set T2SBENCH_MYSQL_DSN; see README, LogicCat on MariaDB/MySQL), or use logiccat-sqlite for the SQLite files, most of them empty", errUsage, *benchName)
		}
		opt.MySQL = &datasets.MySQLConfig{DSN: *mysqlDSN, PasswordEnv: *mysqlPwEnv, Timeout: *timeout, MaxBytes: *maxResultMB << 20}
	}
	b, err := datasets.Open(*benchName, *data, opt)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if b.Engine != nil {
		defer b.Engine.Close()
	}
	if *testSuite {
		eff := m
		if eff == "" {
			eff = metrics.Mode(b.Mode)
		}
		if !eff.SupportsTestSuite() {
			return fmt.Errorf("%w: eval: --test-suite needs a spider mode (spider, spider-keep-distinct), not %q", errUsage, eff)
		}
	}

	var aligned metrics.Aligned
	predName := "gold"
	if *goldAsPred {
		aligned.Preds = metrics.GoldPredictions(b)
	} else {
		predName = *pred
		ps, err := metrics.ReadPredictions(*pred, pf)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		aligned, err = metrics.AlignPredictions(*pred, b, ps, metrics.AlignOptions{AllowPartial: *allowPartial, DropExtra: *limit > 0})
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}

	cache, err := openGoldCache(*cacheDir)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer cache.Close()
	scorer, err := metrics.NewScorer(b, cache, metrics.ScoreOptions{Mode: m, Timeout: *timeout, TestSuite: *testSuite})
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var bar *progressbar.ProgressBar
	progress := func(done, total int) {
		if *quiet {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("scoring"),
				progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	verdicts, err := scorer.ScoreAll(ctx, aligned.Preds, *workers, progress)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := cache.Flush(); err != nil {
		fmt.Fprintf(stderr, "warning: gold cache not saved: %v\n", err)
	}

	if *out != "" {
		if err := writeVerdictsJSONL(*out, verdicts); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	sum := metrics.SummarizeEX(scorer.Mode(), verdicts, aligned.Unscored)
	rep := evalReport{Benchmark: b.Name, Split: b.Split, Pred: predName, Questions: len(b.Examples), TestSuite: *testSuite, Warnings: aligned.Warnings, EXSummary: sum}
	if len(sum.Unscored) > 0 && rep.Questions > 0 {
		ex := float64(sum.Overall.Correct) / float64(rep.Questions)
		rep.EXAllQuestions = &ex
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	const maxWarn = 10
	for i, w := range aligned.Warnings {
		if i == maxWarn {
			fmt.Fprintf(stderr, "warning: ... and %d more\n", len(aligned.Warnings)-maxWarn)
			break
		}
		fmt.Fprintln(stderr, "warning:", w)
	}
	printEvalText(stdout, rep)
	return nil
}

// needsMySQL reports whether benchmark name is LogicCat in its MySQL
// dialect (logiccat, logiccat-mini500, ...), whose gold SQL only runs on a
// MySQL/MariaDB server; logiccat-sqlite* uses the SQLite files.
func needsMySQL(name string) bool {
	return (name == "logiccat" || strings.HasPrefix(name, "logiccat-")) && !strings.Contains(name, "sqlite")
}

func openGoldCache(dir string) (*metrics.GoldCache, error) {
	switch dir {
	case "off":
		return metrics.NewGoldCache("")
	case "":
		d, err := metrics.DefaultGoldCacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return metrics.NewGoldCache(dir)
}

func writeVerdictsJSONL(path string, vs []metrics.Verdict) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	enc := json.NewEncoder(f)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%6.2f%%", 100*x) }

func printEvalText(w io.Writer, r evalReport) {
	split := ""
	if r.Split != "" {
		split = " (" + r.Split + ")"
	}
	mode := string(r.Mode)
	if r.TestSuite {
		mode += " (test suite)"
	}
	fmt.Fprintf(w, "benchmark %s%s, mode %s, predictions %s: %d of %d questions scored\n",
		r.Benchmark, split, mode, r.Pred, r.Overall.Total, r.Questions)
	fmt.Fprintf(w, "%-12s %6s %8s %8s %9s %8s\n", "difficulty", "n", "correct", "EX", "runnable", "EX(run)")
	row := func(name string, g metrics.EXGroup) {
		fmt.Fprintf(w, "%-12s %6d %8d %8s %9d %8s\n", name, g.Total, g.Correct, pct(g.EX), g.Runnable, pct(g.EXRunnable))
	}
	for _, d := range r.Difficulties {
		row(d, r.ByDifficulty[d])
	}
	row("all", r.Overall)
	fmt.Fprint(w, "status:")
	for _, s := range metrics.Statuses {
		fmt.Fprintf(w, " %s %d", s, r.Status[s])
	}
	fmt.Fprintln(w)
	if n := len(r.Unscored); n > 0 {
		fmt.Fprintf(w, "unscored (no prediction): %d questions; the EX above is over the %d scored\n", n, r.Overall.Total)
		if r.EXAllQuestions != nil {
			fmt.Fprintf(w, "EX over all %d questions (unscored counted wrong): %s\n", r.Questions, strings.TrimSpace(pct(*r.EXAllQuestions)))
		}
	}
}
