// Package bench orchestrates experiments: a Spec (YAML) is expanded by
// NewPlan into Trials, Run executes every (trial, question) work item with
// a bounded worker pool, scores it, and commits it to the run's Store.
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
// # Store
//
// One SQLite file per run directory (run.db, WAL): trials (config JSON),
// items (status, verdict, error class, timings, session, and a digest of
// the result: final SQL, usage by role, trace counters), results (each
// item's whole result, SQL, candidates, trace and usage, as DEFLATE-
// compressed JSON, or JSON text when short: see encodeResult; stores written before kept it as JSON
// text in items.result, and every reader reads both), model_calls (one row per request,
// written before the request is sent and completed when it returns, so a
// killed run keeps its calls in flight, state "sent"), endpoint_stats
// (per model and endpoint of models with replicas: calls, errors,
// ejections, latency, tokens; added up over sessions and merged shards)
// and meta (name, simulated, item totals, the spec's text and its
// trials' ids). One goroutine writes, in batches (group commit): the
// finished items (Commit) and the call log's rows join an open
// transaction, committed every BatchItems items or BatchWait after its
// first write, whichever comes first, by any other write (meta, trials),
// by Flush and by Close, and before a request the model cache cannot
// answer is sent to a server (llm.WithBeforeSend; not for sim, which runs
// in the process): a call a server may bill is on disk before it is sent.
// Run flushes before it returns, however it stops. The writes reach the
// file in the order they were made, so a kill loses a suffix of them, at
// most the open batch: its items are pending on resume (their calls
// answered from the model cache), and a committed item is never lost,
// redone or stored twice. A call's completion joins the open batch, so a
// kill may leave the calls of its last BatchWait marked "sent" although
// they were answered. The trade-off: readers see a run's items up to
// BatchWait late, and a killed run redoes up to BatchWait of work; in
// return a simulated or replayed run writes about 16 times less to disk
// (one commit per item and per call rewrote the pages each touched into
// the write-ahead log: the paper-scale spec, all sim, wrote 8.5 GB for
// the 116 MB of store and model cache it keeps, 0.54 GB in batches). A run
// against a server commits before every request it sends, so it saves
// far less. The model cache (NewEnv) keeps the answers of a model in the
// process in batches too (llm.Cache.SetBatch) and commits a server's
// answer as it arrives, so that a kill loses no answer a server billed;
// Run commits the cache's batch before each of the store's, so that the
// cache keys committed calls name are in the cache. The log is
// checkpointed every WALCheckpointPages pages and truncated at Close;
// synchronous is NORMAL (a power loss may undo the last commits, never a
// killed process). A write that fails ends its batch when SQLite rolled
// it back (a full disk): the batch is lost, and every later write, Flush
// and Close fails with ErrBatchLost, so the run stops with it. A store
// migrated from an older layout is vacuumed, when it can be (a failed
// vacuum is a notice, Store.Notices). A done or failed item is
// never replaced (ErrAlreadyDone). OpenStore holds an exclusive lock on
// the directory (LockFile) until Close; readers take none. Readers read what they show:
// SummarizeDir (status, the summary of run) streams statuses and verdicts
// and totals the call log in SQL, and compares each system with its
// baseline; SummarizeDirTrials (merge) leaves the comparisons out;
// LoadRunSystems (compare) streams outcomes; ReadRunStream (report, the
// viewer, export) reads the digests, no trace, one trial at a time
// (RunData.EachItem, EachVerdict, LoadItems), so that a reader holds the
// items of one trial at most; OpenItemReader (the viewer) reads one item's result
// at a time. ReadRun with results reads everything. RunData.Simulated says
// whether any trial used the sim backend, and such reports must be titled
// "simulated model".
//
// # Scheduling, resume, shards
//
// Run skips items the store holds as finished (done or failed), so
// rerunning a spec resumes it; a changed configuration is a new trial that
// never mixes with the old: a run directory holds one spec. Run records
// the ids of the plan's trials (MetaPlan) with the trials and refuses a
// plan whose trials differ from the stored ones with a *SpecChangedError
// naming each difference (a trial new, no longer in the spec, or with
// another parameter, role binding, model identity, benchmark field,
// tie_aware or seed), before it writes anything; Options.ReplaceTrials
// instead removes the changed and dropped trials with their items,
// results and calls (Summary.Removed). A label alone, workers, timeouts,
// max_result_mb, prices, a model's throughput settings, --limit and
// --shard are not a trial's identity and continue a run. Readers return
// the spec's trials; the trials of earlier specs that a store written
// before can hold are RunData.Stale (ReadOptions.AllTrials includes
// them), and Merge refuses shards of different specs. Summary.Unselected
// counts the pending items the run's Limit and Shard leave alone.
// Canceling the context (SIGINT in the CLI) stops
// cleanly: items in flight are not committed. A runner error gets its
// class from llm's one classifier (Classify: llm.ErrorClass, itself
// llm.Classify of an HTTP status and the server's message, or of a
// transport error), and the class's llm.Outcome decides (FailureOf):
//   - permanent, llm.OutcomeRefused (bad_request: HTTP 400 or 422, or any
//     status whose message refuses the request, such as a prompt over the
//     context length or a rejected schema; http_<code>: another 4xx):
//     recorded at once as StatusFailed with its class and message, scored
//     with an empty prediction so that it counts as wrong, and never
//     retried;
//   - infrastructure, llm.OutcomeTransient (network, timeout with HTTP
//     408, rate_limited, server_error after the client's retries,
//     malformed, canceled, deadline), or a database that does not open:
//     recorded as StatusError, pending, and retried by the next run; a
//     failure that is not a model call's (a database that does not open)
//     is first retried (Options.Retries, default 2);
//   - fatal, llm.OutcomeFatal (auth: HTTP 401, 403; not_found: HTTP 404:
//     the credentials or the model name are wrong, so every item would
//     fail): the run stops with a *RejectedError (ErrRejected) naming the
//     class, the spec's model, the server's message and the field to fix;
//     the item stays pending;
//   - any other runner error (ClassRunner): retried like an
//     infrastructure error, then recorded as failed.
//
// Before any of these, an environment failure (a full disk or quota, a
// read-only filesystem, an I/O error: the errno or SQLite's code, by
// type) under a write of the response cache, the store or a runner's own
// file stops the run with an *EnvironmentError naming the file and the
// space free there, whatever the runner made of the error: the item is
// not committed, so it stays pending, and the same command run again once
// space is freed resumes it.
//
// Errors are classified by type (errors.As, errors.Is), never by message
// text, except for the server refusals llm.Classify reads in an error
// status's message: the model backends return *llm.Error, classified
// where the failure was caught. There is one retry loop per failure: the model backend
// retries a failed call (timeouts, network errors, 408, 429 and 5xx, with
// backoff, honouring Retry-After, up to the model's max_retries), because
// it can retry that one call where the item would rerun every call it made
// (a 429 in the middle of a 250-call search); the scheduler never retries
// an item for a model call's failure (llm.IsCallError), and retries only
// what no layer below retried. Item.Attempts counts the item's runs and
// Item.ErrorClass holds the class of the last.
//
// A per-item timeout is data: the item is done, scored on whatever SQL
// there is, with error class "timeout". Options.MaxFailures stops a run
// early (ErrTooManyFailures) once more items failed or errored than it
// allows. Options.Shard runs a deterministic slice (fnv64a of trial id and
// question id mod n), recorded in the store with the run's Limit
// (MetaShards, MetaLimit); Merge joins shard stores into a store it builds
// beside the output and renames into place when complete, refusing shards
// of different specs or limits, shards given twice, overlapping shards and
// shards in use (ErrMergeRefused). Progress reports counters
// after every item (done, failed, errored, calls, cached calls, tokens,
// running EX); bench draws no bars.
//
// # One EX denominator
//
// EX is correct / attempted, where attempted counts the questions whose
// gold runs (metrics.GoldRuns: not missing_db, gold_error or gold_timeout),
// failed items included as wrong. TrialOutcomes computes it for one trial;
// Summarize, LoadRunSystems, compare and the report tables all use it, so
// the same verdicts give the same EX everywhere. Questions whose gold does
// not run are counted by status beside it; a trial with pending items has a
// partial EX and says so.
//
// # Systems and comparisons
//
// The trials of one runner entry that differ only in their seed are one
// system (Systems); its seeds are replicates. PlanFamilies (stats.PlanFamilies
// with the runners' paper defaults) decides which system each is compared
// with and the families Holm adjusts over (a benchmark's systems against
// its first or --baseline; a sweep's or grid's points against the runner's
// paper default point), and stats.CompareFamilies compares them, for the
// run summary, compare, the report and the viewer alike.
//
// # Secrets
//
// API keys are read from the environment by runners/llm and never stored
// as configuration; the spec's secrets (Spec.Secrets) and Options.Secrets
// are replaced by [REDACTED] in every stored error text, in the stored
// spec and in the prompts the model cache keeps, when they could be
// secrets (llm.IsSecret: at least llm.MinSecretLen characters, not a
// placeholder such as vLLM's EMPTY). A model's answer is never rewritten:
// results and traces are scored and stored as the model gave them. A key a
// model echoed is hidden where stored text is shown: RunData.Redactor is
// what status, the run summary, export and the viewer apply.
//
// # Integrity
//
// Every stored result (table results) carries a checksum of the item's
// outcome, as every model-cache sample and gold-cache entry carries one of
// its own (integrity.go). Run verifies the store before it resumes and
// redoes an item whose outcome fails; the caches ask again for a damaged
// sample and execute a damaged gold again. Each replacement is counted in
// the meta (Integrity: RunData.Integrity, printed by WriteSummary and the
// report); VerifyRun reads all three stores for `t2sbench cache verify`.
//
// A plan is capped at Spec.MaxTrials trials (DefaultMaxTrials); NewPlan
// counts before it expands and names the spec line of the grid step or
// runner entry that passes the cap.
package bench
