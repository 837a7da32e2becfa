package bench

import (
	"fmt"
	"maps"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// workItem is one item of a run, a question of a trial, with the runner,
// the benchmark's environment and the model client that run it.
type workItem struct {
	trial  *spec.Trial
	runner runners.Runner
	be     *benchEnv
	ex     datasets.Example
	client llm.Client
}

// itemPlan is the work of one Run (planItems).
type itemPlan struct {
	// items are the items to run, in plan order: trial by trial,
	// question by question.
	items []workItem
	// skipped counts the selected items the store holds as finished.
	skipped int
	// unselected counts the pending items of the plan's kept trials
	// that the run does not select (Summary.Unselected).
	unselected int
	// totals is the number of items the run's shard selects of each
	// trial, by trial id, finished or not.
	totals map[string]int
}

// planItems lists the items of the plan's trials that the run selects
// (the questions of each trial's benchmark in e that shard holds) and the
// store does not hold as finished: done holds the finished items by
// runstore.ItemKey, errored the pending ones (their trial ids by ItemKey), as
// Store.ResumeState reads them. The items of a trial change removes are
// not finished, even when done holds them: a trial replaced under the
// same id (a changed tie_aware) is run again. A runner that cannot be
// built is an error naming the trial.
func planItems(p *spec.Plan, e *runEnv, shard spec.Shard, change *runstore.PlanChange, done map[string]bool, errored map[string]string) (itemPlan, error) {
	removed := map[string]bool{}
	for _, t := range change.Removed() {
		removed[t.ID] = true
	}
	pending := maps.Clone(errored)
	w := itemPlan{totals: map[string]int{}}
	for _, t := range p.Trials {
		be := e.bench(t.Benchmark)
		r, err := runners.New(t.Runner, t.Params)
		if err != nil {
			return itemPlan{}, fmt.Errorf("trial %s: %w", t.Label, err)
		}
		client := roleClient(t, be)
		n := 0
		for _, ex := range be.b.Examples {
			if !shard.Has(t.ID, ex.ID) {
				continue
			}
			n++
			k := runstore.ItemKey(t.ID, ex.ID)
			delete(pending, k)
			if done[k] && !removed[t.ID] {
				w.skipped++
				continue
			}
			w.items = append(w.items, workItem{trial: t, runner: r, be: be, ex: ex, client: client})
		}
		w.totals[t.ID] = n
	}
	// What stays of pending are the pending items this run leaves alone.
	kept := map[string]bool{}
	for _, t := range p.Trials {
		kept[t.ID] = !removed[t.ID]
	}
	for _, id := range pending {
		if kept[id] {
			w.unselected++
		}
	}
	return w, nil
}

// roleClient is the client trial t's runner calls: the client of be that
// each role binds, and for a role the trial does not bind the "reason"
// binding's.
func roleClient(t *spec.Trial, be *benchEnv) llm.Client {
	rc := llm.Router{Roles: map[string]llm.Client{}}
	for role, m := range t.Roles {
		rc.Roles[role] = be.clients[m]
	}
	rc.Default = rc.Roles[runners.RoleReason]
	return rc
}
