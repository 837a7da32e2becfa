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
// Where this package reads the paper's wording: the reward is the share of
// the N_reward samples that are valid and agree with the terminal's result
// (0 for an invalid terminal); METHODS.md's "share of valid samples in the
// majority result group" is this value when the terminal is in the
// majority. Under the sim backend every prompt kind is answered by a
// responder registered here ("alphasql/<kind>").
package alphasql
