package bench

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	_ "github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// storedPlan reads testdata/plans/<name>.jsonl: the trials table (config
// column, in plan order) of the run `make reproduce-sim` made of
// experiments/<name>.yaml with the code before trials carried an
// Identity (commit 7de7918), i.e. `t2sbench run experiments/<name>.yaml
// --benchmark mini`.
func storedPlan(t *testing.T, name string) []runstore.RunTrial {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "plans", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []runstore.RunTrial
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr spec.Trial
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatalf("%s.jsonl line %d: %v", name, len(out)+1, err)
		}
		if tr.Identity != nil {
			t.Fatalf("%s.jsonl line %d has an identity; want a store of the old code", name, len(out)+1)
		}
		out = append(out, runstore.RunTrial{Trial: tr})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// storedSets are the overrides that give a spec the values it had when
// its stored plan was made: alphasql-main and iesr-table1 then ran 4
// rollouts, the spec now the papers' 24 and 32.
var storedSets = map[string][]string{
	"alphasql-main": {"runners.1.params.n_rollout=4"},
	"iesr-table1":   {"runners.3.params.n_rollout=4", "runners.6.params.n_rollout=4"},
}

// planMini plans experiments/<name>.yaml as `run --benchmark mini` does,
// with the spec's values of its stored plan (storedSets).
func planMini(t *testing.T, name string) *spec.Plan {
	t.Helper()
	s, err := spec.LoadSpecWith(filepath.Join("..", "experiments", name+".yaml"), spec.LoadOptions{Set: storedSets[name]})
	if err != nil {
		t.Fatal(err)
	}
	b := spec.BenchmarkSpec{Name: "mini"}
	for _, sb := range s.Benchmarks {
		if sb.Name == "mini" {
			b = sb
		}
	}
	s.Benchmarks = []spec.BenchmarkSpec{b}
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var storedPlans = []string{"alphasql-main", "iesr-rollout", "iesr-table1", "iesr-table2", "iesr-weights", "react-table3", "sim-ablations", "steinersql-table1"}

// TestStoredPlanIDs checks that trial ids and labels are those the code
// before Identity stored: resume finds a trial's done items by its id.
func TestStoredPlanIDs(t *testing.T) {
	for _, name := range storedPlans {
		t.Run(name, func(t *testing.T) {
			old := storedPlan(t, name)
			p := planMini(t, name)
			if len(p.Trials) != len(old) {
				t.Fatalf("trials = %d; want %d (stored)", len(p.Trials), len(old))
			}
			for i, tr := range p.Trials {
				if tr.ID != old[i].ID || tr.Label != old[i].Label {
					t.Errorf("trial %d = %s %q; want %s %q (stored)", i, tr.ID, tr.Label, old[i].ID, old[i].Label)
				}
				if tr.Identity == nil {
					t.Fatalf("trial %d has no identity", i)
				}
				if got := tr.Identity.Label(tr.Benchmark.Name, tr.Seed); got != tr.Label {
					t.Errorf("trial %d: Identity.Label = %q; want %q", i, got, tr.Label)
				}
				// The identity is not part of the id.
				cp := *tr
				cp.Identity = &spec.Identity{Name: "other", Ablation: "x"}
				got, _ := json.Marshal(spec.Canon(&cp))
				want, _ := json.Marshal(spec.Canon(tr))
				if string(got) != string(want) {
					t.Errorf("trial %d: configuration with another identity = %s; want %s", i, got, want)
				}
			}
		})
	}
}

// TestDeriveIdentitiesStored checks that the identities derived for the
// trials of an old store are those NewPlan gives the same trials.
func TestDeriveIdentitiesStored(t *testing.T) {
	for _, name := range storedPlans {
		t.Run(name, func(t *testing.T) {
			old := storedPlan(t, name)
			runstore.DeriveIdentities(old)
			p := planMini(t, name)
			for i, tr := range p.Trials {
				if i >= len(old) {
					break
				}
				if got, want := old[i].Identity, tr.Identity; !reflect.DeepEqual(got, want) {
					t.Errorf("trial %d %q: derived %+v; want %+v", i, tr.Label, *got, *want)
				}
			}
		})
	}
}

// TestDeriveIdentities checks the derivation on plans that use every kind
// of variant together: NewPlan's identities, removed, come back.
func TestDeriveIdentities(t *testing.T) {
	tests := []struct {
		name, runners string
		benches       string
		seeds         string
	}{
		{"ablation sweep backbone", `
  - name: sc
    params: {k: 3}
    ablations: {noev: {evidence: false}}
    sweep: {k: [2, 4], temperature: [0.5, 1]}
    backbones: {reason: [s1, s2]}`, "[{name: a}, {name: b}]", "[0, 1]"},
		{"grid with ablations", `
  - name: iesr
    label: iesr tuned
    ablations: {wo-linking: {stage_linking: false}, wo-compression: {schema_compression: false}}
    grid: {simplex: [gamma, alpha, beta], step: 0.5}`, "[{name: a}]", "[0]"},
		{"one-model backbone and several entries", `
  - name: sc
    label: sc wide
    params: {k: 5}
    backbones: {reason: [s2]}
  - name: sc
    skip_full: true
    ablations: {a1: {k: 2}, a2: {k: 4}}
    seeds: [3, 4]`, "[{name: a}, {name: b, split: dev}]", "[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.ParseSpec([]byte(`benchmarks: `+tc.benches+`
models:
  s1: {backend: sim}
  s2: {backend: sim, p: 0.9}
roles: {reason: s1}
seeds: `+tc.seeds+`
runners:`+tc.runners+"\n"), "x.yaml")
			if err != nil {
				t.Fatal(err)
			}
			p, err := spec.NewPlan(s)
			if err != nil {
				t.Fatal(err)
			}
			// Through JSON, as a store holds them: numbers come back
			// as float64.
			var stored []runstore.RunTrial
			for _, tr := range p.Trials {
				b, err := json.Marshal(tr)
				if err != nil {
					t.Fatal(err)
				}
				var back spec.Trial
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				back.Identity = nil
				stored = append(stored, runstore.RunTrial{Trial: back})
			}
			runstore.DeriveIdentities(stored)
			for i, tr := range p.Trials {
				if got, want := stored[i].Identity, tr.Identity; !reflect.DeepEqual(got, want) {
					t.Errorf("trial %d %q: derived %+v; want %+v", i, tr.Label, *got, *want)
				}
			}
		})
	}
}

func TestIdentityLabel(t *testing.T) {
	tests := []struct {
		id   spec.Identity
		want string
	}{
		{spec.Identity{Name: "sc"}, "sc"},
		{spec.Identity{Name: "react-dsl iterate-sql", Seed: true}, "react-dsl iterate-sql seed=2"},
		{spec.Identity{Name: "iesr", Ablation: "wo-linking", Sweep: []spec.Setting{{Key: "n_rollout", Value: "8"}}, Bench: true}, "iesr wo-linking n_rollout=8 @mini"},
		{spec.Identity{Name: "iesr", Point: []spec.Setting{{Key: "alpha", Value: "0.2"}, {Key: "beta", Value: "0.3"}, {Key: "gamma", Value: "0.5"}}, Backbone: []spec.Setting{{Key: "reason", Value: "m"}}}, "iesr alpha=0.2,beta=0.3,gamma=0.5 reason=m"},
	}
	for _, tc := range tests {
		if got := tc.id.Label("mini", 2); got != tc.want {
			t.Errorf("Label(%+v) = %q; want %q", tc.id, got, tc.want)
		}
		if strings.Contains(tc.want, "@") != tc.id.Bench {
			t.Errorf("test case %q: Bench flag disagrees with the label", tc.want)
		}
	}
}

// TestBenchmarkNames checks that a benchmark's names derive from its Key:
// the datasets.Open name, and that a verdict file's dataset name and a
// run's key match through DatasetNameOf (compare's grouping).
func TestBenchmarkNames(t *testing.T) {
	tests := []struct {
		b            spec.BenchmarkSpec
		key, dataset string
	}{
		{spec.BenchmarkSpec{Name: "mini"}, "mini", "mini"},
		{spec.BenchmarkSpec{Name: "bird", Split: "minidev"}, "bird/minidev", "bird-minidev"},
		{spec.BenchmarkSpec{Name: "logiccat", Split: "mini500", Data: "x", Limit: 3}, "logiccat/mini500", "logiccat-mini500"},
	}
	for _, tc := range tests {
		if got := tc.b.Key(); got != tc.key {
			t.Errorf("%+v: Key = %q; want %q", tc.b, got, tc.key)
		}
		if got := tc.b.DatasetName(); got != tc.dataset {
			t.Errorf("%+v: DatasetName = %q; want %q", tc.b, got, tc.dataset)
		}
		if got := spec.DatasetNameOf(tc.dataset); got != tc.dataset {
			t.Errorf("DatasetNameOf(%q) = %q; want it unchanged", tc.dataset, got)
		}
	}
}
