package iesr

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// malformedAnswers are structured answers as real models get them wrong:
// prose without the JSON object, JSON cut short although the server said
// stop, a fenced object under keys the prompt did not ask for, and a
// reasoning block followed by prose.
var malformedAnswers = map[string]string{
	"prose":             "The question asks about singers from France, so the singer table and its country column matter.",
	"truncated json":    "Let me think.\n```json\n{\"tables\": {\"singer\": [\"coun",
	"fenced wrong keys": "```json\n{\"answer\": [\"singer\"], \"reasoning\": \"country filter\"}\n```",
	"think then prose":  "<think>The user wants a count of French singers.</think>\nThe singer table holds it.",
}

// samplesBy counts the samples asked of each responder.
type samplesBy struct {
	llm.Client
	mu sync.Mutex
	n  map[string]int
}

func (s *samplesBy) Complete(ctx context.Context, r llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	s.n[r.Responder] += r.Samples()
	s.mu.Unlock()
	return s.Client.Complete(ctx, r)
}

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
	for kind, answer := range malformedAnswers {
		for _, tg := range targets {
			t.Run(kind+"/"+tg.resp, func(t *testing.T) {
				c := &samplesBy{Client: &faulty{bad: map[string]bool{tg.resp: true}, answer: answer}, n: map[string]int{}}
				res, err := r.Run(ctx, robustTask(c, db))
				if err != nil {
					t.Fatal(err)
				}
				got := 0.0
				for _, name := range tg.counters {
					got += res.Trace.Counters[name]
				}
				if want := float64(c.n[tg.resp]); want == 0 || got != want {
					t.Errorf("%v = %v; want %v (every sample of %s)", tg.counters, got, want, tg.resp)
				}
				for name, v := range res.Trace.Counters {
					if strings.HasPrefix(name, runners.ParseFailedPrefix) && !slices.Contains(tg.counters, name) {
						t.Errorf("counter %s = %v; want only %v", name, v, tg.counters)
					}
				}
			})
		}
	}
	t.Run("well-formed", func(t *testing.T) {
		res, err := r.Run(ctx, robustTask(&faulty{}, db))
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range res.Trace.Counters {
			if strings.HasPrefix(name, runners.ParseFailedPrefix) {
				t.Errorf("counter %s = %v; want no parse failure from well-formed answers", name, v)
			}
		}
	})
}
