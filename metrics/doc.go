// Package metrics scores Text-to-SQL predictions.
//
// Scorer judges predictions with each benchmark's official EX comparator
// (CompareResults), reading gold results through a GoldCache. A prediction
// holding a NUL byte, or anything but white space and comments after its
// first statement's ';', is pred_error in every mode before it runs
// (datasets.CheckPrediction); the README's "Where EX differs from the
// official scripts" says what each official scorer does with such text
// (the Spider evaluator runs the first statement alone). AnalyzeGold
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
