package iesr

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
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
	targets := []runkit.ParseFailTarget{
		{Responder: RespUnderstand, Counters: []string{"parse_failed.understand.understand"}},
		{Responder: RespSchema, Counters: []string{"parse_failed.reason.A2"}},
		{Responder: RespColumns, Counters: []string{"parse_failed.reason.A3"}},
		{Responder: RespEntities, Counters: []string{"parse_failed.reason.A4"}},
		{Responder: RespSQL, Counters: []string{"parse_failed.reason.A5", "parse_failed.reason.reward"}},
		{Responder: RespDiscriminator, Counters: []string{"parse_failed.discriminator.discriminate"}},
	}
	bad := func(resp, answer string) *testkit.Model { return faulty(map[string]bool{resp: true}, answer, "") }
	runkit.MalformedCounted(t, targets, bad, func(t *testing.T, c llm.Client) runners.Result {
		res, err := r.Run(ctx, robustTask(c, db))
		if err != nil {
			t.Fatal(err)
		}
		return res
	})
	t.Run("well-formed", func(t *testing.T) {
		res, err := r.Run(ctx, robustTask(faulty(nil, "", ""), db))
		if err != nil {
			t.Fatal(err)
		}
		runkit.ParseFailed(t, res.Trace.Counters)
	})
}
