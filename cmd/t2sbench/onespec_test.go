package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/runstore"
)

// A run directory holds one spec: these tests run small specs (direct,
// cot, sc with sim on the first questions of the bundled mini benchmark)
// into one directory through the command line.

// oneSpecs are the specs of the tests: A, then A with sc's k changed (B),
// then A with sc replaced by cot (C).
var oneSpecs = map[string]string{
	"a": "runners: [{name: direct}, {name: sc, params: {k: 3}}]",
	"b": "runners: [{name: direct}, {name: sc, params: {k: 5}}]",
	"c": "runners: [{name: direct}, {name: cot}]",
}

// writeOneSpecs writes the specs of oneSpecs into dir (a.yaml, ...) and
// returns dir.
func writeOneSpecs(t *testing.T, dir string) string {
	t.Helper()
	for name := range oneSpecs {
		writeOneSpec(t, dir, name, name, "")
	}
	return dir
}

// writeOneSpec writes spec base of oneSpecs with extra lines into
// dir/name.yaml and returns its path.
func writeOneSpec(t *testing.T, dir, name, base, extra string) string {
	t.Helper()
	text := fmt.Sprintf("name: onespec\nbenchmarks: [{name: mini}]\nmodels: {sim: {backend: sim, p: 0.6, seed: 7}}\nroles: {reason: sim}\nworkers: 2\n%s\n%s\n", oneSpecs[base], extra)
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runLine runs a command line in-process as the binary does and returns its
// stdout, stderr (with main's error line) and exit status.
func runLine(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = runMain(&o, &e, args)
	return o.String(), e.String(), code
}

// mustCLI runs a command line that must exit with status want.
func mustCLI(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	o, e, code := runLine(args...)
	if code != want {
		t.Fatalf("%q: exit status %d; want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, o, e)
	}
	return o, e
}

// dumpStore is every row of every table of run directory dir's store, as
// text, for comparing a store before and after a command.
func dumpStore(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, runstore.StoreFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"meta", "trials", "items", "results", "model_calls", "sessions", "endpoint_stats"} {
		rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %q\n", table, vals)
		}
		rows.Close()
	}
	return b.String()
}

// statusLabels returns the trial labels the status table of dir lists.
func statusLabels(t *testing.T, dir string) []string {
	t.Helper()
	o, _ := mustCLI(t, exitOK, "status", dir)
	var labels []string
	for _, l := range strings.Split(o, "\n")[2:] {
		if l == "" || strings.HasPrefix(l, "EX = ") {
			break
		}
		labels = append(labels, strings.Fields(l)[0])
	}
	return labels
}

