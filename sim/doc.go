// Package sim is the offline, deterministic model simulator: an llm.Client
// backend for demos, tests and statistics checks. The harness gives it the
// benchmark; no runner knows it exists. Passing under sim is not evidence
// that a method works with a real model, and every report of a sim run
// says "simulated model".
//
// # Finding the question
//
// The simulator finds the benchmark question in the prompt (an
// Aho-Corasick match over the normalised text of every message; the
// longest question wins, ties towards the last occurrence; among examples
// sharing a question, the one whose db_id, then evidence, the prompt also
// shows). A prompt without any benchmark question fails with
// ErrNoQuestion: a model cannot answer a question it was not asked, and a
// runner records the failed call as a wrong sample.
//
// # The behaviour model
//
// Each sample of a request answering with final SQL (a request with no
// kind, or the SQL kinds of the methods) is right (the gold SQL) with
//
//	P(right) = p · (1 - schema_penalty)^[a table or column the gold reads is not in the prompt's schema]
//	             · (1 - value_penalty)^[a literal value of the gold is nowhere in the prompt]
//	             · (1 - evidence_penalty)^[the benchmark has evidence for the question and the prompt lacks it]
//
// where p is the role's probability (Config.P, DefaultP = 0.6; RoleP per
// role). What the prompt carries is read from its text (ParsePrompt):
//
//   - schema: the tables and columns of the CREATE TABLE statements
//     (datasets.RenderDDL, or any DDL), M-Schema "# Table:" blocks
//     (datasets.RenderMSchema) and table lists (a line ending "tables:"
//     followed by "- name(col, ...)" lines) in any message; identifiers match
//     case-insensitively, quoted (`x`, "x", [x]) or not. The gold's tables
//     are those after FROM/JOIN (and in FROM lists); its columns are the
//     identifiers that name a column of one of its tables (qualified ones
//     resolved through aliases).
//   - values: the gold's string literals compared with a column (col =
//     'v', any comparison, [NOT] LIKE, GLOB, [NOT] IN (...)), without LIKE
//     wildcards at the ends; a value is shown when it occurs anywhere in
//     the prompt (question, evidence, retrieved values, the schema's value
//     examples, earlier turns and observations) as a whole phrase,
//     case-insensitively; a LIKE pattern when each part between its
//     wildcards does. Literals compared with an expression
//     (strftime('%m-%d', d) > '09-01') and strftime formats are derived
//     constants, not needs.
//   - evidence: the example's evidence, when it has any, occurs in the
//     prompt (case and white space aside).
//
// One draw against p comes first from the sample's generator (seeded by
// the seed, the request's seed, every message as Draw keys reads it, and
// the sample index), so a prompt that lacks nothing gives exactly the
// answers the simulator gave before it read prompts; then three channel
// draws (schema, values, evidence, always all three) from a generator of
// their own. The first
// missing channel whose draw falls under its penalty forces a mistake of
// its kind, whatever the draw against p:
//
//	schema    MistakeTable: the missing table written as another table the
//	          prompt shows (or a guessed name); MistakeColumn: the missing
//	          column written as another column the prompt shows for its
//	          table
//	value     MistakeValue: the literal spelt plausibly wrong (a plural, two
//	          letters swapped, a space as a hyphen or dropped), never a
//	          spelling a LIKE pattern or a case-insensitive comparison
//	          accepts
//	evidence  MistakeEvidence: a realistic corruption (Corrupt)
//
// Otherwise the sample is the gold SQL when the draw against p succeeded,
// else a realistic corruption (Corrupt: wrong column, dropped predicate,
// wrong aggregate, wrong join, LIMIT off by one, flipped order, changed
// literal). The penalties are model options (Config; spec keys
// schema_penalty, value_penalty, evidence_penalty), each in [0, 1]:
//
//	schema_penalty    DefaultSchemaPenalty   = 1     a model cannot name what it was not shown
//	value_penalty     DefaultValuePenalty    = 0.8   it guesses a stored spelling right one time in five
//	evidence_penalty  DefaultEvidencePenalty = 0.35  the relative EX drop without external knowledge in BIRD
//	                                                 (Li et al., NeurIPS 2023, Table 2: GPT-4 46.35 -> 30.90)
//
// The first two are modelling choices, not measurements. The model has no
// benefit from a shorter prompt: removing information can only lower
// accuracy, so an ablation that compresses a schema is measured by what it
// drops.
//
// # Intermediate answers
//
// Responders (one per request kind, llm.Request.Responder, the strings the
// runners set; Kinds lists them) answer every other request from the
// prompt alone; the gold decides only final SQL. Keywords are the
// question's terms (Terms: quoted and capitalised phrases, numbers,
// content words); a schema selection or a decomposition's terminal tables
// choose among the tables the prompt shows that the question's words
// relate to (by table and column name and shown value examples), each kept
// with probability Recall(p) = (1+p)/2; value identification and entity
// grounding match the question's terms against the value examples the
// prompt shows; an aggregate comes from the question's wording ("how
// many", "average", ...) over a related numeric column; a ReAct DSL turn
// reads the conversation (the execute observation it answers after) and
// writes its final SQL as DSL calls with the lifter in lift.go (built on
// reactdsl.ParseSelect), as a model that learnt the grammar the prompt
// documents. Each turn is a new request with a fresh draw whose prompt
// carries the observations so far, so rows a probe showed count as shown
// values.
//
// # Draw keys
//
// Multi-step runners quote the model's earlier answers in later prompts:
// ReAct as assistant turns, Alpha-SQL and IESR as "Step N (Action):"
// blocks of a reasoning path, revision prompts and SteinerSQL's retries as
// the SQL extracted from them. Before the simulator reads a prompt or
// hashes it for its draws, it replaces each quoted answer by its payload,
// read the way the runners read answers (drawkey.go: the reasoning block
// removed, then the DSL calls, else the SQL as sqltext extracts it, else
// the JSON object with sorted keys and numbers as strings, else the text,
// white space folded), and folds the white space inside fenced blocks.
// The same decision therefore gets the same draw whatever form the
// earlier answers took, and a clean and a realistic run with the same
// seed pair question by question in every runner (they part almost only
// after an answer the realistic style cut at max_tokens). A prompt that
// quotes no answer and holds no fenced block (the baselines') hashes as
// sent.
//
// # Style
//
// The style (Config.Style) sits after the responders: StyleClean returns
// each responder's text as is; StyleRealistic renders it the way real
// models write (fences, prose, reasoning blocks, cut answers; see
// style.go), from a generator of its own, so the right/wrong draws equal
// the clean style's.
package sim
