package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

func init() {
	register(command{
		name:    "run",
		summary: "run an experiment spec (resumable; --shard for slices)",
		run:     runRun,
	})
}

// runDirHelp ends `t2sbench help run`: what a run directory holds and
// what running into one does.
const runDirHelp = `
A run directory holds one spec. Running the same spec into it again resumes it: finished items
are skipped and pending ones run; --limit may grow, and --workers, timeouts, prices and the
progress flags may change. A spec whose trials differ from those the directory holds (a trial
added or dropped, or one with another parameter, model, role binding, benchmark field, tie_aware
or seed) is refused with exit status 2, naming each difference: run it with --out NEW, or with
--replace-trials, which removes the changed and dropped trials with their results and runs the
new ones. A new label alone keeps a trial's results. --fresh discards every result.
`

// runEnv builds the scheduler's environment; tests substitute fakes.
var runEnv = bench.NewEnv

// runSignals are the signals that stop a run cleanly.
var runSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

func runRun(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("run", "SPEC.yaml [flags]", stderr)
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		fmt.Fprint(stderr, runDirHelp)
	}
	out := fs.String("out", "", "run directory (default: the spec's out, else runs/<spec name>; with --shard i/n that name followed by -shard-i-of-n, a directory of the shard's own); it holds one spec: a spec whose trials differ from those it holds (a trial added, dropped, or with another parameter, model, benchmark or seed) is refused, naming the differences")
	resume := fs.Bool("resume", false, "require an existing run directory and continue it (resuming the same spec is also the default; --limit may grow, --workers and timeouts change)")
	fresh := fs.Bool("fresh", false, "discard the run directory's results first (the model and gold caches are kept: add --refresh-cache to ask the models again)")
	replace := fs.Bool("replace-trials", false, "when the run directory holds another spec's trials (a run directory holds one spec), remove those that changed or are no longer in this spec, with their results, keep the others and run the new ones; without it run refuses and names the differences")
	shard := fs.String("shard", "", "run only slice i of n (1 <= i <= n, e.g. 1/2 and 2/2) of the work items, deterministic by item hash; join with merge")
	limit := fs.Int("limit", 0, "keep only the first N questions of each benchmark")
	workers := fs.Int("workers", 0, "work items in flight (default: the spec's workers)")
	quiet := fs.Bool("quiet", false, "no progress output")
	jsonl := fs.Bool("jsonl", false, "progress as JSON lines on stdout instead of a bar")
	maxResultMB := fs.Int64("max-result-mb", 0, "byte budget of one query result in MiB for every benchmark (default: each benchmark's max_result_mb, else 64); over it the query is interrupted and scores pred_error \"result too large\"")
	maxTrials := fs.Int("max-trials", 0, "cap on the trials the plan may expand to (default: the spec's max_trials, else 10000; at most 100000)")
	benchOverride := fs.String("benchmark", "", "run only benchmark NAME or NAME=DIR (e.g. mini, spider=/data/spider); a benchmark the spec names keeps its settings")
	var modelFiles, sets multiFlag
	fs.Var(&modelFiles, "models", "YAML file of model definitions (a spec's models: schema) replacing the spec's models of the same names; repeatable")
	fs.Var(&sets, "set", "override a spec value before it is validated: key.path=value (models.gpt.base_url=http://x:8000/v1, runners.0.params.n_rollout=8, workers=4); repeatable")
	profile := fs.String("profile", "", "run the spec through a named overlay that lowers its cost, applied before --set and stated in the reports' titles: quick (n_rollout at most 4, --limit 12 unless given); make reproduce-sim uses it")
	dryRun := fs.Bool("dry-run", false, "print the plan (trials, questions, expected model calls, tokens and cost, what is done and cached) and exit; no model is called and no run directory is created")
	allowMissingDB := fs.Bool("allow-missing-db", false, "run a benchmark even when the databases of most of its questions are missing from its data folder (they score missing_db); by default run refuses before creating any trial")
	maxFailures := fs.String("max-failures", "", "stop the run (exit status 3) once more items failed than N (a count, e.g. 20) or than a fraction of the run's items (e.g. 0.1); default: no limit")
	backbone := fs.String("backbone", "", "bind the spec's model NAME (as --models and --set define it) to every role of every runner: the spec's roles, each runner's roles, and each backbones list, which becomes [NAME]; e.g. --models real.yaml --backbone sim-qwen25-coder-7b")
	refreshCache := fs.Bool("refresh-cache", false, "ask the models again for every call and replace the cached answers (the model cache is otherwise read first; --fresh keeps it)")
	noCache := fs.Bool("no-cache", false, "neither read nor write the model cache: every call reaches the model and nothing is stored")
	// Flags may follow the spec path.
	specPath, err := parseOne(fs, args, "run takes one spec file")
	if err != nil {
		return err
	}
	if *resume && *fresh {
		return fmt.Errorf("%w: --resume and --fresh exclude each other", errUsage)
	}
	if *replace && *fresh {
		return fmt.Errorf("%w: --replace-trials and --fresh exclude each other (--fresh discards every trial)", errUsage)
	}
	if *refreshCache && *noCache {
		return fmt.Errorf("%w: --refresh-cache and --no-cache exclude each other (--no-cache neither reads nor writes the cache)", errUsage)
	}
	cacheUse := bench.CacheReadWrite
	switch {
	case *refreshCache:
		cacheUse = bench.CacheRefresh
	case *noCache:
		cacheUse = bench.CacheOff
	}
	envOpt := bench.EnvOptions{Cache: cacheUse, Notify: onceEach(stderr)}
	var limitFail bench.FailureLimit
	if *maxFailures != "" {
		var err error
		if limitFail, err = bench.ParseFailureLimit(*maxFailures); err != nil {
			return fmt.Errorf("%w: --max-failures: %v", errUsage, err)
		}
	}
	var sh spec.Shard
	if *shard != "" {
		var err error
		if sh, err = spec.ParseShard(*shard); err != nil {
			return fmt.Errorf("%w: --shard: %v", errUsage, err)
		}
	}
	sp, err := spec.LoadSpecWith(specPath, spec.LoadOptions{Models: modelFiles, Set: sets, Profile: *profile, Backbone: *backbone})
	if err != nil {
		return asUsage(err)
	}
	if u := sp.ProfileUse; u != nil && *limit == 0 {
		*limit = u.Profile.Limit
	}
	env, closeEnv := runEnv(envOpt)
	defer closeEnv()
	if *benchOverride != "" {
		if err := overrideBenchmark(sp, env.KnownBenchmark, *benchOverride); err != nil {
			return err
		}
	}
	if *maxResultMB < 0 || *maxResultMB > 1<<20 {
		return fmt.Errorf("%w: --max-result-mb must be in [1, 1048576], got %d", errUsage, *maxResultMB)
	}
	if *maxTrials < 0 {
		return fmt.Errorf("%w: --max-trials must be positive, got %d", errUsage, *maxTrials)
	}
	if *maxTrials > 0 {
		sp.MaxTrials = *maxTrials
	}
	if *maxResultMB > 0 {
		for i := range sp.Benchmarks {
			sp.Benchmarks[i].MaxResultMB = *maxResultMB
		}
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		return asUsage(err)
	}
	if err := checkReasonBound(specPath, plan); err != nil {
		return err
	}
	// A benchmark no loader knows is refused at its spec line before the
	// run directory is made.
	if env.KnownBenchmark != nil {
		if err := sp.CheckBenchmarks(env.KnownBenchmark); err != nil {
			return asUsage(err)
		}
	}
	dir := *out
	if dir == "" {
		dir = defaultRunDir(sp, specPath, *shard != "", sh)
	}
	// A run directory holds one spec: another spec's trials are refused
	// before the store is opened for writing (nothing in it changes).
	var change *runstore.PlanChange
	if !*fresh {
		if change, err = runstore.ComparePlan(dir, plan); err != nil {
			return err
		}
	}
	if *shard != "" && !*fresh && (change.Empty() || *replace) {
		if err := checkShardDir(dir, *out != "", *shard, sh); err != nil {
			return err
		}
	}
	if *dryRun {
		return dryRunPlan(stdout, stderr, plan, env, bench.DryRunOptions{Shard: sh, Limit: *limit, Dir: dir}, change, *replace)
	}
	if *resume {
		if _, err := os.Stat(filepath.Join(dir, runstore.StoreFile)); err != nil {
			return asUsage(fmt.Errorf("--resume: %s holds no run: %w", dir, err))
		}
	}
	if !change.Empty() && !*replace {
		return asUsage(&runstore.SpecChangedError{Dir: dir, Change: change})
	}
	st, err := runstore.OpenStore(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, n := range st.Notices() {
		fmt.Fprintln(stderr, "note:", n)
	}
	if *fresh {
		if err := st.Reset(); err != nil {
			return err
		}
	}
	var secrets []string
	for _, m := range sp.Models {
		if m.APIKeyEnv != "" {
			if v := os.Getenv(m.APIKeyEnv); v != "" {
				secrets = append(secrets, v)
			}
		}
	}
	redact := append(slices.Clip(secrets), sp.Secrets()...)
	if err := st.SetSpecText(specText(specPath, modelFiles, sets, sp.ProfileUse, *limit, *backbone), redact); err != nil {
		return err
	}
	if c := binaryCommit(); c != "" { // a build without VCS information keeps what an earlier session recorded
		if err := st.SetMeta(map[string]string{metaCommit: c}); err != nil {
			return err
		}
	}
	if err := st.AddRunOptions(runOptions(fs, modelFiles, sets), redact, *fresh); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), runSignals...)
	defer stop()

	pr := newProgress(stdout, stderr, *quiet, *jsonl)
	pr.simulated = true
	for _, t := range plan.Trials {
		pr.simulated = pr.simulated && t.Simulated()
	}
	fmt.Fprintf(stderr, "run %s: %d trials, run directory %s\n", sp.Name, len(plan.Trials), dir)
	sum, err := bench.Run(ctx, plan, st, env, bench.Options{
		Workers: *workers, Shard: sh, Limit: *limit, Progress: pr.update, Secrets: secrets, MaxFailures: limitFail,
		AllowMissingDBs: *allowMissingDB, ReplaceTrials: *replace,
	})
	pr.finish()
	writeReplaced(stderr, dir, sum)
	committed := sum.Done + sum.Failed + sum.Errored
	var stopped error
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "interrupted: %d items committed this session (%d done before); rerun the same command to resume\n", committed, sum.Skipped)
		return fmt.Errorf("%w: run interrupted; rerun the same command to resume", errIncomplete)
	case errors.Is(err, bench.ErrMissingData), errors.Is(err, runstore.ErrSpecChanged):
		return asUsage(err)
	case errors.Is(err, bench.ErrRejected):
		// A wrong model name or API key: a configuration error (exit
		// status 2); the summary below shows what was kept.
		stopped = asUsage(err)
	case errors.Is(err, bench.ErrTooManyFailures):
		// The summary below still shows what was done.
		stopped = fmt.Errorf("%w: %v", errIncomplete, err)
	case err != nil:
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d items run: %d done, %d failed (counted wrong), %d infrastructure errors (pending); %d already finished; %d model calls (%d cached) in %s\n",
		committed, sum.Done, sum.Failed, sum.Errored, sum.Skipped, sum.Calls, sum.CachedCalls, sum.Elapsed.Round(time.Millisecond))
	r, rows, err := runstore.SummarizeDir(dir)
	if err != nil {
		return err
	}
	if *jsonl {
		if err := writeSummaryJSON(stdout, rows); err != nil {
			return err
		}
	} else {
		runstore.WriteSummary(stdout, r, rows)
	}
	if stopped != nil {
		return stopped
	}
	return incompleteRun(rows, sum.Unselected, *limit, *shard)
}

