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
// takes the last executed relation. answer(r1, r2) composes a combined
// answer from one-row relations.
//
// The DSL has 12 relation-building operations (table_ref, select_columns,
// distinct, filter_expr, join_table, aggregate, having, compute, order_by,
// limit, set_op, in_relation) and 3 read-only probes (sample_rows,
// distinct_values, execute). A relation is compiled into one SELECT block
// while its operations follow SQL clause order, and nested as a derived
// table when they do not.
//
// Lift translates SQL (a recursive-descent parser for the SELECT subset:
// joins, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, DISTINCT, compound
// operators, subqueries) into DSL calls. The sim responders registered as
// "reactdsl/turn" and "reactdsl/sqlturn" use it to play a model offline; the
// Spider round-trip test uses it to check the compiler.
//
// The setting parameter selects the paper's Table 4 ablation: baseline (one
// raw-SQL call), iterate-sql (the ReAct loop with raw SQL as the action) and
// iterate-dsl (the full method). Where METHODS.md and the paper differ,
// METHODS.md is followed.
package reactdsl
