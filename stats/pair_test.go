package stats

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestPair(t *testing.T) {
	a := map[string]bool{"q3": true, "q1": false, "q2": true, "q9": true}
	b := map[string]bool{"q2": false, "q1": true, "q3": true, "q7": false}
	if _, err := Pair(a, b, false); err == nil || !strings.Contains(err.Error(), `"q9"`) {
		t.Errorf("mismatched ids: got error %v; want one naming q9", err)
	}
	if _, err := Pair(map[string]bool{"q1": true}, map[string]bool{"q1": true, "q7": false}, false); err == nil || !strings.Contains(err.Error(), `"q7"`) {
		t.Errorf("id only in second: got error %v; want one naming q7", err)
	}
	p, err := Pair(a, b, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"q1", "q2", "q3"}; !slices.Equal(p.IDs, want) {
		t.Errorf("IDs %v; want %v", p.IDs, want)
	}
	if want := []bool{false, true, true}; !slices.Equal(p.A, want) {
		t.Errorf("A %v; want %v", p.A, want)
	}
	if want := []bool{true, false, true}; !slices.Equal(p.B, want) {
		t.Errorf("B %v; want %v", p.B, want)
	}
	if !slices.Equal(p.OnlyA, []string{"q9"}) || !slices.Equal(p.OnlyB, []string{"q7"}) {
		t.Errorf("OnlyA %v OnlyB %v; want [q9] [q7]", p.OnlyA, p.OnlyB)
	}
	if _, err := Pair(map[string]bool{"x": true}, map[string]bool{"y": true}, true); err == nil {
		t.Error("disjoint ids with intersect: got nil error")
	}
}

func TestTabulate(t *testing.T) {
	a, b := expand(reactBIRD, rand.New(rand.NewPCG(8, 8)))
	got, err := Tabulate(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got != reactBIRD {
		t.Errorf("Tabulate = %+v; want %+v", got, reactBIRD)
	}
	// Table 4 of ReAct-SQL: 78.5% and 79.1% on n = 498.
	if acc := got.AccA(); acc < 0.785 || acc > 0.786 {
		t.Errorf("AccA = %v; want 0.785 (391/498)", acc)
	}
	if acc := got.AccB(); acc < 0.791 || acc > 0.792 {
		t.Errorf("AccB = %v; want 0.791 (394/498)", acc)
	}
	if _, err := Tabulate(nil, nil); err == nil {
		t.Error("empty: got nil error")
	}
}
