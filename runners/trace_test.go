package runners

import (
	"errors"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

func TestSampleInfo(t *testing.T) {
	resp := &llm.Response{
		Choices:       []string{"a", "b", "c"},
		Reasoning:     []string{"r0", "", "r2"},
		FinishReasons: []string{llm.FinishStop, llm.FinishLength},
	}
	cases := []struct {
		name string
		resp *llm.Response
		i    int
		want map[string]any
	}{
		{"reasoning and finish", resp, 0, map[string]any{"reasoning": "r0", "finish_reason": llm.FinishStop}},
		{"finish only", resp, 1, map[string]any{"finish_reason": llm.FinishLength}},
		{"reasoning only", resp, 2, map[string]any{"reasoning": "r2"}},
		{"out of range", resp, 3, map[string]any{}},
		{"nil response", nil, 0, map[string]any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SampleInfo(c.resp, c.i); !reflect.DeepEqual(got, c.want) {
				t.Errorf("SampleInfo(%d) = %v; want %v", c.i, got, c.want)
			}
		})
	}
}

// TestTraceCutRejectMerge checks the counters and steps a cut sample and a
// refused request leave, and that Merge carries them into another trace.
func TestTraceCutRejectMerge(t *testing.T) {
	resp := &llm.Response{Choices: []string{"SELECT", "SELECT a FR"}, Reasoning: []string{"", "hmm"}, FinishReasons: []string{llm.FinishStop, llm.FinishLength}}
	var side Trace
	side.Cut(resp, 1, "reason", "A6")
	side.Reject("discriminator", "discriminate", errors.New("context too long"))
	side.Cut(resp, 1, "reason", "reward")
	side.Data = map[string]any{"tree": 1}

	res := Trace{Steps: []Step{{Action: "first"}}, Counters: map[string]float64{"pruned": 2}}
	res.Merge(side)
	wantCounters := map[string]float64{"cut.reason": 2, "pruned": 3}
	if !reflect.DeepEqual(res.Counters, wantCounters) {
		t.Errorf("counters = %v; want %v", res.Counters, wantCounters)
	}
	wantSteps := []Step{
		{Action: "first"},
		{Action: "cut", Role: "reason", Output: "SELECT a FR", Info: map[string]any{"action": "A6", "reasoning": "hmm", "finish_reason": llm.FinishLength}},
		{Action: "pruned", Role: "discriminator", Info: map[string]any{"action": "discriminate", "error": "context too long"}},
		{Action: "cut", Role: "reason", Output: "SELECT a FR", Info: map[string]any{"action": "reward", "reasoning": "hmm", "finish_reason": llm.FinishLength}},
	}
	if !reflect.DeepEqual(res.Steps, wantSteps) {
		t.Errorf("steps = %+v; want %+v", res.Steps, wantSteps)
	}
	if want := map[string]any{"tree": 1}; !reflect.DeepEqual(res.Data, want) {
		t.Errorf("data = %v; want %v", res.Data, want)
	}
}

// TestTraceParseFailed: parse failures are counted by role and action,
// add up across calls and merges, and add no step.
func TestTraceParseFailed(t *testing.T) {
	var side Trace
	side.ParseFailed("reason", "A2")
	side.ParseFailed("reason", "A2")
	side.ParseFailed("understand", "understand")
	res := Trace{Counters: map[string]float64{"parse_failed.reason.A2": 1}}
	res.Merge(side)
	want := map[string]float64{"parse_failed.reason.A2": 3, "parse_failed.understand.understand": 1}
	if !reflect.DeepEqual(res.Counters, want) {
		t.Errorf("counters = %v; want %v", res.Counters, want)
	}
	if len(res.Steps) != 0 {
		t.Errorf("steps = %v; want none", res.Steps)
	}
}
