package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
	"github.com/t2sbench/t2sbench/spec"
)

// specKey documents one key of the spec: its default and an example value.
// The list of keys itself comes from spec.Spec's yaml tags (specPaths);
// TestHelpSpecCoversEveryKey fails when a key has no entry here.
type specKey struct {
	path, def, example, doc string
}

// specDocs are the spec's keys in the order `help spec` prints them.
// "<name>" stands for a name the spec chooses (a model's, a role's).
var specDocs = []specKey{
	{"name", `""`, "quickstart", "experiment name; reports use it as their title"},
	{"out", `""`, "runs/quickstart", "run directory (run.db, caches, reports); --out overrides it"},
	{"cache", "<out>/cache", "/data/t2s-cache", "directory of the model-response and gold-result caches, shareable between runs"},
	{"benchmarks[].name", "(required)", "bird", "benchmark: " + strings.Join(benchNames(), ", ")},
	{"benchmarks[].data", "the loader's default (the shared data's datasets/<name>)", "/data/bird", "data directory of the benchmark (t2sbench datasets list shows what a folder holds)"},
	{"benchmarks[].split", `""`, "minidev", "split where a benchmark has several (bird: minidev, dev-2023-05; logiccat: mini500, full-gold)"},
	{"benchmarks[].limit", "0 (all)", "50", "keep the first N questions"},
	{"benchmarks[].mode", "the benchmark's official rule", "spider-keep-distinct", "EX comparator: " + strings.Join(modeNames(), ", ")},
	{"benchmarks[].tie_aware", "false", "true", "beyond the official rules: accept any valid top-k for a gold ORDER BY ... LIMIT k whose boundary rows tie"},
	{"benchmarks[].max_result_mb", fmt.Sprint(datasets.DefaultMaxBytes >> 20), "256", "byte budget of one query result in MiB; over it the prediction scores pred_error"},
	{"benchmarks[].mysql.dsn", `""`, "t2s_ro@tcp(127.0.0.1:3306)/", "LogicCat on MySQL/MariaDB: DSN of the SELECT-only account, without password (set dsn or dsn_env)"},
	{"benchmarks[].mysql.dsn_env", `""`, mysqlDSNEnv, "environment variable holding that DSN"},
	{"benchmarks[].mysql.password_env", `""`, mysqlPasswordEnv, "environment variable holding the account's password"},
	{"benchmarks[].mysql.timeout", fmt.Sprint(datasets.DefaultTimeout), "60s", "per-query limit on the server"},
	{"models.<name>.backend", "(required)", "openai", "sim (the offline simulator) or openai (any OpenAI-compatible server: vLLM, Ollama, OpenAI)"},
	{"models.<name>.p", fmt.Sprint(sim.DefaultP), "0.7", "sim: probability of a correct answer"},
	{"models.<name>.seed", "0", "7", "sim: random seed"},
	{"models.<name>.role_p", "{}", "{discriminator: 0.7}", "sim: p by role"},
	{"models.<name>.style", "clean", "realistic", "sim: answer style, clean or realistic (fences, prose, <think>, cut answers)"},
	{"models.<name>.cut_rate", fmt.Sprint(sim.DefaultCutRate), "0.05", "sim, realistic style: share of samples cut at max_tokens"},
	{"models.<name>.reasoning_rate", fmt.Sprint(sim.DefaultReasoningRate), "0.5", "sim, realistic style: share of samples with a reasoning block"},
	{"models.<name>.schema_penalty", fmt.Sprint(sim.DefaultSchemaPenalty), "0.5", "sim: penalty for naming schema it was not shown, in [0, 1]"},
	{"models.<name>.value_penalty", fmt.Sprint(sim.DefaultValuePenalty), "0.5", "sim: penalty for guessing a stored value's spelling, in [0, 1]"},
	{"models.<name>.evidence_penalty", fmt.Sprint(sim.DefaultEvidencePenalty), "0", "sim: relative EX drop without the benchmark's evidence, in [0, 1]"},
	{"models.<name>.rho", fmt.Sprint(sim.DefaultRho), "0.5", "sim: intra-question correlation of samples (question difficulty, repeated mistakes), in [0, 1)"},
	{"models.<name>.profile", sim.DefaultProfile, "gpt-4o", "sim: backbone profile of intermediate answers (IESR Table 4 precision/recall): " + strings.Join(sim.ProfileNames(), ", ")},
	{"models.<name>.base_url", "(required for openai)", "http://127.0.0.1:8000/v1", "OpenAI-compatible endpoint"},
	{"models.<name>.model", "(required for openai)", "Qwen2.5-7B-Instruct", "served model name (what GET <base_url>/models lists)"},
	{"models.<name>.api_key_env", `""`, "OPENAI_API_KEY", "environment variable holding the API key (never stored)"},
	{"models.<name>.concurrency", fmt.Sprint(llm.DefaultMaxConcurrency), "8", "requests in flight to the endpoint"},
	{"models.<name>.rpm", "0 (unlimited)", "600", "requests per minute"},
	{"models.<name>.tpm", "0 (unlimited)", "200000", "tokens per minute"},
	{"models.<name>.timeout", fmt.Sprint(llm.DefaultTimeout), "300s", "per-request limit"},
	{"models.<name>.max_retries", fmt.Sprint(llm.DefaultMaxRetries), "2", "retries after the first attempt (negative: none)"},
	{"models.<name>.max_tokens", "0 (the server's)", "4096", "token limit of requests that set none"},
	{"models.<name>.max_tokens_param", "max_tokens", "max_completion_tokens", "request field carrying token limits (OpenAI o-series: max_completion_tokens); switched on the server's 400"},
	{"models.<name>.structured", "strict", "json_object", "JSON requests: strict, json_object or none; degraded on the server's 400"},
	{"models.<name>.max_response_bytes", fmt.Sprint(llm.DefaultMaxResponseBytes), "67108864", "cap on an answer's bytes after decompression; over it the call fails (malformed)"},
	{"models.<name>.max_choice_bytes", fmt.Sprint(llm.DefaultMaxChoiceBytes), "1048576", "cap on one choice's text (answer and reasoning); over it the call fails (malformed)"},
	{"models.<name>.replicas[].base_url", "(required)", "http://127.0.0.1:8001/v1", "another server of the same model; requests are balanced over all"},
	{"models.<name>.replicas[].api_key_env", "the model's", "OTHER_KEY", "its key's environment variable"},
	{"models.<name>.replicas[].concurrency", "the model's", "8", "its requests in flight"},
	{"models.<name>.replicas[].rpm", "the model's", "600", "its requests per minute"},
	{"models.<name>.replicas[].tpm", "the model's", "200000", "its tokens per minute"},
	{"roles", "(required: at least reason)", "{reason: local, discriminator: big}", "default model per role; a role a trial does not bind falls back to its reason model (t2sbench help runners lists each runner's roles)"},
	{"runners[].name", "(required)", "sc", "runner (t2sbench help runners)"},
	{"runners[].label", "the runner's name", "iesr-7b", "prefix of the trials' readable labels"},
	{"runners[].params", "the runner's defaults", "{k: 8}", "runner parameters (t2sbench help runners)"},
	{"runners[].roles", "the spec's roles", "{discriminator: local}", "role bindings of this runner, over the spec's"},
	{"runners[].sweep", "{}", "{k: [3, 5, 8]}", "values per parameter; one trial per combination"},
	{"runners[].ablations", "{}", "{w/o-understanding: {stage_understanding: false}}", "named parameter overrides, each a trial beside the full configuration"},
	{"runners[].skip_full", "false", "true", "drop the full (un-ablated) trial"},
	{"runners[].grid.simplex", "[]", "[alpha, beta, gamma]", "weights expanded over a simplex (summing to 1)"},
	{"runners[].grid.step", "(required with simplex)", "0.1", "grid step"},
	{"runners[].backbones", "{}", "{reason: [sim, local]}", "models per role; one trial per combination"},
	{"runners[].seeds", "the spec's seeds", "[0, 1, 2]", "seeds of this runner's trials"},
	{"seeds", "[0]", "[0, 1, 2]", "seeds every trial runs with"},
	{"workers", fmt.Sprint(spec.DefaultWorkers), "32", "work items (trial, question) run at once; --workers overrides it"},
	{"timeout", "0 (none)", "300s", "limit of one work item; an item over it is scored on the SQL it has, class timeout"},
	{"prices.<name>.prompt", "0", "0.15", "USD per million prompt tokens of model <name>"},
	{"prices.<name>.completion", "0", "0.60", "USD per million completion tokens of model <name>"},
	{"max_trials", fmt.Sprint(spec.DefaultMaxTrials), "50000", "cap on the trials a spec expands to, at most " + fmt.Sprint(spec.MaxTrialsCeiling) + " (a typo in a grid step is caught before anything runs)"},
}

