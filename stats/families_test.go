package stats

import (
	"reflect"
	"testing"
)

// TestPlanFamiliesAtDefault: a sweep's points are compared with the point
// atDefault accepts, which stands for the sweep among its benchmark's
// systems; a benchmark with one system is compared with nothing, and
// baseline overrides the first system.
func TestPlanFamiliesAtDefault(t *testing.T) {
	point := func(name string) SystemRef {
		return SystemRef{Names: []string{name}, Benchmark: "mini", Runner: "sc", Sweep: "sc/k", Swept: []string{"k"}}
	}
	systems := []SystemRef{
		{Names: []string{"direct"}, Benchmark: "mini"},
		point("k=1"), point("k=4"), point("k=8"),
		{Names: []string{"cot"}, Benchmark: "mini"},
		{Names: []string{"alone"}, Benchmark: "spider"},
	}
	atDefault := func(s SystemRef) bool { return s.Names[0] == "k=4" }
	got := PlanFamilies(systems, "", atDefault)
	want := []Family{
		{Benchmark: "mini", Base: 0, Why: WhyFirst, Members: []int{2, 4}},
		{Benchmark: "mini", Swept: []string{"k"}, Base: 2, Why: WhyPaperDefault, Members: []int{1, 3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PlanFamilies = %+v; want %+v", got, want)
	}
	got = PlanFamilies(systems, "cot", func(SystemRef) bool { return false })
	want = []Family{{Benchmark: "mini", Base: 4, Why: WhyBaselineFlag, Members: []int{0, 1, 2, 3}},
		{Benchmark: "mini", Swept: []string{"k"}, Base: -1, Members: []int{1, 2, 3}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PlanFamilies(--baseline cot, no default point) = %+v; want %+v", got, want)
	}
	// Without a paper-default predicate no sweep point is a default: as
	// when it accepts none.
	if nilGot := PlanFamilies(systems, "cot", nil); !reflect.DeepEqual(nilGot, want) {
		t.Errorf("PlanFamilies(--baseline cot, nil atDefault) = %+v; want %+v", nilGot, want)
	}
}
