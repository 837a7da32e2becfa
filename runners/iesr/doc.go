// Package iesr implements IESR (Information Enhanced Structured Reasoning,
// the project's seed paper 000) as a t2sbench runner named "iesr".
//
// Stage 1.1, information understanding: an extraction call (role
// "understand") returns the latent semantic state S_q = (intent, entities,
// relations, numbers, units, field patterns) as JSON, with the keywords
// of the paper's Table 4 (tables, columns, numbers with units, operators).
// With verify_keywords (default), up to understanding_rounds (4) keyword
// verification rounds (Ve) follow, each showing the model the schema, the
// question and the current state and taking its repaired state; the
// rounds stop at one that changes no keyword (understand.go, verify.go).
// Rule-guided
// verification (Algorithm 1) checks every relation against a rule base of
// units, conversions and formulas (rules.yaml, embedded; params.rules
// names another file): a relation is a candidate when its best rule's
// similarity exceeds delta_match, and kept when its soft consistency score
// exceeds tau (RuleBase.Similarity, RuleBase.Consistency).
//
// Stage 1.2, schema linking and compression: MinHash-LSH over character
// 3-grams of schema names, comments and example values proposes schema
// items for the question's words and the validated state's terms; items
// are ranked by lexical similarity and retained above a threshold; the
// tables and columns the validated state names (its tables and field
// patterns, as the paper conditions linking on the state) are retained
// whatever their similarity; the retained tables (plus bridging tables
// on foreign-key paths, with their keys) are rendered in M-Schema
// (LinkSchema).
//
// Stage 2: UCT search (runners/mcts, role "reason", sampled at rStar's
// temperature 0.8, top_p 0.95, top_k 40, with c = 2.0; expansion paper,
// the default, is Algorithm 2: one untried action expanded into one child
// per step, then a simulation, and a terminal scored again on every visit
// (mcts.OneAction with Rescore); all-actions is Alpha-SQL's code) over the
// six actions A1 Equation Analysis, A2 Schema Selection, A3 Identify
// Columns, A4 Entity Extraction, A5 SQL Generation, A6 SQL Revision, with
// a model-free END closing a path. The terminal reward is the agreement
// rate of K resampled SQLs (equation 5): under reward paper, 0 for a
// terminal whose SQL fails, empty results agreeing like any other; under
// reward alphasql, 0 unless the result is non-empty and non-NULL
// (RewardOf).
//
// Stage 3: the discriminator (role "discriminator", possibly another
// model) completes each trajectory from masked prefixes (cuts at 20/30/40/
// 50% of the steps by default, at most d-2 of d steps under mask paper,
// by words under mask rstar: MaskPrefixes); a completion agrees when its
// SQL executes to the same result. Trajectories pass a keep rule (loose/mid/strict;
// if none passes, all are kept) and are scored
//
//	Score(t) = alpha*Exec(t) + beta*DiscConf(t) + gamma*ConsVote(t)
//
// with (0.4, 0.2, 0.4) by default; the argmax wins, ties by visit count,
// then lexicographic SQL (Select). The gold answer is never consulted.
//
// Every stage can be switched off (stage_understanding, stage_linking,
// stage_discriminator, stage_scoring -> plain majority vote), schema
// compression too (schema_compression), and any of A1-A4, A6 removed
// (disable_actions). The trace counts calls, prompt and completion tokens
// by role ("calls.<role>", "completion_tokens.<role>") next to the calls
// the configuration implies ("calls_implied.<role>"), and stores the
// semantic state, the linking, the tree and the scored trajectories.
//
// Real model answers. The understanding call and A2, A3, A4 ask for JSON
// with schemas that follow OpenAI's strict-mode rules (every property
// required, the optional ones nullable, additionalProperties false, no
// maps; schemas lists them); answers are read leniently (runners/jsontext:
// fenced or not, a number where a string is expected read as its text,
// null as empty), so that one drifting field never fails a whole answer.
// Parsers and later prompts see the answer text only; the model's
// reasoning and each sample's finish reason are kept in the trace (tree
// Node.Info and step Info "reasoning" and "finish_reason"). A sample cut at
// max_tokens (finish reason "length") is never used as an answer: it adds
// no child, reward sample or discriminator completion (a cut understanding
// answer leaves the question without a semantic state); it is counted
// under "cut.<role>" and kept as a trace step "cut". A request the model
// server refuses permanently (runners.ModelRejected: an HTTP 400 for a
// prompt over the context window, deep in the tree) prunes its branch: the
// action adds no child, a refused reward scores its terminal 0, a refused
// discriminator completion is left out, a refused understanding call leaves
// the question without a semantic state; the run goes on, the counter
// "pruned" counts them, and when no trajectory has SQL the answer falls back
// to the best SQL a non-terminal step generated. Only infrastructure
// failures (network, 5xx after the client's retries, credentials, a
// cancelled context) fail the run, leaving the item for --resume.
//
// Table 4 (table4.go): the runner implements runners.GoldAnalyzer; after
// an item is scored, bench passes it the gold, and it counts the
// extraction's and the verified state's keywords that the gold uses
// (table4.* counters; reports/table4.go prints the table).
//
// Completions are bounded per role (max_tokens_understand 4096,
// max_tokens_reason 8192, max_tokens_discriminator 8192; t2sbench's choice,
// sized for reasoning models).
//
// Under the sim backend every request kind has a responder ("iesr/...").
package iesr
