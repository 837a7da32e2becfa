// Package metrics scores Text-to-SQL predictions.
//
// Scorer judges predictions with each benchmark's official EX comparator
// (CompareResults), reading gold results through a GoldCache. AnalyzeGold
// flags golds whose result may change between executions (RAND(), the
// clock, row-order-dependent window functions, a LIMIT cutting tied rows);
// those are executed beside each prediction and never served from the
// cache, and DeterministicEX leaves them out. CheckGolds reports the health
// of every gold of a benchmark (t2sbench datasets check).
//
// Tally counts one system's outcomes on EX's one denominator (GoldRuns:
// the questions whose gold runs), and SummarizeUsage totals calls, tokens
// and cost per role. The statistics that compare systems over the same
// questions (McNemar, paired bootstrap, Wilson, Holm, power) are in package
// stats.
package metrics
