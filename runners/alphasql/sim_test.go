package alphasql

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/sim"
	"github.com/t2sbench/t2sbench/stats"
)

// TestSimSpiderBeatsDirect runs alphasql and direct with sim at p = 0.4 on
// the first 200 Spider dev questions whose database is present (seeded),
// and checks that Alpha-SQL's EX beats direct's by a McNemar-significant
// margin (exact/chi2-cc auto, alpha 0.05). N_rollout is 8 (not 24) to keep
// the test affordable on 2 CPUs; the other knobs are the defaults.
func TestSimSpiderBeatsDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test; skipped with -short")
	}
	dir := testenv.Datasets(t, "spider")
	b, err := datasets.LoadSpider(dir, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	missing := map[string]bool{}
	for _, id := range b.MissingDBs() {
		missing[id] = true
	}
	var exs []datasets.Example
	for _, e := range b.Examples {
		if !missing[e.DBID] && len(exs) < 200 {
			exs = append(exs, e)
		}
	}
	b.Examples = exs
	// Independent samples (rho = 0): the test is about the search and
	// its vote recovering the gold from samples that are each right with
	// probability p; under correlated samples (sim.DefaultRho) voting
	// gains little, as published self-consistency pairs show.
	independent := 0.0
	model, err := sim.New(b, sim.Config{P: 0.4, Seed: 11, Rho: &independent})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := metrics.NewGoldCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := metrics.NewScorer(b, gc, metrics.ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	alpha, err := New(runners.Params{"n_rollout": 8, "value_index_dir": t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := runners.New("direct", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var okA, okD []bool
	requests := 0.0
	for _, e := range exs {
		db, err := b.Engine.Open(ctx, e.DBID)
		if err != nil {
			t.Fatal(err)
		}
		tk := runners.Task{Example: e.WithoutGold(), DB: db, LLM: model, Seed: 3}
		ra, err := alpha.Run(ctx, tk)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if ra.Trace.Counters["model_requests"] != ra.Trace.Counters["model_requests_implied"] {
			t.Errorf("%s: requests %v, implied %v", e.ID, ra.Trace.Counters["model_requests"], ra.Trace.Counters["model_requests_implied"])
		}
		requests += ra.Trace.Counters["model_requests"]
		rd, err := direct.Run(ctx, tk)
		if err != nil {
			t.Fatal(err)
		}
		okA = append(okA, sc.Score(ctx, e, ra.SQL).Correct)
		okD = append(okD, sc.Score(ctx, e, rd.SQL).Correct)
	}
	exA, exD := share(okA), share(okD)
	m, err := stats.McNemar(okA, okD, stats.McNemarAuto)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated model p=0.4, %d Spider dev questions: alphasql (n_rollout 8) EX %.3f, direct EX %.3f; McNemar b=%d c=%d p=%.3g (%s); mean requests/question %.1f",
		len(exs), exA, exD, m.B, m.C, m.P, m.Test, requests/float64(len(exs)))
	if !(exA > exD && m.P < 0.05) {
		t.Errorf("alphasql EX %.3f vs direct %.3f, McNemar p = %.3g; want alphasql better with p < 0.05", exA, exD, m.P)
	}
}

func share(xs []bool) float64 {
	n := 0
	for _, x := range xs {
		if x {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}
