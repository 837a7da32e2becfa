package main

import (
	"database/sql"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runstore"
)

// mergeDirs are small runs of oneSpecs' spec A (direct and sc with sim on
// the first 4 questions of mini) for the merge tests: the unsharded run,
// its halves, a third of it, half of it on 2 questions, and half of spec
// B.
type mergeDirs struct {
	root, full, s1, s2, t1, s2l, b2 string
}

func makeMergeDirs(t *testing.T) mergeDirs {
	t.Helper()
	root := writeOneSpecs(t, t.TempDir())
	d := mergeDirs{root: root}
	a, b := filepath.Join(root, "a.yaml"), filepath.Join(root, "b.yaml")
	runs := []struct {
		dir   *string
		spec  string
		name  string
		shard string
		limit string
	}{
		{&d.full, a, "full", "", "4"}, {&d.s1, a, "s1", "1/2", "4"}, {&d.s2, a, "s2", "2/2", "4"}, {&d.t1, a, "t1", "1/3", "4"},
		{&d.s2l, a, "s2l", "2/2", "2"}, {&d.b2, b, "b2", "2/2", "4"},
	}
	// The runs wait more than they compute: they go at once.
	codes := make([]int, len(runs))
	outs := make([]string, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		*r.dir = filepath.Join(root, r.name)
		args := []string{"run", r.spec, "--quiet", "--limit", r.limit, "--out", *r.dir}
		if r.shard != "" {
			args = append(args, "--shard", r.shard)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, e, code := runLine(args...)
			codes[i], outs[i] = code, o+e
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if codes[i] != exitOK {
			t.Fatalf("run %s: exit status %d; want %d\n%s", r.name, codes[i], exitOK, outs[i])
		}
	}
	return d
}

// dropShardMeta removes what a run records of its --shard from the store
// of dir, as in a store written before runs recorded it.
func dropShardMeta(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, runstore.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM meta WHERE key = 'shards'`); err != nil {
		t.Fatal(err)
	}
}

// TestMerge runs the merge tests on one set of small runs (mergeDirs).
func TestMerge(t *testing.T) {
	t.Parallel()
	d := makeMergeDirs(t)
	t.Run("refusals", func(t *testing.T) { testMergeRefusals(t, d) })
	t.Run("counts", func(t *testing.T) { testMergeCounts(t, d) })
	t.Run("killed", func(t *testing.T) { testMergeKilled(t, d) })
	t.Run("into a shard", func(t *testing.T) { testMergeIntoShard(t, d) })
}

// testMergeIntoShard: merge into the run directory of one shard joins the
// other shard to it (the store then holds what the unsharded run holds);
// merging that shard into it once more is refused, leaving it as it was.
func testMergeIntoShard(t *testing.T, d mergeDirs) {
	want, err := runstore.ReadRun(d.full, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "s1")
	copyRun(t, d.s1, out)
	mustCLI(t, exitOK, "merge", out, d.s2)
	r, err := runstore.ReadRun(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.CallLog != want.CallLog {
		t.Errorf("merged into the shard: call log %+v; want %+v (the unsharded run's)", r.CallLog, want.CallLog)
	}
	for i := range want.Trials {
		if got, w := len(r.Trials[i].Items), len(want.Trials[i].Items); got != w {
			t.Errorf("trial %s: %d items; want %d", want.Trials[i].Label, got, w)
		}
	}
	before := dumpStore(t, out)
	_, e, code := runLine("merge", out, d.s2)
	if w := "both hold shard 2/2 of the run"; code != exitUsage || !strings.Contains(e, w) {
		t.Errorf("merging %s into %s again: exit status %d, %q; want %d and %q", d.s2, out, code, e, exitUsage, w)
	}
	if dumpStore(t, out) != before {
		t.Errorf("the refused merge changed %s", out)
	}
}

// testMergeRefusals: merge refuses, with exit status 2 (bad input) and a
// message naming the directory, shards of different specs, a directory
// given twice, two copies of one shard, shards of overlapping splits (by
// their recorded --shard, or by the items they hold when none is
// recorded), and a shard or output that a running process holds; the
// output directory gets no store and the shards are left as they were.
func testMergeRefusals(t *testing.T, d mergeDirs) {
	s1copy := filepath.Join(d.root, "s1copy")
	copyRun(t, d.s1, s1copy)
	old1, old1copy := filepath.Join(d.root, "old1"), filepath.Join(d.root, "old1copy")
	copyRun(t, d.s1, old1)
	copyRun(t, d.s1, old1copy)
	dropShardMeta(t, old1)
	dropShardMeta(t, old1copy)
	busy := filepath.Join(d.root, "busy")
	copyRun(t, d.s2, busy)
	held, err := runstore.OpenStore(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	busyOut := filepath.Join(d.root, "busy-out")
	heldOut, err := runstore.OpenStore(busyOut)
	if err != nil {
		t.Fatal(err)
	}
	defer heldOut.Close()
	before := dumpStore(t, d.s1)

	tests := []struct {
		name   string
		out    string // "" for a new directory
		shards []string
		want   []string // in stderr
	}{
		{"different specs", "", []string{d.s1, d.b2}, []string{"shard " + d.b2 + " holds the trials of another spec than shard " + d.s1, `trial "sc": parameter k changed 3 -> 5`}},
		{"directory given twice", "", []string{d.s1, d.s1, d.s2}, []string{"shard " + d.s1 + " is given twice"}},
		{"directory given twice by another path", "", []string{d.s1, d.s2, filepath.Join(d.root, ".", "x", "..", "s1")}, []string{"is given twice (also as " + d.s1 + ")"}},
		{"one shard in two directories", "", []string{d.s1, s1copy, d.s2}, []string{d.s1 + " and " + s1copy + " both hold shard 1/2 of the run"}},
		{"another --limit", "", []string{d.s1, d.s2l}, []string{d.s1 + " ran the first 4 questions (--limit 4) and " + d.s2l + " ran the first 2 questions (--limit 2)"}},
		{"overlapping splits", "", []string{d.s1, d.t1}, []string{d.s1 + " (shard 1/2) and " + d.t1 + " (shard 1/3) hold some of the same items"}},
		{"whole run and a shard", "", []string{d.full, d.s2}, []string{d.full + " (shard 1/1) and " + d.s2 + " (shard 2/2) hold some of the same items"}},
		{"same items, no shard recorded", "", []string{old1, old1copy}, []string{old1 + " and " + old1copy + " both hold question"}},
		{"shard being run", "", []string{d.s1, busy}, []string{"shard " + busy + " is still being written", "in use by pid " + strconv.Itoa(os.Getpid())}},
		{"output being run", busyOut, []string{d.s1, d.s2}, []string{"output " + busyOut, "in use by pid " + strconv.Itoa(os.Getpid())}},
		{"output given as a shard", d.s2, []string{d.s1, d.s2}, []string{"shard " + d.s2 + " is the output directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "merged")
			}
			var storeBefore string
			if _, err := os.Stat(filepath.Join(out, runstore.StoreFile)); err == nil && out != busyOut {
				storeBefore = dumpStore(t, out)
			}
			o, e, code := runLine(append([]string{"merge", out}, tt.shards...)...)
			if code != exitUsage {
				t.Fatalf("exit status %d; want %d (a refusal)\nstdout: %s\nstderr: %s", code, exitUsage, o, e)
			}
			for _, w := range tt.want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr %q; want it to contain %q", e, w)
				}
			}
			if storeBefore != "" {
				if got := dumpStore(t, out); got != storeBefore {
					t.Errorf("the refused merge changed the store of %s", out)
				}
			} else if out != busyOut {
				if _, err := os.Stat(filepath.Join(out, runstore.StoreFile)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: got a store (stat: %v); want none after a refusal", out, err)
				}
			}
		})
	}
	if got := dumpStore(t, d.s1); got != before {
		t.Errorf("the refused merges changed shard %s", d.s1)
	}
}

// mergeLine reads merge's summary line.
var mergeLine = regexp.MustCompile(`merged (\d+) shards into .*: (\d+) trials, (\d+) items, (\d+) model calls`)

// testMergeCounts: the counts merge prints are those of the store it
// wrote (its items and call log, read back with ReadRun), and equal those
// of the unsharded run, also when merging again into the same directory
// and after a shard was given to it a second time in vain.
func testMergeCounts(t *testing.T, d mergeDirs) {
	want, err := runstore.ReadRun(d.full, false)
	if err != nil {
		t.Fatal(err)
	}
	wantItems := itemCount(want)
	out := filepath.Join(t.TempDir(), "merged")
	for i, args := range [][]string{
		{d.s1, d.s2},
		{d.s2, d.s1},
		{d.s1, d.s1, d.s2}, // refused: the output stays as the merges before left it
		{d.s1, d.s2},
	} {
		o, e, code := runLine(append([]string{"merge", out}, args...)...)
		if wantCode := map[bool]int{true: exitUsage, false: exitOK}[len(args) == 3]; code != wantCode {
			t.Fatalf("merge %d (%v): exit status %d; want %d\n%s%s", i, args, code, wantCode, o, e)
		}
		r, err := runstore.ReadRun(out, false)
		if err != nil {
			t.Fatal(err)
		}
		items := itemCount(r)
		if items != wantItems || r.CallLog != want.CallLog {
			t.Errorf("merge %d (%v): store holds %d items, call log %+v; want %d, %+v (the unsharded run's)", i, args, items, r.CallLog, wantItems, want.CallLog)
		}
		if code != exitOK {
			continue
		}
		m := mergeLine.FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("merge %d: stdout %q; want the summary line", i, o)
		}
		if got := m[2] + " " + m[3] + " " + m[4]; got != strconv.Itoa(len(r.Trials))+" "+strconv.Itoa(items)+" "+strconv.Itoa(r.CallLog.Calls) {
			t.Errorf("merge %d printed trials, items, calls %s; want %d %d %d (what the store holds)", i, got, len(r.Trials), items, r.CallLog.Calls)
		}
	}
}

// testMergeKilled: a merge process killed with SIGKILL at a random point
// (the seed is logged), into a new directory or one a merge wrote, then
// run again, leaves the items and the call log (rows and tokens) of the
// unsharded run, every time. scripts/merge-crash.sh does the same with
// the quickstart through the built binary.
func testMergeKilled(t *testing.T, d mergeDirs) {
	if testing.Short() {
		t.Skip("starts merge processes")
	}
	want, err := runstore.ReadRun(d.full, false)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), realCLIEnv+"=1")
	mergeCmd := func(out string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "merge", out, d.s1, d.s2)
		cmd.Env = env
		return cmd
	}
	// One whole merge process bounds the kill delays.
	existing := filepath.Join(t.TempDir(), "merged")
	began := time.Now()
	if out, err := mergeCmd(existing).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	span := time.Since(began)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d; kills within %v", seed, span)
	for round := range 5 {
		out := existing
		if round%2 == 0 {
			out = filepath.Join(t.TempDir(), "merged")
		}
		cmd := mergeCmd(out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(span)))
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		mustCLI(t, exitOK, "merge", out, d.s1, d.s2)
		r, err := runstore.ReadRun(out, false)
		if err != nil {
			t.Fatal(err)
		}
		items, wantItems := itemCount(r), itemCount(want)
		if items != wantItems || r.CallLog != want.CallLog {
			t.Errorf("round %d, killed after %v: %d items, call log %+v; want %d, %+v (the unsharded run's)", round, delay, items, r.CallLog, wantItems, want.CallLog)
		}
	}
}
