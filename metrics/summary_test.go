package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestAccuracyBy(t *testing.T) {
	// ReAct-SQL Table 6 counts: simple 148 at 87.2% (129), moderate 248 at
	// 83.9% (208), challenging 102 at 82.4% (84); overall 421/498 = 84.5%.
	correct := map[string]bool{}
	labels := map[string]string{}
	id := 0
	for _, g := range []struct {
		label   string
		n, good int
	}{{"simple", 148, 129}, {"moderate", 248, 208}, {"challenging", 102, 84}} {
		for i := range g.n {
			key := fmt.Sprintf("q%03d", id)
			correct[key] = i < g.good
			labels[key] = g.label
			id++
		}
	}
	correct["nolabel"] = false
	labels["unused"] = "zzz"
	tab, err := AccuracyBy(correct, labels, []string{"simple", "moderate", "challenging"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label string
		n     int
		acc   float64
	}{{"simple", 148, 87.2}, {"moderate", 248, 83.9}, {"challenging", 102, 82.4}, {NoLabel, 1, 0}}
	if len(tab.Groups) != len(want) {
		t.Fatalf("groups %+v; want %d", tab.Groups, len(want))
	}
	for i, w := range want {
		g := tab.Groups[i]
		if g.Label != w.label || g.N != w.n || math.Abs(100*g.Acc-w.acc) > 0.05 {
			t.Errorf("group %d: %s n=%d acc=%.1f; want %s n=%d acc=%.1f (paper Table 6)", i, g.Label, g.N, 100*g.Acc, w.label, w.n, w.acc)
		}
		if !(g.CI.Lo <= g.Acc && g.Acc <= g.CI.Hi) {
			t.Errorf("group %s: CI %v does not contain %v", g.Label, g.CI, g.Acc)
		}
	}
	if o := tab.Overall; o.N != 499 || o.Correct != 421 {
		t.Errorf("overall n=%d correct=%d; want 499 421", o.N, o.Correct)
	}
	// Without an order, labels sort alphabetically.
	tab, err = AccuracyBy(map[string]bool{"1": true, "2": false, "3": true}, map[string]string{"1": "b", "2": "a", "3": "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Groups[0].Label != "a" || tab.Groups[1].Label != "b" || tab.Groups[1].Correct != 2 {
		t.Errorf("groups %+v; want a (0/1) then b (2/2)", tab.Groups)
	}
	if _, err := AccuracyBy(nil, nil, nil); err == nil {
		t.Error("no outcomes: got nil error")
	}
}

func TestLatency(t *testing.T) {
	// Hand computation: values 3, 13.2, 16, 93.5, 8 (sorted 3, 8, 13.2, 16,
	// 93.5): median 13.2, mean 133.7/5 = 26.74, sample variance
	// ((3-26.74)² + (8-26.74)² + (13.2-26.74)² + (16-26.74)² + (93.5-26.74)²)/4
	// = (563.5876 + 351.1876 + 183.3316 + 115.3476 + 4456.8976)/4
	// = 1417.5880, std 37.6509, CV 1.40804; one value over 50.
	s, err := Latency([]float64{3, 13.2, 16, 93.5, 8}, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"min", s.Min, 3}, {"median", s.Median, 13.2}, {"mean", s.Mean, 26.74}, {"max", s.Max, 93.5},
		{"std", s.Std, 37.6509}, {"cv", s.CV, 1.40804},
	} {
		if math.Abs(c.got-c.want) > 1e-4 {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if s.Count != 5 || s.Over != 1 {
		t.Errorf("count %d over %d; want 5 and 1", s.Count, s.Over)
	}
	s, err = Latency([]float64{4, 1, 3, 2}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if s.Median != 2.5 || s.Over != 0 {
		t.Errorf("even count: median %v over %d; want 2.5 and 0", s.Median, s.Over)
	}
	for _, bad := range [][]float64{nil, {1, -2}, {math.NaN()}} {
		if _, err := Latency(bad, 1); err == nil {
			t.Errorf("Latency(%v): got nil error", bad)
		}
	}
}

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
