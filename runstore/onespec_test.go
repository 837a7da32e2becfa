package runstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	// The runners the specs of these tests name.
	"github.com/t2sbench/t2sbench/internal/testkit/speckit"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/spec"
)

// oneSpec is the spec the cases of TestPlanChanges vary; {{X}} lines are
// replaced per case.
const oneSpec = `name: onespec
benchmarks: [{name: mini{{BENCH}}}]
models:
  sim: {backend: sim, p: 0.6, seed: 7}
  other: {backend: sim, p: 0.7, seed: 7}
roles: {reason: sim}
workers: 2
{{EXTRA}}
runners:
  - name: direct
  - name: sc
    params: {k: 3}
{{RUNNERS}}
`

func specVariant(bench, extra, runners string) string {
	return strings.NewReplacer("{{BENCH}}", bench, "{{EXTRA}}", extra, "{{RUNNERS}}", runners).Replace(oneSpec)
}

// storedOf returns plan p's trials as a store holds and reads them back:
// through their JSON (numbers become float64), in plan order.
func storedOf(t *testing.T, p *spec.Plan) []storedTrial {
	t.Helper()
	out := make([]storedTrial, len(p.Trials))
	for i, tr := range p.Trials {
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[i].Trial); err != nil {
			t.Fatal(err)
		}
		out[i].seq = int64(i + 1)
	}
	return out
}

func changeLines(c *PlanChange) (changes, renamed []string) {
	for _, ch := range c.Changes {
		changes = append(changes, ch.String())
	}
	for _, ch := range c.Renamed {
		renamed = append(renamed, ch.String())
	}
	return changes, renamed
}

