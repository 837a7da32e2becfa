package bench

import (
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestSummarizeDirTrials: SummarizeDirTrials gives SummarizeDir's rows
// without their comparisons.
func TestSummarizeDirTrials(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(4, 1, nil)
	p := mustPlan(t, `name: two
benchmarks: [{name: fake}]
models: {m: {backend: openai, base_url: "http://127.0.0.1:1/v1", model: x}}
roles: {reason: m}
runners: [{name: direct}, {name: direct, label: short, params: {max_tokens: 64}}]
`)
	dir := t.TempDir()
	if _, err := runOnce(t, dir, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	_, full, err := runstore.SummarizeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := runstore.SummarizeDirTrials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(full) || len(rows) != 2 || full[1].P < 0 {
		t.Fatalf("got %d rows; want SummarizeDir's %d, 2 trials, the second compared (P %v)", len(rows), len(full), full[len(full)-1].P)
	}
	for i := range rows {
		want := full[i]
		if want.P < 0 && rows[i].P < 0 {
			continue // a baseline: nothing to leave out
		}
		if rows[i].P != -1 || rows[i].Baseline != "" {
			t.Errorf("%s: P %v, baseline %q; want no comparison", rows[i].Label, rows[i].P, rows[i].Baseline)
		}
		if rows[i].Attempted != want.Attempted || rows[i].Correct != want.Correct || rows[i].EX != want.EX || rows[i].Calls != want.Calls {
			t.Errorf("%s: %+v; want SummarizeDir's counts %+v", rows[i].Label, rows[i], want)
		}
	}
}
