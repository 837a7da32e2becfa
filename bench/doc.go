// Package bench orchestrates experiments: Run executes every (trial,
// question) work item of a plan (package spec) with a bounded worker pool,
// scores it, and commits it to the run's store (package runstore).
//
// # Scheduling, resume, shards
//
// Run skips items the store holds as finished (done or failed), so
// rerunning a spec resumes it; a changed configuration is a new trial that
// never mixes with the old: a run directory holds one spec. Run records
// the ids of the plan's trials (runstore.MetaPlan) with the trials and refuses a
// plan whose trials differ from the stored ones with a *runstore.SpecChangedError
// naming each difference (a trial new, no longer in the spec, or with
// another parameter, role binding, model identity, benchmark field,
// tie_aware or seed), before it writes anything; Options.ReplaceTrials
// instead removes the changed and dropped trials with their items,
// results and calls (Summary.Removed). A label alone, workers, timeouts,
// max_result_mb, prices, a model's throughput settings, --limit and
// --shard are not a trial's identity and continue a run. Readers return
// the spec's trials; the trials of earlier specs that a store written
// before can hold are runstore.RunData.Stale (runstore.ReadOptions.AllTrials includes
// them), and runstore.Merge refuses shards of different specs. Summary.Unselected
// counts the pending items the run's Limit and Shard leave alone.
// Canceling the context (SIGINT in the CLI) stops
// cleanly: items in flight are not committed. A runner error gets its
// class from llm's one classifier (Classify: llm.ErrorClass, itself
// llm.Classify of an HTTP status and the server's message, or of a
// transport error), and the class's llm.Outcome decides (FailureOf):
//   - permanent, llm.OutcomeRefused (bad_request: HTTP 400 or 422, or any
//     status whose message refuses the request, such as a prompt over the
//     context length or a rejected schema; http_<code>: another 4xx):
//     recorded at once as runstore.StatusFailed with its class and message, scored
//     with an empty prediction so that it counts as wrong, and never
//     retried;
//   - infrastructure, llm.OutcomeTransient (network, timeout with HTTP
//     408, rate_limited, server_error after the client's retries,
//     malformed, canceled, deadline), or a database that does not open:
//     recorded as runstore.StatusError, pending, and retried by the next run; a
//     failure that is not a model call's (a database that does not open)
//     is first retried (Options.Retries, default 2);
//   - fatal, llm.OutcomeFatal (auth: HTTP 401, 403; not_found: HTTP 404:
//     the credentials or the model name are wrong, so every item would
//     fail): the run stops with a *RejectedError (ErrRejected) naming the
//     class, the spec's model, the server's message and the field to fix;
//     the item stays pending;
//   - any other runner error (runstore.ClassRunner): retried like an
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
// runstore.Item.ErrorClass holds the class of the last.
//
// A per-item timeout is data: the item is done, scored on whatever SQL
// there is, with error class "timeout". Options.MaxFailures stops a run
// early (ErrTooManyFailures) once more items failed or errored than it
// allows. Options.Shard runs a deterministic slice (fnv64a of trial id and
// question id mod n), recorded in the store with the run's Limit
// (runstore.MetaShards, runstore.MetaLimit); runstore.Merge joins shard stores into a store it builds
// beside the output and renames into place when complete, refusing shards
// of different specs or limits, shards given twice, overlapping shards and
// shards in use (ErrMergeRefused). Progress reports counters
// after every item (done, failed, errored, calls, cached calls, tokens,
// running EX); bench draws no bars.
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
// model echoed is hidden where stored text is shown: runstore.RunData.Redactor is
// what status, the run summary, export and the viewer apply.
package bench
