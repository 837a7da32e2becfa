package iesr

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
)

// TestParseFailedCounters: every sample of a step whose structured answer
// does not parse is counted under parse_failed.<role>.<action>, exactly
// once; a model whose answers all parse leaves no such counter.
func TestParseFailedCounters(t *testing.T) {
	db := robustDB(t)
	ctx := context.Background()
	r, err := New(runners.Params{"n_rollout": 8})
	if err != nil {
		t.Fatal(err)
	}
	// The responder given the bad answer and the counters its samples go
	// to (SQL generation and the reward's resampling share RespSQL).
	targets := []struct {
		resp     string
		counters []string
	}{
		{RespUnderstand, []string{"parse_failed.understand.understand"}},
		{RespSchema, []string{"parse_failed.reason.A2"}},
		{RespColumns, []string{"parse_failed.reason.A3"}},
		{RespEntities, []string{"parse_failed.reason.A4"}},
		{RespSQL, []string{"parse_failed.reason.A5", "parse_failed.reason.reward"}},
		{RespDiscriminator, []string{"parse_failed.discriminator.discriminate"}},
	}
	for kind, answer := range runkit.MalformedAnswers {
		for _, tg := range targets {
			t.Run(kind+"/"+tg.resp, func(t *testing.T) {
				c := faulty(map[string]bool{tg.resp: true}, answer, "")
				res, err := r.Run(ctx, robustTask(c, db))
				if err != nil {
					t.Fatal(err)
				}
				got := runkit.ParseFailed(t, res.Trace.Counters, tg.counters...)
				if want := float64(c.Samples(tg.resp)); want == 0 || got != want {
					t.Errorf("%v = %v; want %v (every sample of %s)", tg.counters, got, want, tg.resp)
				}
			})
		}
	}
	t.Run("well-formed", func(t *testing.T) {
		res, err := r.Run(ctx, robustTask(faulty(nil, "", ""), db))
		if err != nil {
			t.Fatal(err)
		}
		runkit.ParseFailed(t, res.Trace.Counters)
	})
}