// TestRunRefusesAnotherSpec: a different spec (cot in place of sc), or a
// changed parameter that changes a trial's identity, run into an existing
// run directory is refused (exit status 2) with a message naming each
// difference and both ways out, and nothing in the store changes. Changes
// outside the trials' identity continue the run. (Before, the other spec
// ran beside the old trials: two trials labelled sc, or cot on the
// questions of its --limit tested against direct on all of them.)
func TestRunRefusesAnotherSpec(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// The second run's spec is spec of oneSpecs with extra lines, run
		// with more flags args.
		spec, extra string
		args        []string
		exit        int
		// want are lines of stderr; ran the items the second run runs.
		want []string
	}{
		{name: "another spec", spec: "c", args: []string{"--limit", "2"}, exit: exitUsage, want: []string{
			"run directory $OUT holds the trials of another spec; this spec differs from it:",
			`  trial "cot" is new`,
			`  trial "sc" is no longer in the spec`,
			"a run directory holds one spec: run this one into a new directory (--out NEW), or add --replace-trials, which removes the stored trial that changed or is no longer in the spec, with its results, and runs the new ones (cached model answers are reused)",
		}},
		{name: "changed parameter", spec: "b", exit: exitUsage, want: []string{`  trial "sc": parameter k changed 3 -> 5`}},
		{name: "changed model", spec: "a", args: []string{"--set", "models.sim.p=0.7"}, exit: exitUsage, want: []string{
			`  trial "direct": model sim: p changed 0.6 -> 0.7`, `  trial "sc": model sim: p changed 0.6 -> 0.7`}},
		{name: "changed seed", spec: "a", extra: "seeds: [3]", exit: exitUsage, want: []string{`  trial "direct": seed changed 0 -> 3`}},
		{name: "changed benchmark", spec: "a", args: []string{"--set", "benchmarks.0.limit=3"}, exit: exitUsage, want: []string{
			`  trial "direct": benchmark limit changed 0 -> 3`}},
		{name: "run settings", spec: "a", extra: "timeout: 30s\nprices: {sim: {prompt: 1, completion: 1}}",
			args: []string{"--workers", "1", "--max-result-mb", "8", "--jsonl"}, exit: exitOK, want: []string{"0 items run: "}},
		{name: "larger limit", spec: "a", args: []string{"--limit", "5"}, exit: exitOK, want: []string{"2 items run: 2 done"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := writeOneSpecs(t, t.TempDir())
			out := filepath.Join(dir, "run")
			mustCLI(t, exitOK, "run", filepath.Join(dir, "a.yaml"), "--quiet", "--limit", "4", "--out", out)
			before := dumpStore(t, out)
			second := writeOneSpec(t, dir, "second", c.spec, c.extra)
			args := append([]string{"run", second, "--quiet", "--out", out, "--limit", "4"}, c.args...)
			_, stderr := mustCLI(t, c.exit, args...)
			stderr = strings.ReplaceAll(stderr, out, "$OUT")
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if c.exit == exitUsage {
				if after := dumpStore(t, out); after != before {
					t.Errorf("the refused run changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			}
			if got := statusLabels(t, out); strings.Join(got, " ") != "direct sc" {
				t.Errorf("status lists %q; want direct, sc", got)
			}
		})
	}
}

// TestRunReplaceTrials: --replace-trials removes the trials that are no
// longer in the spec or whose identity changed, with their results, says
// so, keeps the unchanged ones and runs the new ones; status, compare and
// report then show only the spec's trials. --out NEW leaves the first
// run directory as it was.
func TestRunReplaceTrials(t *testing.T) {
	t.Parallel()
	dir := writeOneSpecs(t, t.TempDir())
	spec := func(n string) string { return filepath.Join(dir, n+".yaml") }
	out := filepath.Join(dir, "run")
	mustCLI(t, exitOK, "run", spec("a"), "--quiet", "--limit", "4", "--out", out)

	// --out NEW: a new directory; the first keeps its trials.
	other := filepath.Join(dir, "other")
	before := dumpStore(t, out)
	mustCLI(t, exitOK, "run", spec("c"), "--quiet", "--limit", "4", "--out", other)
	if got := statusLabels(t, other); strings.Join(got, " ") != "direct cot" {
		t.Errorf("--out NEW: status of the new directory lists %q; want direct, cot", got)
	}
	if dumpStore(t, out) != before {
		t.Errorf("--out NEW changed the first run directory")
	}

	// A changed parameter: sc k=3 goes, direct stays.
	_, stderr := mustCLI(t, exitOK, "run", spec("b"), "--quiet", "--limit", "4", "--out", out, "--replace-trials")
	for _, w := range []string{
		"--replace-trials: removed from " + out + ", with their items, results and model calls:\n" +
			`  trial "sc" (parameter k changed 3 -> 5): 4 items, 4 model calls` + "\n",
		"4 items run: 4 done, 0 failed (counted wrong), 0 infrastructure errors (pending); 4 already finished",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("run b --replace-trials: stderr lacks %q:\n%s", w, stderr)
		}
	}
	// Another spec: sc goes, cot comes.
	_, stderr = mustCLI(t, exitOK, "run", spec("c"), "--quiet", "--limit", "4", "--out", out, "--replace-trials")
	if w := `  trial "sc" (no longer in the spec): 4 items, 4 model calls`; !strings.Contains(stderr, w) {
		t.Errorf("run c --replace-trials: stderr lacks %q:\n%s", w, stderr)
	}
	if got := statusLabels(t, out); strings.Join(got, " ") != "direct cot" {
		t.Errorf("status lists %q; want direct, cot", got)
	}
	o, e := mustCLI(t, exitOK, "compare", "--json", out)
	var rows []compare.Row
	if err := json.Unmarshal([]byte(o), &rows); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, o)
	}
	if len(rows) != 1 || rows[0].Baseline != "direct" || rows[0].System != "cot" || rows[0].N != 4 || strings.Contains(e, "note:") {
		t.Errorf("compare rows %+v (stderr %q); want direct -> cot on 4 questions, no note", rows, e)
	}
	rep := filepath.Join(dir, "report")
	mustCLI(t, exitOK, "report", out, "--quiet", "--no-view", "--format", "csv", "--out", rep)
	if got := csvFirstColumn(t, filepath.Join(rep, "tables", "ex-by-system.csv")); strings.Join(got, " ") != "direct cot" {
		t.Errorf("report's EX table lists %q; want direct, cot", got)
	}
	// The same spec again: nothing to refuse, nothing to run.
	_, stderr = mustCLI(t, exitOK, "run", spec("c"), "--quiet", "--limit", "4", "--out", out)
	if !strings.Contains(stderr, "0 items run: ") {
		t.Errorf("rerun of the replacing spec: %s", stderr)
	}
	// --fresh discards every trial already: the two flags exclude each other.
	if _, e, code := runLine("run", spec("a"), "--quiet", "--out", out, "--fresh", "--replace-trials"); code != exitUsage {
		t.Errorf("--fresh --replace-trials: exit %d (%s); want a usage error", code, e)
	}
}

