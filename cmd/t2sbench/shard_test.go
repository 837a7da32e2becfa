package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// realCLIEnv, when set to 1, makes this test binary run the command line in
// its arguments as t2sbench itself, with the real environment
// (bench.DefaultEnv: the bundled benchmarks, sim, the real stores), and
// exit. The shard test starts its shard processes this way. It is checked
// in init, before TestMain, which owns the fake-environment variant.
const realCLIEnv = "T2SBENCH_TEST_REAL_CLI"

func init() {
	if os.Getenv(realCLIEnv) != "1" {
		return
	}
	os.Exit(runMain(os.Stdout, os.Stderr, os.Args[1:]))
}

// shardSpec runs several runners, two of them MCTS searches (iesr and
// alphasql) with small budgets, on the first 20 questions of the bundled
// mini benchmark with sim: 100 items. Alpha-SQL's final
// choice breaks ties between equally large result groups by execution time
// (METHODS.md); it compares the least of several executions, which keeps
// the choice stable under the load of four shard processes (before, about
// one run in seven differed on a question).
const shardSpec = `name: shardproof
benchmarks:
  - name: mini
    limit: 20
models:
  sim: {backend: sim, p: 0.6, seed: 7}
roles: {reason: sim}
runners:
  - name: direct
  - name: sc
    params: {k: 4, temperature: 0.8}
  - name: react-dsl
  - name: iesr
    params: {n_rollout: 2}
  - name: alphasql
    params: {n_rollout: 4}
seeds: [0]
workers: 4
timeout: 60s
`

// timingColumns are the report columns that measure wall-clock time; they
// differ between any two runs, so the table comparison blanks them.
func timingColumn(name string) bool {
	return strings.HasPrefix(name, "lat ") || name == "tok/s"
}

// TestShardsMergeEqualUnsharded proves sharding with real processes: four
// shard processes run concurrently, each into its own run directory, then
// merge; the merged run must hold the same verdicts (per trial, per
// question: status, verdict, SQL) and give the same report tables, byte for
// byte, as one unsharded run of the same spec. Only the columns that
// measure wall-clock time (timingColumn) are blanked before comparing.
func TestShardsMergeEqualUnsharded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts five t2sbench processes")
	}
	const shards = 4
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "spec.yaml")
	if err := os.WriteFile(spec, []byte(shardSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	// Value indexes go to a private cache, shared by the processes as
	// they would share one on a cluster volume.
	env := append(os.Environ(), realCLIEnv+"=1", "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	start := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	full := filepath.Join(tmp, "full")
	cmd, out := start("run", spec, "--out", full, "--quiet")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("unsharded run: %v\n%s", err, out)
	}
	dirs := make([]string, shards)
	cmds := make([]*exec.Cmd, shards)
	outs := make([]*bytes.Buffer, shards)
	for i := range shards {
		dirs[i] = filepath.Join(tmp, fmt.Sprintf("shard-%d", i+1))
		cmds[i], outs[i] = start("run", spec, "--shard", fmt.Sprintf("%d/%d", i+1, shards), "--out", dirs[i], "--quiet")
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d/%d: %v\n%s", i+1, shards, err, outs[i])
		}
	}
	merged := filepath.Join(tmp, "merged")
	cmd, out = start(append([]string{"merge", merged}, dirs...)...)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if want := "4 shards into " + merged + ": 5 trials, 100 items"; !strings.Contains(out.String(), want) {
		t.Errorf("merge said %q; want it to contain %q", out, want)
	}
	for i, d := range dirs {
		r, err := runstore.ReadRun(d, false)
		if err != nil {
			t.Fatal(err)
		}
		if n := itemCount(r); n == 0 || n == 5*20 {
			t.Errorf("shard %d holds %d items; want a proper slice of 100", i+1, n)
		}
	}

	got, want := runOutcomes(t, merged), runOutcomes(t, full)
	if len(want) != 5*20 {
		t.Fatalf("unsharded run holds %d items; want 100 (5 trials x 20 questions)", len(want))
	}
	diffOutcomes(t, got, want)

	for _, d := range []string{full, merged} {
		var stdout, stderr bytes.Buffer
		if err := run(&stdout, &stderr, []string{"report", d, "--out", filepath.Join(d, "report"), "--format", "md,tex,csv", "--quiet"}); err != nil {
			t.Fatalf("report %s: %v\n%s", d, err, stderr.String())
		}
	}
	compareTables(t, filepath.Join(full, "report", "tables"), filepath.Join(merged, "report", "tables"))
}

