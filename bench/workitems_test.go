package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// planItems selects the questions of each trial that the shard holds, in
// plan order, skips the finished ones unless their trial is replaced, and
// counts the pending items of kept trials it leaves alone.
func TestPlanItems(t *testing.T) {
	env, _ := testEnv(12, 1, nil)
	p := mustPlan(t, runSpec)
	e, err := openRunEnv(context.Background(), p, env, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	shard := spec.Shard{I: 0, N: 2}
	direct, cot, sc := p.Trials[0], p.Trials[1], p.Trials[2]
	selected := map[string][]string{}
	var outside []string // questions of sc the shard does not hold
	for _, tr := range p.Trials {
		for _, ex := range e.bench(tr.Benchmark).b.Examples {
			if shard.Has(tr.ID, ex.ID) {
				selected[tr.ID] = append(selected[tr.ID], ex.ID)
			} else if tr == sc {
				outside = append(outside, ex.ID)
			}
		}
	}
	if len(selected[direct.ID]) < 2 || len(selected[cot.ID]) < 2 || len(selected[sc.ID]) < 1 || len(outside) < 1 {
		t.Fatalf("shard selects too few questions to test: %v, outside %v", selected, outside)
	}
	done := map[string]bool{}
	// Every question of direct is done, but direct is replaced under its
	// own id: all are run again.
	for _, q := range selected[direct.ID] {
		done[runstore.ItemKey(direct.ID, q)] = true
	}
	// cot's first question is done: skipped.
	done[runstore.ItemKey(cot.ID, selected[cot.ID][0])] = true
	errored := map[string]string{
		runstore.ItemKey(sc.ID, selected[sc.ID][0]): sc.ID,     // selected: run, not counted
		runstore.ItemKey(sc.ID, outside[0]):         sc.ID,     // another shard's: counted
		runstore.ItemKey(cot.ID, "q999"):            cot.ID,    // past the limit: counted
		runstore.ItemKey(direct.ID, outside[0]):     direct.ID, // replaced trial: not counted
		runstore.ItemKey("gone", "q000"):            "gone",    // removed trial: not counted
	}
	old := *direct
	change := &runstore.PlanChange{Changes: []runstore.TrialChange{{Old: &old, New: direct}, {Old: &spec.Trial{ID: "gone"}}}}
	w, err := planItems(p, e, shard, change, done, errored)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tr := range p.Trials {
		for _, q := range selected[tr.ID] {
			if tr != cot || q != selected[cot.ID][0] {
				want = append(want, tr.ID+"/"+q)
			}
		}
	}
	var got []string
	for _, it := range w.items {
		got = append(got, it.trial.ID+"/"+it.ex.ID)
		if it.runner == nil || it.client == nil || it.be != e.bench(it.trial.Benchmark) {
			t.Errorf("%s/%s: runner %v, client %v, benchmark env %p; want the trial's", it.trial.ID, it.ex.ID, it.runner, it.client, it.be)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("items\n%s\nwant\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
	if w.skipped != 1 || w.unselected != 2 {
		t.Errorf("skipped, unselected = %d, %d; want 1, 2", w.skipped, w.unselected)
	}
	for _, tr := range p.Trials {
		if w.totals[tr.ID] != len(selected[tr.ID]) {
			t.Errorf("total of %s = %d; want %d", tr.Label, w.totals[tr.ID], len(selected[tr.ID]))
		}
	}
	// A runner that cannot be built names its trial.
	bad := *p
	bad.Trials = append([]*spec.Trial(nil), p.Trials...)
	broken := *cot
	broken.Runner = "no-such-runner"
	bad.Trials[1] = &broken
	if _, err := planItems(&bad, e, shard, &runstore.PlanChange{}, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "trial "+cot.Label+": ") {
		t.Errorf("err = %v; want one naming trial %s", err, cot.Label)
	}
}