// benchNames are the names a spec's benchmarks[].name takes, from the
// datasets registry.
func benchNames() []string { return datasets.SpecNames() }

func modeNames() []string {
	all := metrics.AllModes()
	out := make([]string, len(all))
	for i, m := range all {
		out[i] = string(m)
	}
	return out
}

// specPaths lists every key spec.Spec decodes, as specDocs writes them:
// list elements as "[]", map entries of structures as ".<name>".
func specPaths() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			p := prefix + tag
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case ft.Kind() == reflect.Struct:
				walk(ft, p+".")
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), p+"[].")
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), p+".<name>.")
			default:
				out = append(out, p)
			}
		}
	}
	walk(reflect.TypeOf(spec.Spec{}), "")
	return out
}

func helpSpec(w io.Writer) {
	fmt.Fprintln(w, `A spec is a YAML file (t2sbench run SPEC). Unknown keys and bad values are errors naming
the file, line and key. ${VAR} and ${VAR:-default} are read from the environment.
Examples: experiments/*.yaml (t2sbench run --dry-run SPEC shows what a spec expands to).

Each runner entry expands to (full + ablations) x sweep x grid x backbones x benchmarks x seeds
trials. A trial's id hashes its runner, parameters, each role's model identity, benchmark and
seed: concurrency, rate limits, timeouts, replicas and key variables change no id, so editing
them resumes the same trials. Rerunning a spec resumes it.

Keys (default; example):`)
	for _, k := range specDocs {
		fmt.Fprintf(w, "  %s\n      %s\n      default: %s    example: %s\n", k.path, k.doc, k.def, k.example)
	}
	fmt.Fprintln(w, `
A minimal spec:

  name: quickstart
  benchmarks: [{name: mini}]
  models: {sim: {backend: sim, p: 0.6}}
  roles: {reason: sim}
  runners:
    - name: direct
    - name: sc
      params: {k: 5}`)
}
