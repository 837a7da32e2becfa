package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/t2sbench/t2sbench/runners"
)

// Trial is one fully specified configuration: a runner with its parameters,
// its role->model bindings, one benchmark and one seed. It runs on every
// question of its benchmark.
type Trial struct {
	// ID is a stable hash of the canonical configuration (runner, params,
	// role->model identities, benchmark, seed): the same configuration
	// always has the same id, a changed one a new id.
	ID string `json:"id"`
	// Label is a readable name, e.g. "sc k=5" or "iesr w/o-understanding":
	// Identity.Label of the trial's benchmark and seed.
	Label string `json:"label"`
	// Identity is what tells the trial apart within its plan, as fields
	// (entry name, ablation, sweep values, simplex point, backbones): what
	// readers group trials by, never by re-parsing Label. It is not part
	// of ID. Stores written before it existed lack it; ReadRun derives it
	// (DeriveIdentities).
	Identity *Identity      `json:"identity,omitempty"`
	Runner   string         `json:"runner"`
	Params   runners.Params `json:"params"`
	// Roles binds each model role to a model name of the spec.
	Roles map[string]string `json:"roles"`
	// Models are the spec's models the roles bind to, by name.
	Models    map[string]ModelSpec `json:"models"`
	Benchmark BenchmarkSpec        `json:"benchmark"`
	Seed      int64                `json:"seed"`
	// Order is the trial's position in the plan.
	Order int `json:"order"`
	// Entry is the index of the runners entry the trial came from.
	Entry int `json:"entry"`
}

// Simulated reports whether any model of the trial is the sim backend.
func (t *Trial) Simulated() bool {
	for _, m := range t.Models {
		if m.Backend == "sim" {
			return true
		}
	}
	return false
}

// RoleModel is the name of the model t binds role to: the role's own
// binding, else the reason role's (a role the trial does not bind asks
// the reason model).
func (t *Trial) RoleModel(role string) string {
	if m, ok := t.Roles[role]; ok {
		return m
	}
	return t.Roles[runners.RoleReason]
}

// Plan is the expansion of a spec into trials.
type Plan struct {
	Spec   *Spec
	Trials []*Trial
}

// NewPlan expands sweeps, simplex grids, ablations, backbones, seeds and
// benchmarks into trials, and builds each trial's runner through the
// registry so that bad parameters are reported now, with their path
// (runners[2].params.n_rollout: ...).
func NewPlan(s *Spec) (*Plan, error) {
	p := &Plan{Spec: s}
	seen := map[string]string{}
	labels := ModelLabels(s.Models, s.rebound)
	seeds := s.Seeds
	if len(seeds) == 0 {
		seeds = []int64{0}
	}
	if err := checkPlanSize(s, seeds); err != nil {
		return nil, err
	}
	for i, rs := range s.Runners {
		path := fmt.Sprintf("runners[%d]", i)
		variants, err := expandParams(rs)
		if err != nil {
			return nil, s.errorf(path, "%v", err)
		}
		bindings := expandBackbones(s.Roles, rs, labels)
		rseeds := seeds
		if len(rs.Seeds) > 0 {
			rseeds = rs.Seeds
		}
		for _, v := range variants {
			if _, err := runners.New(rs.Name, v.params); err != nil {
				return nil, paramError(s, path, err)
			}
			for _, bnd := range bindings {
				for _, b := range s.Benchmarks {
					for _, seed := range rseeds {
						t := &Trial{
							Runner:    rs.Name,
							Params:    v.params,
							Roles:     bnd.roles,
							Models:    map[string]ModelSpec{},
							Benchmark: b,
							Seed:      seed,
							Order:     len(p.Trials),
							Entry:     i,
						}
						for _, m := range bnd.roles {
							t.Models[m] = s.Models[m]
						}
						id := v.id
						id.Name = rs.Name
						if rs.Label != "" {
							id.Name = rs.Label
						}
						id.Backbone = bnd.settings
						id.Bench = len(s.Benchmarks) > 1
						id.Seed = len(rseeds) > 1
						t.Identity = &id
						t.Label = id.Label(b.Name, seed)
						t.ID = trialID(t)
						if prev, dup := seen[t.ID]; dup {
							return nil, s.errorf(path, "trial %q has the same configuration as %q", t.Label, prev)
						}
						if prev, dup := seen["label:"+t.Label]; dup {
							return nil, s.errorf(path, "trial label %q is used twice (%s); set label to tell them apart", t.Label, prev)
						}
						seen[t.ID] = t.Label
						seen["label:"+t.Label] = path
						p.Trials = append(p.Trials, t)
					}
				}
			}
		}
	}
	return p, nil
}

