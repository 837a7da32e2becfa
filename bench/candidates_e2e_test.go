package bench_test

import (
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
)

// candidatesSpec runs the self-consistency baseline (five samples) and
// direct with sim on the first questions of the bundled mini benchmark.
const candidatesSpec = `name: candidates
benchmarks: [{name: mini}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners:
  - name: direct
  - name: sc
    params: {k: 5, temperature: 0.8}
workers: 2
`

// TestCandidatesScored: every stored candidate of a done item is judged
// (one mark per candidate, in order), a candidate with the final SQL's
// text gets the final verdict's correctness, and the marks give pass@k and
// majority@k through metrics.SummarizeCandidates.
func TestCandidatesScored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := benchkit.Plan(t, benchkit.Spec(t, candidatesSpec, "candidates.yaml"))
	if _, err := benchkit.Run(t, dir, p, bench.Options{Limit: 6}); err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, tr := range r.Trials {
		var vs []metrics.Verdict
		for _, it := range tr.Items {
			if it.Verdict == nil || it.Result == nil {
				t.Fatalf("%s %s: no verdict or result", tr.Label, it.QuestionID)
			}
			v := *it.Verdict
			vs = append(vs, v)
			if len(v.Candidates) != len(it.Result.Candidates) {
				t.Errorf("%s %s: %d marks for %d candidates; want one each", tr.Label, it.QuestionID, len(v.Candidates), len(it.Result.Candidates))
				continue
			}
			marked += len(v.Candidates)
			for i, c := range it.Result.Candidates {
				if c.SQL == it.Result.SQL && v.Candidates[i].Correct != v.Correct {
					t.Errorf("%s %s: candidate %d is the final SQL but marked %v; the verdict says %v", tr.Label, it.QuestionID, i, v.Candidates[i].Correct, v.Correct)
				}
			}
		}
		s, err := metrics.SummarizeCandidates(vs, []int{1, 5})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Runner == "sc" && (s.Questions != len(vs) || s.ByK[1].PassAtK < s.ByK[0].PassAtK) {
			t.Errorf("sc: %+v; want every question with candidates and pass@5 >= pass@1", s)
		}
		t.Logf("%s: %+v", tr.Label, s)
	}
	if marked == 0 {
		t.Fatal("no candidate marked; want the sc runner's candidates judged")
	}
	// LoadRunSystems, which compare reads, carries the same marks for the
	// questions whose gold runs.
	sys, err := runstore.LoadRunSystems(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sys {
		for _, it := range r.Trials[i].Items {
			want := it.Verdict.Candidates
			if !metrics.GoldRuns(it.Verdict.Status) {
				want = nil
			}
			if got := s.Candidates[it.QuestionID]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: LoadRunSystems gives candidates %v; want %v", s.Label, it.QuestionID, got, want)
			}
		}
	}
}