// shardDir is the run directory of shard sh of the run whose directory is
// dir: runs/quickstart-shard-1-of-2.
func shardDir(dir string, sh spec.Shard) string {
	return fmt.Sprintf("%s-shard-%d-of-%d", filepath.Clean(dir), sh.I+1, sh.N)
}

// overrideBenchmark applies --benchmark NAME or NAME=DIR (value) to spec:
// the spec's benchmarks become that one. A benchmark the spec already
// names keeps its other settings (split, mode, MySQL connection); --limit
// still applies. known, when set, reports whether a loader knows NAME.
func overrideBenchmark(sp *spec.Spec, known func(string) bool, value string) error {
	name, data, _ := strings.Cut(value, "=")
	if name == "" {
		return fmt.Errorf("%w: --benchmark wants NAME or NAME=DIR, got %q", errUsage, value)
	}
	if known != nil && !known(name) {
		names := datasets.SpecNames()
		return fmt.Errorf("%w: --benchmark: unknown benchmark %q%s (known: %s)", errUsage, name, suggest.Hint(name, names), strings.Join(names, ", "))
	}
	b := spec.BenchmarkSpec{Name: name}
	for _, sb := range sp.Benchmarks {
		if sb.Name == name {
			b = sb
			break
		}
	}
	if data != "" {
		b.Data = data
	}
	sp.Benchmarks = []spec.BenchmarkSpec{b}
	return nil
}

