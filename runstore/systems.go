package runstore

import (
	"math"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// System is one configuration of a run, (runner, parameters, backbones,
// benchmark), with the trials that ran it: one per seed. Its seeds are
// replicates: tables show its EX as the mean over seeds and comparisons
// pool every (seed, question) pair (stats.CompareSeeds).
type System struct {
	// Label names the system: its trials' label without the seed
	// (SystemLabel).
	Label string
	// Benchmark is the trials' Benchmark.Key().
	Benchmark string
	// Trials are the indexes of the system's trials among the run's, in
	// plan order (by seed); Seeds their seeds.
	Trials []int
	Seeds  []int64
}

// SystemLabel is the label of trial t without its seed: the label of the
// trial's system. A trial without an identity (DeriveIdentities) keeps its
// label.
func SystemLabel(t *spec.Trial) string {
	if t.Identity == nil {
		return t.Label
	}
	id := *t.Identity
	id.Seed = false
	return id.Label(t.Benchmark.Name, t.Seed)
}

// Systems groups the trials of one run into systems: the trials of one
// runner entry with the same system label (SystemLabel) on the same
// benchmark, which differ only in their seed. Systems are in the plan
// order of their first trial.
func Systems(trials []RunTrial) []System {
	var out []System
	at := map[string]int{}
	for i := range trials {
		t := &trials[i].Trial
		label := SystemLabel(t)
		k := strconv.Itoa(t.Entry) + "\x00" + label + "\x00" + t.Benchmark.Key()
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, System{Label: label, Benchmark: t.Benchmark.Key()})
		}
		out[j].Trials = append(out[j].Trials, i)
		out[j].Seeds = append(out[j].Seeds, t.Seed)
	}
	return out
}

// SweepOf returns, for a trial that is a point of a sweep or simplex grid
// of its runner entry (Identity.Sweep, Identity.Point), the key that the
// points of that sweep share (entry, ablation, backbones, benchmark) and
// the swept parameters; "" and nil for any other trial.
func SweepOf(t *spec.Trial) (string, []string) {
	id := t.Identity
	if id == nil || len(id.Sweep)+len(id.Point) == 0 {
		return "", nil
	}
	var keys []string
	for _, s := range id.Sweep {
		keys = append(keys, s.Key)
	}
	for _, s := range id.Point {
		keys = append(keys, s.Key)
	}
	parts := []string{strconv.Itoa(t.Entry), id.Name, id.Ablation}
	for _, b := range id.Backbone {
		parts = append(parts, b.String())
	}
	parts = append(parts, t.Benchmark.Key())
	return strings.Join(parts, "\x00"), keys
}

// SystemRef, Family and SystemComparison are the comparison plan's types
// (stats.PlanFamilies), under the names the run's readers use.
type (
	SystemRef        = stats.SystemRef
	Family           = stats.Family
	SystemComparison = stats.SystemComparison
)

// Reasons a baseline was chosen, the values of Family.Why.
const (
	WhyBaselineFlag = stats.WhyBaselineFlag
	WhyPaperDefault = stats.WhyPaperDefault
	WhyFirst        = stats.WhyFirst
)

// PlanFamilies is stats.PlanFamilies with the paper defaults of the
// runners, defaults (runner -> parameter -> value): a sweep's point is
// at its runner's default when AtPaperDefault says so.
func PlanFamilies(systems []SystemRef, baseline string, defaults map[string]map[string]float64) []Family {
	return stats.PlanFamilies(systems, baseline, func(s SystemRef) bool { return AtPaperDefault(s, defaults) })
}

// AtPaperDefault reports whether the system is at its runner's paper
// default (defaults: runner -> parameter -> value) in every swept
// parameter, within 1e-6.
func AtPaperDefault(s SystemRef, defaults map[string]map[string]float64) bool {
	defs := defaults[s.Runner]
	if len(s.Swept) == 0 || len(defs) == 0 {
		return false
	}
	for _, k := range s.Swept {
		want, ok := defs[k]
		v, isNum := runners.Number(s.Params[k])
		if !ok || !isNum || math.Abs(v-want) > 1e-6 {
			return false
		}
	}
	return true
}

// Ref describes the system sys of trials (its first trial's runner,
// parameters and sweep) to PlanFamilies, named by its label.
func (sys System) Ref(trials []RunTrial) SystemRef {
	t := &trials[sys.Trials[0]].Trial
	sweep, swept := SweepOf(t)
	return SystemRef{Names: []string{sys.Label}, Benchmark: sys.Benchmark, Runner: t.Runner, Params: t.Params, Sweep: sweep, Swept: swept}
}

// Replicates gathers the outcomes of the system's trials by seed from
// outcomes, the per-trial outcome maps of the run (indexed as its
// trials).
func (sys System) Replicates(outcomes []map[string]bool) stats.Replicates {
	r := stats.Replicates{}
	for k, i := range sys.Trials {
		r[sys.Seeds[k]] = outcomes[i]
	}
	return r
}
