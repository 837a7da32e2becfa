// Package reactdsl implements ReAct-DSL (seed 002, "Iteration Without
// Elaboration: A Simple ReAct Architecture Suffices for Text-to-SQL"), the
// runner "react-dsl".
//
// The model sees the schema, the question, the evidence and DSL.md (embedded
// as DSLReference). Each turn it reasons and sends a batch of DSL calls; the
// harness type-checks each call against a Session, compiles relations to SQL
// (SQLite or MySQL), runs the probes, and answers with the relation
// signatures, the first rows and row counts, or typed errors (*Error with a
// Code such as UnknownColumn and close-name suggestions). The loop stops at
// answer(rN) or after max_turns (default 8); the answer-shaping pass then
// takes the best SQL so far. answer(r1, r2) composes a combined answer from
// one-row relations.
//
// # Real model answers
//
// Only an explicit final form in the answer text ends an episode: an
// answer(...) call in the DSL setting, a line beginning FINAL ANSWER
// (followed by the query) in the iterate-sql setting. The model's
// reasoning (Response.Reasoning, e.g. a <think> block the client split off)
// is never read for calls or SQL and never fed back: only the answer text
// goes back as the assistant message. Exploratory SQL is run and its result
// observed, in both loop settings: a ```sql block alone, or a query behind
// "before the final answer, let me check ...", never ends the episode (in
// the DSL setting raw SQL is a probe, counted under raw_sql_probes).
// ParseCalls reads the ways models write calls: ```dsl, ```python and
// unlabelled blocks, list numbering, inline backticks, "Action:" labels,
// trailing semicolons.
//
// When an episode ends without a final answer (turns or call budget
// exhausted, or a permanent model error such as a context-length HTTP 400
// at a late turn, see runners.ModelRejected), the answer-shaping pass
// returns the best SQL so far: the last query that executed with rows,
// else the last that executed, else the last tried (in the DSL setting the
// last relation built), and Result.Note says which and why. Infrastructure
// errors (network, 5xx after retries, 401/403/404, a cancelled context) are
// Run errors.
//
// A turn cut at max_tokens (finish_reason "length"; default max_tokens 8192,
// sized for reasoning models) never ends the episode: its complete calls
// run, an answer(...) in it is ignored and the model is told to resend it.
// In the baseline setting a cut answer's SQL is used only when its block
// was closed before the cut. An answer without SQL has the note "no SQL in
// response".
//
// # Trace
//
// Each turn is a step with the answer (Output) and Info "turn",
// "observation", "reasoning" and "finish_reason" (when the backend gave
// them), "final" on the answering turn. Counters: turns, dsl_calls,
// probes, dsl_errors and dsl_error.<Code>, exec_errors, answered,
// combined_answers, calls_dropped, cut.reason (turns cut at max_tokens),
// cut_answers_ignored, shaped_fallback, model_errors, raw_sql_probes,
// no_sql.
//
// The DSL has 12 relation-building operations (table_ref, select_columns,
// distinct, filter_expr, join_table, aggregate, having, compute, order_by,
// limit, set_op, in_relation) and 3 read-only probes (sample_rows,
// distinct_values, execute). A relation is compiled into one SELECT block
// while its operations follow SQL clause order, and nested as a derived
// table when they do not.
//
// ParseSelect is a recursive-descent parser for the SELECT subset the DSL
// covers (joins, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, DISTINCT,
// compound operators, subqueries); SQL outside it gives an *Error with
// Code NotLiftableCode. The DSL compiler uses the parser for the
// expressions in calls; the offline simulator (package sim) builds on
// ParseSelect and the exported AST to translate SQL into DSL calls for a
// simulated model's turns, and its Spider round-trip test checks this
// compiler with them.
//
// The setting parameter selects the paper's Table 4 ablation: baseline (one
// raw-SQL call), iterate-sql (the ReAct loop with raw SQL as the action) and
// iterate-dsl (the full method). Where METHODS.md and the paper differ,
// METHODS.md is followed.
package reactdsl