// defaultRunDir is the run directory of a run without --out: the spec's
// out, else runs/<spec name> (the spec file's name when the spec has
// none). A shard's (sharded, shard sh) is its own, never the spec's
// unsharded one: merge joins the shards' directories.
func defaultRunDir(sp *spec.Spec, specPath string, sharded bool, sh spec.Shard) string {
	dir := sp.Out
	if dir == "" {
		name := sp.Name
		if name == "" {
			name = filepath.Base(specPath[:len(specPath)-len(filepath.Ext(specPath))])
		}
		dir = filepath.Join("runs", name)
	}
	if sharded {
		dir = shardDir(dir, sh)
	}
	return dir
}

// checkShardDir refuses to run shard sh (as --shard gave it) into run
// directory dir when dir holds items outside the shard: in another
// directory (an unsharded run, another shard's) the shard would find
// their items finished and run nothing. outGiven says dir came from --out.
func checkShardDir(dir string, outGiven bool, shard string, sh spec.Shard) error {
	outside, total, err := runstore.ShardOutside(dir, sh)
	if err != nil {
		return err
	}
	if outside == 0 {
		return nil
	}
	use := "pass --out DIR, a directory of the shard's own"
	if outGiven {
		use = "pass --out " + shardDir(dir, sh) + " (the default without --out)"
	}
	return fmt.Errorf("%w: --shard %s: run directory %s holds %d items (of %d) outside shard %s: an unsharded run, or another shard's, which this shard would find finished and count as its own; a shard runs into a directory of its own: %s, then join the shards' directories with t2sbench merge",
		errUsage, shard, dir, outside, total, shard, use)
}