// csvFirstColumn returns the first cell of each row of a CSV file but its
// header.
func csvFirstColumn(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		out = append(out, strings.SplitN(l, ",", 2)[0])
	}
	return out
}

// makeLegacyStore turns run directory dst, which ran spec A, into what a
// store written before run directories held one spec looks like after A,
// then B, ran into it: it takes the trials, items, results, calls and item
// totals of src (where B ran) beside its own, records B's spec text as the
// last run's and no plan. It then drops two items of A's sc, as if A had
// been stopped before it finished. It returns the ids of A's sc and of
// B's.
func makeLegacyStore(t *testing.T, dst, src string) (staleID, currentID string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dst, runstore.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`ATTACH DATABASE '` + filepath.Join(src, runstore.StoreFile) + `' AS src`,
		`INSERT INTO trials SELECT * FROM src.trials WHERE id NOT IN (SELECT id FROM trials)`,
		`INSERT INTO items SELECT * FROM src.items WHERE trial_id NOT IN (SELECT trial_id FROM items)`,
		`INSERT INTO results SELECT * FROM src.results WHERE trial_id NOT IN (SELECT trial_id FROM results)`,
		`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state, cache_key)
			SELECT trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state, cache_key
			FROM src.model_calls WHERE trial_id NOT IN (SELECT trial_id FROM model_calls)`,
		`INSERT OR REPLACE INTO meta SELECT * FROM src.meta WHERE key LIKE 'items:%' OR key = 'spec'`,
		`DELETE FROM meta WHERE key = 'plan'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.QueryRow(`SELECT id FROM trials WHERE label = 'sc' AND id NOT IN (SELECT id FROM src.trials)`).Scan(&staleID); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT id FROM src.trials WHERE label = 'sc'`).Scan(&currentID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM items WHERE trial_id = ? AND idx >= 2`, staleID); err != nil {
		t.Fatal(err)
	}
	return staleID, currentID
}

// TestLegacyStoreStaleTrials: in a store written before run directories
// held one spec, holding A's sc (k=3, two items pending) and B's (k=5)
// with B's spec recorded last, status, compare and report show B's trials
// only and name the stale one; export --trial sc is an error naming both;
// running B is refused naming the earlier configuration, and with
// --replace-trials completes. (Before: status listed sc twice, export
// picked one silently, and every run of B exited 3 asking to rerun it
// for the two pending items, which it never ran.)
func TestLegacyStoreStaleTrials(t *testing.T) {
	t.Parallel()
	dir := writeOneSpecs(t, t.TempDir())
	out, src := filepath.Join(dir, "run"), filepath.Join(dir, "b-run")
	mustCLI(t, exitOK, "run", filepath.Join(dir, "a.yaml"), "--quiet", "--limit", "4", "--out", out)
	mustCLI(t, exitOK, "run", filepath.Join(dir, "b.yaml"), "--quiet", "--limit", "4", "--out", src)
	staleID, currentID := makeLegacyStore(t, out, src)

	note := regexp.MustCompile(`note: .* holds 1 trial of earlier specs .*: "sc" \(id ` + staleID + `\); left out`)
	o, e := mustCLI(t, exitOK, "status", out)
	if labels := statusLabels(t, out); strings.Join(labels, " ") != "direct sc" || strings.Contains(o, "(partial)") {
		t.Errorf("status lists %q:\n%s; want direct and B's sc, none partial", labels, o)
	}
	if !note.MatchString(e) {
		t.Errorf("status stderr %q; want a note naming the stale sc %s", e, staleID)
	}
	if o, _ := mustCLI(t, exitOK, "status", out, "--all-trials"); strings.Count(o, "\nsc ") != 2 {
		t.Errorf("status --all-trials lists sc %d times; want 2:\n%s", strings.Count(o, "\nsc "), o)
	}
	o, e = mustCLI(t, exitOK, "compare", "--json", out)
	var rows []compare.Row
	if err := json.Unmarshal([]byte(o), &rows); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, o)
	}
	if len(rows) != 1 || rows[0].System != "sc" || rows[0].N != 4 || !note.MatchString(e) {
		t.Errorf("compare rows %+v, stderr %q; want direct -> B's sc on 4 questions and the note", rows, e)
	}
	rep := filepath.Join(dir, "report")
	_, e = mustCLI(t, exitOK, "report", out, "--quiet", "--no-view", "--format", "csv", "--out", rep)
	if got := csvFirstColumn(t, filepath.Join(rep, "tables", "ex-by-system.csv")); strings.Join(got, " ") != "direct sc" || !note.MatchString(e) {
		t.Errorf("report's EX table lists %q, stderr %q; want direct and one sc, and the note", got, e)
	}
	_, e, code := runLine("export", out, "--trial", "sc", "--format", "jsonl")
	if code != exitUsage || !strings.Contains(e, `holds 2 trials labelled "sc": id `) || !strings.Contains(e, staleID) || !strings.Contains(e, currentID) {
		t.Errorf("export --trial sc: exit %d, %s; want a usage error naming both sc trials", code, e)
	}
	if o, _ := mustCLI(t, exitOK, "export", out, "--trial", currentID, "--format", "jsonl"); strings.Count(o, "\n") != 4 {
		t.Errorf("export --trial %s: %d lines; want 4", currentID, strings.Count(o, "\n"))
	}

	b := filepath.Join(dir, "b.yaml")
	_, e = mustCLI(t, exitUsage, "run", b, "--quiet", "--limit", "4", "--out", out)
	if w := `  an earlier configuration of trial "sc" (id ` + staleID + `; since then parameter k changed 3 -> 5) is no longer in the spec`; !strings.Contains(e, w) {
		t.Errorf("run b: stderr lacks %q:\n%s", w, e)
	}
	_, e = mustCLI(t, exitOK, "run", b, "--quiet", "--limit", "4", "--out", out, "--replace-trials")
	if w := `  trial "sc" (an earlier configuration, no longer in the spec; since then parameter k changed 3 -> 5): 2 items, `; !strings.Contains(e, w) {
		t.Errorf("run b --replace-trials: stderr lacks %q:\n%s", w, e)
	}
	if _, e := mustCLI(t, exitOK, "status", out); e != "" {
		t.Errorf("status after --replace-trials: stderr %q; want no note", e)
	}
}

// TestResumeSameSpec: the same spec resumes as before: after a run
// stopped with items left (its committed items kept, the rest never
// written), the rerun runs only those; --limit grows a run; shards merge,
// and the merged directory resumes with nothing to run. A shard of another
// spec is refused by merge.
func TestResumeSameSpec(t *testing.T) {
	t.Parallel()
	dir := writeOneSpecs(t, t.TempDir())
	a := filepath.Join(dir, "a.yaml")
	out := filepath.Join(dir, "run")
	mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "4", "--out", out)
	verdicts := func() map[string]map[string]bool {
		_, v, err := runstore.LoadRunVerdicts(out)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := verdicts()
	// What a run killed after committing some items leaves: the others
	// are not in the store.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(out, runstore.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM items WHERE idx IN (1, 3)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, e := mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "4", "--out", out)
	if w := "4 items run: 4 done, 0 failed (counted wrong), 0 infrastructure errors (pending); 4 already finished"; !strings.Contains(e, w) {
		t.Errorf("resume: stderr lacks %q:\n%s", w, e)
	}
	if got := verdicts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts after resume %v; want %v", got, want)
	}
	_, e = mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "6", "--out", out)
	if w := "4 items run: 4 done, 0 failed (counted wrong), 0 infrastructure errors (pending); 8 already finished"; !strings.Contains(e, w) {
		t.Errorf("--limit 6: stderr lacks %q:\n%s", w, e)
	}

	s1, s2, merged := filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), filepath.Join(dir, "merged")
	mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "4", "--shard", "1/2", "--out", s1)
	mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "4", "--shard", "2/2", "--out", s2)
	mustCLI(t, exitOK, "merge", merged, s1, s2)
	_, e = mustCLI(t, exitOK, "run", a, "--quiet", "--limit", "4", "--out", merged)
	if w := "0 items run: 0 done, 0 failed (counted wrong), 0 infrastructure errors (pending); 8 already finished"; !strings.Contains(e, w) {
		t.Errorf("run of the merged directory: stderr lacks %q:\n%s", w, e)
	}
	sb := filepath.Join(dir, "sb")
	mustCLI(t, exitOK, "run", filepath.Join(dir, "b.yaml"), "--quiet", "--limit", "4", "--shard", "2/2", "--out", sb)
	_, e, code := runLine("merge", filepath.Join(dir, "merged2"), s1, sb)
	if code != exitUsage || !strings.Contains(e, `holds the trials of another spec than shard `+s1) || !strings.Contains(e, `trial "sc": parameter k changed 3 -> 5`) {
		t.Errorf("merge of shards of two specs: exit %d, %s; want a refusal naming parameter k", code, e)
	}
}

// TestIncompleteRunAdvice: the exit status 3 message says what runs the
// pending items: the same command those it selects; for those past its
// --limit or in other shards, another command.
func TestIncompleteRunAdvice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                   string
		failed, pending, unsel int
		limit                  int
		shard, want            string
	}{
		{name: "all selected", pending: 3, want: "incomplete: 0 items failed (counted wrong, never retried) and 3 are pending; rerun the same command to run the pending ones"},
		{name: "failed only", failed: 2, want: "incomplete: 2 items failed (counted wrong, never retried) and 0 are pending"},
		{name: "past the limit", pending: 3, unsel: 1, limit: 5, want: "incomplete: 0 items failed (counted wrong, never retried) and 3 are pending; rerun the same command to run 2 of them; " +
			"this command never runs 1 of them, past --limit 5: run without --limit (or with a larger one)"},
		{name: "other shards", pending: 2, unsel: 2, shard: "1/2", want: "incomplete: 0 items failed (counted wrong, never retried) and 2 are pending; " +
			"this command never runs 2 of them, in other shards than --shard 1/2: run the other shards (or without --shard)"},
		{name: "neither", pending: 1, unsel: 1, want: "incomplete: 0 items failed (counted wrong, never retried) and 1 are pending; " +
			"this command never runs 1 of them, at questions the benchmark no longer has: they stay pending (run --fresh to start over)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := incompleteRun([]runstore.TrialSummary{{Label: "direct", Failed: c.failed, Pending: c.pending}}, c.unsel, c.limit, c.shard)
			if err == nil || err.Error() != c.want || exitCode(err) != exitIncomplete {
				t.Errorf("got %v; want %q (exit status 3)", err, c.want)
			}
		})
	}
}
