package stats

import (
	"fmt"
	"math"
	"testing"
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
