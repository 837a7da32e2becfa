package alphasql

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
)

// TestParseFailedCounters: every sample of an action whose answer does
// not parse is counted under parse_failed.reason.<action>, exactly once;
// a model whose answers all parse leaves no such counter.
func TestParseFailedCounters(t *testing.T) {
	db := fixtureDB(t)
	ctx := context.Background()
	// The responder given the bad answer and the counters its samples go
	// to (SQL generation and the reward's resampling share RespSQL).
	targets := []struct {
		resp     string
		counters []string
	}{
		{RespKeywords, []string{"parse_failed.reason.keywords"}},
		{RespRephrase, []string{"parse_failed.reason.A1"}},
		{RespSchema, []string{"parse_failed.reason.A2"}},
		{RespValues, []string{"parse_failed.reason.A3"}},
		{RespFunctions, []string{"parse_failed.reason.A4"}},
		{RespSQL, []string{"parse_failed.reason.A5", "parse_failed.reason.reward"}},
	}
	for kind, answer := range runkit.MalformedAnswers {
		for _, tg := range targets {
			t.Run(kind+"/"+tg.resp, func(t *testing.T) {
				c := faulty(map[string]bool{tg.resp: true}, answer, "")
				res, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, task(c, db))
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
		res, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, task(scripted(franceSQL), db))
		if err != nil {
			t.Fatal(err)
		}
		runkit.ParseFailed(t, res.Trace.Counters)
	})
}
