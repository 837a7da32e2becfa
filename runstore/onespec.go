package runstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/spec"
)

// One spec per run directory.
//
// A run directory holds the trials of one spec: Run records the ids of the
// plan's trials in the meta (MetaPlan) with the trials themselves, and
// refuses a plan whose trials differ from those the store holds
// (*SpecChangedError) unless bench.Options.ReplaceTrials, which removes the
// stored trials that are no longer in the plan or whose identity changed,
// with their items, results and calls, in the transaction that records the
// new plan. A trial's identity is its id (runner, parameters, each role's
// model identity, benchmark name, data, split, limit and mode, seed: see
// trialID) and its benchmark's tie_aware switch, which changes verdicts:
// a change of any of them makes another trial. Everything else continues a
// run: the label alone (a renamed trial keeps its results), workers, the
// per-item timeout, max_result_mb, prices, max_trials, a model's
// throughput settings (concurrency, rate limits, its timeout and retries,
// replicas, the key's variable), and the flags --limit, --shard,
// --workers and the progress flags.
//
// Readers (SummarizeDir, LoadRunSystems, ReadRunMode, Merge) return the
// trials of the run's spec only; the others, which only a store written
// before MetaPlan existed can hold, are RunData.Stale, and ReadOptions'
// AllTrials returns them too.

// MetaPlan is the meta key holding the ids of the trials of the run's
// spec, in plan order, as a JSON array.
const MetaPlan = "plan"

// ErrSpecChanged is wrapped by *SpecChangedError.
var ErrSpecChanged = errors.New("the run directory holds another spec")

// SpecChangedError is Run's refusal of a plan whose trials differ from
// those its run directory holds; the message names every difference and
// the two ways out.
type SpecChangedError struct {
	Dir    string
	Change *PlanChange
}

// maxChangeLines bounds the differences a message lists.
const maxChangeLines = 20

func (e *SpecChangedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run directory %s holds the trials of another spec; this spec differs from it:\n", e.Dir)
	writeChangeLines(&b, e.Change.Changes)
	var what string
	switch n := len(e.Change.Removed()); n {
	case 0:
		what = "keeps every stored trial and runs the new ones"
	case 1:
		what = "removes the stored trial that changed or is no longer in the spec, with its results, and runs the new ones"
	default:
		what = fmt.Sprintf("removes the %d stored trials that changed or are no longer in the spec, with their results, and runs the new ones", n)
	}
	fmt.Fprintf(&b, "a run directory holds one spec: run this one into a new directory (--out NEW), or add --replace-trials, which %s (cached model answers are reused)", what)
	return b.String()
}

func (e *SpecChangedError) Unwrap() error { return ErrSpecChanged }

