package metrics

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestSummarizeUsage(t *testing.T) {
	q := []map[string]Usage{
		{"generator": {Calls: 2, PromptTokens: 3000, CompletionTokens: 400, Latency: 2 * time.Second}, "judge": {Calls: 1, PromptTokens: 1000, CompletionTokens: 100, Latency: time.Second}},
		{"generator": {Calls: 4, PromptTokens: 5000, CompletionTokens: 800, Latency: 4 * time.Second}},
	}
	prices := map[string]Price{
		"judge":     {PromptPerM: 0.10, CompletionPerM: 0.40},
		"gpt-small": {PromptPerM: 0.30, CompletionPerM: 2.50},
	}
	s, err := SummarizeUsage(q, prices, map[string]string{"generator": "gpt-small"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Roles) != 2 || s.Roles[0].Role != "generator" || s.Roles[1].Role != "judge" {
		t.Fatalf("roles %+v; want generator, judge", s.Roles)
	}
	g, j := s.Roles[0], s.Roles[1]
	// generator: 8000 prompt and 1200 completion tokens over 2 questions:
	// (8000*0.30 + 1200*2.50)/1e6/2 = 0.0027 USD per question; 1200 tokens
	// in 6 s = 200 tokens/s. judge: (1000*0.10 + 100*0.40)/1e6/2 = 0.00007.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"generator calls/q", g.CallsPerQ, 3}, {"generator prompt/q", g.PromptPerQ, 4000},
		{"generator completion/q", g.CompletionPerQ, 600}, {"generator tok/s", g.TokensPerSecond, 200},
		{"generator cost/q", g.CostPerQ, 0.0027}, {"judge cost/q", j.CostPerQ, 0.00007},
		{"judge calls/q", j.CallsPerQ, 0.5}, {"total cost/q", s.Total.CostPerQ, 0.00277},
		{"total calls/q", s.Total.CallsPerQ, 3.5},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if !s.Total.Priced || len(s.Warnings) != 0 {
		t.Errorf("priced %v warnings %v; want all priced", s.Total.Priced, s.Warnings)
	}
	s, err = SummarizeUsage(q, map[string]Price{"judge": {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total.Priced || len(s.Warnings) != 1 {
		t.Errorf("missing price: priced %v warnings %v; want unpriced and one warning", s.Total.Priced, s.Warnings)
	}
	if _, err := SummarizeUsage(nil, nil, nil); err == nil {
		t.Error("no questions: got nil error")
	}
	if _, err := SummarizeUsage([]map[string]Usage{{"x": {Calls: -1}}}, nil, nil); err == nil {
		t.Error("negative calls: got nil error")
	}
}

func TestTally(t *testing.T) {
	// Ten questions: 6 correct, 1 wrong, 1 failed (wrong), one missing
	// database and one gold error. EX = 6 / 8 (the two whose gold does not
	// run are in no denominator).
	var tl Tally
	for i := 0; i < 6; i++ {
		tl.Add(StatusOK, true, false)
	}
	tl.Add(StatusPredError, false, false)
	tl.Add(StatusPredError, true, true) // a failed runner is wrong whatever its verdict says
	tl.Add(StatusMissingDB, false, false)
	tl.Add(StatusGoldError, false, true)
	if tl.Attempted != 8 || tl.Correct != 6 || tl.Failed != 1 || tl.EX() != 0.75 {
		t.Errorf("tally %+v, EX %v; want 8 attempted, 6 correct, 1 failed, EX 0.75", tl, tl.EX())
	}
	if got := tl.ExcludedText(); got != "missing_db 1, gold_error 1" {
		t.Errorf("ExcludedText = %q; want %q", got, "missing_db 1, gold_error 1")
	}
	if !math.IsNaN((Tally{}).EX()) {
		t.Errorf("EX of an empty tally = %v; want NaN", (Tally{}).EX())
	}
	for _, tt := range []struct {
		st   Status
		want bool
	}{{StatusOK, true}, {StatusPredError, true}, {StatusPredTimeout, true}, {StatusGoldError, false}, {StatusGoldTimeout, false}, {StatusMissingDB, false}, {"wrong", true}} {
		if got := GoldRuns(tt.st); got != tt.want {
			t.Errorf("GoldRuns(%q) = %v; want %v", tt.st, got, tt.want)
		}
	}
}

// TestTallyMerge: merging adds every count, the excluded statuses too,
// into a tally whose Excluded map may be nil.
func TestTallyMerge(t *testing.T) {
	var sum Tally
	sum.Merge(Tally{Attempted: 3, Correct: 2, Failed: 1, Nondet: 1, NondetCorrect: 1, Excluded: map[Status]int{StatusGoldError: 2}})
	sum.Merge(Tally{Attempted: 4, Correct: 1, Excluded: map[Status]int{StatusGoldError: 1, StatusMissingDB: 5}})
	want := Tally{Attempted: 7, Correct: 3, Failed: 1, Nondet: 1, NondetCorrect: 1, Excluded: map[Status]int{StatusGoldError: 3, StatusMissingDB: 5}}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("got %+v; want %+v", sum, want)
	}
}

// TestUsageTotalCostOrder checks that the total cost sums the roles' costs
// in sorted role order on every call, whatever the map order. The roles'
// costs are 0.1, 0.2 and 0.3 USD (1e6 prompt tokens at 0.1, 0.2 and 0.3
// USD per million); in float64 (0.1 + 0.2) + 0.3 is 0.6000000000000001,
// the next float above 0.6, while (0.2 + 0.3) + 0.1 and (0.3 + 0.2) + 0.1
// are 0.6, so a sum in map order differs in its last bit between calls.
// The total per question sums the same costs over one question.
func TestUsageTotalCostOrder(t *testing.T) {
	q := []map[string]Usage{{"a": {Calls: 1, PromptTokens: 1e6}, "b": {Calls: 1, PromptTokens: 1e6}, "c": {Calls: 1, PromptTokens: 1e6}}}
	prices := map[string]Price{"a": {PromptPerM: 0.1}, "b": {PromptPerM: 0.2}, "c": {PromptPerM: 0.3}}
	want := math.Nextafter(0.6, 1)
	for i := range 50 {
		s, err := SummarizeUsage(q, prices, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			got  float64
		}{{"cost", s.Total.Cost}, {"cost/q", s.Total.CostPerQ}} {
			if c.got != want {
				t.Fatalf("call %d: total %s = %v; want %v (0.1 + 0.2 + 0.3 in role order)", i, c.name, c.got, want)
			}
		}
	}
}
