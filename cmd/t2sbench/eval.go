package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/verdictfile"
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
	// DBMismatches counts, with --allow-db-mismatch, the predictions that
	// name a database other than their question's.
	DBMismatches int `json:"db_mismatches,omitempty"`
	// EXAllQuestions is, for a partial prediction file, the correct count
	// over every question of the benchmark (unscored ones counted wrong),
	// the number to compare with a full run's EX.
	EXAllQuestions *float64 `json:"ex_all_questions,omitempty"`
	// Extraction counts, with --response-field, the responses by the
	// style their SQL was found in (sqltext.Style; "none": no SQL).
	Extraction map[sqltext.Style]int `json:"extraction,omitempty"`
	// ExtractionReasons counts, with --response-field, the responses by
	// the rule that chose their SQL among the candidates (sqltext.Reason).
	ExtractionReasons sqltext.ReasonCounts `json:"extraction_reasons,omitempty"`
	// ResponsePrefix is the --response-prefix flag; Primed counts the
	// predictions (without --response-field) it, or a record's own
	// response_prefix, was prepended to.
	ResponsePrefix string `json:"response_prefix,omitempty"`
	Primed         int    `json:"primed,omitempty"`
	// TieAware is set when --tie-aware (beyond the official rules) was on.
	TieAware bool `json:"tie_aware,omitempty"`
	// Deterministic is EX over the questions whose gold has no
	// nondeterministic flag; Nondeterministic counts the others.
	Deterministic    metrics.EXGroup `json:"deterministic"`
	Nondeterministic int             `json:"nondeterministic_golds"`
	// ReasoningTypes lists, for a benchmark without difficulty labels
	// (LogicCat), its own categories of the scored questions
	// (datasets.Example.ReasoningTypes), ByReasoningType EX per category;
	// a question counts under each of its types.
	ReasoningTypes  []string                   `json:"reasoning_types,omitempty"`
	ByReasoningType map[string]metrics.EXGroup `json:"by_reasoning_type,omitempty"`
	// TwoGold is, with a second gold (--gold-version, --gold-overlay),
	// EX of every prediction file under both golds (metrics.TwoGoldEX).
	TwoGold *metrics.TwoGold `json:"two_gold,omitempty"`
	metrics.EXSummary
}

