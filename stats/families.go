package stats

import "slices"

// The comparison plan: which system each system is compared with, and the
// families whose p-values Holm adjusts together, the same for compare, the
// run summary, the report and the viewer.

// SystemRef describes one system to PlanFamilies.
type SystemRef struct {
	// Names are the names --baseline may give for the system (its label,
	// a report's row, a verdict file's path).
	Names []string
	// Benchmark is the benchmark the system scores; systems are compared
	// only on the same benchmark.
	Benchmark string
	// Runner and Params are the system's runner and parameters (a
	// verdict file has none).
	Runner string
	Params map[string]any
	// Sweep is the key the points of the system's sweep or grid share
	// (SweepOf, prefixed by the run where systems of several runs are
	// planned together); "" when the system is no such point. Swept are
	// the parameters the sweep varies.
	Sweep string
	Swept []string
}

// Family is a baseline and the systems compared with it, whose p-values
// Holm adjusts together (CompareFamily).
type Family struct {
	Benchmark string
	// Swept names the parameters of a sweep or grid whose points the
	// family compares; nil for the family of a benchmark's systems.
	Swept []string
	// Base is the index of the baseline among the systems given to
	// PlanFamilies; -1 for a sweep without one (its paper default point
	// is not on the grid and --baseline names none of its points).
	Base int
	// Why says how the baseline was chosen: "chosen by --baseline", "the
	// paper's default point" or "the first system".
	Why string
	// Members are the indexes of the systems compared with Base, in
	// order.
	Members []int
}

// Reasons a baseline was chosen, the values of Family.Why.
const (
	WhyBaselineFlag = "chosen by --baseline"
	WhyPaperDefault = "the paper's default point"
	WhyFirst        = "the first system"
)

// PlanFamilies decides which system every system is compared with, and
// the families Holm adjusts over, the same way for compare, the run
// summary, the report and the viewer:
//
//   - The points of a sweep or simplex grid (two or more systems with the
//     same SystemRef.Sweep) form a family: each point is compared with the
//     point baseline names, else with the point at the runner's paper
//     default (the first point atDefault accepts; a nil atDefault accepts none),
//     else with none. The sweep is the family.
//   - The other systems of a benchmark, and each sweep's baseline point as
//     its runner's representative (at the position of the sweep's first
//     point), form the benchmark's family: each is compared with the one
//     baseline names, else with the first of them. A sweep without a
//     baseline point leaves its points in the benchmark's family.
//
// Benchmarks are in the order of their first system; a benchmark's family
// comes first, then its sweeps. A family with fewer than two systems is
// left out (a sweep without a baseline is kept, Base -1, so that its
// output can say why its points are not tested).
func PlanFamilies(systems []SystemRef, baseline string, atDefault func(SystemRef) bool) []Family {
	named := func(i int) bool { return baseline != "" && slices.Contains(systems[i].Names, baseline) }
	var benches []string
	on := map[string][]int{}
	for i, s := range systems {
		if _, ok := on[s.Benchmark]; !ok {
			benches = append(benches, s.Benchmark)
		}
		on[s.Benchmark] = append(on[s.Benchmark], i)
	}
	var out []Family
	for _, b := range benches {
		var sweeps []string
		points := map[string][]int{}
		for _, i := range on[b] {
			if k := systems[i].Sweep; k != "" {
				if _, ok := points[k]; !ok {
					sweeps = append(sweeps, k)
				}
				points[k] = append(points[k], i)
			}
		}
		var fams []Family
		sweepBase := map[string]int{}
		for _, k := range sweeps {
			g := points[k]
			if len(g) < 2 {
				continue
			}
			f := Family{Benchmark: b, Swept: systems[g[0]].Swept, Base: -1}
			for _, i := range g {
				if named(i) {
					f.Base, f.Why = i, WhyBaselineFlag
				}
			}
			if f.Base < 0 {
				for _, i := range g {
					if atDefault != nil && atDefault(systems[i]) {
						f.Base, f.Why = i, WhyPaperDefault
						break
					}
				}
			}
			for _, i := range g {
				if i != f.Base {
					f.Members = append(f.Members, i)
				}
			}
			if f.Base >= 0 {
				sweepBase[k] = f.Base
			}
			fams = append(fams, f)
		}
		var cands []int
		seen := map[string]bool{}
		for _, i := range on[b] {
			k := systems[i].Sweep
			base, tested := sweepBase[k]
			switch {
			case k == "" || !tested:
				cands = append(cands, i)
			case !seen[k]:
				seen[k] = true
				cands = append(cands, base)
			}
		}
		main := Family{Benchmark: b, Base: -1}
		for _, i := range cands {
			if named(i) {
				main.Base, main.Why = i, WhyBaselineFlag
			}
		}
		if main.Base < 0 && len(cands) > 0 {
			main.Base, main.Why = cands[0], WhyFirst
			if k := systems[cands[0]].Sweep; k != "" && sweepBase[k] == cands[0] {
				main.Why = WhyPaperDefault
			}
		}
		for _, i := range cands {
			if i != main.Base {
				main.Members = append(main.Members, i)
			}
		}
		if len(main.Members) > 0 {
			out = append(out, main)
		}
		out = append(out, fams...)
	}
	return out
}

// SystemComparison is one system compared with its family's baseline,
// Base (an index of the systems given to CompareFamilies).
type SystemComparison struct {
	Base int
	FamilyResult
}

// CompareFamilies compares every family of fams (CompareFamily,
// the systems named by their Key) and returns the comparison of each
// system that is a member of a family with a baseline, by system index.
func CompareFamilies(fams []Family, arms []Arm, opt FamilyOptions) (map[int]*SystemComparison, error) {
	return compareEachFamily(fams, func(base int, members []int) ([]FamilyResult, error) {
		ms := make([]Arm, len(members))
		for k, i := range members {
			ms[k] = arms[i]
		}
		return CompareFamily(arms[base], ms, opt)
	})
}

// CompareScoreFamilies is CompareFamilies for real-valued scores: every
// member of a family is compared with its baseline by
// CompareScorePairs.
func CompareScoreFamilies(fams []Family, arms []ScoreArm, opt FamilyOptions) (map[int]*SystemComparison, error) {
	return compareEachFamily(fams, func(base int, members []int) ([]FamilyResult, error) {
		pairs := make([][2]ScoreArm, len(members))
		for k, i := range members {
			pairs[k] = [2]ScoreArm{arms[base], arms[i]}
		}
		return CompareScorePairs(pairs, opt)
	})
}

// compareEachFamily runs compare on the baseline and members (system
// indexes) of every family of fams that has a baseline, and returns each
// member's result by system index.
func compareEachFamily(fams []Family, compare func(base int, members []int) ([]FamilyResult, error)) (map[int]*SystemComparison, error) {
	out := map[int]*SystemComparison{}
	for _, f := range fams {
		if f.Base < 0 {
			continue
		}
		res, err := compare(f.Base, f.Members)
		if err != nil {
			return nil, err
		}
		for k, i := range f.Members {
			out[i] = &SystemComparison{Base: f.Base, FamilyResult: res[k]}
		}
	}
	return out, nil
}
