package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/spec"
)

const overlayBase = `name: t
benchmarks: [{name: mini}]
models:
  gpt: {backend: sim, p: 0.5}
  small: {backend: sim}
roles: {reason: gpt}
runners:
  - name: direct
  - name: sc
    params: {k: 3}
workers: 2
`

func fakeEnv(vars map[string]string) spec.Lookup {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestInterpolation(t *testing.T) {
	env := fakeEnv(map[string]string{"URL": "http://h:8000/v1", "W": "6", "EMPTY": ""})
	yml := "name: t\nbenchmarks: [{name: mini}]\nmodels:\n  m: {backend: openai, base_url: \"${URL}\", model: \"${MODEL:-qwen}\"}\nroles: {reason: m}\nrunners: [{name: direct}]\nworkers: ${W}\nout: \"$${HOME}/${EMPTY:-runs}\"\n"
	s, err := spec.ParseSpecWith([]byte(yml), "s.yaml", spec.LoadOptions{Lookup: env})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Models["m"]; m.BaseURL != "http://h:8000/v1" || m.Model != "qwen" {
		t.Errorf("base_url, model = %q, %q; want http://h:8000/v1, qwen", m.BaseURL, m.Model)
	}
	if s.Workers != 6 {
		t.Errorf("workers = %d; want 6 (a plain ${W} is typed after substitution)", s.Workers)
	}
	if s.Out != "${HOME}/runs" {
		t.Errorf("out = %q; want ${HOME}/runs ($${ is a literal, :- covers an empty variable)", s.Out)
	}

	errs := []struct{ name, yaml, want string }{
		{"missing", "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nout: ${NOPE}\n", "s.yaml:3: out: environment variable NOPE is not set"},
		{"secret name", "benchmarks: [{name: mini}]\nmodels:\n  m: {backend: openai, base_url: \"http://x/${OPENAI_API_KEY}\", model: m}\nrunners: [{name: direct}]\n", "OPENAI_API_KEY names a credential"},
		{"unclosed", "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nout: ${W\n", `s.yaml:3: out: unclosed "${W"`},
		{"bad name", "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nout: ${1X}\n", `bad variable name "1X"`},
		{"typed error keeps the line", "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nworkers: ${URL}\n", "s.yaml:3: workers: cannot unmarshal"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseSpecWith([]byte(tt.yaml), "s.yaml", spec.LoadOptions{Lookup: env})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
		})
	}
	// A URL with a password from the environment is refused.
	_, err = spec.ParseSpecWith([]byte("benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nmodels:\n  m: {backend: openai, base_url: \"${U}\", model: m}\n"), "s.yaml",
		spec.LoadOptions{Lookup: fakeEnv(map[string]string{"U": "http://u:hunter2@h/v1"})})
	if err == nil || !strings.Contains(err.Error(), "URL with a password") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("got %v; want a refusal that does not repeat the password", err)
	}
}

