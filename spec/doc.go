// Package spec reads experiment specs and expands them into plans: a
// Spec (YAML, with model files, --set overrides and profiles) is expanded
// by NewPlan into Trials, each with a stable id (a hash of its
// configuration), a readable label and its Identity. bench runs the
// plans; runstore records them and their results.
//
// # Spec
//
// A spec is strict YAML: unknown keys and bad values are errors naming the
// file, line and path ("spec.yaml:12: runners[2].params.n_rollout: unknown
// parameter"). Runner parameters are validated by building every trial's
// runner through the registry at plan time. `t2sbench help spec` lists
// every key with its default and an example (checked against Spec's yaml
// tags by cmd/t2sbench's TestHelpSpecCoversEveryKey); `t2sbench help
// runners` lists each runner's parameters (runners.Describe).
//
//	name: quickstart
//	out: runs/quickstart            # run directory; --out overrides
//	cache: ""                       # model + gold caches; default <out>/cache
//	benchmarks: [{name: mini, data: "", split: "", limit: 0, mode: ""}]
//	# tie_aware: true accepts any valid top-k for a gold ORDER BY ... LIMIT k with tied
//	# boundary rows (beyond the official rules; default false)
//	# LogicCat on MySQL/MariaDB: a SELECT-only account, DSN and password from
//	# the environment (default without mysql: $T2SBENCH_RO_DSN, $T2SBENCH_RO_PASSWORD)
//	#   {name: logiccat, mysql: {dsn_env: T2SBENCH_RO_DSN, password_env: T2SBENCH_RO_PASSWORD, timeout: 60s}}
//	models:                         # named backends
//	  sim:   {backend: sim, p: 0.6, seed: 7, role_p: {discriminator: 0.7}}
//	  local: {backend: openai, base_url: http://127.0.0.1:8000/v1, model: Qwen2.5-7B-Instruct,
//	          api_key_env: OPENAI_API_KEY, concurrency: 8, rpm: 0, tpm: 0, timeout: 120s, max_retries: 0,
//	          max_tokens: 0,                 # default token limit of requests that set none
//	          max_tokens_param: max_tokens,  # or max_completion_tokens (OpenAI o-series); switched on the server's 400
//	          structured: strict,            # JSON requests: strict | json_object | none; degraded on the server's 400
//	          replicas: [{base_url: http://127.0.0.1:8001/v1, concurrency: 8}]}  # more servers of the model (llm.Pool)
//	roles: {reason: sim}            # default role -> model binding
//	runners:
//	  - name: direct
//	  - name: sc
//	    params: {k: 5}
//	    sweep: {k: [3, 5, 8]}       # Cartesian product over the listed params
//	  - name: iesr
//	    label: iesr                 # label prefix (default: name)
//	    roles: {discriminator: local}
//	    ablations: {w/o-understanding: {stage_understanding: false}}
//	    skip_full: false            # true drops the un-ablated trial
//	    grid: {simplex: [alpha, beta, gamma], step: 0.1}
//	    backbones: {reason: [sim, local]}
//	    seeds: [0]                  # overrides the spec's seeds
//	seeds: [0]
//	workers: 8
//	timeout: 30s                    # per work item; 0 = none
//	prices: {local: {prompt: 0.0, completion: 0.0}}   # USD per 1M tokens
//
// Each runner entry expands to (full + ablations) x sweep product x simplex
// grid x backbone product x benchmarks x seeds trials. A trial's ID is a
// hash of its canonical configuration (runner, params, each role's model
// identity, benchmark, seed); its Label is readable ("sc k=5",
// "iesr w/o-understanding reason=local") and built from its Identity, the
// fields that tell it apart within the plan (entry name, ablation, sweep
// values, simplex point, backbones), which readers group trials by instead
// of parsing the label; neither enters the id. Throughput settings
// (concurrency, rate limits, timeouts), replicas and the key variable do
// not change ids. Roles a trial does not bind fall back to its "reason" model.
//
// A plan is capped at Spec.MaxTrials trials (DefaultMaxTrials); NewPlan
// counts before it expands and names the spec line of the grid step or
// runner entry that passes the cap.
//
// A Shard selects a deterministic slice of a plan's work items (--shard
// i/n).
package spec
