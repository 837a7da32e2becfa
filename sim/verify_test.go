package sim

import (
	"context"
	"math"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/iesr"
)

// TestVerifiedRecallAfterRounds runs IESR's understanding with keyword
// verification as the runner does it (up to understanding_rounds = 4
// rounds, each shown the previous round's state, until a round changes
// nothing) on every mini question, over 2 model seeds, and measures the
// verified state's micro-averaged recall against the gold as Table 4
// does (the runner's AnalyzeGold). Per kind, it is the recall the
// Verified row's operating point gives on the mini calibration
// (KindCalibration.Expected: the row's own recall where the ranking
// reaches it) within 4 sd, the sd that of a binomial over the gold items
// (an upper bound for the sum of the items' independent draws), at least
// 0.01 (the calibration counts each tier's hits apart, Table 4 the
// union's): repeated rounds repeat the first round's draws, so the rounds
// do not lift the recall past the row's.
func TestVerifiedRecallAfterRounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := runkit.Mini(t)
	rr, err := iesr.New(runners.Params{"n_rollout": 1, "stage_discriminator": false, "verify_keywords": true, "n_expansion": 1, "stage_scoring": false})
	if err != nil {
		t.Fatal(err)
	}
	r := rr.(runners.GoldAnalyzer)
	dbs := map[string]datasets.Database{}
	for _, ex := range b.Examples {
		if _, ok := dbs[ex.DBID]; !ok {
			db, err := b.Engine.Open(ctx, ex.DBID)
			if err != nil {
				t.Fatal(err)
			}
			dbs[ex.DBID] = db
		}
	}
	for _, prof := range []string{"qwen2.5-7b", "qwen3-8b"} {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			var hit, gold [numKinds]float64
			rounds := 0.0
			for seed := range int64(2) {
				m, err := New(b, Config{P: 0.6, Seed: seed, Profile: prof})
				if err != nil {
					t.Fatal(err)
				}
				for _, ex := range b.Examples {
					db := dbs[ex.DBID]
					res, err := rr.Run(ctx, runners.Task{Example: ex.WithoutGold(), DB: db, LLM: m})
					if err != nil {
						t.Fatalf("%s: %v", ex.ID, err)
					}
					if err := r.AnalyzeGold(ctx, ex, db, &res); err != nil {
						t.Fatal(err)
					}
					rounds += res.Trace.Counters["understand_rounds"]
					for kind, field := range iesr.Table4Fields {
						pre := runners.CounterTable4("verified", field, "")
						hit[kind] += res.Trace.Counters[pre+"gold_hit"]
						gold[kind] += res.Trace.Counters[pre+"gold"]
					}
				}
			}
			if rounds == 0 {
				t.Fatal("no verification round ran")
			}
			m, err := New(b, Config{P: 0.6, Profile: prof})
			if err != nil {
				t.Fatal(err)
			}
			cal := calibrationFor(b.Name)
			for kind := range numKinds {
				want := cal.Kinds[kind].Expected(m.operatingPoints().stage[stageVerified][kind]).R
				got := hit[kind] / gold[kind]
				tol := binomialTol(want, gold[kind])
				t.Logf("%s: recall %.3f after the rounds; the Verified row's %.3f, its operating point's %.3f", kindNames[kind], got, profiles[prof].Verified[kind].R, want)
				if math.Abs(got-want) > tol {
					t.Errorf("%s: verified recall %.3f; want %.3f +- %.3f", kindNames[kind], got, want, tol)
				}
			}
		})
	}
}
