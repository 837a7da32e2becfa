// Package runstore is the run store: one SQLite database per run
// directory holding the trials of its spec, one row per finished (trial,
// question) item with its verdict and result, the log of every model call,
// and the run's meta. It owns the schema and its migrations, the writer
// (Store), the readers (ReadRun, ReadRunStream, SummarizeDir,
// LoadRunSystems, OpenItemReader), Merge of shards, and what is computed
// from a run's verdicts alone (summaries, systems and their comparison
// families). bench writes through it; reports, the viewer and the read
// commands read through it.
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
// far less. The model cache (bench.NewEnv) keeps the answers of a model in the
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
// system (Systems); its seeds are replicates. PlanFamilies
// (stats.PlanFamilies with the runners' paper defaults) decides which
// system each is compared with and the families Holm adjusts over (a
// benchmark's systems against its first or --baseline; a sweep's or grid's
// points against the runner's paper default point), and
// stats.CompareFamilies compares them, for the run summary, compare, the
// report and the viewer alike.
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
package runstore
