package bench

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestMergeAgainAfterShardResumed: a shard merged while a call of it was
// in flight (a killed run), then resumed so that the call is answered,
// merged again into the same directory, leaves that call once, answered:
// the second merge rebuilds the output from the shard instead of adding a
// second copy of the call log to it.
func TestMergeAgainAfterShardResumed(t *testing.T) {
	t.Parallel()
	shard, out := t.TempDir(), filepath.Join(t.TempDir(), "merged")
	st, err := runstore.OpenStore(shard)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CallStarted("t", "q", runstore.Call{Role: "reason", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := runstore.Merge(out, shard); err != nil {
		t.Fatal(err)
	}
	st, err = runstore.OpenStore(shard)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CallFinished(id, runstore.Call{Role: "reason", N: 1, PromptTokens: 11, CompletionTokens: 5}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ms, err := runstore.Merge(out, shard)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRun(out, false)
	if err != nil {
		t.Fatal(err)
	}
	// The shard's call log is one answered call: 11 + 5 tokens.
	want := runstore.CallTotals{Calls: 1, Loose: 1, PromptTokens: 11, CompletionTokens: 5}
	if r.CallLog != want || ms.Calls != 1 {
		t.Errorf("merged again: call log %+v, %d calls counted; want %+v, 1", r.CallLog, ms.Calls, want)
	}
}

// TestMergeVerifiesAndRestarts: the store Merge writes passes VerifyRun
// (every copied result's checksum holds), holds what the unsharded run
// holds, and a merge that finds the half-built store of a killed merge in
// its output starts over and writes the same.
func TestMergeVerifiesAndRestarts(t *testing.T) {
	t.Parallel()
	p := mustPlan(t, runSpec)
	env, _ := testEnv(8, 0.6, nil)
	full := t.TempDir()
	if _, err := runOnce(t, full, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 2 {
		d := t.TempDir()
		if _, err := runOnce(t, d, p, env, Options{Shard: spec.Shard{I: i, N: 2}}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	want, err := runstore.ReadRun(full, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	for _, step := range []string{"new output", "half-built store left by a killed merge"} {
		if step != "new output" {
			// A killed merge leaves its store unfinished in the output
			// directory; junk stands for it.
			tmp := filepath.Join(out, ".merge-tmp")
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, runstore.StoreFile), []byte("half a store"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := runstore.Merge(out, dirs...)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		r, err := runstore.ReadRun(out, false)
		if err != nil {
			t.Fatal(err)
		}
		items := 0
		for _, tr := range r.Trials {
			items += len(tr.Items)
		}
		// runSpec has 3 trials; testEnv(8, ...) 8 questions each.
		if items != 24 || ms.Items != items || r.CallLog != want.CallLog || ms.Calls != r.CallLog.Calls {
			t.Errorf("%s: %d items (%d counted), call log %+v (%d counted); want 24, %+v", step, items, ms.Items, r.CallLog, ms.Calls, want.CallLog)
		}
		if got, w := verdicts(t, out), verdicts(t, full); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: merged verdicts differ from the unsharded run", step)
		}
		checks, err := runstore.VerifyRun(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			if c.Store == "run store" && (c.Mismatch != 0 || c.OK != 24) {
				t.Errorf("%s: VerifyRun: %+v; want 24 ok, no mismatch", step, c)
			}
		}
		if _, err := os.Stat(filepath.Join(out, ".merge-tmp")); !os.IsNotExist(err) {
			t.Errorf("%s: the merge's build directory remains (stat: %v)", step, err)
		}
	}
}

// TestShardOverlaps checks Shard.Overlaps against a search for an item hash
// in both shards: h from 0 to lcm(N, M) - 1 covers every pair of residues.
func TestShardOverlaps(t *testing.T) {
	t.Parallel()
	var shards []spec.Shard
	for n := 1; n <= 6; n++ {
		for i := range n {
			shards = append(shards, spec.Shard{I: i, N: n})
		}
	}
	for _, a := range shards {
		for _, b := range shards {
			name := strings.ReplaceAll(a.String()+" and "+b.String(), "/", " of ")
			t.Run(name, func(t *testing.T) {
				want := false
				for h := 0; h < a.N*b.N; h++ {
					want = want || (h%a.N == a.I && h%b.N == b.I)
				}
				if got := a.Overlaps(b); got != want {
					t.Errorf("Overlaps: got %v; want %v", got, want)
				}
			})
		}
	}
}
