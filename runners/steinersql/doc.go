// Package steinersql implements SteinerSQL (seed 001: "SteinerSQL:
// Graph-Guided Mathematical Reasoning for Text-to-SQL Generation") as the
// runner "steinersql".
//
// # Pipeline
//
//  1. Mathematical decomposition (role "decompose", one JSON call): the
//     question's operations, quantities, aggregations, temporal parts, the
//     computational dependencies of its entities (what each requires:
//     table.column attributes and other entities' results) and the
//     terminal tables T_req. Unknown table names are corrected to the
//     closest schema table by edit similarity (>= correction_threshold) or
//     dropped, with a trace note. The dependency analysis of the paper's
//     Algorithm 1 (AnalyzeDependencies, no model call) builds G_dep,
//     orders the entities topologically (the plan's computation steps)
//     and adds the tables of required and constrained attributes to T_req;
//     dependency_analysis=false restores the single-step Stage 1. Without
//     Stage 1 the terminals are linked lexically (LinkTerminals).
//
//  2. Schema navigation: the schema graph G_S (BuildGraph) has a vertex per
//     table and an edge per foreign key or table pair whose similarity
//     over the join candidate column pairs (a key column on one side)
//     reaches tau: with edge_cost=paper (Eq. 2) sim_name and sim_type are
//     each their own maximum over the pairs and both must reach tau; with
//     edge_cost=pair both come from the pair of the best name*type, which
//     must reach tau. Edges are weighted
//
//     C = alpha*C_connect + beta*C_sem + gamma*C_stat          (0.4, 0.4, 0.2)
//     C_connect = ([no FK] + (1 - sim_name) + (1 - sim_type)) / 3
//     C_sem     = 1 - cos(table vectors)   (embedding backend, else lexical)
//     C_stat    = 0.5*(1 - selectivity) + 0.5*(1 - correlation)
//
//     with the statistics measured by SQL on the data (MeasureStats) and
//     cached per database fingerprint (StatsCache, optionally on disk). The
//     scaffold is the KMB Steiner tree (WGraph.KMB: Floyd-Warshall metric
//     closure from gonum/graph/path, MST over the terminals, path
//     expansion, MST, non-terminal-leaf pruning; ties lexicographic), or
//     the shortest-path-union / mst-on-terminals alternatives.
//
//  3. Generation with the five-part prompt (role, critical requirements,
//     relations, optimal query plan, guidelines with structured examples).
//
//  4. Multi-level validation (Validator): L1 executes; L2 terminals read,
//     no scaffold join the query does not make (l2_direction=
//     scaffold_in_query, the paper's "the scaffold does not contain joins
//     irrelevant to the query"; query_in_scaffold instead fails a table
//     read outside the scaffold), joins along scaffold edges on their
//     key columns, and the attributes of the SELECT list, WHERE and HAVING
//     map to the question's entities (attribute_check; a word of the
//     question or evidence, a literal it states, an attribute or operation
//     of the decomposition, a key, or the descriptor of a named table); L3 non-aggregated SELECT columns grouped (or determined
//     by a grouped primary key), the decomposition's aggregates computed,
//     the question's numbers present. What a query reads comes from SQLite
//     itself (EXPLAIN bytecode: OpenRead root pages mapped through
//     sqlite_master, Column/Rowid reads), not from parsing SQL; a small
//     clause scanner gives only the SELECT/GROUP BY structure. An L2/L3
//     failure updates T_req and re-plans (at most max_iterations rounds):
//     with replan_feedback=scaffold (Algorithm 2) the retry is the prompt
//     of the new scaffold alone, with violations it also shows the
//     previous query and the violations; an L1 failure regenerates with
//     the error. METHODS.md leaves L1
//     open; the paper's Algorithm 2 stops with "Syntax Error", which would
//     score the same as a wrong answer, so the harness retries instead.
//
// # Ablations
//
// Table 2: decomposition, navigation, validation=none, alpha/beta/gamma = 0,
// graph_module, structured_examples. Figure 4: path_algorithm,
// validation=simple-feedback, other weightings. See
// experiments/steinersql-table2.yaml and steinersql-fig4.yaml.
//
// # Real model answers
//
// Stage 1's answer is decoded leniently (jsontext.Decode: the last JSON
// object in fences or prose, numbers as strings, key drift); the schema it
// asks for (Schemas) follows OpenAI's strict-mode rules. Generation reads
// the answer text only (sqltext.Extract); the model's reasoning and each
// call's finish reason go to the trace step's Info ("reasoning",
// "finish_reason") and never into a later prompt. An answer cut at
// max_tokens (finish_reason "length") is counted under "cut.decompose" or
// "cut.reason"; a cut decomposition is not used (terminals are linked
// lexically), and a cut generation's SQL is used only when its block was
// closed before the cut; otherwise, as for an answer without SQL (counter
// no_sql), the next iteration asks again, and an item where no iteration
// gave SQL has the note "no SQL in response". A request the server refuses
// permanently (runners.ModelRejected, e.g. a re-planned prompt over the
// context window; counter model_errors) ends the loop with the attempts so
// far; in Stage 1 it falls back like an unusable answer. Per-role
// max_tokens defaults (4096 for Stage 1, 8192 for generation) are sized for
// reasoning models; the paper used 512.
//
// # Trace
//
// Counters per question: validation.l1, validation.l2, validation.l3 (1
// when the level triggered at least once: their mean over questions is the
// paper's Figure 3 trigger rate), validation.lN.attempts, .corrected (the
// level triggered and the final query passed), validation.pass, replans,
// iterations, terminals, scaffold_tables, terminals.corrected/dropped,
// cut.decompose, cut.reason, no_sql, model_errors, decompose.parse_error,
// validation.l2.attributes (1 when level 2's attribute check fired at
// least once: its trigger rate, shown in the report's validation table),
// dependencies.entities, terminals.from_dependencies.
// Trace.Data holds the decomposition, the dependency graph, the final
// scaffold (tables, edges with every cost part and statistic) and a graph
// summary. The final query is the first that passes validation, else the
// executing one with the fewest violations: a query that executes is
// never replaced by one that does not.
//
// # Request kinds
//
// Stage 1 sends request kind "steinersql/decompose" and generation
// "steinersql/generate" (llm.Request.Responder); the call log records
// them and the offline simulator (package sim) answers by them, from the
// prompt a real model gets.
package steinersql