// dryRunPlan is run --dry-run: it prints the plan's dry run to stdout,
// with a note on the trials change, the plan's difference from what the
// run directory holds (replace: --replace-trials). Ctrl-C prints the
// trials planned so far, then exits 3.
func dryRunPlan(stdout, stderr io.Writer, plan *spec.Plan, env bench.Env, opt bench.DryRunOptions, change *runstore.PlanChange, replace bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), runSignals...)
	defer stop()
	fmt.Fprintf(stderr, "dry run of %s: planning %d trials (Ctrl-C prints those planned so far)\n", plan.Spec.Name, len(plan.Trials))
	d, err := bench.PlanDryRun(ctx, plan, env, opt)
	if err != nil && (d == nil || !d.Interrupted) {
		return err
	}
	if !change.Empty() {
		d.Notes = append(d.Notes, dryRunChangeNote(opt.Dir, change, replace))
	}
	d.Write(stdout)
	if d.Interrupted {
		return fmt.Errorf("%w: dry run interrupted after %d of %d trials", errIncomplete, len(d.Trials), d.PlanTrials)
	}
	return nil
}

// writeReplaced says what --replace-trials removed and which stored
// trials the spec keeps under a new label.
func writeReplaced(w io.Writer, dir string, sum bench.Summary) {
	if len(sum.Removed) > 0 {
		fmt.Fprintf(w, "--replace-trials: removed from %s, with their items, results and model calls:\n", dir)
		for _, r := range sum.Removed {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
	for _, c := range sum.Renamed {
		fmt.Fprintf(w, "%s (the same configuration: its results are kept)\n", c)
	}
}

// dryRunChangeNote is the dry run's note on a run directory that holds
// another spec's trials: what differs, and what run will do.
func dryRunChangeNote(dir string, c *runstore.PlanChange, replace bool) string {
	lines := make([]string, len(c.Changes))
	for i, ch := range c.Changes {
		lines[i] = ch.String()
	}
	what := "run refuses it without --replace-trials (or run it with --out NEW)"
	if replace {
		what = "--replace-trials removes the changed and dropped ones with their results"
	}
	return fmt.Sprintf("%s holds the trials of another spec (%s); %s", dir, strings.Join(lines, "; "), what)
}

// checkReasonBound refuses a plan with a trial that binds no model to the
// reason role, which every runner asks and every unbound role falls back
// to: each of its items would fail. It runs before anything is recorded.
func checkReasonBound(specPath string, p *spec.Plan) error {
	for _, t := range p.Trials {
		if t.Roles[runners.RoleReason] == "" {
			return fmt.Errorf("%w: %s: trial %s binds no model to the reason role, which every runner asks: add roles: {reason: MODEL} (spec-wide, or under the runner entry); t2sbench help spec", errUsage, specPath, t.Label)
		}
	}
	return nil
}

// onceEach returns a notice function that writes each distinct notice to
// w once (the clients of one model on several benchmarks report the same
// change), safe for concurrent use.
func onceEach(w io.Writer) func(string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[msg] {
			seen[msg] = true
			fmt.Fprintln(w, msg)
		}
	}
}

// resultFlags are the flags of run that change results or resources, in
// the order runOptions lists them; --models and --set are added from
// their lists.
var resultFlags = []string{"limit", "workers", "shard", "benchmark", "profile", "backbone", "max-result-mb", "max-trials",
	"max-failures", "allow-missing-db", "fresh", "replace-trials", "refresh-cache", "no-cache"}

// runOptions is the command line of one session of run as far as it
// changes results or resources (resultFlags, --models, --set), e.g.
// "--limit 5 --workers 2 --set workers=4"; "" when none was given.
func runOptions(fs *flag.FlagSet, models, sets []string) string {
	given := map[string]string{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Value.String() })
	var parts []string
	for _, name := range resultFlags {
		v, ok := given[name]
		if !ok {
			continue
		}
		if bf, isBool := fs.Lookup(name).Value.(interface{ IsBoolFlag() bool }); isBool && bf.IsBoolFlag() {
			if v == "true" {
				parts = append(parts, "--"+name)
			}
			continue
		}
		parts = append(parts, "--"+name+" "+v)
	}
	for _, m := range models {
		parts = append(parts, "--models "+m)
	}
	for _, s := range sets {
		parts = append(parts, "--set "+s)
	}
	return strings.Join(parts, " ")
}

