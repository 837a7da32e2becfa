// Package reports turns run directories into paper-ready tables and plots.
//
// Build reads the trials of one or more runs (bench.ReadRun) and derives:
//
//   - ablation tables (IESR Table 2 / SteinerSQL Table 2 shape): rows are
//     configurations of one runner entry, columns are backbones; each cell
//     holds EX and the drop against the entry's full configuration, with a
//     paired bootstrap interval of the drop and a Holm-adjusted McNemar p;
//   - the main comparison (systems x benchmarks) and its breakdowns by
//     difficulty and by reasoning type;
//   - pairwise tests against a baseline (ReAct-SQL Table 5 shape: delta,
//     CI, b, c, p, Holm-adjusted p);
//   - efficiency (calls, generated tokens, tokens/s per role, latency
//     min/median/mean/max/CV, cost per question) and, when traces count
//     "turns", accuracy and average turns by difficulty (ReAct-SQL Table 6);
//   - plots (gonum/plot, PNG and SVG): EX against a swept parameter per
//     backbone with Wilson bars, EX over an alpha/beta/gamma simplex grid,
//     difficulty x reasoning-type heat maps, accuracy against cost and
//     against median latency with the Pareto frontier, and validation
//     trigger rates (trace counters "validation.*", SteinerSQL Figure 3).
//
// A table or plot is produced only when the runs hold the data for it.
// Every table renders to the terminal (tablewriter), Markdown, LaTeX
// (booktabs, numbers right-aligned with marks of zero width, the best value
// of a column in bold) and CSV. A difference that is not significant after
// Holm adjustment is marked "~" (LaTeX: a dagger). A run of the sim
// backend is titled "(simulated model)" in the report title, every caption
// and every plot title.
//
// Output is deterministic: keys are sorted, bootstrap sources are seeded
// from Options.Seed, and nothing records the time, so the same run
// directories give byte-identical files (PNG and SVG included).
package reports