// TestPlanChanges: the differences between the trials a run directory
// holds (the base spec's, read back from their JSON) and another plan, as
// the refusal names them; changes outside the trials' identity (workers,
// timeout, prices, name, max_trials, max_result_mb, a model's throughput
// settings) are none, and a new label alone is a rename.
func TestPlanChanges(t *testing.T) {
	t.Parallel()
	base := speckit.Plan(t, specVariant("", "", ""))
	sc := func(params string) string { return strings.Replace(specVariant("", "", ""), "{k: 3}", params, 1) }
	cases := []struct {
		name    string
		spec    string
		changes []string
		renamed []string
	}{
		{name: "same spec", spec: specVariant("", "", "")},
		{name: "parameter changed", spec: sc("{k: 5}"), changes: []string{`trial "sc": parameter k changed 3 -> 5`}},
		{name: "parameter added", spec: sc("{k: 3, temperature: 0.5}"), changes: []string{`trial "sc": parameter temperature added: 0.5`}},
		{name: "parameter removed", spec: sc("{}"), changes: []string{`trial "sc": parameter k removed (was 3)`}},
		{name: "runner added", spec: specVariant("", "", "  - name: cot"), changes: []string{`trial "cot" is new`}},
		{name: "runner dropped", spec: strings.Replace(specVariant("", "", ""), "  - name: sc\n    params: {k: 3}\n", "", 1),
			changes: []string{`trial "sc" is no longer in the spec`}},
		{name: "model identity", spec: strings.Replace(specVariant("", "", ""), "p: 0.6", "p: 0.65", 1), changes: []string{
			`trial "direct": model sim: p changed 0.6 -> 0.65`, `trial "sc": model sim: p changed 0.6 -> 0.65`}},
		{name: "role binding", spec: strings.Replace(specVariant("", "", ""), "roles: {reason: sim}", "roles: {reason: other}", 1), changes: []string{
			`trial "direct": role reason: model sim -> other`, `trial "sc": role reason: model sim -> other`}},
		{name: "benchmark limit", spec: specVariant(", limit: 3", "", ""), changes: []string{
			`trial "direct": benchmark limit changed 0 -> 3`, `trial "sc": benchmark limit changed 0 -> 3`}},
		{name: "benchmark data", spec: specVariant(", data: /elsewhere/mini", "", ""), changes: []string{
			`trial "direct": benchmark data changed "" -> "/elsewhere/mini"`, `trial "sc": benchmark data changed "" -> "/elsewhere/mini"`}},
		{name: "tie_aware", spec: specVariant(", tie_aware: true", "", ""), changes: []string{
			`trial "direct": benchmark tie_aware changed false -> true`, `trial "sc": benchmark tie_aware changed false -> true`}},
		{name: "seed", spec: specVariant("", "seeds: [1]", ""), changes: []string{
			`trial "direct": seed changed 0 -> 1`, `trial "sc": seed changed 0 -> 1`}},
		{name: "run settings", spec: strings.Replace(specVariant(", max_result_mb: 8", "timeout: 30s\nmax_trials: 50\nprices: {sim: {prompt: 1, completion: 2}}", ""),
			"name: onespec\n", "name: renamed\n", 1)},
		{name: "label only", spec: sc("{k: 3}\n    label: sc3"), renamed: []string{`trial "sc" is now labelled "sc3"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := diffPlan(storedOf(t, base), speckit.Plan(t, c.spec).Trials)
			changes, renamed := changeLines(got)
			if !reflect.DeepEqual(changes, c.changes) || !reflect.DeepEqual(renamed, c.renamed) {
				t.Errorf("changes %q, renamed %q; want %q, %q", changes, renamed, c.changes, c.renamed)
			}
			if got.Empty() != (len(c.changes) == 0) {
				t.Errorf("Empty() = %v with changes %q", got.Empty(), changes)
			}
		})
	}
}

// TestPlanChangesEmptyStore: a store without trials holds no spec yet;
// any plan is its own.
func TestPlanChangesEmptyStore(t *testing.T) {
	t.Parallel()
	if c := diffPlan(nil, speckit.Plan(t, specVariant("", "", "")).Trials); !c.Empty() {
		t.Errorf("changes against an empty store %+v; want none", c.Changes)
	}
}

// TestSplitStale: the trials of a run's spec are the recorded plan's
// (MetaPlan); in a store written before it existed they are guessed from
// the spec the store recorded last and, of trials sharing a label, the
// one recorded last.
func TestSplitStale(t *testing.T) {
	t.Parallel()
	specA := specVariant("", "", "")                       // direct, sc k=3
	specB := strings.Replace(specA, "{k: 3}", "{k: 5}", 1) // direct, sc k=5
	specC := specVariant("", "", "  - name: react-dsl")    // direct, sc k=3, react-dsl
	specD := specVariant("", "", "  - name: cot")          // direct, sc k=3, cot
	a, b, c := storedOf(t, speckit.Plan(t, specA)), storedOf(t, speckit.Plan(t, specB)), storedOf(t, speckit.Plan(t, specC))
	direct, sc3, sc5, react := a[0], a[1], b[1], c[2]
	at := func(st storedTrial, seq int64) storedTrial { st.seq = seq; return st }
	planOf := func(ts ...storedTrial) string {
		ids := make([]string, len(ts))
		for i, t := range ts {
			ids[i] = t.ID
		}
		raw, _ := json.Marshal(ids)
		return string(raw)
	}
	cases := []struct {
		name   string
		meta   map[string]string
		trials []storedTrial
		stale  []string // ids
	}{
		{"recorded plan", map[string]string{MetaPlan: planOf(direct, sc5), MetaSpec: specA},
			[]storedTrial{at(direct, 1), at(sc3, 2), at(sc5, 3)}, []string{sc3.ID}},
		{"legacy: a changed parameter, the later spec recorded", map[string]string{MetaSpec: specB},
			[]storedTrial{at(direct, 1), at(sc3, 2), at(sc5, 3)}, []string{sc3.ID}},
		{"legacy: the earlier spec run again last", map[string]string{MetaSpec: specA},
			[]storedTrial{at(direct, 1), at(sc3, 2), at(sc5, 3)}, []string{sc5.ID}},
		{"legacy: a dropped runner", map[string]string{MetaSpec: specA},
			[]storedTrial{at(direct, 1), at(sc3, 2), at(react, 3)}, []string{react.ID}},
		// The recorded spec's cot was never recorded (a start that
		// failed): the spec is not trusted, the latest of each label is.
		{"legacy: recorded spec never ran", map[string]string{MetaSpec: specD},
			[]storedTrial{at(direct, 1), at(sc3, 2), at(sc5, 3), at(react, 4)}, []string{sc3.ID}},
		{"legacy: no recorded spec", map[string]string{},
			[]storedTrial{at(direct, 1), at(sc5, 2), at(sc3, 3)}, []string{sc5.ID}},
		{"legacy: the spec recorded with --set", map[string]string{MetaSpec: specA + "\n" + spec.ChangeMarker + "\n#   --set runners.1.params.k=5\n"},
			[]storedTrial{at(direct, 1), at(sc5, 2), at(sc3, 3)}, []string{sc3.ID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur, stale, err := splitStale(c.meta, c.trials)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, i := range stale {
				got = append(got, c.trials[i].ID)
			}
			if !reflect.DeepEqual(got, c.stale) || len(cur)+len(stale) != len(c.trials) {
				t.Errorf("stale %v (current %v); want %v", got, cur, c.stale)
			}
		})
	}
}