func runEval(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("eval", "--benchmark NAME [--data DIR] (--pred FILE | --gold-as-pred) [flags]", stderr)
	benchName := fs.String("benchmark", "", "benchmark: spider, bird, bird-minidev, archer, mini (or any name datasets accepts)")
	data := fs.String("data", "", "benchmark data directory (empty for the bundled mini benchmark)")
	var preds multiFlag
	fs.Var(&preds, "pred", "prediction `file`; repeat it with --gold-version or --gold-overlay to rank several prediction files under both golds")
	mode := fs.String("mode", "", "EX mode: spider, spider-keep-distinct, bird, bird-minidev, archer, logiccat (default: the benchmark's)")
	format := fs.String("format", "", "prediction format: sql-lines, bird-json (a JSON object of question index to SQL, or a JSON list in question order), jsonl, csv (default: from the extension: .json bird-json, .jsonl jsonl, .csv csv, else sql-lines)")
	predColumn := fs.String("pred-column", "", "csv: the column holding the SQL, a header name or a number from 1 (default: the header's sql, predicted_sql, pred_sql, prediction, pred or query column, else column 1); a question_id column, when the header has one, matches rows to questions, else row i answers question i")
	predHeader := fs.String("pred-header", "", "csv: whether the first row is a header: yes, no (default: yes when it names a known column or --pred-column is a name)")
	out := fs.String("out", "", "write one JSON verdict per scored question to this file")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	workers := fs.Int("workers", runtime.NumCPU(), "questions scored in parallel")
	allowPartial := fs.Bool("allow-partial", false, "score a prediction file with fewer predictions than questions; the rest are listed as unscored")
	allowDBMismatch := fs.Bool("allow-db-mismatch", false, "score a prediction file some of whose predictions name a database other than their question's (the db_id after a TAB, after BIRD's separator, or in a db_id field or column), each on its question's database; they are listed as warnings and counted. By default such a file is refused: a line missing or added shifts every later prediction onto another question")
	timeout := fs.Duration("timeout", defaultEvalTimeout, "per-query timeout (gold and prediction each); interrupts the query")
	maxResultMB := fs.Int64("max-result-mb", datasets.DefaultMaxBytes>>20, "byte budget of one query result in MiB (TEXT/BLOB lengths, 8 per number); over it the query is interrupted and scores pred_error \"result too large\"")
	cacheDir := fs.String("cache-dir", "", "gold-result cache directory (default: the user cache dir's t2sbench/gold; \"off\" keeps it in memory)")
	limit := fs.Int("limit", 0, "score only the first N questions (0: all); predictions beyond them are ignored")
	goldAsPred := fs.Bool("gold-as-pred", false, "score each gold SQL as its own prediction (a check: runnable questions should all be correct)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	testSuite := fs.Bool("test-suite", false, "spider modes: correct only if the result matches the gold on every *.sqlite in the database's directory (Spider test-suite accuracy)")
	mysql := addMySQLFlags(fs)
	responseField := fs.String("response-field", "", "jsonl: read each question's raw model response from this field (a dotted path walks nested objects: response.choices.0.message.content) instead of \"sql\", and extract its SQL as the runners do (reasoning removed; fences, tags, prose, JSON, final answer, corrections over alternatives, a transcript's last assistant turn); a response without SQL is pred_error \""+sqltext.NoSQL+"\"; the summary counts the extraction styles and the rules that chose the SQL, and --out verdicts carry pred_sql, extraction and extraction_reason")
	allowMissingDB := fs.Bool("allow-missing-db", false, "score even when the databases of most questions are missing from --data (they are listed as missing_db); by default eval refuses")
	responsePrefix := fs.String("response-prefix", "", "the start of a statement a completion-style prompt ended with (SELECT): a predicted SQL, or with --response-field a response, that does not start with a statement keyword (SELECT, WITH, ...) is read as its continuation and gets the prefix prepended; a jsonl record's own \"response_prefix\" field overrides it for that record")
	extra := fs.String("metrics", "", "metrics beside EX, comma-separated: soft-f1 (BIRD's cell-level F1 between the result tables), r-ves (BIRD's reward-based valid efficiency score, timing gold and prediction interleaved); BIRD modes only")
	rvesRepeats := fs.Int("r-ves-repeats", metrics.RVESIterations, "r-ves: timed executions of each correct prediction and its gold, interleaved (the official count is 100); fewer are faster and noisier")
	tieAware := fs.Bool("tie-aware", false, "beyond the official rules: for a gold ORDER BY ... LIMIT k whose boundary rows tie, accept any valid top-k")
	second := addSecondGoldFlags(fs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: eval: unexpected arguments %q (every input is a flag: --pred FILE, --data DIR; t2sbench help eval)", errUsage, fs.Args())
	}
	if *benchName == "" {
		return fmt.Errorf("%w: eval: --benchmark NAME is required (mini, spider, bird, bird-minidev, archer, logiccat; t2sbench datasets list shows what a data folder holds)", errUsage)
	}
	if err := second.check("eval"); err != nil {
		return err
	}
	if len(preds) == 0 && !*goldAsPred || len(preds) > 0 && *goldAsPred && !second.set() {
		return fmt.Errorf("%w: eval: give exactly one of --pred FILE and --gold-as-pred (both, with a second gold, rank the gold beside the predictions)", errUsage)
	}
	if len(preds) > 1 && !second.set() {
		return fmt.Errorf("%w: eval: several --pred files are ranked under two golds (--gold-version or --gold-overlay); compare their verdict files (eval --out) for paired tests", errUsage)
	}
	if len(preds) > 1 || len(preds) == 1 && *goldAsPred {
		if *out != "" || *extra != "" {
			return fmt.Errorf("%w: eval: --out and --metrics score one prediction file; give one --pred", errUsage)
		}
	}
	pred := new(string)
	if len(preds) > 0 {
		*pred = preds[0]
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
	metricSet, err := parseEvalMetrics(*extra)
	if err != nil {
		return err
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
	if (*predColumn != "" || *predHeader != "") && (len(preds) == 0 || pf != metrics.FormatCSV) {
		return fmt.Errorf("%w: eval: --pred-column and --pred-header read a csv prediction file (--format csv or a .csv name), not %s", errUsage, pf)
	}
	if *predHeader != "" && *predHeader != "yes" && *predHeader != "no" {
		return fmt.Errorf("%w: eval: --pred-header %q: want yes or no", errUsage, *predHeader)
	}
	if *responseField != "" && (len(preds) == 0 || pf != metrics.FormatJSONL) {
		return fmt.Errorf("%w: eval: --response-field reads a jsonl prediction file (--format jsonl), not --gold-as-pred or %s", errUsage, pf)
	}

	if *responsePrefix != "" && len(preds) == 0 {
		return fmt.Errorf("%w: eval: --response-prefix reads a prediction file (--pred), not --gold-as-pred", errUsage)
	}

	opt := datasets.LoadOptions{Limit: *limit, SQLite: datasets.SQLiteOptions{Timeout: *timeout, MaxBytes: *maxResultMB << 20}}
	if opt.MySQL, err = mysql.config(stderr, "eval", *benchName, *timeout, *maxResultMB<<20); err != nil {
		return err
	}
	b, err := openBenchmark("eval", *benchName, *data, opt)
	if err != nil {
		return err
	}
	if b.Engine != nil {
		defer b.Engine.Close()
	}
	if !*allowMissingDB {
		reopen := func(dir string) (*datasets.Benchmark, error) { return datasets.Open(*benchName, dir, opt) }
		if err := bench.CheckDatabases(b, *benchName, reopen, "pass --data DIR"); err != nil {
			return asUsage(fmt.Errorf("eval: %w", err))
		}
	}
	eff := m
	if eff == "" {
		eff = metrics.Mode(b.Mode)
	}
	if *rvesRepeats < 1 {
		return fmt.Errorf("%w: eval: --r-ves-repeats must be at least 1, got %d", errUsage, *rvesRepeats)
	}
	rves := 0
	if metricSet["r-ves"] {
		rves = *rvesRepeats
		if *workers > 1 && !*quiet {
			fmt.Fprintf(stderr, "note: r-ves times queries while %d workers score in parallel; --workers 1 on an idle machine gives steadier timings\n", *workers)
		}
	}
	if len(metricSet) > 0 && !eff.SupportsSoftF1() {
		return fmt.Errorf("%w: eval: --metrics %s needs a BIRD mode (bird, bird-minidev), not %q", errUsage, *extra, eff)
	}
	if *testSuite {
		if !eff.SupportsTestSuite() {
			return fmt.Errorf("%w: eval: --test-suite needs a spider mode (spider, spider-keep-distinct), not %q", errUsage, eff)
		}
	}

	// readPred reads and aligns one prediction file, in the format
	// --format names or its extension gives.
	readPred := func(path string) (aligned metrics.Aligned, extracted map[string]sqltext.Extraction, primed int, err error) {
		f := pf
		if *format == "" {
			f = metrics.FormatForPath(path)
		}
		ps, err := metrics.ReadPredictionsWith(path, f, metrics.ReadOptions{ResponseField: *responseField, Column: *predColumn, Header: *predHeader})
		if errors.Is(err, iofs.ErrNotExist) {
			return aligned, nil, 0, asUsage(fmt.Errorf("eval: --pred: %w", err))
		}
		if err != nil {
			return aligned, nil, 0, fmt.Errorf("eval: %w", err)
		}
		if *responseField != "" {
			extracted = extractResponses(ps, *responsePrefix)
		} else {
			primed = primePredictions(ps, *responsePrefix)
		}
		aligned, err = metrics.AlignPredictions(path, b, ps, metrics.AlignOptions{AllowPartial: *allowPartial, DropExtra: *limit > 0, AllowDBMismatch: *allowDBMismatch})
		var dbErr *metrics.DBMismatchError
		if errors.As(err, &dbErr) {
			return aligned, nil, 0, asUsage(fmt.Errorf("eval: %w", err))
		}
		if err != nil {
			return aligned, nil, 0, fmt.Errorf("eval: %w", err)
		}
		return aligned, extracted, primed, nil
	}
	// The second gold is read before any scoring, so that a bad overlay
	// or a missing version costs nothing.
	var gold2 *secondGold
	if second.set() {
		if gold2, err = second.open("eval", b, *data, opt); err != nil {
			return err
		}
		defer gold2.Close()
	}
	var aligned metrics.Aligned
	var extracted map[string]sqltext.Extraction // by question id, with --response-field
	primed := 0                                 // predictions given the response prefix, without --response-field
	predName := "gold"
	if len(preds) == 0 {
		aligned.Preds = metrics.GoldPredictions(b)
	} else {
		predName = *pred
		if aligned, extracted, primed, err = readPred(*pred); err != nil {
			return err
		}
	}

	cache, err := openGoldCache(*cacheDir)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer cache.Close()
	// sopt are the EX rules; the second gold scores by them too, without
	// the metrics beside EX.
	sopt := metrics.ScoreOptions{Mode: m, Timeout: *timeout, TestSuite: *testSuite, TieAware: *tieAware}
	withMetrics := sopt
	withMetrics.SoftF1, withMetrics.RVES = metricSet["soft-f1"], rves
	scorer, err := metrics.NewScorer(b, cache, withMetrics)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var bar *progressbar.ProgressBar
	var plain *plainProgress
	tty := isTerminal(stderr)
	progress := func(done, total int) {
		if *quiet {
			return
		}
		if !tty {
			if plain == nil {
				plain = newPlainProgress(stderr, "scored", total)
			}
			plain.update(done, "")
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("scoring"),
				progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	verdicts, err := scorer.ScoreAligned(ctx, aligned, *workers, progress)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := cache.Flush(); err != nil {
		fmt.Fprintf(stderr, "warning: gold cache not saved: %v\n", err)
	}
	if n := cache.Corrupt(); n > 0 {
		fmt.Fprintf(stderr, "warning: re-executed %d golds whose gold-cache entry (%s) failed its checksum; the damaged entries were replaced\n", n, cache.Dir())
	}

	var rows []verdictfile.Response
	if extracted != nil {
		rows = verdictfile.Responses(verdicts, extracted)
	}
	if *out != "" {
		if extracted != nil {
			err = verdictfile.Write(*out, *benchName, rows)
		} else {
			err = verdictfile.Write(*out, *benchName, verdicts)
		}
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	sum := metrics.SummarizeEX(scorer.Mode(), verdicts, aligned.Unscored)
	rep := evalReport{Benchmark: b.Name, Split: b.Split, Pred: predName, Questions: len(b.Examples), TestSuite: *testSuite, Warnings: aligned.Warnings, EXSummary: sum,
		TieAware: *tieAware, Deterministic: metrics.DeterministicEX(verdicts), Nondeterministic: metrics.NondeterministicCount(verdicts),
		DBMismatches: len(aligned.DBMismatches), ResponsePrefix: *responsePrefix, Primed: primed}
	// A benchmark without difficulty labels (LogicCat) is broken down by
	// its own categories instead of one "unknown" difficulty.
	if len(sum.Difficulties) == 1 && sum.Difficulties[0] == "unknown" {
		types := make(map[string][]string, len(b.Examples))
		for _, e := range b.Examples {
			types[e.ID] = e.ReasoningTypes
		}
		rep.ReasoningTypes, rep.ByReasoningType = metrics.SummarizeByCategory(verdicts, func(v metrics.Verdict) []string { return types[v.QuestionID] })
		if len(rep.ReasoningTypes) == 0 {
			rep.ByReasoningType = nil
		}
	}
	if extracted != nil {
		rep.Extraction = map[sqltext.Style]int{}
		reasons := make([]sqltext.Reason, len(rows))
		for i, r := range rows {
			rep.Extraction[r.Extraction]++
			reasons[i] = r.ExtractionReason
		}
		rep.ExtractionReasons = sqltext.CountReasons(reasons)
	}
	if len(sum.Unscored) > 0 && rep.Questions > 0 {
		ex := float64(sum.Overall.Correct) / float64(rep.Questions)
		rep.EXAllQuestions = &ex
	}
	if gold2 != nil {
		if rep.TwoGold, err = evalTwoGold(ctx, gold2, b, cache, sopt,
			scorer, aligned, verdicts, predName, preds, *goldAsPred, readPred, *workers); err != nil {
			return err
		}
	}
	var incomplete error
	if n := len(sum.Unscored); n > 0 {
		incomplete = fmt.Errorf("%w: %d of %d questions have no prediction; EX is over the %d scored", errIncomplete, n, rep.Questions, sum.Overall.Total)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return incomplete
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
	if rep.TwoGold != nil {
		printTwoGold(stdout, rep.TwoGold)
	}
	return incomplete
}

// evalTwoGold scores every system of eval under the benchmark's gold and
// the second gold g: the first prediction file (or the gold itself), whose
// verdicts va the caller has, then the other prediction files and, with
// goldAsPred beside --pred, the gold; it returns their two-gold table.
func evalTwoGold(ctx context.Context, g *secondGold, b *datasets.Benchmark, cache *metrics.GoldCache, sopt metrics.ScoreOptions,
	scorer *metrics.Scorer, aligned metrics.Aligned, va []metrics.Verdict, name string, preds []string, goldAsPred bool,
	readPred func(string) (metrics.Aligned, map[string]sqltext.Extraction, int, error), workers int) (*metrics.TwoGold, error) {
	sb, err := metrics.NewScorer(g.b, cache, sopt)
	if err != nil {
		return nil, fmt.Errorf("eval: second gold: %w", err)
	}
	var systems []metrics.GoldSystem
	add := func(name string, al metrics.Aligned, va []metrics.Verdict) error {
		ma, mb, err := outcomesUnder(ctx, sb, g, al.Preds, al.Invalid, va, workers)
		if err != nil {
			return fmt.Errorf("eval: second gold: %w", err)
		}
		systems = append(systems, metrics.GoldSystem{Name: name, A: []map[string]metrics.GoldOutcome{ma}, B: []map[string]metrics.GoldOutcome{mb}})
		return nil
	}
	if err := add(name, aligned, va); err != nil {
		return nil, err
	}
	for _, p := range preds[min(1, len(preds)):] {
		al, _, _, err := readPred(p)
		if err != nil {
			return nil, err
		}
		v, err := scorer.ScoreAligned(ctx, al, workers, nil)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		if err := add(p, al, v); err != nil {
			return nil, err
		}
	}
	if goldAsPred && len(preds) > 0 {
		al := metrics.Aligned{Preds: metrics.GoldPredictions(b)}
		v, err := scorer.ScoreAligned(ctx, al, workers, nil)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		if err := add("gold", al, v); err != nil {
			return nil, err
		}
	}
	t, err := metrics.TwoGoldEX(goldName(b), g.name, g.changed, systems)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return t, nil
}

// evalMetrics are the metrics --metrics accepts beside EX.
var evalMetrics = []string{"soft-f1", "r-ves"}

// parseEvalMetrics reads --metrics: a comma-separated list of evalMetrics.
func parseEvalMetrics(s string) (map[string]bool, error) {
	set := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		return set, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(evalMetrics, f) {
			return nil, fmt.Errorf("%w: eval: --metrics: unknown metric %q (known: %s)", errUsage, f, strings.Join(evalMetrics, ", "))
		}
		set[f] = true
	}
	return set, nil
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

// responsePrefix is the prefix of prediction p: its record's own
// response_prefix, else the --response-prefix flag.
func responsePrefix(p metrics.Prediction, flag string) string {
	if p.ResponsePrefix != nil {
		return *p.ResponsePrefix
	}
	return flag
}

// primePredictions prepends each prediction's response prefix
// (responsePrefix) to its SQL when the SQL does not start a statement of
// its own (sqltext.Prime), and returns how many it changed.
func primePredictions(ps []metrics.Prediction, prefix string) int {
	n := 0
	for i := range ps {
		if ps[i].Invalid != "" {
			continue
		}
		var primed bool
		if ps[i].SQL, primed = sqltext.Prime(ps[i].SQL, responsePrefix(ps[i], prefix)); primed {
			n++
		}
	}
	return n
}

// extractResponses sets each prediction's SQL to the SQL extracted from
// its raw response (reasoning blocks removed first, as the runners see an
// answer), read as the continuation of its response prefix
// (responsePrefix) when it does not open an answer of its own, and returns
// the extractions by question id.
func extractResponses(ps []metrics.Prediction, prefix string) map[string]sqltext.Extraction {
	out := make(map[string]sqltext.Extraction, len(ps))
	for i := range ps {
		answer, _ := llm.SplitReasoning(ps[i].Response)
		e := sqltext.ExtractWith(answer, sqltext.Options{Continues: responsePrefix(ps[i], prefix)})
		ps[i].SQL = e.SQL
		out[ps[i].QuestionID] = e
	}
	return out
}

func pct(x float64) string { return fmt.Sprintf("%6.2f%%", 100*x) }

// exLine is the one-line EX that eval and compare both print, so that the
// same verdicts read the same:
//
//	EX 83.23% (809 correct / 972 attempted)
func exLine(correct, attempted int) string {
	if attempted == 0 {
		return "EX - (0 attempted)"
	}
	return fmt.Sprintf("EX %.2f%% (%d correct / %d attempted)", 100*float64(correct)/float64(attempted), correct, attempted)
}

// softF1Line is the one-line Soft F1 of a summary (0 to 1 in, percent out).
func softF1Line(f float64) string { return fmt.Sprintf("Soft F1 %.2f", 100*f) }

// rvesLine is the one-line R-VES of a summary, with the band its timing
// noise allows and the median spread of the time ratio.
func rvesLine(v metrics.RVESSummary) string {
	return fmt.Sprintf("R-VES %.2f (timing noise allows %.2f to %.2f; median SD of the gold/prediction time ratio %.2f)", 100*v.Score, 100*v.Low, 100*v.High, v.MedianRatioSD)
}

// newEXGroupTable is the table of EX by group eval prints: the group
// column (named name, at least width wide), then n, correct, EX and
// attempted (exGroupRow).
func newEXGroupTable(name string, width int) *textable.Table {
	return textable.New(1, textable.Column{Name: name, MinWidth: width}, textable.Column{Name: "n", Align: textable.Right, MinWidth: 6},
		textable.Column{Name: "correct", Align: textable.Right, MinWidth: 8}, textable.Column{Name: "EX", Align: textable.Right, MinWidth: 8},
		textable.Column{Name: "attempted", Align: textable.Right, MinWidth: 9})
}

// exGroupRow adds group name's row to a newEXGroupTable; EX is "-" when
// no question of the group was attempted.
func exGroupRow(tab *textable.Table, name string, g metrics.EXGroup) {
	ex := "-"
	if g.Runnable > 0 {
		ex = strings.TrimSpace(pct(g.EX))
	}
	tab.Row(name, fmt.Sprint(g.Total), fmt.Sprint(g.Correct), ex, fmt.Sprint(g.Runnable))
}

func printEvalText(w io.Writer, r evalReport) {
	split := ""
	if r.Split != "" {
		split = " (" + r.Split + ")"
	}
	mode := string(r.Mode)
	if r.TestSuite {
		mode += " (test suite)"
	}
	if r.TieAware {
		mode += " (tie-aware)"
	}
	fmt.Fprintf(w, "benchmark %s%s, mode %s, predictions %s: %d of %d questions scored\n",
		r.Benchmark, split, mode, r.Pred, r.Overall.Total, r.Questions)
	tab := newEXGroupTable("difficulty", 12)
	for _, d := range r.Difficulties {
		// A benchmark without difficulty labels (LogicCat) shows its
		// reasoning types below instead of one "unknown" row.
		if len(r.Difficulties) == 1 && d == "unknown" && len(r.ReasoningTypes) > 0 {
			continue
		}
		exGroupRow(tab, d, r.ByDifficulty[d])
	}
	exGroupRow(tab, "all", r.Overall)
	tab.Write(w)
	if len(r.ReasoningTypes) > 0 {
		tt := newEXGroupTable("reasoning type", 14)
		for _, ty := range r.ReasoningTypes {
			exGroupRow(tt, ty, r.ByReasoningType[ty])
		}
		fmt.Fprintln(w, "by the benchmark's reasoning types (a question counts under each of its types):")
		tt.Write(w)
	}
	if f := r.Overall.SoftF1; f != nil {
		fmt.Fprintf(w, "%s; BIRD's Soft F1 over the same attempted questions", softF1Line(*f))
		for _, d := range r.Difficulties {
			if g := r.ByDifficulty[d].SoftF1; g != nil {
				fmt.Fprintf(w, ", %s %.2f", d, 100**g)
			}
		}
		fmt.Fprintln(w)
	}
	if v := r.Overall.RVES; v != nil {
		fmt.Fprintf(w, "%s; BIRD's R-VES over the same attempted questions (each correct prediction timed against its gold, interleaved)\n", rvesLine(*v))
	}
	fmt.Fprint(w, "status:")
	for _, s := range metrics.Statuses {
		fmt.Fprintf(w, " %s %d", s, r.Status[s])
	}
	fmt.Fprintln(w)
	partial := ""
	if len(r.Unscored) > 0 {
		partial = " (partial)"
	}
	fmt.Fprintf(w, "%s%s; attempted = questions whose gold runs\n", exLine(r.Overall.Correct, r.Overall.Runnable), partial)
	if txt := metrics.ExcludedText(r.Status); txt != "" {
		fmt.Fprintf(w, "not attempted, gold does not run: %s (not in EX's denominator)\n", txt)
	}
	if len(r.Extraction) > 0 {
		styles := make([]string, 0, len(r.Extraction))
		for st := range r.Extraction {
			styles = append(styles, string(st))
		}
		sort.Strings(styles)
		fmt.Fprint(w, "extraction:")
		for _, st := range styles {
			fmt.Fprintf(w, " %s %d", st, r.Extraction[sqltext.Style(st)])
		}
		fmt.Fprintln(w)
	}
	if len(r.ExtractionReasons) > 0 {
		fmt.Fprintf(w, "extraction reasons: %s\n", r.ExtractionReasons)
	}
	if r.Primed > 0 {
		fmt.Fprintf(w, "response prefix: %d predictions continued a prompt's statement start and were read with it prepended (--response-prefix %q or their response_prefix)\n", r.Primed, r.ResponsePrefix)
	}
	if r.Nondeterministic > 0 {
		d := r.Deterministic
		fmt.Fprintf(w, "deterministic golds: %d correct of %d runnable, EX %s (%d runnable questions whose gold is nondeterministic left out; their golds ran beside each prediction)\n",
			d.Correct, d.Runnable, strings.TrimSpace(pct(d.EX)), r.Nondeterministic)
	}
	if r.TieAware {
		fmt.Fprintln(w, "tie-aware: a valid top-k of a gold ORDER BY ... LIMIT with tied boundary rows counts as correct (beyond the official rules)")
	}
	if r.DBMismatches > 0 {
		fmt.Fprintf(w, "database mismatches: %d predictions name a database other than their question's; each was scored on its question's database (--allow-db-mismatch)\n", r.DBMismatches)
	}
	if n := len(r.Unscored); n > 0 {
		fmt.Fprintf(w, "unscored (no prediction): %d questions; the EX above is over the %d scored\n", n, r.Overall.Total)
		if r.EXAllQuestions != nil {
			fmt.Fprintf(w, "EX over all %d questions (unscored counted wrong): %s\n", r.Questions, strings.TrimSpace(pct(*r.EXAllQuestions)))
		}
	}
}
