package bench

import (
	"reflect"
	"strings"
	"testing"

	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestQuickProfile: the quick profile lowers every n_rollout above 4 (set
// in params, or the runner's default of 24 where the entry sets none),
// leaves a smaller one, an ablation or a sweep of n_rollout and the other
// runners alone, applies before --set, and its summary names what it
// lowered.
func TestQuickProfile(t *testing.T) {
	const yml = `name: p
benchmarks: [{name: mini}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners:
  - name: direct
  - name: iesr
    params: {n_rollout: 32}
    ablations: {more: {n_rollout: 40}, small: {n_rollout: 2}}
  - name: alphasql
  - name: iesr
    label: one
    params: {n_rollout: 1}
  - name: iesr
    label: swept
    sweep: {n_rollout: [8, 16]}
`
	tests := []struct {
		name string
		set  []string
		want map[string]int // trial label -> n_rollout (0: unset)
		sum  string
	}{
		{"quick", nil,
			map[string]int{"direct": 0, "iesr": 4, "iesr more": 40, "iesr small": 2, "alphasql": 4, "one": 1, "swept n_rollout=8": 8, "swept n_rollout=16": 16},
			"quick profile: n_rollout 4 (was 24, 32), limit 12"},
		{"--set after the profile", []string{"runners.1.params.n_rollout=6"},
			map[string]int{"direct": 0, "iesr": 6, "iesr more": 40, "iesr small": 2, "alphasql": 4, "one": 1, "swept n_rollout=8": 8, "swept n_rollout=16": 16},
			"quick profile: n_rollout 4 (was 24, 32), limit 12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.ParseSpecWith([]byte(yml), "p.yaml", spec.LoadOptions{Profile: "quick", Set: tt.set})
			if err != nil {
				t.Fatal(err)
			}
			p, err := spec.NewPlan(s)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, tr := range p.Trials {
				v, _ := tr.Params["n_rollout"].(int)
				got[tr.Label] = v
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("n_rollout by trial = %v; want %v", got, tt.want)
			}
			if sum := s.ProfileUse.Summary(s.ProfileUse.Profile.Limit); sum != tt.sum {
				t.Errorf("summary = %q; want %q", sum, tt.sum)
			}
		})
	}
	if _, err := spec.ParseSpecWith([]byte(yml), "p.yaml", spec.LoadOptions{Profile: "fast"}); err == nil || !strings.Contains(err.Error(), "--profile fast: unknown profile (known: quick)") {
		t.Errorf("unknown profile: err = %v; want one listing the known profiles", err)
	}
	text := "name: p\n\n" + spec.ChangeMarker + "\n" + spec.ProfileMarker + "quick profile: limit 12\n#   --set x=1\n"
	if got := spec.SpecProfile(text); got != "quick profile: limit 12" {
		t.Errorf("SpecProfile = %q; want %q", got, "quick profile: limit 12")
	}
	if got := spec.SpecProfile("name: p\n#   --profile x\n"); got != "" {
		t.Errorf("SpecProfile of a spec the command line did not change = %q; want \"\"", got)
	}
}

// TestSummaryTitleStatesProfile: the run summary's title states the
// profile the run went through, after "simulated model".
func TestSummaryTitleStatesProfile(t *testing.T) {
	text := "name: p\n\n" + spec.ChangeMarker + "\n" + spec.ProfileMarker + "quick profile: n_rollout 4 (was 32), limit 12\n"
	for _, tt := range []struct {
		spec string
		want string
	}{
		{text, "p (simulated model, quick profile: n_rollout 4 (was 32), limit 12)\n"},
		{"name: p\n", "p (simulated model)\n"},
	} {
		var b strings.Builder
		runstore.WriteSummary(&b, &runstore.RunData{Simulated: true, Meta: map[string]string{"name": "p", runstore.MetaSpec: tt.spec}}, nil)
		if got, _, _ := strings.Cut(b.String(), "\n"); got+"\n" != tt.want {
			t.Errorf("title = %q; want %q", got, strings.TrimSuffix(tt.want, "\n"))
		}
	}
}
