package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/spec"
)

// backboneSpec has two runner entries: direct over two simulated
// backbones, and iesr with spec-wide understand and discriminator models
// and its own reason binding.
const backboneSpec = `name: bb
benchmarks: [{name: mini, limit: 2}]
models:
  sim-qwen25-coder-7b: {backend: sim, p: 0.4, seed: 7}
  sim-qwen25-coder-14b: {backend: sim, p: 0.45, seed: 7}
  sim-understand: {backend: sim, p: 0.6, seed: 11}
  sim-disc: {backend: sim, p: 0.5, seed: 13}
roles: {reason: sim-qwen25-coder-7b, understand: sim-understand, discriminator: sim-disc}
runners:
  - name: direct
    backbones: {reason: [sim-qwen25-coder-7b, sim-qwen25-coder-14b]}
  - name: iesr
    params: {n_rollout: 2}
    roles: {reason: sim-qwen25-coder-14b}
`

// realModels binds the 7B name to a served model, as the spec's header
// says to.
const realModels = `sim-qwen25-coder-7b: {backend: openai, base_url: http://127.0.0.1:8000/v1, model: Qwen2.5-Coder-7B-Instruct}
`

// TestBoundModelLabels: a trial's label names the model that answers: a
// spec model that --models or --set rebinds to a real backend is named by
// its served model, a simulated one by its spec name.
func TestBoundModelLabels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(models, []byte(realModels), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  spec.LoadOptions
		want []string
	}{
		{"spec as written", spec.LoadOptions{}, []string{"direct reason=sim-qwen25-coder-7b", "direct reason=sim-qwen25-coder-14b", "iesr"}},
		{"--models", spec.LoadOptions{Models: []string{models}}, []string{"direct reason=Qwen2.5-Coder-7B-Instruct", "direct reason=sim-qwen25-coder-14b", "iesr"}},
		{"--set", spec.LoadOptions{Set: []string{"models.sim-qwen25-coder-14b={backend: openai, base_url: 'http://h:8001/v1', model: Qwen2.5-Coder-14B-Instruct}"}},
			[]string{"direct reason=sim-qwen25-coder-7b", "direct reason=Qwen2.5-Coder-14B-Instruct", "iesr"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.ParseSpecWith([]byte(backboneSpec), "bb.yaml", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			p, err := spec.NewPlan(s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range p.Trials {
				got = append(got, tr.Label)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("labels %q; want %q", got, tc.want)
			}
		})
	}
}

// TestBackboneFlag: --backbone binds one model to every role of every
// runner entry (spec-wide roles, an entry's own roles, backbones lists),
// and an unknown name is refused with the spec's model names.
func TestBackboneFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(models, []byte(realModels), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		opt        spec.LoadOptions
		wantLabels []string
		wantModel  string // bound to every role of every trial
		wantErr    string
	}{
		{name: "sim backbone", opt: spec.LoadOptions{Backbone: "sim-qwen25-coder-14b"},
			wantLabels: []string{"direct reason=sim-qwen25-coder-14b", "iesr"}, wantModel: "sim-qwen25-coder-14b"},
		{name: "real backbone through --models", opt: spec.LoadOptions{Models: []string{models}, Backbone: "sim-qwen25-coder-7b"},
			wantLabels: []string{"direct reason=Qwen2.5-Coder-7B-Instruct", "iesr"}, wantModel: "sim-qwen25-coder-7b"},
		{name: "unknown", opt: spec.LoadOptions{Backbone: "qwen"},
			wantErr: "--backbone qwen: not a model of the spec, whose models are: sim-disc, sim-qwen25-coder-14b, sim-qwen25-coder-7b, sim-understand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.ParseSpecWith([]byte(backboneSpec), "bb.yaml", tc.opt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v; want one holding %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := spec.NewPlan(s)
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, tr := range p.Trials {
				labels = append(labels, tr.Label)
				// Every role the trials bound before is bound to the one
				// model now.
				for _, role := range []string{"reason", "understand", "discriminator"} {
					if got := tr.Roles[role]; got != tc.wantModel {
						t.Errorf("trial %s: role %s bound to %q; want %q", tr.Label, role, got, tc.wantModel)
					}
				}
				if len(tr.Models) != 1 {
					t.Errorf("trial %s binds models %v; want only %s", tr.Label, tr.Models, tc.wantModel)
				}
			}
			if !slices.Equal(labels, tc.wantLabels) {
				t.Errorf("labels %q; want %q", labels, tc.wantLabels)
			}
		})
	}
}
