package baseline_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestSCGrowKWithSeededServer: a server that honours seed (vLLM seeds the
// i-th of n samples with seed+i) answers sc with k = 4 and then, from the
// same model cache, with k = 8. The k = 8 run must get 8 distinct samples
// (the 4 cached ones and 4 new ones, never the cached ones again), ask the
// server only for the 4 missing samples, and give exactly the answers and
// EX of a fresh k = 8 run with an empty cache.
func TestSCGrowKWithSeededServer(t *testing.T) {
	ctx := context.Background()
	b := runkit.Mini(t)
	exs := b.Examples[:12]
	gold := map[string]string{}
	index := map[string]int64{}
	for i, e := range exs {
		gold[e.Question] = e.GoldSQL
		index[e.Question] = int64(i)
	}
	// The answer is a function of the question and the sample's seed only:
	// the wrong query "SELECT 0" when (seed + question index) % 8 < 3, else
	// the gold SQL, so among 8 consecutive seeds 3 are wrong. With k = 4
	// some questions draw 3 wrong of 4 and lose the vote; with 8 distinct
	// samples every question wins it. A server that returned the cached
	// samples again (the old seeding) would double the 3 wrong ones and
	// lose those questions at k = 8 too. The seed is in the text, so equal
	// texts mean equal seeds.
	responder := func(r *fakeopenai.Request, s fakeopenai.Sample) fakeopenai.Choice {
		if s.Seed == nil {
			return fakeopenai.Choice{Content: "no seed"}
		}
		q := r.Messages[len(r.Messages)-1].Content
		sql, qi := "SELECT 1", int64(0)
		for question, g := range gold {
			if strings.Contains(q, question) {
				sql, qi = g, index[question]
			}
		}
		if (*s.Seed+qi)%8 < 3 {
			sql = "SELECT 0"
		}
		return fakeopenai.Choice{Content: fmt.Sprintf("Sample %d:\n```sql\n%s\n```", *s.Seed, sql)}
	}
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: responder})
	dbs := map[string]datasets.Database{}
	open := func(id string) datasets.Database {
		if dbs[id] == nil {
			db, err := b.Engine.Open(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			dbs[id] = db
			t.Cleanup(func() { db.Close() })
		}
		return dbs[id]
	}

	run := func(cache *llm.Cache, k int) (sqls []string, samples [][]string, correct int) {
		o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "seeded", MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		client := llm.Cached(o, cache, o.Ident())
		r, err := runners.New("sc", runners.Params{"k": k, "temperature": 0.8})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exs {
			res, err := r.Run(ctx, runners.Task{Example: e.WithoutGold(), DB: open(e.DBID), LLM: client, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			var outs []string
			for _, st := range res.Trace.Steps {
				if st.Action == "sample" {
					outs = append(outs, st.Output)
				}
			}
			sqls, samples = append(sqls, res.SQL), append(samples, outs)
			if sqltext.Normalise(res.SQL) == sqltext.Normalise(e.GoldSQL) {
				correct++
			}
		}
		return sqls, samples, correct
	}

	cache, err := llm.OpenCache(filepath.Join(t.TempDir(), "grow.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	_, first, k4Correct := run(cache, 4)
	before := srv.Calls()
	grownSQL, grown, grownCorrect := run(cache, 8)
	var askedFor int
	for _, req := range srv.Requests()[before:] {
		askedFor += req.N
	}
	if askedFor != 4*len(exs) {
		t.Errorf("growing k from 4 to 8 asked the server for %d samples; want %d (4 missing per question)", askedFor, 4*len(exs))
	}
	for i, outs := range grown {
		seen := map[string]bool{}
		for _, o := range outs {
			seen[o] = true
		}
		if len(outs) != 8 || len(seen) != 8 {
			t.Errorf("question %d: %d samples, %d distinct; want 8 distinct", i, len(outs), len(seen))
		}
		for j := 0; j < 4 && j < len(outs) && j < len(first[i]); j++ {
			if outs[j] != first[i][j] {
				t.Errorf("question %d sample %d = %q; want the cached %q", i, j, outs[j], first[i][j])
			}
		}
	}

	fresh, err := llm.OpenCache(filepath.Join(t.TempDir(), "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	freshSQL, freshSamples, freshCorrect := run(fresh, 8)
	if grownCorrect != freshCorrect {
		t.Errorf("EX after growing k: %d/%d; a fresh k = 8 run: %d/%d; want equal", grownCorrect, len(exs), freshCorrect, len(exs))
	}
	for i := range exs {
		if grownSQL[i] != freshSQL[i] || strings.Join(grown[i], "\x00") != strings.Join(freshSamples[i], "\x00") {
			t.Errorf("question %d: grown k = 8 differs from a fresh k = 8 run (SQL %q vs %q)", i, grownSQL[i], freshSQL[i])
		}
	}
	if k4Correct >= grownCorrect {
		t.Errorf("k = 4: %d/%d correct, k = 8: %d/%d; want k = 8 to win the questions whose 4 samples hold 3 wrong ones", k4Correct, len(exs), grownCorrect, len(exs))
	}
	t.Logf("k = 4: %d/%d correct; k = 8 after k = 4: %d/%d; fresh k = 8: %d/%d", k4Correct, len(exs), grownCorrect, len(exs), freshCorrect, len(exs))
}