// checkPlanSize counts the trials the plan will expand to, without
// expanding anything, and fails when a simplex grid or the whole plan
// exceeds the spec's trial cap, naming the line of the grid step or of the
// runner entry that passes it.
func checkPlanSize(s *Spec, seeds []int64) error {
	limit := float64(s.maxTrials())
	total := 0.0
	for i, rs := range s.Runners {
		path := fmt.Sprintf("runners[%d]", i)
		n := float64(len(rs.Ablations))
		if !rs.SkipFull {
			n++
		}
		for _, vs := range rs.Sweep {
			n *= float64(len(vs))
		}
		if g := rs.Grid; g != nil {
			pts := SimplexPoints(len(g.Simplex), g.Step)
			if pts > limit {
				return s.errorf(path+".grid.step", "step %g makes %.0f points of a %d-parameter simplex, over the trial cap %d (%s); a larger step keeps the grid small", g.Step, pts, len(g.Simplex), s.maxTrials(), s.capSource())
			}
			n *= pts
		}
		for _, ms := range rs.Backbones {
			n *= float64(len(ms))
		}
		rseeds := seeds
		if len(rs.Seeds) > 0 {
			rseeds = rs.Seeds
		}
		n *= float64(len(rseeds)) * float64(len(s.Benchmarks))
		total += n
		if total > limit {
			return s.errorf(path, "the plan grows to %.0f trials by this entry (%.0f from it), over the trial cap %d; %s", total, n, s.maxTrials(), raiseCap(s))
		}
	}
	return nil
}

// raiseCap says how to raise the trial cap, or that it cannot be.
func raiseCap(s *Spec) string {
	if s.maxTrials() >= MaxTrialsCeiling {
		return fmt.Sprintf("no plan may have more than %d (spec.MaxTrialsCeiling, whatever max_trials or run --max-trials says); split the spec", MaxTrialsCeiling)
	}
	return "raise max_trials (or run --max-trials) if that is meant"
}

// SimplexPoints is the number of points SimplexGrid(d, step) returns,
// C(n+d-1, d-1) with n = round(1/step), computed in floating point so that
// it can be checked before the grid is built (it is +Inf when it
// overflows).
func SimplexPoints(d int, step float64) float64 {
	if d < 1 || !(step > 0) {
		return 0
	}
	n := math.Round(1 / step)
	pts := 1.0
	for k := 1; k < d; k++ {
		pts = pts * (n + float64(k)) / float64(k)
	}
	return math.Round(pts)
}

// paramError places a runner's parameter error at the spec line of the
// parameter (runners.ParamError's key), else at the runner entry's line.
// A parameter error the factory returned as is reads
// "runners[2].params.n_rollout: ...", one it wrapped "runners[2]: iesr:
// params.n_rollout: ...".
func paramError(s *Spec, path string, err error) error {
	var pe *runners.ParamError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", s.where(path), path, err)
	}
	at := s.where(path + ".params." + pe.Key)
	switch err.(type) {
	case *runners.ParamError, runners.ParamErrors:
		return fmt.Errorf("%s: %s.%w", at, path, err)
	}
	return fmt.Errorf("%s: %s: %w", at, path, err)
}

