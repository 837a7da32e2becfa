package runstore

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
)

// TestSystemsGroupSeeds: the trials of one entry that differ only in their
// seed are one system, named by their label without the seed, in plan
// order; another entry or benchmark is another system.
func TestSystemsGroupSeeds(t *testing.T) {
	var trials []RunTrial
	add := func(entry int, name, bench string, seed int64, benchInLabel bool) {
		id := &spec.Identity{Name: name, Seed: true, Bench: benchInLabel}
		tr := spec.Trial{ID: fmt.Sprint(len(trials)), Runner: name, Entry: entry, Seed: seed, Identity: id, Benchmark: spec.BenchmarkSpec{Name: bench}}
		tr.Label = id.Label(bench, seed)
		trials = append(trials, RunTrial{Trial: tr})
	}
	for _, b := range []string{"mini", "spider"} {
		for _, s := range []int64{0, 1, 2} {
			add(0, "direct", b, s, true)
		}
	}
	for _, s := range []int64{0, 1, 2} {
		add(1, "cot", "mini", s, true)
	}
	got := Systems(trials)
	want := []System{
		{Label: "direct @mini", Benchmark: "mini", Trials: []int{0, 1, 2}, Seeds: []int64{0, 1, 2}},
		{Label: "direct @spider", Benchmark: "spider", Trials: []int{3, 4, 5}, Seeds: []int64{0, 1, 2}},
		{Label: "cot @mini", Benchmark: "mini", Trials: []int{6, 7, 8}, Seeds: []int64{0, 1, 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Systems = %+v; want %+v", got, want)
	}
	if l := trials[4].Label; l != "direct @spider seed=1" {
		t.Errorf("trial label %q; want direct @spider seed=1", l)
	}
}

// sweepRef is a point of runner's sweep of param at value v on mini.
func sweepRef(runner, param string, v float64) SystemRef {
	return SystemRef{Names: []string{fmt.Sprintf("%s %s=%g", runner, param, v)}, Benchmark: "mini", Runner: runner,
		Params: runners.Params{param: v}, Sweep: runner + "/" + param, Swept: []string{param}}
}

// TestPlanFamilies: every point of a sweep is compared with the point at
// its runner's paper default (or the one --baseline names), the sweep
// being Holm's family; the benchmark's other systems, with the sweep's
// baseline point as its runner's representative, are compared with the
// first of them (or --baseline). A sweep without its default point keeps
// its points among the benchmark's systems.
func TestPlanFamilies(t *testing.T) {
	plain := func(name string) SystemRef {
		return SystemRef{Names: []string{name}, Benchmark: "mini", Runner: name}
	}
	systems := []SystemRef{
		plain("direct"),                   // 0
		sweepRef("sc", "k", 1),            // 1
		sweepRef("sc", "k", 4),            // 2
		sweepRef("sc", "k", 8),            // 3
		plain("cot"),                      // 4
		sweepRef("iesr", "n_rollout", 8),  // 5
		sweepRef("iesr", "n_rollout", 16), // 6
		{Names: []string{"spider direct"}, Benchmark: "spider", Runner: "direct"}, // 7
		{Names: []string{"spider cot"}, Benchmark: "spider", Runner: "cot"},       // 8
	}
	defaults := map[string]map[string]float64{"sc": {"k": 4}, "iesr": {"n_rollout": 32}}
	tests := []struct {
		name     string
		baseline string
		want     []Family
	}{
		{"paper defaults", "", []Family{
			// sc is represented by its default point k=4; iesr's sweep has
			// no default point (32 is not on it), so its points stay.
			{Benchmark: "mini", Base: 0, Why: WhyFirst, Members: []int{2, 4, 5, 6}},
			{Benchmark: "mini", Swept: []string{"k"}, Base: 2, Why: WhyPaperDefault, Members: []int{1, 3}},
			{Benchmark: "mini", Swept: []string{"n_rollout"}, Base: -1, Members: []int{5, 6}},
			{Benchmark: "spider", Base: 7, Why: WhyFirst, Members: []int{8}},
		}},
		{"--baseline names a sweep point", "sc k=8", []Family{
			{Benchmark: "mini", Base: 3, Why: WhyBaselineFlag, Members: []int{0, 4, 5, 6}},
			{Benchmark: "mini", Swept: []string{"k"}, Base: 3, Why: WhyBaselineFlag, Members: []int{1, 2}},
			{Benchmark: "mini", Swept: []string{"n_rollout"}, Base: -1, Members: []int{5, 6}},
			{Benchmark: "spider", Base: 7, Why: WhyFirst, Members: []int{8}},
		}},
		{"--baseline names a plain system", "cot", []Family{
			{Benchmark: "mini", Base: 4, Why: WhyBaselineFlag, Members: []int{0, 2, 5, 6}},
			{Benchmark: "mini", Swept: []string{"k"}, Base: 2, Why: WhyPaperDefault, Members: []int{1, 3}},
			{Benchmark: "mini", Swept: []string{"n_rollout"}, Base: -1, Members: []int{5, 6}},
			{Benchmark: "spider", Base: 7, Why: WhyFirst, Members: []int{8}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanFamilies(systems, tc.baseline, defaults)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v;\nwant %+v", got, tc.want)
			}
		})
	}
	// A benchmark whose first system is a sweep point at the default: the
	// default point is the baseline, said so.
	first := PlanFamilies([]SystemRef{sweepRef("sc", "k", 1), sweepRef("sc", "k", 4), plain("direct")}, "", defaults)
	if len(first) != 2 || first[0].Base != 1 || first[0].Why != WhyPaperDefault || !reflect.DeepEqual(first[0].Members, []int{2}) {
		t.Errorf("sweep first: got %+v; want the default point k=4 as the benchmark's baseline, direct its member", first)
	}
}
