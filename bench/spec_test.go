package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/spec"
)

const goodSpec = `name: t
out: runs/t
benchmarks: [{name: mini}]
models:
  sim: {backend: sim, p: 0.6, seed: 7, role_p: {discriminator: 0.7}}
  local: {backend: openai, base_url: "http://127.0.0.1:8000/v1", model: m, api_key_env: KEY, concurrency: 8, timeout: 120s,
    max_tokens: 4096, max_tokens_param: max_completion_tokens, structured: json_object}
roles: {reason: sim}
runners:
  - name: direct
  - name: sc
    params: {k: 5}
    sweep: {k: [3, 5, 8]}
  - name: cot
    label: cot-local
    backbones: {reason: [sim, local]}
seeds: [0]
workers: 4
timeout: 30s
prices: {local: {prompt: 0.1, completion: 0.2}}
`

func TestParseSpecGood(t *testing.T) {
	s, err := spec.ParseSpec([]byte(goodSpec), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Workers != 4 || s.Timeout.String() != "30s" || s.Models["local"].Timeout.String() != "2m0s" {
		t.Errorf("workers, timeout = %d, %v, %v; want 4, 30s, 2m0s", s.Workers, s.Timeout, s.Models["local"].Timeout)
	}
	if l := s.Models["local"]; l.MaxTokens != 4096 || l.MaxTokensParam != "max_completion_tokens" || l.Structured != "json_object" {
		t.Errorf("local max_tokens, max_tokens_param, structured = %d, %q, %q; want 4096, max_completion_tokens, json_object", l.MaxTokens, l.MaxTokensParam, l.Structured)
	}
	if id := s.Models["local"].Identity(); id["structured"] != "json_object" || id["max_tokens"] != 4096 || id["max_tokens_param"] != nil {
		t.Errorf("identity = %v; want structured and max_tokens in it, not max_tokens_param (it does not change answers)", id)
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tr := range p.Trials {
		labels = append(labels, tr.Label)
	}
	want := "direct|sc k=3|sc k=5|sc k=8|cot-local reason=sim|cot-local reason=local"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("labels = %s; want %s", got, want)
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown top key", "name: x\nbenchmark: [{name: mini}]\n", "bad.yaml:2: benchmark: unknown key \"benchmark\""},
		{"unknown model key", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, pp: 1}\nrunners: [{name: direct}]\n", "3: models.s.pp: unknown key \"pp\" (did you mean \"p\"?)"},
		{"bad duration", "benchmarks: [{name: mini}]\ntimeout: soon\nrunners: [{name: direct}]\n", `2: timeout: bad duration "soon"`},
		{"bad type", "benchmarks: [{name: mini}]\nworkers: many\nrunners: [{name: direct}]\n", "2: workers: cannot unmarshal"},
		{"no runners", "benchmarks: [{name: mini}]\n", "bad.yaml: runners: at least one runner"},
		{"p out of range", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, p: 1.5}\nrunners: [{name: direct}]\n", "bad.yaml:3: models.s.p: 1.5 out of range"},
		{"unknown backend", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: gpt}\nrunners: [{name: direct}]\n", `models.s.backend: unknown backend "gpt"`},
		{"unknown role model", "benchmarks: [{name: mini}]\nroles: {reason: nope}\nrunners: [{name: direct}]\n", `bad.yaml:2: roles.reason: unknown model "nope"`},
		{"openai without url", "benchmarks: [{name: mini}]\nmodels:\n  l: {backend: openai, model: m}\nrunners: [{name: direct}]\n", "models.l.base_url: required"},
		{"bad grid step", "benchmarks: [{name: mini}]\nrunners:\n  - name: direct\n    grid: {simplex: [a, b], step: 0.3}\n", "runners[0].grid.step: 0.3 does not divide 1"},
		{"bad structured", "benchmarks: [{name: mini}]\nmodels:\n  l: {backend: openai, base_url: \"http://x/v1\", model: m, structured: loose}\nrunners: [{name: direct}]\n", `bad.yaml:3: models.l.structured: "loose" must be strict, json_object or none`},
		{"bad max_tokens_param", "benchmarks: [{name: mini}]\nmodels:\n  l: {backend: openai, base_url: \"http://x/v1\", model: m, max_tokens_param: max_new_tokens}\nrunners: [{name: direct}]\n", `models.l.max_tokens_param: "max_new_tokens" must be max_tokens or max_completion_tokens`},
		{"openai option on sim", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, structured: none}\nrunners: [{name: direct}]\n", "models.s: max_tokens, max_tokens_param and structured apply to the openai backend only"},
		{"sim option on openai", "benchmarks: [{name: mini}]\nmodels:\n  o: {backend: openai, base_url: http://127.0.0.1:1/v1, model: m, style: realistic}\nrunners: [{name: direct}]\n", "models.o: p, role_p, style, cut_rate, reasoning_rate, the *_penalty keys, rho and profile apply to the sim backend only"},
		{"penalty on openai", "benchmarks: [{name: mini}]\nmodels:\n  o: {backend: openai, base_url: http://127.0.0.1:1/v1, model: m, value_penalty: 0.5}\nrunners: [{name: direct}]\n", "models.o: p, role_p, style, cut_rate, reasoning_rate, the *_penalty keys, rho and profile apply to the sim backend only"},
		{"penalty out of range", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, evidence_penalty: 1.5}\nrunners: [{name: direct}]\n", "models.s.evidence_penalty: 1.5 out of range [0, 1]"},
		{"rho out of range", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, rho: 1}\nrunners: [{name: direct}]\n", "models.s.rho: 1 out of range [0, 1)"},
		{"unknown profile", "benchmarks: [{name: mini}]\nmodels:\n  s: {backend: sim, profile: gpt-5}\nrunners: [{name: direct}]\n", `models.s.profile: unknown profile "gpt-5"`},
		{"rho on openai", "benchmarks: [{name: mini}]\nmodels:\n  o: {backend: openai, base_url: http://127.0.0.1:1/v1, model: m, rho: 0.5}\nrunners: [{name: direct}]\n", "models.o: p, role_p, style, cut_rate, reasoning_rate, the *_penalty keys, rho and profile apply to the sim backend only"},
		{"empty", "", "empty spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseSpec([]byte(tt.yaml), "bad.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want containing %q", err, tt.want)
			}
		})
	}
}

func TestPlanParamErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: direct\n  - name: direct\n    label: d2\n    params: {max_tokens: 512}\n  - name: sc\n    params:\n      n_rollout: 3\n", "bad.yaml:9: runners[2].params.n_rollout: unknown parameter"},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: sc\n    sweep: {k: [3, 0]}\n", "runners[0].params.k: 0 out of range"},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: nosuch\n", `bad.yaml:3: runners[0]: unknown runner "nosuch"`},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: direct\n  - name: direct\n    params: {max_tokens: 512}\n", `label "direct" is used twice`},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: sc\n    params: {k: 3}\n  - name: sc\n    label: again\n    params: {k: 3}\n", "same configuration"},
		// A factory that wraps its parameter error (iesr: ...) is placed
		// at the parameter's line too (runners.ParamError's key), also for
		// a constraint its own validation checks, and for a list element.
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: iesr\n    params:\n      top_p: 0.5\n      n_rollout: 0\n", "bad.yaml:6: runners[0]: iesr: params.n_rollout: 0 out of range"},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: iesr\n    params:\n      top_p: 0.5\n      alpha: 2\n", "bad.yaml:6: runners[0]: iesr: params.alpha: 2 out of range [0, 1]"},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: iesr\n    params:\n      top_p: 0.5\n      disc_cuts: [0.5, 2]\n", "bad.yaml:6: runners[0]: iesr: params.disc_cuts[1]: 2 out of range (0, 1)"},
		{"benchmarks: [{name: mini}]\nrunners:\n  - name: alphasql\n    params:\n      n_rollout: 4\n      disable_actions: [A5]\n", "bad.yaml:6: runners[0].params.disable_actions: [\"A5\"] not removable"},
	}
	for _, tt := range tests {
		s, err := spec.ParseSpec([]byte(tt.yaml), "bad.yaml")
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		_, err = spec.NewPlan(s)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("plan err = %v; want containing %q", err, tt.want)
		}
	}
}

// FuzzParseSpec checks the loader never panics and that every accepted
// spec either plans or fails with an error.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(goodSpec))
	f.Add([]byte("benchmarks: [{name: mini}]\nrunners: [{name: sc, sweep: {k: [1, 2]}, grid: {simplex: [a, b], step: 0.5}}]\n"))
	f.Add([]byte("a: [1, {b: c}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := spec.ParseSpec(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(s.Runners) > 4 {
			return // keep plans small
		}
		for _, r := range s.Runners {
			if len(r.Sweep) > 2 || r.Grid != nil && r.Grid.Step < 0.1 {
				return
			}
		}
		_, _ = spec.NewPlan(s)
	})
}

// TestDefaultEnvLogicCatNeedsMySQL is a regression test: a spec naming
// logiccat ran its MySQL-dialect gold on the SQLite files (most hold no
// rows) when no server was configured; it must refuse, naming the
// variables `datasets load-mysql` prints.
func TestDefaultEnvLogicCatNeedsMySQL(t *testing.T) {
	t.Setenv("T2SBENCH_MYSQL_DSN", "")
	t.Setenv("T2SBENCH_RO_DSN", "")
	env, closeEnv := DefaultEnv()
	defer closeEnv()
	_, err := env.OpenBenchmark(context.Background(), spec.BenchmarkSpec{Name: "logiccat", Data: t.TempDir()}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "T2SBENCH_RO_DSN and T2SBENCH_RO_PASSWORD") {
		t.Errorf("got %v; want an error naming T2SBENCH_RO_DSN and T2SBENCH_RO_PASSWORD", err)
	}
	for name, want := range map[string]bool{"logiccat": true, "logiccat-mini500": true, "logiccat-sqlite": false, "logiccat-sqlite-mini500": false, "spider": false} {
		if got := datasets.NeedsServer(name); got != want {
			t.Errorf("datasets.NeedsServer(%q) = %v; want %v", name, got, want)
		}
	}
}