// specText is what `run` stores as the run's spec: the spec file as
// written, and the --models, --set, --profile and --backbone flags that
// changed it as comments (the viewer's overview shows it).
func specText(path string, models, sets []string, profile *spec.ProfileUse, limit int, backbone string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "" // LoadSpecWith read it a moment ago; the viewer falls back to the trials
	}
	text := string(raw)
	if len(models) > 0 || len(sets) > 0 || profile != nil || backbone != "" {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "\n" + spec.ChangeMarker + "\n"
		for _, m := range models {
			text += "#   --models " + m + "\n"
		}
		if profile != nil {
			// The profile's line states it for the reports' titles
			// (spec.SpecProfile); its overrides follow as the --set
			// lines they were applied as, before the command line's.
			text += spec.ProfileMarker + profile.Summary(limit) + "\n"
			sets = append(slices.Clip(profile.Sets), sets...)
		}
		for _, s := range sets {
			text += "#   --set " + s + "\n"
		}
		if backbone != "" {
			text += "#   --backbone " + backbone + "\n"
		}
	}
	return text
}

// incompleteRun returns an errIncomplete error when a trial has failed or
// pending items (exit status 3), else nil. Its advice is what runs the
// pending items: the same command runs those it selects; unselected of
// them (bench.Summary.Unselected) lie past its --limit or in another
// shard than its --shard, and need another command.
func incompleteRun(rows []runstore.TrialSummary, unselected, limit int, shard string) error {
	failed, pending := 0, 0
	for _, r := range rows {
		failed += r.Failed
		pending += r.Pending
	}
	if failed == 0 && pending == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d items failed (counted wrong, never retried) and %d are pending", failed, pending)
	unselected = min(unselected, pending)
	switch {
	case pending == 0:
	case unselected == 0:
		msg += "; rerun the same command to run the pending ones"
	default:
		if pending > unselected {
			msg += fmt.Sprintf("; rerun the same command to run %d of them", pending-unselected)
		}
		var where, how []string
		if limit > 0 {
			where = append(where, fmt.Sprintf("past --limit %d", limit))
			how = append(how, "run without --limit (or with a larger one)")
		}
		if shard != "" {
			where = append(where, "in other shards than --shard "+shard)
			how = append(how, "run the other shards (or without --shard)")
		}
		if len(where) == 0 {
			// Neither flag: questions the benchmark no longer has.
			where = append(where, "at questions the benchmark no longer has")
			how = append(how, "they stay pending (run --fresh to start over)")
		}
		msg += fmt.Sprintf("; this command never runs %d of them, %s: %s", unselected, strings.Join(where, " or "), strings.Join(how, ", and "))
	}
	return fmt.Errorf("%w: %s", errIncomplete, msg)
}

