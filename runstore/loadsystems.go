package runstore

import (
	"fmt"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/spec"
)

// LoadRunVerdicts returns, for run directory dir, the trial labels in plan
// order and trial label -> question id -> correct over the questions in
// EX's denominator (TrialOutcomes: done and failed items whose gold runs;
// failed ones are false).
func LoadRunVerdicts(dir string) ([]string, map[string]map[string]bool, error) {
	systems, err := LoadRunSystems(dir)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string]bool{}
	labels := make([]string, 0, len(systems))
	for _, s := range systems {
		labels = append(labels, s.Label)
		out[s.Label] = s.Correct
	}
	return labels, out, nil
}

// RunSystem is one trial's per-question outcomes, as compare reads them.
type RunSystem struct {
	// Trial is the trial's configuration (identity and seed included).
	Trial spec.Trial
	Label string
	// Benchmark is the name (and "/split" when the spec sets one); trials on different benchmarks share
	// question ids and must never be paired.
	Benchmark string
	// Simulated is true for a trial whose roles use the sim backend.
	Simulated bool
	// Correct maps question id to its outcome over EX's one denominator
	// (see TrialOutcomes: done and failed items whose gold runs, failed
	// ones false); Failed holds the ids of failed items; DBs maps question
	// id to the verdict's database id; Candidates maps question id to
	// its verdict's candidate marks (Outcomes.Candidates).
	Correct    map[string]bool
	Failed     map[string]bool
	DBs        map[string]string
	Candidates map[string][]metrics.CandidateMark
	// Tally counts the attempted, correct and failed questions and, by
	// status, those whose gold does not run; Pending the items not yet
	// finished (failed by an infrastructure error or not run).
	Tally   metrics.Tally
	Pending int
}

// LoadRunSystems reads the outcomes of every trial of the spec of run
// directory dir, in plan order, streaming each trial's statuses and
// verdicts (no result, no call; see SummarizeDir).
func LoadRunSystems(dir string) ([]RunSystem, error) {
	out, _, err := LoadRunSystemsWith(dir, ReadOptions{})
	return out, err
}

// LoadRunSystemsWith is LoadRunSystems reading the trials o selects; it
// also returns the run's meta and trials (no item), whose Stale and
// StaleNote say which trials it left out.
func LoadRunSystemsWith(dir string, o ReadOptions) ([]RunSystem, *RunData, error) {
	st, err := openDB(dir, true)
	if err != nil {
		return nil, nil, err
	}
	defer st.db.Close()
	r, _, err := readRunHead(st.db, dir, o)
	if err != nil {
		return nil, nil, err
	}
	out := make([]RunSystem, 0, len(r.Trials))
	for _, t := range r.Trials {
		a := NewOutcomeAcc(true)
		if err := eachTrialItem(st.db, t.ID, func(it *Item) { a.Add(it) }); err != nil {
			return nil, nil, fmt.Errorf("store %s: %w", dir, err)
		}
		o := a.Outcomes(r.Totals[t.ID])
		out = append(out, RunSystem{
			Trial:      t.Trial,
			Label:      t.Label,
			Benchmark:  t.Benchmark.Key(),
			Simulated:  t.Simulated(),
			Correct:    o.Correct,
			Failed:     o.Failed,
			DBs:        o.DBs,
			Candidates: o.Candidates,
			Tally:      o.Tally,
			Pending:    o.Pending,
		})
	}
	return out, r, nil
}
