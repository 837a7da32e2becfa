package bench

import (
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
)

// TestModelPrior: the dry run knows the accuracy of a sim model behind the
// reason role (role_p.reason, else p, else DefaultSimP) and nothing of
// another backend's model or of a role bound to no model.
func TestModelPrior(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		model spec.ModelSpec
		bound bool
		want  runners.ModelPrior
	}{
		{"sim p", spec.ModelSpec{Backend: "sim", P: p(0.8)}, true, runners.ModelPrior{Accuracy: 0.8, Known: true}},
		{"sim role_p over p", spec.ModelSpec{Backend: "sim", P: p(0.8), RoleP: map[string]float64{"reason": 0.3, "understand": 0.9}}, true, runners.ModelPrior{Accuracy: 0.3, Known: true}},
		{"sim role_p of another role", spec.ModelSpec{Backend: "sim", P: p(0.8), RoleP: map[string]float64{"understand": 0.9}}, true, runners.ModelPrior{Accuracy: 0.8, Known: true}},
		{"sim default", spec.ModelSpec{Backend: "sim"}, true, runners.ModelPrior{Accuracy: spec.DefaultSimP, Known: true}},
		{"sim p 0", spec.ModelSpec{Backend: "sim", P: p(0)}, true, runners.ModelPrior{Accuracy: 0, Known: true}},
		{"openai", spec.ModelSpec{Backend: "openai", Model: "gpt-4o"}, true, runners.ModelPrior{}},
		{"no reason role", spec.ModelSpec{Backend: "sim", P: p(0.8)}, false, runners.ModelPrior{}},
	}
	for _, tt := range tests {
		tr := &spec.Trial{Models: map[string]spec.ModelSpec{"m": tt.model}, Roles: map[string]string{"understand": "m"}}
		if tt.bound {
			tr.Roles["reason"] = "m"
		}
		if got := modelPrior(tr); got != tt.want {
			t.Errorf("%s: modelPrior = %+v; want %+v", tt.name, got, tt.want)
		}
	}
}
