package speckit

import (
	"testing"

	_ "github.com/t2sbench/t2sbench/runners/baseline"
)

func TestPlan(t *testing.T) {
	p := Plan(t, "name: k\nbenchmarks: [{name: mini}]\nmodels: {m: {backend: sim}}\nroles: {reason: m}\nrunners: [{name: direct}, {name: cot}]\n")
	if len(p.Trials) != 2 || p.Trials[0].Runner != "direct" || p.Trials[1].Runner != "cot" {
		t.Errorf("got %d trials; want direct and cot", len(p.Trials))
	}
}