func writeSummaryJSON(w io.Writer, rows []runstore.TrialSummary) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(map[string]any{"event": "summary", "trial": r}); err != nil {
			return err
		}
	}
	return nil
}

// progress renders bench's progress callback as a live bar (stderr is a
// terminal), plain lines every 10% or 30 s (it is not: a log), JSON lines
// or nothing.
type progress struct {
	stdout io.Writer
	stderr io.Writer
	bar    *progressbar.ProgressBar
	plain  *plainProgress
	tty    bool
	jsonl  bool
	quiet  bool
	start  time.Time
	last   bench.Progress
	// simulated: every trial runs on the simulator, whose token rate is
	// the harness's, not a model's; no tok/s is shown.
	simulated bool
}

func newProgress(stdout, stderr io.Writer, quiet, jsonl bool) *progress {
	p := &progress{stdout: stdout, stderr: stderr, jsonl: jsonl, quiet: quiet, start: time.Now(), tty: isTerminal(stderr)}
	return p
}

func (p *progress) update(s bench.Progress) {
	p.last = s
	switch {
	case p.quiet:
	case p.jsonl:
		json.NewEncoder(p.stdout).Encode(map[string]any{
			"event": "progress", "done": s.Done, "failed": s.Failed, "errored": s.Errored, "total": s.Total, "skipped": s.Skipped,
			"calls": s.Calls, "cached_calls": s.CachedCalls, "tokens": s.PromptTokens + s.CompletionTokens,
			"ex": s.EX(), "elapsed_s": s.Elapsed.Seconds(),
		})
	case !p.tty:
		if p.plain == nil {
			p.plain = newPlainProgress(p.stderr, "items", s.Total)
		}
		p.plain.update(s.Done+s.Failed+s.Errored, progressDetail(s, p.simulated))
	default:
		if p.bar == nil {
			p.bar = progressbar.NewOptions(s.Total,
				progressbar.OptionSetWriter(p.stderr),
				progressbar.OptionSetDescription("items"),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("items"),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionShowDescriptionAtLineEnd(),
			)
		}
		p.bar.Describe(progressDetail(s, p.simulated))
		p.bar.Set(s.Done + s.Failed + s.Errored)
	}
}

// progressDetail is the rates and counts shown beside the progress. A
// simulated run shows no tok/s: the simulator's rate measures the harness.
func progressDetail(s bench.Progress, simulated bool) string {
	secs := s.Elapsed.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	hit := 0.0
	if s.Calls > 0 {
		hit = float64(s.CachedCalls) / float64(s.Calls)
	}
	tok := fmt.Sprintf(" %.0f tok/s", float64(s.PromptTokens+s.CompletionTokens)/secs)
	if simulated {
		tok = ""
	}
	return fmt.Sprintf("%.1f calls/s%s cache %.0f%% EX %.1f%% failed %d errors %d",
		float64(s.Calls)/secs, tok, 100*hit, 100*s.EX(), s.Failed, s.Errored)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.stderr)
	}
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
