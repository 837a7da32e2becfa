package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/stats"
)

// Row is one system compared with its baseline; it is also compare's
// --json output.
type Row struct {
	Baseline string `json:"baseline"`
	System   string `json:"system"`
	// Metric is the metric compared when it is not EX; AccBaseline and
	// AccSystem are then its means.
	Metric      string  `json:"metric,omitempty"`
	Benchmark   string  `json:"benchmark,omitempty"`
	N           int     `json:"n"`
	AccBaseline float64 `json:"acc_baseline"`
	AccSystem   float64 `json:"acc_system"`
	Delta       float64 `json:"delta"`
	CILo        float64 `json:"ci_lo"`
	CIHi        float64 `json:"ci_hi"`
	Level       float64 `json:"level"`
	CIMethod    string  `json:"ci_method"`
	Resamples   int     `json:"resamples"`
	// Seeds is the number of seeds pooled (1 for a verdict file or a
	// one-seed run); B and C count discordant (seed, question) pairs.
	Seeds       int     `json:"seeds"`
	B           int     `json:"b"`
	C           int     `json:"c"`
	Test        string  `json:"test"`
	P           float64 `json:"p"`
	PHolm       float64 `json:"p_holm"`
	Significant bool    `json:"significant"`
	// FailedBaseline and FailedSystem count the paired questions whose
	// runner failed (counted wrong); Partial* say a run trial has pending
	// items.
	FailedBaseline  int      `json:"failed_baseline"`
	FailedSystem    int      `json:"failed_system"`
	PartialBaseline bool     `json:"partial_baseline,omitempty"`
	PartialSystem   bool     `json:"partial_system,omitempty"`
	BaselineOnly    int      `json:"dropped_baseline_only,omitempty"`
	SystemOnly      int      `json:"dropped_system_only,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
	// Comparison is the comparison the row shows.
	Comparison *stats.Comparison `json:"-"`
}

// Config carries the statistical settings of a comparison.
type Config struct {
	// Intersect pairs on the questions both systems have under every
	// seed, dropping the others; without it they are an error.
	Intersect bool
	Level     float64
	Resamples int
	Seed      uint64
	CIMethod  string
	Test      string
	// Metric names the metric compared when it is not EX ("" for EX);
	// Scores says it is a score metric, compared on Inputs.Scores by
	// stats.CompareScoreFamilies.
	Metric string
	Scores bool
	// AtDefault says whether a sweep's point is at its runner's paper
	// default (stats.PlanFamilies).
	AtDefault func(stats.SystemRef) bool
}

// AssignGroups checks the systems' benchmarks and the baseline: verdict
// files without a benchmark join that of the run trials when those are
// all on one benchmark; a verdict file alone on its benchmark is an
// error, as is a baseline (a name or a path) that names no system. Every
// error is one of the input.
func AssignGroups(systems []System, baseline string) error {
	groups := map[string]string{} // Key -> a Benchmark
	for _, s := range systems {
		if s.Benchmark != "" {
			groups[s.Key] = s.Benchmark
		}
	}
	if len(groups) == 1 {
		for i := range systems {
			if systems[i].Benchmark == "" {
				for k, g := range groups {
					systems[i].Benchmark, systems[i].Key = g, k
				}
			}
		}
	}
	count := map[string]int{}
	for _, s := range systems {
		count[s.Key]++
	}
	// A verdict file alone on its benchmark is compared with nothing:
	// say so plainly instead of leaving it out.
	for _, s := range systems {
		if s.FromFile && count[s.Key] == 1 && len(systems) > 1 {
			var others []string
			for _, o := range systems {
				if o.Source != s.Source || o.Name != s.Name {
					others = append(others, fmt.Sprintf("%s: %s", o.Name, benchmarkOrUnknown(o.Benchmark)))
				}
			}
			return fmt.Errorf("compare: %s scores benchmark %s and no other input does (%s); systems are compared only on the same benchmark: compare verdict files of one benchmark (eval --benchmark)",
				s.Source, benchmarkOrUnknown(s.Benchmark), strings.Join(others, "; "))
		}
	}
	if baseline != "" && !slices.ContainsFunc(systems, func(s System) bool { return s.Name == baseline || s.Source == baseline }) {
		names := make([]string, len(systems))
		for i, s := range systems {
			names[i] = s.Name
		}
		return fmt.Errorf("--baseline %q is none of the systems %s", baseline, strings.Join(names, ", "))
	}
	return nil
}

func benchmarkOrUnknown(b string) string {
	if b == "" {
		return "(not recorded: a verdict file written before eval recorded it)"
	}
	return b
}

// All compares the systems family by family: stats.PlanFamilies decides
// each system's baseline and family (the first system of each benchmark
// or the one baseline names; a sweep's points against the runner's paper
// default point), and stats.CompareFamilies compares each member with its
// baseline (test, paired bootstrap interval seeded by cfg.Seed and the two
// names, Holm within the family). Rows are in family order.
func All(systems []System, baseline string, cfg Config) ([]Row, error) {
	refs := make([]stats.SystemRef, len(systems))
	arms := make([]stats.Arm, len(systems))
	for i, s := range systems {
		refs[i] = s.Ref
		refs[i].Names, refs[i].Benchmark = []string{s.Name, s.Source}, s.Key
		if s.Ref.Sweep != "" {
			refs[i].Sweep = s.Source + "\x00" + s.Ref.Sweep
		}
		arms[i] = stats.Arm{Key: s.Name, Outcomes: s.Correct}
		if len(s.Excluded) > 0 {
			arms[i].Excluded = map[string]bool{}
			for id := range s.Excluded {
				arms[i].Excluded[id] = true
			}
		}
	}
	fams := stats.PlanFamilies(refs, baseline, cfg.AtDefault)
	// The databases of the questions two systems share must agree.
	for _, f := range fams {
		if f.Base < 0 {
			continue
		}
		b := systems[f.Base]
		for _, i := range f.Members {
			s := systems[i]
			for _, id := range slices.Sorted(maps.Keys(s.DBs)) {
				if da, db := b.DBs[id], s.DBs[id]; da != "" && db != "" && da != db {
					return nil, fmt.Errorf("compare %s (%s) with %s (%s): question %q is on database %q in one and %q in the other; they score different benchmarks",
						b.Name, b.Source, s.Name, s.Source, id, da, db)
				}
			}
		}
	}
	fopt := stats.FamilyOptions{Test: cfg.Test, Level: cfg.Level, Resamples: cfg.Resamples,
		CIMethod: cfg.CIMethod, Seed: cfg.Seed, Intersect: cfg.Intersect}
	var cmp map[int]*stats.SystemComparison
	var err error
	if cfg.Scores {
		scoreArms := make([]stats.ScoreArm, len(systems))
		for i, s := range systems {
			scoreArms[i] = stats.ScoreArm{Key: s.Name, Scores: s.Inputs.Scores}
		}
		cmp, err = stats.CompareScoreFamilies(fams, scoreArms, fopt)
	} else {
		cmp, err = stats.CompareFamilies(fams, arms, fopt)
	}
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var rows []Row
	for _, f := range fams {
		if f.Base < 0 {
			continue
		}
		b := systems[f.Base]
		for _, i := range f.Members {
			s, sc := systems[i], cmp[i]
			if sc.Err != nil {
				return nil, fmt.Errorf("compare %s (%s) with %s (%s): %w", b.Name, b.Source, s.Name, s.Source, sc.Err)
			}
			c, p := sc.Comparison, sc.Paired
			row := Row{
				Baseline: b.Name, System: s.Name, Metric: cfg.Metric, Benchmark: s.Benchmark, N: c.N, Seeds: c.Seeds,
				AccBaseline: c.AccA, AccSystem: c.AccB, Delta: c.Delta,
				CILo: c.CI.Lo, CIHi: c.CI.Hi, Level: c.CI.Level, CIMethod: c.CIMethod, Resamples: c.Resamples,
				B: c.B, C: c.C, Test: c.Test, P: c.P, PHolm: c.PAdj, Significant: c.Significant(), Warnings: c.Warnings,
				BaselineOnly: len(p.OnlyA), SystemOnly: len(p.OnlyB),
				PartialBaseline: b.Pending > 0, PartialSystem: s.Pending > 0,
				Comparison: c,
			}
			for _, seed := range p.Seeds {
				for _, id := range p.IDs {
					if b.Failed[seed][id] {
						row.FailedBaseline++
					}
					if s.Failed[seed][id] {
						row.FailedSystem++
					}
				}
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("compare: no two systems are on the same benchmark; nothing to compare")
	}
	return rows, nil
}
