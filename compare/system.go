// Package compare holds the systems that compare compares and their
// comparison: a system's outcomes by seed, read from a verdict file or
// gathered from a run's trials, grouped by benchmark and compared with its
// baseline (stats.PlanFamilies, stats.CompareFamilies) into one row per
// pair.
package compare

import (
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/stats"
	"github.com/t2sbench/t2sbench/verdictfile"
)

// System is one system's outcomes and where they came from: a verdict
// file, or the trials of a run that differ only in their seed (its seeds
// are replicates).
type System struct {
	Name   string
	Source string
	// Benchmark is the benchmark of a run's trial (its spec key,
	// bird/minidev) or of a verdict file (eval's --benchmark name); Key is
	// the name benchmarks are matched by (the spec key with "-" for "/").
	// Systems are compared only with a baseline of the same Key. A verdict
	// file written before eval recorded its benchmark has neither.
	Benchmark string
	Key       string
	FromFile  bool
	Simulated bool
	// Correct holds, by seed, the questions in EX's one denominator
	// (metrics.GoldRuns: the gold runs), failed ones false. A verdict
	// file has one seed, 0.
	Correct stats.Replicates
	// Failed holds, by seed, the questions whose runner failed (run
	// directories).
	Failed map[int64]map[string]bool
	// Excluded maps the questions whose gold does not run to their status;
	// they are in no denominator, and a question excluded in one system is
	// dropped from the other's side of a pair.
	Excluded map[string]metrics.Status
	// Tallies count each seed's questions on EX's one denominator (run
	// directories record only the counts of excluded questions).
	Tallies []metrics.Tally
	// Run is true for a system of a run directory; Pending counts its
	// unfinished items over its seeds (its EX is then partial).
	Run     bool
	Pending int
	// DBs maps question id to db_id where the input records it; a paired
	// question on different databases means two different benchmarks.
	DBs map[string]string
	// Ref is the runner, parameters and sweep (its key within the run and
	// its swept parameters) of a run system's first trial; zero for a
	// verdict file.
	Ref stats.SystemRef
	// Inputs holds the per-question values compared beside EX.
	Inputs Inputs
}

// Seeds is the number of the system's seeds.
func (s System) Seeds() int { return len(s.Correct) }

// EX is the system's EX, the mean over seeds of each seed's EX (over its
// attempted questions), with the standard deviation over seeds (NaN for
// one seed; stats.MeanSD, as the report's) and the counts summed over
// seeds.
func (s System) EX() (mean, sd float64, sum metrics.Tally) {
	sum.Excluded = map[metrics.Status]int{}
	var exs []float64
	for _, t := range s.Tallies {
		sum.Merge(t)
		if t.Attempted > 0 {
			exs = append(exs, t.EX())
		}
	}
	mean, sd = stats.MeanSD(exs)
	return mean, sd, sum
}

// FromVerdicts is the system of verdict file f, named name, whose
// benchmark is matched by key: a question whose status says its gold does
// not run (missing_db, gold_error, gold_timeout) is excluded from EX's
// denominator, as eval excludes it.
func FromVerdicts(f *verdictfile.File, name, key string) System {
	correct := map[string]bool{}
	s := System{Name: name, Source: f.Path, Benchmark: f.Benchmark, Key: key, FromFile: true,
		Excluded: map[string]metrics.Status{}, DBs: map[string]string{}}
	t := metrics.Tally{Excluded: map[metrics.Status]int{}}
	for _, v := range f.Verdicts {
		if !metrics.GoldRuns(v.Status) {
			s.Excluded[v.QuestionID] = v.Status
			t.Excluded[v.Status]++
		} else {
			correct[v.QuestionID] = v.Correct
			t.Attempted++
			if v.Correct {
				t.Correct++
			}
			s.Inputs.AddVerdict(v)
		}
		if v.DBID != "" {
			s.DBs[v.QuestionID] = v.DBID
		}
	}
	s.Correct = stats.Single(correct)
	s.Tallies = []metrics.Tally{t}
	return s
}

// Inputs are a system's per-question values beside its EX outcome, as its
// input holds them: a verdict file's Soft F1, R-VES scores and candidate
// marks (seed 0), a run's candidate marks by seed.
type Inputs struct {
	SoftF1, RVES map[string]float64
	Cands        map[int64]map[string][]metrics.CandidateMark
	// Scores are the scores compared under a score metric (Soft F1,
	// R-VES), by seed; nil under the others.
	Scores stats.Scores
}

// AddVerdict records a verdict file's values beside EX for its question.
func (m *Inputs) AddVerdict(v verdictfile.Verdict) {
	id := v.QuestionID
	if v.SoftF1 != nil {
		if m.SoftF1 == nil {
			m.SoftF1 = map[string]float64{}
		}
		m.SoftF1[id] = *v.SoftF1
	}
	if v.RVESReward != nil {
		if m.RVES == nil {
			m.RVES = map[string]float64{}
		}
		m.RVES[id] = metrics.RVESScore(*v.RVESReward)
	}
	if len(v.Candidates) > 0 {
		m.AddCandidates(0, map[string][]metrics.CandidateMark{id: v.Candidates})
	}
}

// AddCandidates records the candidate marks of a seed's questions.
func (m *Inputs) AddCandidates(seed int64, marks map[string][]metrics.CandidateMark) {
	if m.Cands == nil {
		m.Cands = map[int64]map[string][]metrics.CandidateMark{}
	}
	if m.Cands[seed] == nil {
		m.Cands[seed] = map[string][]metrics.CandidateMark{}
	}
	for id, ms := range marks {
		m.Cands[seed][id] = ms
	}
}