// TestAPIKeyEnvInterpolated: api_key_env may itself be interpolated; the
// key is still read from the variable it names and redacted (Secrets).
func TestAPIKeyEnvInterpolated(t *testing.T) {
	t.Setenv("T2SBENCH_TEST_WHICH", "T2SBENCH_TEST_K")
	t.Setenv("T2SBENCH_TEST_K", "sk-interp-123")
	s, err := spec.ParseSpec([]byte("benchmarks: [{name: mini}]\nmodels:\n  m: {backend: openai, base_url: http://h/v1, model: m, api_key_env: \"${T2SBENCH_TEST_WHICH}\"}\nroles: {reason: m}\nrunners: [{name: direct}]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Secrets(); len(got) != 1 || got[0] != "sk-interp-123" {
		t.Errorf("secrets = %v; want the key named by the interpolated api_key_env", got)
	}
}

func TestModelsOverlay(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "gpt:\n  backend: openai\n  base_url: ${BASE}\n  model: qwen\n")
	wrapped := write("wrapped.yaml", "models:\n  small: {backend: openai, base_url: http://s/v1, model: s}\n")
	s, err := spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Models: []string{good, wrapped}, Lookup: fakeEnv(map[string]string{"BASE": "http://b/v1"})})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Models["gpt"]; m.Backend != "openai" || m.BaseURL != "http://b/v1" || m.P != nil {
		t.Errorf("gpt = %+v; want the overlay's openai model, replacing (not merging) the sim one", m)
	}
	if m := s.Models["small"]; m.Model != "s" {
		t.Errorf("small = %+v; want the wrapped overlay's", m)
	}
	tests := []struct{ name, text, want string }{
		{"unknown name", "gtp: {backend: sim}\n", `bad.yaml:1: model "gtp" is not in the spec, whose models are: gpt, small`},
		{"bad value names the overlay", "gpt:\n  backend: openai\n  model: m\n  base_url: http://x/v1\n  concurrency: lots\n", "bad.yaml:5: models.gpt.concurrency: cannot unmarshal"},
		{"validation names the overlay", "gpt:\n  backend: openai\n  model: m\n", "bad.yaml:1: models.gpt.base_url: required"},
		{"not a mapping", "- gpt\n", "bad.yaml:1: want a mapping of model names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := write("bad.yaml", tt.text)
			_, err := spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Models: []string{f}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSetOverrides(t *testing.T) {
	s, err := spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Set: []string{
		"workers=4", "runners.1.params.k=8", "runners[0].params.evidence=false", "models.gpt.p=0.9", "seeds=[1, 2]", "roles.understand=small",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workers != 4 || s.Runners[1].Params["k"] != 8 || s.Runners[0].Params["evidence"] != false || *s.Models["gpt"].P != 0.9 ||
		len(s.Seeds) != 2 || s.Roles["understand"] != "small" {
		t.Errorf("got workers %d, k %v, evidence %v, p %v, seeds %v, roles %v; want 4, 8, false, 0.9, [1 2], understand=small",
			s.Workers, s.Runners[1].Params["k"], s.Runners[0].Params["evidence"], *s.Models["gpt"].P, s.Seeds, s.Roles)
	}
	tests := []struct{ set, want string }{
		{"wokers=4", `--set wokers=4: wokers: unknown key (did you mean "workers"?) (known here: benchmarks, cache,`},
		{"runners.5.params.k=1", `--set runners.5.params.k=1: runners.5: index "5" out of range (the list has 2 entries`},
		{"models.gtp.p=1", `--set models.gtp.p=1: models.gtp: no model "gtp" in the spec (models: gpt, small)`},
		{"models.gpt.temprature=1", `models.gpt.temprature: unknown key`},
		{"workers=many", "--set workers=many: workers: cannot unmarshal"},
		{"workers=-1", "--set workers=-1: workers: negative worker count -1"},
		{"models.gpt.p=2", "--set models.gpt.p=2: models.gpt.p: 2 out of range"},
		{"workers", "want key.path=value"},
		{"workers.x=1", "workers: is a int value"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Set: []string{tt.set}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
		})
	}
	// A runner parameter set on the command line is checked by the
	// runner, and the error names the --set.
	s, err = spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Set: []string{"runners.1.params.k=0"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.NewPlan(s); err == nil {
		t.Log("sc k=0: the registry in bench tests has no sc runner; skipped")
	}
}

// FuzzSetOverride checks that no --set expression panics the loader and
// that every error names the expression or the spec.
func FuzzSetOverride(f *testing.F) {
	for _, s := range []string{"workers=4", "runners.1.params.k=8", "runners[0].params.x.y=1", "models.gpt.p=0.9", "seeds=[1, 2]",
		"roles.understand=small", "benchmarks.0.mysql.dsn=x", "runners.0.grid.simplex=[a, b]", "=", "a..b=1", "models=1", "runners=[{name: x}]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		_, err := spec.ParseSpecWith([]byte(overlayBase), "spec.yaml", spec.LoadOptions{Set: []string{expr}})
		if err != nil && !strings.HasPrefix(err.Error(), "--set ") && !strings.HasPrefix(err.Error(), "spec.yaml") {
			t.Fatalf("error %q names neither the --set nor the spec", err)
		}
	})
}
