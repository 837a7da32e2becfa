// Package stats holds the statistics used to compare Text-to-SQL systems
// over the same questions. They are plain functions over per-question
// outcome vectors, modelled on benchstat's benchmath and gonum's
// stat/distuv:
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
//   - AccuracyBy and Latency build the summaries that papers report:
//     accuracy by difficulty or any other label, latency statistics.
//
// Results report what was achieved (P, N, the interval's level) and carry
// non-fatal problems as data in Warnings; errors are reserved for input that
// cannot be analysed. Randomized procedures take an explicit seeded
// *rand.Rand (math/rand/v2) and are deterministic for a seed.
//
// The package imports nothing of the project; metrics (scoring), bench,
// reports and the CLI import it.
package stats
