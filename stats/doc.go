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
//   - PairSeeds, CompareSeeds and AccuracyOverSeeds treat a system's seeds
//     as replicates: the exact sign-flip test over questions (SignFlipP;
//     McNemar's exact test for one seed), the clustered chi-square
//     (ClusteredChi2P) and the cluster bootstrap (ClusterBootstrap), which
//     keeps a question's seeds together.
//   - ComparePairs and CompareFamily are the one comparison every output
//     prints: pairing, test, an interval drawn from PairRand (the seed and
//     the two systems' names) and Holm within the family.
//   - PlanFamilies decides which system each system is compared with (the
//     first of its benchmark or the one named; a sweep's points against the
//     runner's default point) and the families Holm adjusts over;
//     CompareFamilies and CompareScoreFamilies compare every family.
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
