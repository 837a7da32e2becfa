package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/spec"
)

// experimentSpecs lists experiments/*.yaml.
func experimentSpecs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "experiments", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d specs under experiments/; want at least 10", len(files))
	}
	sort.Strings(files)
	return files
}

// TestExperimentSpecsPlan loads every spec under experiments/ and expands
// it into trials with the runners this command links, as `t2sbench run`
// does before it runs anything, so a spec broken by a renamed parameter or
// an unlinked runner fails CI. It also checks the conventions `make
// reproduce-sim` relies on: a header comment (the paper and table), a name
// equal to the file's, and only sim models bound by default, so that every
// spec runs offline.
func TestExperimentSpecsPlan(t *testing.T) {
	t.Parallel()
	// Trial counts of the paper-table specs: runners x backbones x
	// benchmarks (x ablations, sweeps, grids), from the specs' headers.
	wantTrials := map[string]int{
		"iesr-table1":       7 * 4 * 4, // 7 methods x 4 backbones x LogicCat, Archer, BIRD, Spider
		"iesr-efficiency":   2 * 2,     // 2 backbones x LogicCat, Archer
		"iesr-table2":       6 * 4,     // full + 5 stage ablations x 4 backbones
		"iesr-table3":       6,         // full + 5 action ablations
		"iesr-rollout":      2 * 5,     // (full, no-compression) x 5 rollout budgets
		"iesr-weights":      66,        // step-0.1 simplex over 3 weights: C(12, 2)
		"iesr-table4":       4,         // 4 understanding backbones
		"iesr-expansion":    4,         // (all-actions, paper) x (Ve, no Ve)
		"steinersql-table1": 2 * 4 * 3, // (standard, steinersql) x 4 backbones x LogicCat, Spider, BIRD
		"steinersql-table2": 9,         // full + 8 ablations
		"steinersql-fig4":   8,         // full + 7 design variants
		"react-table2":      5,
		"react-table3":      2 * 4, // (baseline, react-sql) x 4 backbones
		"react-table4":      3,
		"react-table6-7":    2,
		"alphasql-main":     2 * 3 * 2, // (direct, alphasql) x 3 backbones x BIRD, Spider
		"alphasql-actions":  1 + 6,     // direct + alphasql full and 5 action ablations
		"quickstart":        7,         // direct, cot, sc, react-dsl, steinersql, alphasql, iesr
	}
	seen := map[string]bool{}
	for _, f := range experimentSpecs(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("# ")) {
				t.Errorf("%s: want a header comment naming the paper and table", f)
			}
			sp, err := spec.LoadSpec(f)
			if err != nil {
				t.Fatal(err)
			}
			if sp.Name != name {
				t.Errorf("name = %q; want %q (the file's name, which reproduce-sim uses for its run directory)", sp.Name, name)
			}
			for _, m := range boundModels(sp) {
				if b := sp.Models[m].Backend; b != "sim" {
					t.Errorf("model %s bound with backend %s; want sim by default so the spec runs offline", m, b)
				}
			}
			plan, err := spec.NewPlan(sp)
			if err != nil {
				t.Fatal(err)
			}
			if want, ok := wantTrials[name]; ok && len(plan.Trials) != want {
				t.Errorf("%d trials; want %d", len(plan.Trials), want)
			}
			// What reproduce-sim runs: the spec's benchmarks replaced by mini.
			sp.Benchmarks = []spec.BenchmarkSpec{{Name: "mini"}}
			mini, err := spec.NewPlan(sp)
			if err != nil {
				t.Fatalf("on mini: %v", err)
			}
			if len(mini.Trials) == 0 || len(plan.Trials)%len(mini.Trials) != 0 {
				t.Errorf("%d trials on mini; want a divisor of %d", len(mini.Trials), len(plan.Trials))
			}
		})
	}
	for name := range wantTrials {
		if !seen[name] {
			t.Errorf("experiments/%s.yaml is missing", name)
		}
	}
}

// boundModels returns the models a spec's trials bind: the default roles,
// per-runner roles and backbones.
func boundModels(s *spec.Spec) []string {
	set := map[string]bool{}
	for _, m := range s.Roles {
		set[m] = true
	}
	for _, r := range s.Runners {
		for _, m := range r.Roles {
			set[m] = true
		}
		for _, ms := range r.Backbones {
			for _, m := range ms {
				set[m] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
