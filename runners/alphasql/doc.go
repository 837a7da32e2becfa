// Package alphasql is the Alpha-SQL runner (Li et al., "Alpha-SQL:
// Zero-Shot Text-to-SQL using Monte Carlo Tree Search", ICML 2025;
// HKUSTDial/Alpha-SQL), registered as "alphasql".
//
// Per question: one keyword-extraction call feeds MinHash-LSH value
// retrieval (runners/retrieval), whose top values per column go into the
// CREATE TABLE schema text as value examples. Then mcts.Search runs
// N_rollout rollouts over the seven actions (A1 question rephrasing, A2
// schema selection, A3 column value identification, A4 column function
// identification, A5 divide-and-conquer SQL generation, A6 SQL revision
// from execution feedback, A7 termination) with the valid-transition table
// of METHODS.md; each expansion of an action is one request with
// n = N_expansion. A terminal is scored by the self-consistency reward
// (N_reward resampled SQLs in one request). The final SQL comes from the
// largest execution-result group of the terminals.
//
// Requests per question are implied by the tree: 1 (keywords) + one per
// expanded model action + extra revision rounds + one per distinct scored
// terminal. The trace records that number next to the metered count
// (counters model_requests and model_requests_implied), the tree summary
// and the whole tree (Trace.Data["tree"]).
//
// Real model answers. Every request is plain text: the keyword call and
// the JSON actions (A2, A3, A4) ask the model to think step by step and end
// with a JSON object, which is read leniently (runners/jsontext: fenced or
// not, numbers as strings, a single value for a list; A2 accepts an object
// of tables, a list of table or table.column names, {table, columns}
// objects, and "*" for every table). Parsers and later prompts see the
// answer text only; the model's reasoning and each sample's finish reason
// are kept in the tree (Node.Info "reasoning" and "finish_reason") and in
// the keyword step. A sample cut at max_tokens (finish reason "length") is
// never used as an answer: it adds no child, no reward sample and no
// revision, is counted under the counter "cut.reason" and kept as a trace
// step "cut". A request the model server refuses permanently
// (runners.ModelRejected: an HTTP 400 for a prompt over the context window,
// deep in the tree) prunes its branch: the action adds no child, a refused
// reward scores its terminal 0, a refused revision round keeps the SQL so
// far, a refused keyword call leaves retrieval without keywords; the search
// goes on, the counter "pruned" counts them (with mcts.Tree.Pruned and
// "pruned" trace steps), and when no terminal has SQL the answer falls back
// to the best SQL a non-terminal step generated. Only infrastructure
// failures (network, 5xx after the client's retries, credentials, a
// cancelled context) fail the run, leaving the item for --resume.
//
// Where this package reads the paper's wording: the reward is the share of
// the valid reward samples that agree with the terminal's result (0 for an
// invalid terminal or when no sample is valid), as the released code
// divides the largest result group by the valid results;
// reward_denominator=n_reward divides by N_reward instead. METHODS.md's
// "share of valid samples in the majority result group" is this value
// when the terminal is in the majority. Every request carries its kind ("alphasql/<kind>",
// llm.Request.Responder), which the call log records and the offline
// simulator answers by.
package alphasql