// outcome is what a run holds for one item, as compared across runs.
type outcome struct {
	Status, Verdict, SQL string
	Correct              bool
}

// runOutcomes reads run directory dir: trial label + question id ->
// outcome.
func runOutcomes(t *testing.T, dir string) map[string]outcome {
	t.Helper()
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]outcome{}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			o := outcome{Status: it.Status}
			if v := it.Verdict; v != nil {
				o.Verdict, o.Correct = string(v.Status)+" "+v.Error, v.Correct
			}
			if it.Result != nil {
				o.SQL = it.Result.SQL
			}
			out[tr.Label+" / "+it.QuestionID] = o
		}
	}
	return out
}

func diffOutcomes(t *testing.T, got, want map[string]outcome) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	bad := 0
	for _, k := range sorted {
		g, okg := got[k]
		w, okw := want[k]
		if okg != okw || g != w {
			if bad++; bad <= 10 {
				t.Errorf("item %s: merged %+v (present %v); unsharded %+v (present %v)", k, g, okg, w, okw)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d items differ between the merged shards and the unsharded run", bad, len(sorted))
	}
}

// compareTables compares the report table files of two runs byte for byte;
// the CSV of a table with timing columns is compared with those columns
// blanked, and its Markdown and LaTeX (whose bold marks follow the timing
// values) are skipped.
func compareTables(t *testing.T, wantDir, gotDir string) {
	t.Helper()
	names := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	want, got := names(wantDir), names(gotDir)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("merged report tables %q; unsharded %q", got, want)
	}
	timed := map[string]bool{} // table base names with timing columns
	for _, n := range want {
		if filepath.Ext(n) == ".csv" && hasTimingColumn(t, filepath.Join(wantDir, n)) {
			timed[strings.TrimSuffix(n, ".csv")] = true
		}
	}
	if !timed["efficiency"] {
		t.Errorf("no timing columns found in efficiency.csv: the masking below checks nothing")
	}
	compared := 0
	for _, n := range want {
		ext := filepath.Ext(n)
		w, g := readFile(t, filepath.Join(wantDir, n)), readFile(t, filepath.Join(gotDir, n))
		if timed[strings.TrimSuffix(n, ext)] {
			if ext != ".csv" {
				continue
			}
			w, g = blankTiming(t, w), blankTiming(t, g)
		}
		compared++
		if !bytes.Equal(g, w) {
			t.Errorf("table %s differs:\nmerged:\n%s\nunsharded:\n%s", n, g, w)
		}
	}
	if compared < 10 {
		t.Errorf("compared %d table files; want at least 10 (main, difficulty, pairwise, ... in md, tex, csv)", compared)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasTimingColumn(t *testing.T, path string) bool {
	t.Helper()
	rec, err := csv.NewReader(bytes.NewReader(readFile(t, path))).Read()
	if err != nil && err != io.EOF {
		t.Fatalf("%s: %v", path, err)
	}
	for _, h := range rec {
		if timingColumn(h) {
			return true
		}
	}
	return false
}

// blankTiming returns CSV data with the cells of timing columns emptied.
func blankTiming(t *testing.T, data []byte) []byte {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := recs[0]
	w.Write(header)
	for _, r := range recs[1:] {
		for j := range r {
			if timingColumn(header[j]) {
				r[j] = ""
			}
		}
		w.Write(r)
	}
	w.Flush()
	return buf.Bytes()
}