// writeChangeLines writes one indented line per change, at most
// maxChangeLines, then how many more there are.
func writeChangeLines(b *strings.Builder, cs []TrialChange) {
	for i, c := range cs {
		if i == maxChangeLines {
			fmt.Fprintf(b, "  ... and %d more\n", len(cs)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", c)
	}
}

// TrialChange is one difference between a plan and the trials a run
// directory holds: a trial whose identity changed (Old and New, with the
// same label), a new trial (New only) or a trial no longer in the spec
// (Old only).
type TrialChange struct {
	Old, New *spec.Trial
	// Diffs name what changed from Old to New ("parameter k changed 3 ->
	// 5"); a renamed trial (PlanChange.Renamed) has none. A trial no
	// longer in the spec whose label a plan trial has (an earlier
	// configuration of it, which only a store written before a run
	// directory held one spec can hold beside the current one) has the
	// changes from it to that trial.
	Diffs []string
}

func (c TrialChange) String() string {
	switch {
	case c.Old == nil:
		return fmt.Sprintf("trial %q is new", c.New.Label)
	case c.New == nil && len(c.Diffs) > 0:
		return fmt.Sprintf("an earlier configuration of trial %q (id %s; since then %s) is no longer in the spec", c.Old.Label, c.Old.ID, strings.Join(c.Diffs, "; "))
	case c.New == nil:
		return fmt.Sprintf("trial %q is no longer in the spec", c.Old.Label)
	case len(c.Diffs) == 0:
		return fmt.Sprintf("trial %q is now labelled %q", c.Old.Label, c.New.Label)
	}
	return fmt.Sprintf("trial %q: %s", c.New.Label, strings.Join(c.Diffs, "; "))
}

// PlanChange is how a plan differs from the trials a run directory holds.
type PlanChange struct {
	// Changes are the plan's changed and new trials, in plan order, then
	// the stored trials no longer in the plan, in the store's order.
	Changes []TrialChange
	// Renamed are stored trials the plan keeps under another label: the
	// same configuration, so their results stay.
	Renamed []TrialChange
}

// Empty reports whether the plan's trials are the stored ones (renamed
// trials aside).
func (c *PlanChange) Empty() bool { return c == nil || len(c.Changes) == 0 }

// Removed returns the stored trials that bench.Options.ReplaceTrials removes:
// those whose identity changed and those no longer in the spec.
func (c *PlanChange) Removed() []*spec.Trial {
	if c == nil {
		return nil
	}
	var out []*spec.Trial
	for _, ch := range c.Changes {
		if ch.Old != nil {
			out = append(out, ch.Old)
		}
	}
	return out
}

// storedTrial is a trial of the store with its insertion order (rowid).
type storedTrial struct {
	spec.Trial
	seq int64
}

// readTrials reads every trial the store holds, in plan order (ord, id).
func readTrials(db *sql.DB) ([]storedTrial, error) {
	rows, err := db.Query(`SELECT rowid, config FROM trials ORDER BY ord, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedTrial
	for rows.Next() {
		var cfg string
		var st storedTrial
		if err := rows.Scan(&st.seq, &cfg); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(cfg), &st.Trial); err != nil {
			return nil, fmt.Errorf("trial config: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// samePlanTrial reports whether stored trial s is plan trial p: the same
// id and the same tie_aware switch (a scoring rule the id leaves out).
func samePlanTrial(s, p *spec.Trial) bool {
	return s.ID == p.ID && s.Benchmark.TieAware == p.Benchmark.TieAware
}

// diffPlan compares the trials a store holds with a plan's. A plan trial
// is a stored one when samePlanTrial says so (a different label makes it
// renamed); else it is a changed trial when a stored trial left over has
// its label (the one recorded last, where several have), else new. The
// stored trials left over are no longer in the spec. A store without
// trials holds no spec yet: any plan is its own.
func diffPlan(stored []storedTrial, plan []*spec.Trial) *PlanChange {
	c := &PlanChange{}
	if len(stored) == 0 {
		return c
	}
	used := make([]bool, len(stored))
	byID := map[string]int{}
	for i := range stored {
		byID[stored[i].ID] = i
	}
	var rest []*spec.Trial
	for _, p := range plan {
		i, ok := byID[p.ID]
		if !ok || used[i] || !samePlanTrial(&stored[i].Trial, p) {
			rest = append(rest, p)
			continue
		}
		used[i] = true
		if stored[i].Label != p.Label {
			c.Renamed = append(c.Renamed, TrialChange{Old: &stored[i].Trial, New: p})
		}
	}
	for _, p := range rest {
		j := -1
		for i := range stored {
			if !used[i] && stored[i].Label == p.Label && (j < 0 || stored[i].seq > stored[j].seq) {
				j = i
			}
		}
		if j < 0 {
			c.Changes = append(c.Changes, TrialChange{New: p})
			continue
		}
		used[j] = true
		c.Changes = append(c.Changes, TrialChange{Old: &stored[j].Trial, New: p, Diffs: trialDiffs(&stored[j].Trial, p)})
	}
	byLabel := map[string]*spec.Trial{}
	for _, p := range plan {
		byLabel[p.Label] = p
	}
	for i := range stored {
		if used[i] {
			continue
		}
		ch := TrialChange{Old: &stored[i].Trial}
		if p := byLabel[ch.Old.Label]; p != nil {
			// An earlier configuration of a trial the plan has.
			ch.Diffs = trialDiffs(ch.Old, p)
		}
		c.Changes = append(c.Changes, ch)
	}
	return c
}

// trialDiffs names what differs between two configurations of a trial:
// runner, parameters, role bindings, the identity of a bound model,
// benchmark and seed, each as "<what> changed <old> -> <new>" (values as
// JSON), "... added: <new>" or "... removed (was <old>)".
func trialDiffs(o, n *spec.Trial) []string {
	var d []string
	if o.Runner != n.Runner {
		d = append(d, fmt.Sprintf("runner changed %s -> %s", o.Runner, n.Runner))
	}
	d = append(d, mapDiffs("parameter", o.Params, n.Params)...)
	seen := map[string]bool{}
	for _, role := range slices.Sorted(maps.Keys(union(o.Roles, n.Roles))) {
		om, nm := o.Roles[role], n.Roles[role]
		switch {
		case om == "":
			d = append(d, fmt.Sprintf("role %s bound to model %s", role, nm))
		case nm == "":
			d = append(d, fmt.Sprintf("role %s no longer bound (was model %s)", role, om))
		case om != nm:
			d = append(d, fmt.Sprintf("role %s: model %s -> %s", role, om, nm))
		case !seen[om]:
			seen[om] = true
			d = append(d, mapDiffs("model "+om+":", o.Models[om].Identity(), n.Models[nm].Identity())...)
		}
	}
	ob, nb := o.Benchmark, n.Benchmark
	for _, f := range []struct {
		name string
		o, n any
	}{
		{"name", ob.Name, nb.Name}, {"data", ob.Data, nb.Data}, {"split", ob.Split, nb.Split},
		{"limit", ob.Limit, nb.Limit}, {"mode", ob.Mode, nb.Mode}, {"tie_aware", ob.TieAware, nb.TieAware},
	} {
		if f.o != f.n {
			d = append(d, fmt.Sprintf("benchmark %s changed %s -> %s", f.name, jsonText(f.o), jsonText(f.n)))
		}
	}
	if o.Seed != n.Seed {
		d = append(d, fmt.Sprintf("seed changed %d -> %d", o.Seed, n.Seed))
	}
	if len(d) == 0 {
		d = append(d, fmt.Sprintf("configuration changed (trial id %s -> %s)", o.ID, n.ID))
	}
	return d
}

// mapDiffs names the keys whose values differ between a and b, in key
// order, comparing and printing values as JSON (so that a stored 3.0 and
// a spec's 3 are equal).
func mapDiffs[V any](what string, a, b map[string]V) []string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(union(a, b))) {
		av, aok := a[k]
		bv, bok := b[k]
		switch {
		case !aok:
			d = append(d, fmt.Sprintf("%s %s added: %s", what, k, jsonText(bv)))
		case !bok:
			d = append(d, fmt.Sprintf("%s %s removed (was %s)", what, k, jsonText(av)))
		case jsonText(av) != jsonText(bv):
			d = append(d, fmt.Sprintf("%s %s changed %s -> %s", what, k, jsonText(av), jsonText(bv)))
		}
	}
	return d
}

// union is the set of the keys of a and b.
func union[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// jsonText is v as JSON, the form differences print and compare values in.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// ComparePlan compares plan p with the trials run directory dir holds,
// reading its store without a lock; a directory without a store holds
// none. `run` calls it to refuse a different spec before it opens the
// store for writing (Run checks again under the lock).
func ComparePlan(dir string, p *spec.Plan) (*PlanChange, error) {
	if _, err := os.Stat(filepath.Join(dir, StoreFile)); errors.Is(err, os.ErrNotExist) {
		return &PlanChange{}, nil
	}
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	return s.DiffPlan(p.Trials)
}

// DiffPlan compares plan trials with the trials the store records as its
// run's spec (see ComparePlan).
func (s *Store) DiffPlan(plan []*spec.Trial) (*PlanChange, error) {
	stored, err := readTrials(s.db)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.dir, err)
	}
	return diffPlan(stored, plan), nil
}

// planIDs is the MetaPlan value of trials.
func planIDs(trials []*spec.Trial) string {
	ids := make([]string, len(trials))
	for i, t := range trials {
		ids[i] = t.ID
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// RemovedTrial is a trial bench.Options.ReplaceTrials removed, with what it held.
type RemovedTrial struct {
	Change TrialChange
	Items  int
	Calls  int
}

// String is `trial "sc" (parameter k changed 3 -> 5): 42 items, 42 model
// calls`.
func (r RemovedTrial) String() string {
	why := strings.Join(r.Change.Diffs, "; ")
	switch {
	case r.Change.New == nil && why != "":
		why = "an earlier configuration, no longer in the spec; since then " + why
	case r.Change.New == nil:
		why = "no longer in the spec"
	}
	return fmt.Sprintf("trial %q (%s): %d items, %d model calls", r.Change.Old.Label, why, r.Items, r.Calls)
}

// PutPlan records plan trials as the run's spec, in one transaction: it
// removes the stored trials of change.Removed() with their items,
// results, calls and item totals, inserts the plan's trials (PutTrials),
// records their ids (MetaPlan) and whether any is simulated. It returns
// what it removed.
func (s *Store) PutPlan(trials []*spec.Trial, change *PlanChange) ([]RemovedTrial, error) {
	var removed []RemovedTrial
	// The item totals of a trial replaced under its own id (a changed
	// tie_aware) are this run's: Run wrote them already.
	inPlan := map[string]bool{}
	for _, t := range trials {
		inPlan[t.ID] = true
	}
	err := s.write(func(tx *sql.Tx) error {
		removed = removed[:0]
		for _, ch := range change.Changes {
			if ch.Old == nil {
				continue
			}
			r := RemovedTrial{Change: ch}
			id := ch.Old.ID
			if err := tx.QueryRow(`SELECT count(*) FROM items WHERE trial_id = ?`, id).Scan(&r.Items); err != nil {
				return err
			}
			// Calls of this session are the new trial's (a trial replaced
			// under its own id logs its calls before its first commit).
			if err := tx.QueryRow(`SELECT count(*) FROM model_calls WHERE trial_id = ? AND session <> ?`, id, s.session).Scan(&r.Calls); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM model_calls WHERE trial_id = ? AND session <> ?`, id, s.session); err != nil {
				return err
			}
			for _, q := range []string{`DELETE FROM items WHERE trial_id = ?`, `DELETE FROM results WHERE trial_id = ?`, `DELETE FROM trials WHERE id = ?`} {
				if _, err := tx.Exec(q, id); err != nil {
					return err
				}
			}
			if !inPlan[id] {
				if _, err := tx.Exec(`DELETE FROM meta WHERE key = ?`, "items:"+id); err != nil {
					return err
				}
			}
			removed = append(removed, r)
		}
		if err := putTrials(tx, trials); err != nil {
			return err
		}
		sim := "0"
		for _, t := range trials {
			if t.Simulated() {
				sim = "1"
			}
		}
		return putMeta(tx, map[string]string{MetaPlan: planIDs(trials), "simulated": sim})
	})
	return removed, err
}
