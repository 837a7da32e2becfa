// Package metrics scores Text-to-SQL predictions and compares systems.
//
// Scorer judges predictions with each benchmark's official EX comparator
// (CompareResults), reading gold results through a GoldCache. AnalyzeGold
// flags golds whose result may change between executions (RAND(), the
// clock, row-order-dependent window functions, a LIMIT cutting tied rows);
// those are executed beside each prediction and never served from the
// cache, and DeterministicEX leaves them out. CheckGolds reports the health
// of every gold of a benchmark (t2sbench datasets check).
//
// Besides the execution-accuracy comparators, the package holds the
// statistics used to compare systems over the same questions. They are plain
// functions over per-question outcome vectors, modelled on benchstat's
// benchmath and gonum's stat/distuv:
//
//   - Pair aligns two systems' outcomes (question id -> correct) by id and
//     Tabulate counts the four cells of the paired 2x2 table.
//   - McNemar and McNemarCounts test whether two systems have the same
//     accuracy on the same questions (exact binomial test for few discordant
//     questions, continuity-corrected chi-square otherwise).
//   - PairedBootstrap gives a confidence interval for the accuracy difference
//     (percentile or BCa); Wilson and BootstrapAccuracy give intervals for one
//     system's accuracy.
//   - Holm adjusts a family of p-values (Holm-Bonferroni).
//   - McNemarPower, McNemarMDE and McNemarSampleSize size an experiment.
//   - AccuracyBy, Latency and SummarizeUsage build the summaries that papers
//     report: accuracy by difficulty or any other label, latency statistics,
//     calls, tokens and cost per question.
//
// Results report what was achieved (P, N, the interval's level) and carry
// non-fatal problems as data in Warnings; errors are reserved for input that
// cannot be analysed. Randomized procedures take an explicit seeded
// *rand.Rand (math/rand/v2) and are deterministic for a seed.
package metrics
