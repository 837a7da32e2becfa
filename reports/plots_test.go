package reports

import (
	"fmt"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/runners"
)

// sweepSystem is a done system of entry "e" on mini with one question.
func sweepSystem(config, backbone string, params runners.Params) *system {
	tr := &bench.RunTrial{}
	tr.Params = params
	return &system{name: config, config: config, backbone: backbone, entry: "e", bench: "mini", trial: tr,
		done: []bench.Item{{QuestionID: "q1", Verdict: &bench.Verdict{Correct: true}}}}
}

func TestSweepSeriesKeepsAblations(t *testing.T) {
	// experiments/iesr-rollout.yaml: n_rollout swept with and without
	// schema compression; both must be series of one figure.
	var ss []*system
	for _, v := range []struct {
		ablation string
		comp     bool
	}{{"", true}, {" no-compression", false}} {
		for _, n := range []int{8, 16, 24} {
			ss = append(ss, sweepSystem(fmt.Sprintf("iesr%s n_rollout=%d", v.ablation, n), "sim",
				runners.Params{"n_rollout": float64(n), "schema_compression": v.comp}))
		}
	}
	groups, params := sweepSeries(&corpus{systems: ss})
	if len(groups) != 1 || len(params) != 1 || params[0] != "n_rollout" {
		t.Fatalf("groups = %d, params = %v; want 1 group over n_rollout", len(groups), params)
	}
	if len(groups[0]) != 2 || len(groups[0][0]) != 3 || len(groups[0][1]) != 3 {
		t.Fatalf("series sizes wrong: got %d series; want 2 of 3 points", len(groups[0]))
	}
	if got := variantOf(groups[0][1][0]); got != "no-compression" {
		t.Errorf("second series variant = %q; want no-compression", got)
	}

	// An ablation-only entry (one point per series) is not a sweep.
	abl := []*system{
		sweepSystem("iesr", "sim", runners.Params{"n_rollout": 32.0, "stage_scoring": true}),
		sweepSystem("iesr w/o-scoring", "sim", runners.Params{"n_rollout": 32.0, "stage_scoring": false}),
	}
	if groups, _ := sweepSeries(&corpus{systems: abl}); len(groups) != 0 {
		t.Errorf("ablation-only entry gave %d sweep groups; want 0", len(groups))
	}
}

func TestCapTicks(t *testing.T) {
	for _, tk := range (capTicks{max: 100}).Ticks(60, 140) {
		if tk.Value > 100 {
			t.Errorf("tick %v above the cap 100", tk.Value)
		}
	}
	if len((capTicks{max: 100}).Ticks(60, 140)) == 0 {
		t.Error("no ticks between 60 and 100")
	}
}

func TestIsLevelCounter(t *testing.T) {
	for name, want := range map[string]bool{"validation.l1": true, "validation.l12": true, "validation.l2.attempts": false,
		"validation.pass": false, "validation.l": false} {
		if got := isLevelCounter(name); got != want {
			t.Errorf("isLevelCounter(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestSamePairSameInterval(t *testing.T) {
	// The fixture's pairwise baseline is "iesr reason=simA", the full
	// configuration of the ablation's simA column: both tables compare the
	// same pairs and must show the same bootstrap interval.
	r, _ := buildFixture(t, "sim")
	var pw, ab *Table
	for _, tb := range r.Tables {
		switch tb.ID {
		case "pairwise-1":
			pw = tb
		case "ablation-1":
			ab = tb
		}
	}
	if pw == nil || ab == nil {
		t.Fatal("fixture report lacks pairwise-1 or ablation-1")
	}
	checked := 0
	for _, ar := range ab.Rows[1:] {
		for _, pr := range pw.Rows {
			if pr[0].Text == ar[0].Text+" reason=simA" {
				checked++
				if pr[5].Text != ar[3].Text {
					t.Errorf("%s: pairwise CI %s; ablation CI %s; want equal", pr[0].Text, pr[5].Text, ar[3].Text)
				}
			}
		}
	}
	if checked != len(ab.Rows)-1 {
		t.Errorf("matched %d ablation rows in the pairwise table; want %d", checked, len(ab.Rows)-1)
	}
}

func TestTexEscapeQuotesAndDashes(t *testing.T) {
	for in, want := range map[string]string{
		`full configuration "iesr", 95%`: "full configuration ``iesr'', 95\\%",
		"report --price":                 "report -{}-price",
		"w/o_x":                          `w/o\_x`,
	} {
		if got := texEscape(in); got != want {
			t.Errorf("texEscape(%q) = %q; want %q", in, got, want)
		}
	}
}
