// Package reports turns run directories into paper-ready tables and plots.
//
// Build reads the trials of one or more runs (runstore.ReadRunStream, or runs
// read whole) one trial's items at a time and keeps no item: per system it
// keeps counts and sums in item order, and per item only its wall time
// (until the system's latency statistics are computed) and its outcome,
// which comparisons pair (a few bytes; question ids are interned); it
// derives:
//
//   - the setup (report.md's Setup section; tables setup-models and
//     setup-trials): the code commit of the report and, when the store has
//     it (meta key MetaCommit, written by `t2sbench run`), of the run; when the work items ran; the spec's timeout and
//     workers; the options each session of `t2sbench run` was given that
//     change results or resources (meta key runstore.MetaRunOptions); seeds; questions per trial; each benchmark's data and
//     limits; every model with its backend, served name, endpoint (user
//     information and query strings redacted), roles and settings; every
//     trial with its runner, roles and every parameter given;
//   - ablation tables (IESR Table 2 / SteinerSQL Table 2 shape): rows are
//     configurations of one runner entry, columns are backbones; each cell
//     holds EX and the drop against the entry's full configuration, with a
//     paired bootstrap interval of the drop and a Holm-adjusted p;
//   - the main comparison (systems x benchmarks) and its breakdowns by
//     difficulty and by reasoning type; a system is a configuration with
//     its seeds as replicates: EX is the mean over seeds with its standard
//     deviation and number of seeds, the per-seed numbers an appendix
//     table (ex-by-seed);
//   - pairwise tests against a baseline (ReAct-SQL Table 5 shape: delta,
//     CI, b, c, test, p, Holm-adjusted p) and, per sweep or grid, every
//     point against the runner's paper default point (sweep-...), each
//     the comparisons runstore.PlanFamilies plans and stats.CompareFamily
//     computes, as compare, the run summary and the viewer print them;
//   - efficiency (calls, generated tokens, tokens/s per role, latency
//     min/median/mean/max/CV, cost per question and per trial, each run's
//     total cost; metrics.Price.Cost) and, when traces count
//     "turns", accuracy and average turns by difficulty (ReAct-SQL Table 6);
//   - plots (gonum/plot; PNG at 300 dpi, SVG and one-page vector PDF,
//     without titles: Figure.Caption holds the title, n, the intervals and
//     the notes, written to plots/captions.md and, as LaTeX \caption
//     lines, plots/captions.tex): each system's difference from the
//     pairwise baseline with its interval (pairwise-delta-...); EX against
//     a swept parameter per backbone with Wilson bars and the paper's
//     default marked (Options.PaperDefaults); EX over an alpha/beta/gamma
//     simplex grid with the default point boxed and the tests of every
//     point against it (Holm-adjusted; Options.Baseline picks another
//     point), its colour bar spanning the range of the data, printed on
//     the bar; the plots that show comparisons write their numbers beside
//     them (plots/<id>.csv); difficulty x reasoning-type heat maps of
//     every system, heatmapPanelRows rows of panels per figure with n in
//     every cell, a grey for cells without questions and one colour bar,
//     paged (-p1, -p2, ...) with a note when the systems do not fit one
//     figure; accuracy with Wilson bars against cost and against median
//     latency with the Pareto frontier, on a log axis when the values span
//     more than two orders of magnitude, each point named by a label
//     placed apart from the others and inside the frame, or, when the
//     labels cannot all be placed so, by a legend beside the plot; and
//     validation trigger rates grouped by level (L1 execution, L2
//     structure, L3 semantics, as docs/METHODS.md defines them; trace
//     counters "validation.*", SteinerSQL Figure 3). A system has one
//     colour (Okabe-Ito, colour-blind safe) and marker in every plot of a
//     report (reportStyles). EX and percentage axes stay within [0, 100]
//     with integer tick labels; legends sit inside the frame, in the
//     corner with the least data.
//
// Files are named after what they show, from the benchmark, runner and
// parameters: tables/ex-by-system, ex-by-difficulty-<benchmark>,
// ex-by-reasoning-type-<benchmark>, pairwise-<benchmark>,
// ablation-<runner>-<benchmark>, efficiency, efficiency-roles,
// ex-and-turns-by-difficulty-<benchmark>, validation-rates,
// keyword-precision-recall-<benchmark> (IESR Table 4), parse-failures,
// sweep-<params>-<runner>-<benchmark>, ex-by-seed; plots/
// pairwise-delta-<benchmark>, ex-vs-<param>-<runner>-<benchmark>, ex-over-<x>-<y>-<runner>-<benchmark>,
// ex-by-difficulty-and-type-<benchmark>[-p<page>], pareto-ex-vs-cost (or
// -gen-tokens), pareto-ex-vs-latency, validation-rates. A name that would
// repeat gets "-2", "-3", ... in plan order.
//
// A table or plot is produced only when the runs hold the data for it.
// Every table renders to the terminal (tablewriter), Markdown, LaTeX
// (booktabs, numbers right-aligned with marks of zero width, the best value
// of a column in bold) and CSV. A difference that is not significant after
// Holm adjustment is marked "~" (LaTeX: a dagger). A run of the sim
// backend is titled "(simulated model)" in the report title, every caption
// and every plot caption (runstore.TitleNote).
//
// Output is deterministic: keys are sorted, bootstrap sources are seeded
// from Options.Seed and the systems' names (stats.PairRand), and nothing records the time, so the same run
// directories give byte-identical files (PNG, SVG and PDF included: the
// PDF's dates are fixed).
package reports