// trialID hashes the canonical JSON of the configuration (Canon).
func trialID(t *Trial) string {
	canon := Canon(t)
	b, err := json.Marshal(canon)
	if err != nil {
		// Params come from YAML and always marshal; keep the id stable
		// anyway by hashing the fmt form.
		b = []byte(fmt.Sprintf("%v", canon))
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// Canon is what identifies a trial's configuration: runner,
// parameters, each role's model identity, benchmark and seed. As JSON
// (encoding/json sorts map keys) equal configurations give equal bytes.
func Canon(t *Trial) map[string]any {
	models := map[string]any{}
	for role, m := range t.Roles {
		models[role] = t.Models[m].Identity()
	}
	params := t.Params
	if params == nil {
		params = runners.Params{}
	}
	return map[string]any{
		"runner":    t.Runner,
		"params":    params,
		"roles":     models,
		"benchmark": map[string]any{"name": t.Benchmark.Name, "data": t.Benchmark.Data, "split": t.Benchmark.Split, "limit": t.Benchmark.Limit, "mode": t.Benchmark.Mode},
		"seed":      t.Seed,
	}
}

// variant is one parameter variant of a runner entry: its parameters and
// the identity fields that name it (Ablation, Sweep, Point).
type variant struct {
	params runners.Params
	id     Identity
}

// expandParams returns the parameter variants of one runner entry: (full
// and ablations) x sweep product x simplex grid.
func expandParams(rs RunnerSpec) ([]variant, error) {
	base := []variant{}
	if !rs.SkipFull {
		base = append(base, variant{params: copyParams(rs.Params)})
	}
	// Ablations in spec order (a RunnerSpec built in Go has none: sorted).
	abl := rs.ablationOrder
	if len(abl) != len(rs.Ablations) {
		abl = make([]string, 0, len(rs.Ablations))
		for n := range rs.Ablations {
			abl = append(abl, n)
		}
		sort.Strings(abl)
	}
	for _, n := range abl {
		p := copyParams(rs.Params)
		for k, v := range rs.Ablations[n] {
			p[k] = v
		}
		base = append(base, variant{params: p, id: Identity{Ablation: n}})
	}
	// Sweep: Cartesian product in sorted key order.
	keys := make([]string, 0, len(rs.Sweep))
	for k := range rs.Sweep {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := base
	for _, k := range keys {
		var next []variant
		for _, v := range out {
			for _, x := range rs.Sweep[k] {
				p := copyParams(v.params)
				p[k] = x
				id := v.id
				id.Sweep = append(append([]Setting(nil), v.id.Sweep...), Setting{k, fmt.Sprintf("%v", x)})
				next = append(next, variant{params: p, id: id})
			}
		}
		out = next
	}
	if g := rs.Grid; g != nil {
		points := SimplexGrid(len(g.Simplex), g.Step)
		var next []variant
		for _, v := range out {
			for _, pt := range points {
				p := copyParams(v.params)
				id := v.id
				id.Point = nil
				for j, name := range g.Simplex {
					p[name] = pt[j]
					id.Point = append(id.Point, Setting{name, strconv.FormatFloat(pt[j], 'f', -1, 64)})
				}
				next = append(next, variant{params: p, id: id})
			}
		}
		out = next
	}
	return out, nil
}

// SimplexGrid returns every point (w_1..w_d) with w_i a non-negative
// multiple of step and sum w_i = 1, in lexicographic order. Values are
// rounded to 1e-9 so that 0.1+0.2 prints as 0.3. For d = 3 and step 0.1
// there are C(12, 2) = 66 points.
func SimplexGrid(d int, step float64) [][]float64 {
	n := int(math.Round(1 / step))
	var out [][]float64
	cur := make([]int, d)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == d-1 {
			cur[i] = left
			pt := make([]float64, d)
			for j, c := range cur {
				pt[j] = math.Round(float64(c)/float64(n)*1e9) / 1e9
			}
			out = append(out, pt)
			return
		}
		for c := 0; c <= left; c++ {
			cur[i] = c
			rec(i+1, left-c)
		}
	}
	rec(0, n)
	return out
}

// binding is one role binding of a runner entry: every role's model, and
// the settings of the roles the entry lists backbones for.
type binding struct {
	roles    map[string]string
	settings []Setting
}

// expandBackbones returns the role bindings of one runner entry: the
// spec's roles, overridden by the entry's roles, times the product of its
// backbone lists.
func expandBackbones(global map[string]string, rs RunnerSpec, labels map[string]string) []binding {
	base := map[string]string{}
	for k, v := range global {
		base[k] = v
	}
	for k, v := range rs.Roles {
		base[k] = v
	}
	out := []binding{{roles: base}}
	roles := make([]string, 0, len(rs.Backbones))
	for r := range rs.Backbones {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		var next []binding
		for _, b := range out {
			for _, m := range rs.Backbones[r] {
				nb := map[string]string{}
				for k, v := range b.roles {
					nb[k] = v
				}
				nb[r] = m
				l := labels[m]
				if l == "" {
					l = m
				}
				next = append(next, binding{roles: nb, settings: append(append([]Setting(nil), b.settings...), Setting{r, l})})
			}
		}
		out = next
	}
	return out
}

// ModelLabel is the name reports give model name of a spec: the served
// model (its model field) for a real backend, so that a paper table names
// what answered; the spec's name for sim and where no model is given.
func ModelLabel(name string, m ModelSpec) string {
	if m.Backend == "sim" || m.Model == "" {
		return name
	}
	return m.Model
}

// ModelLabels gives the name trial labels use for each model of a spec:
// ModelLabel for the models in rebound (those a --models file or --set
// redefined, whose spec names were written for another model, such as
// sim-qwen25-coder-7b bound to a served Qwen2.5-Coder-7B-Instruct), the
// spec's name for the others. Models whose label names coincide (one
// model behind two endpoints or settings) keep their spec names, so that
// labels stay distinct.
func ModelLabels(models map[string]ModelSpec, rebound map[string]bool) map[string]string {
	out := make(map[string]string, len(models))
	count := map[string]int{}
	for name, m := range models {
		out[name] = name
		if rebound[name] {
			out[name] = ModelLabel(name, m)
		}
		count[out[name]]++
	}
	for name, l := range out {
		if count[l] > 1 || (l != name && models[l].Backend != "") {
			out[name] = name
		}
	}
	return out
}

func copyParams(p map[string]any) runners.Params {
	out := runners.Params{}
	for k, v := range p {
		out[k] = v
	}
	return out
}

// Secrets returns the credentials trial t's models and MySQL server are
// given in this environment (see Spec.Secrets).
func (t *Trial) Secrets() []string {
	var out []string
	for _, m := range t.Models {
		out = append(out, m.Secrets()...)
	}
	return append(out, t.Benchmark.secrets()...)
}
