package spec

import (
	"strconv"
	"strings"
)

// Setting is one parameter value or role binding that tells a trial apart
// from the other trials of its runner entry, as the trial's label shows it
// (Key=Value). Value is the printed form: a sweep value as %v prints it, a
// simplex grid coordinate as strconv.FormatFloat(x, 'f', -1, 64), a
// backbone's model name.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// String is "key=value".
func (s Setting) String() string { return s.Key + "=" + s.Value }

// Identity is what tells a trial apart from the other trials of its plan,
// as fields, so that readers never re-parse the label: the entry's name,
// the parameter variant (ablation, sweep values, simplex point), the
// backbone bindings, and whether the label names the benchmark and the
// seed. Trial.Label is Identity.Label of the trial's benchmark and seed.
// None of it enters the trial id: the id hashes the configuration itself
// (runner, params, role->model identities, benchmark, seed), which the
// identity only names.
type Identity struct {
	// Name is the entry's label (RunnerSpec.Label), else its runner.
	Name string `json:"name"`
	// Ablation names the entry's ablation the trial runs; "" for the full
	// configuration.
	Ablation string `json:"ablation,omitempty"`
	// Sweep are the trial's values of the entry's swept parameters, in
	// key order.
	Sweep []Setting `json:"sweep,omitempty"`
	// Point is the trial's point of the entry's simplex grid, in the
	// grid's parameter order (RunnerSpec.Grid.Simplex).
	Point []Setting `json:"point,omitempty"`
	// Backbone are the trial's bindings of the roles the entry lists
	// backbones for (RunnerSpec.Backbones), in role order.
	Backbone []Setting `json:"backbone,omitempty"`
	// Bench is true when the plan runs several benchmarks, so that the
	// label names the trial's ("@spider").
	Bench bool `json:"bench,omitempty"`
	// Seed is true when the entry runs several seeds, so that the label
	// names the trial's ("seed=1").
	Seed bool `json:"seed,omitempty"`
}

// Variant returns the label words of the trial's parameter variant: the
// ablation (when any), each sweep setting, and the simplex point as one
// word ("alpha=0.2,beta=0.3,gamma=0.5").
func (id *Identity) Variant() []string {
	var out []string
	if id.Ablation != "" {
		out = append(out, id.Ablation)
	}
	for _, s := range id.Sweep {
		out = append(out, s.String())
	}
	if len(id.Point) > 0 {
		pt := make([]string, len(id.Point))
		for i, s := range id.Point {
			pt[i] = s.String()
		}
		out = append(out, strings.Join(pt, ","))
	}
	return out
}

// Label is the trial's readable name: the entry's name, the variant, the
// backbone bindings, "@<benchmark>" when id.Bench and "seed=<seed>" when
// id.Seed, separated by spaces ("sc k=2 reason=s1 @a seed=0").
func (id *Identity) Label(benchmark string, seed int64) string {
	parts := append([]string{id.Name}, id.Variant()...)
	for _, s := range id.Backbone {
		parts = append(parts, s.String())
	}
	if id.Bench {
		parts = append(parts, "@"+benchmark)
	}
	if id.Seed {
		parts = append(parts, "seed="+strconv.FormatInt(seed, 10))
	}
	return strings.Join(parts, " ")
}
