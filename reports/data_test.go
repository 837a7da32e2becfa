package reports

import (
	"errors"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestLoadNames checks the names load gives a system from its trial's
// identity (spec.Identity): the row drops the benchmark, the
// configuration also the varying backbones and the seed; head and variant
// are the entry's name and ablation. Labels are those spec.NewPlan gives
// (bench's TestStoredPlanIDs checks them against a stored plan).
func TestLoadNames(t *testing.T) {
	trial := func(entry int, label string, id *spec.Identity, bk string, seed int64, reason string) runstore.RunTrial {
		return runstore.RunTrial{Trial: spec.Trial{ID: label, Label: label, Identity: id, Runner: "iesr", Entry: entry, Seed: seed,
			Params: runners.Params{"n_rollout": 8.0},
			Roles:  map[string]string{runners.RoleReason: reason, "judge": "j"}, Benchmark: spec.BenchmarkSpec{Name: bk}}}
	}
	full := func(m string) *spec.Identity {
		return &spec.Identity{Name: "iesr tuned", Sweep: []spec.Setting{{Key: "n_rollout", Value: "8"}},
			Backbone: []spec.Setting{{Key: "judge", Value: "j"}, {Key: runners.RoleReason, Value: m}}, Bench: true}
	}
	abl := &spec.Identity{Name: "iesr tuned", Ablation: "wo-linking", Sweep: []spec.Setting{{Key: "n_rollout", Value: "8"}},
		Backbone: []spec.Setting{{Key: "judge", Value: "j"}, {Key: runners.RoleReason, Value: "a"}}, Bench: true}
	trials := []runstore.RunTrial{
		trial(0, "iesr tuned n_rollout=8 judge=j reason=a @mini", full("a"), "mini", 1, "a"),
		trial(0, "iesr tuned n_rollout=8 judge=j reason=b @mini", full("b"), "mini", 1, "b"),
		trial(0, "iesr tuned wo-linking n_rollout=8 judge=j reason=a @mini", abl, "mini", 1, "a"),
	}
	type names struct{ name, row, config, backbone, head, variant string }
	want := []names{
		{"iesr tuned n_rollout=8 judge=j reason=a @mini", "iesr tuned n_rollout=8 judge=j reason=a", "iesr tuned n_rollout=8 judge=j", "reason=a", "iesr tuned", ""},
		{"iesr tuned n_rollout=8 judge=j reason=b @mini", "iesr tuned n_rollout=8 judge=j reason=b", "iesr tuned n_rollout=8 judge=j", "reason=b", "iesr tuned", ""},
		{"iesr tuned wo-linking n_rollout=8 judge=j reason=a @mini", "iesr tuned wo-linking n_rollout=8 judge=j reason=a", "iesr tuned wo-linking n_rollout=8 judge=j", "reason=a", "iesr tuned", "wo-linking"},
	}
	for _, tc := range []struct {
		name     string
		identity bool
	}{{"identity", true}, {"old store", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := make([]runstore.RunTrial, len(trials))
			for i, tr := range trials {
				ts[i] = tr
				if !tc.identity {
					ts[i].Identity = nil
				}
			}
			// An old store's run has another benchmark, so that its
			// labels name the benchmark.
			if !tc.identity {
				ts = append(ts, trial(1, "direct @spider", nil, "spider", 0, "a"))
			}
			c, err := load([]*runstore.RunData{{Dir: "runs/x", Meta: map[string]string{"name": "x"}, Trials: ts}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range want {
				s := c.systems[i]
				got := names{s.name, s.row, s.config, s.backbone, s.head, s.variant}
				if got != w {
					t.Errorf("system %d = %+v; want %+v", i, got, w)
				}
			}
		})
	}
	// Two runs with the same labels: names are prefixed by the run, head
	// and variant stay the entry's.
	a := []runstore.RunTrial{trials[2]}
	c, err := load([]*runstore.RunData{{Dir: "runs/x", Meta: map[string]string{"name": "x"}, Trials: a}, {Dir: "runs/y", Meta: map[string]string{"name": "y"}, Trials: a}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.systems[1]
	got := names{s.name, s.row, s.config, s.backbone, s.head, s.variant}
	w := names{"y: iesr tuned wo-linking n_rollout=8 judge=j reason=a @mini", "y: iesr tuned wo-linking n_rollout=8 judge=j reason=a", "y: iesr tuned wo-linking n_rollout=8 judge=j reason=a", "a", "iesr tuned", "wo-linking"}
	if got != w {
		t.Errorf("second run's system = %+v; want %+v", got, w)
	}
}

// TestLabelsFor checks the label cache load reads benchmarks' labels
// through: each benchmark's labels are read once; a benchmark whose labels
// fail gives nil labels and its warning the first time only; without a
// source there are no labels and no warning.
func TestLabelsFor(t *testing.T) {
	t.Parallel()
	calls := map[string]int{}
	src := func(b spec.BenchmarkSpec) (map[string]QuestionLabels, error) {
		calls[b.Name]++
		if b.Name == "broken" {
			return nil, errors.New("no data")
		}
		return map[string]QuestionLabels{"q1": {Difficulty: "easy"}}, nil
	}
	lc := newLabelCache(src)
	none := newLabelCache(nil)
	for _, tc := range []struct {
		name       string
		lc         *labelCache
		bench      string
		wantLabels bool
		wantWarn   string
		wantCalls  int
	}{
		{"first read", lc, "mini", true, "", 1},
		{"cached", lc, "mini", true, "", 1},
		{"failed", lc, "broken", false, "labels of benchmark broken unavailable (no data); difficulty comes from the verdicts and reasoning types are left out", 1},
		{"failed again", lc, "broken", false, "", 1},
		{"no source", none, "other", false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, warn := tc.lc.labelsFor(spec.BenchmarkSpec{Name: tc.bench}, tc.bench)
			if got := l != nil; got != tc.wantLabels {
				t.Errorf("got labels %v; want labels: %v", l, tc.wantLabels)
			}
			if warn != tc.wantWarn {
				t.Errorf("got warning %q; want %q", warn, tc.wantWarn)
			}
			if calls[tc.bench] != tc.wantCalls {
				t.Errorf("got %d reads of %s's labels; want %d", calls[tc.bench], tc.bench, tc.wantCalls)
			}
		})
	}
}
