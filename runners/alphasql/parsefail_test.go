package alphasql

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestParseFailedCounters: every sample of an action whose answer does
// not parse is counted under parse_failed.reason.<action>, exactly once;
// a model whose answers all parse leaves no such counter.
func TestParseFailedCounters(t *testing.T) {
	db := fixtureDB(t)
	ctx := context.Background()
	// The responder given the bad answer and the counters its samples go
	// to (SQL generation and the reward's resampling share RespSQL).
	targets := []runkit.ParseFailTarget{
		{Responder: RespKeywords, Counters: []string{"parse_failed.reason.keywords"}},
		{Responder: RespRephrase, Counters: []string{"parse_failed.reason.A1"}},
		{Responder: RespSchema, Counters: []string{"parse_failed.reason.A2"}},
		{Responder: RespValues, Counters: []string{"parse_failed.reason.A3"}},
		{Responder: RespFunctions, Counters: []string{"parse_failed.reason.A4"}},
		{Responder: RespSQL, Counters: []string{"parse_failed.reason.A5", "parse_failed.reason.reward"}},
	}
	bad := func(resp, answer string) *testkit.Model { return faulty(map[string]bool{resp: true}, answer, "") }
	runkit.MalformedCounted(t, targets, bad, func(t *testing.T, c llm.Client) runners.Result {
		res, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, task(c, db))
		if err != nil {
			t.Fatal(err)
		}
		return res
	})
	t.Run("well-formed", func(t *testing.T) {
		res, err := newRunner(t, runners.Params{"n_rollout": 8}).Run(ctx, task(scripted(franceSQL), db))
		if err != nil {
			t.Fatal(err)
		}
		runkit.ParseFailed(t, res.Trace.Counters)
	})
}
