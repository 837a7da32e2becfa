package spec

import (
	"math"
	"testing"

	// The runners the specs of these tests name.
	_ "github.com/t2sbench/t2sbench/runners/baseline"
)

func TestSimplexGrid(t *testing.T) {
	// C(1/step + d - 1, d - 1) points: step 0.1, d 3 -> C(12, 2) = 66.
	pts := SimplexGrid(3, 0.1)
	if len(pts) != 66 {
		t.Fatalf("len = %d; want 66", len(pts))
	}
	for _, p := range pts {
		s := p[0] + p[1] + p[2]
		if math.Abs(s-1) > 1e-9 {
			t.Errorf("point %v sums to %g; want 1 (tolerance 1e-9)", p, s)
		}
	}
	found := false
	for _, p := range pts {
		if p[0] == 0.4 && p[1] == 0.2 && p[2] == 0.4 {
			found = true
		}
	}
	if !found {
		t.Errorf("grid lacks IESR's default (0.4, 0.2, 0.4)")
	}
}

func TestPlanExpansion(t *testing.T) {
	s, err := ParseSpec([]byte(`benchmarks: [{name: a}, {name: b}]
models:
  s1: {backend: sim}
  s2: {backend: sim, p: 0.9}
roles: {reason: s1}
seeds: [0, 1]
runners:
  - name: sc
    params: {k: 3}
    ablations: {hot: {temperature: 1.2}}
    sweep: {k: [2, 4]}
    backbones: {reason: [s1, s2]}
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	// (full + 1 ablation) x 2 sweep values x 2 backbones x 2 benchmarks x 2 seeds.
	if len(p.Trials) != 32 {
		t.Fatalf("trials = %d; want 32", len(p.Trials))
	}
	first := p.Trials[0]
	if first.Label != "sc k=2 reason=s1 @a seed=0" {
		t.Errorf("first label = %q", first.Label)
	}
	ids := map[string]bool{}
	for _, tr := range p.Trials {
		ids[tr.ID] = true
	}
	if len(ids) != 32 {
		t.Errorf("distinct ids = %d; want 32", len(ids))
	}
	// Stable ids: replanning gives the same ids; a changed model
	// identity changes them, a changed throughput setting does not.
	p2, _ := NewPlan(s)
	if p2.Trials[5].ID != p.Trials[5].ID {
		t.Errorf("ids differ between identical plans")
	}
	m := s.Models["s1"]
	m.Concurrency = 99
	s.Models["s1"] = m
	p3, _ := NewPlan(s)
	if p3.Trials[0].ID != first.ID {
		t.Errorf("concurrency changed the trial id")
	}
	m.Seed = 5
	s.Models["s1"] = m
	p4, _ := NewPlan(s)
	if p4.Trials[0].ID == first.ID {
		t.Errorf("sim seed did not change the trial id")
	}
	if !first.Simulated() {
		t.Errorf("sim trial not marked simulated")
	}
}
