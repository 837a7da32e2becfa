package mcts

import (
	"math"
	"testing"
)

// TestEstimateSearch checks EstimateSearch on action spaces small enough
// to count by hand (expected values derived in each case's comment).
func TestEstimateSearch(t *testing.T) {
	const (
		a Action = "A"
		b Action = "B"
		e Action = "END"
	)
	free := map[Action]bool{e: true}
	tests := []struct {
		name          string
		table         map[Action][]Action
		rollouts, k   int
		distinct      func(Action, int) float64
		requests, ter float64
	}{
		// ROOT -> A -> END: the root's expansion is 1 request (A); A's
		// expansion is free (END); rollout 1 scores the terminal, rollout
		// 2 revisits it.
		{"chain", map[Action][]Action{RootAction: {a}, a: {e}}, 2, 1, nil, 1, 1},
		// k = 2: the root's one request makes two A children; each is
		// visited (unvisited first) and ends in its own terminal.
		{"chain k=2", map[Action][]Action{RootAction: {a}, a: {e}}, 2, 2, nil, 1, 2},
		// ROOT -> {A, B} -> END, three rollouts: 2 requests at the root;
		// rollouts 1 and 2 score A's and B's terminals, rollout 3
		// revisits one.
		{"fork", map[Action][]Action{RootAction: {a, b}, a: {e}, b: {e}}, 3, 1, nil, 2, 2},
		// An action already on the path is not offered again: ROOT -> A
		// -> {A, END} expands only END below A.
		{"no repeat", map[Action][]Action{RootAction: {a}, a: {a, e}}, 2, 1, nil, 1, 1},
		// d = 1.5 of k = 3: ROOT -> END' with END' terminal and costly:
		// one request whose children are all terminals; 1.5 children on
		// average (one, plus one with probability 0.5).
		{"fractional branching", map[Action][]Action{RootAction: {b}}, 5, 3, func(Action, int) float64 { return 1.5 }, 1, 1.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := e
			if tt.name == "fractional branching" {
				term = b
			}
			got, err := EstimateSearch(SearchModel{Table: tt.table, Terminal: term, Free: free, Distinct: tt.distinct}, tt.rollouts, tt.k, DefaultC, 2000)
			if err != nil {
				t.Fatal(err)
			}
			// The fractional case is a mean over 2000 seeded runs of a
			// Bernoulli(0.5) extra child: standard error 0.011.
			if math.Abs(got.Requests-tt.requests) > 1e-9 || math.Abs(got.Terminals-tt.ter) > 0.05 {
				t.Errorf("requests, terminals = %g, %g; want %g, %g", got.Requests, got.Terminals, tt.requests, tt.ter)
			}
			// Every terminal is a child of the terminal action, and every
			// child of it is reached (the cases' rollouts suffice).
			if math.Abs(got.Children[term]-got.Terminals) > 1e-9 {
				t.Errorf("children of %s = %g; want the terminals, %g", term, got.Children[term], got.Terminals)
			}
		})
	}
}

// TestDistinctAnswers checks 1 - (1-acc)^k + k(1-acc) at values computed
// by hand.
func TestDistinctAnswers(t *testing.T) {
	tests := []struct {
		acc  float64
		k    int
		want float64
	}{
		{1, 3, 1},                 // every sample the right answer
		{0, 3, 3},                 // three distinct mistakes
		{0.6, 3, 1 - 0.064 + 1.2}, // 2.136
		{0.8, 3, 1 - 0.008 + 0.6}, // 1.592
		{0.5, 1, 1},               // one sample: one answer
		{0.6, 0, 1},               // no samples: treated as one
		{1.5, 3, 1},               // clamped to [0, 1]
	}
	for _, tt := range tests {
		if got := DistinctAnswers(tt.acc, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("DistinctAnswers(%g, %d) = %g; want %g", tt.acc, tt.k, got, tt.want)
		}
	}
}

func TestSampledDistinct(t *testing.T) {
	free, judged := []Action{"F"}, []Action{"J"}
	tests := []struct {
		name  string
		temp  float64
		known bool
		a     Action
		want  float64
	}{
		{"temperature 0", 0, true, "F", 1},
		{"free text", 0.8, false, "F", 3},
		{"judged, accuracy known", 0.8, true, "J", 1 - 0.4*0.4*0.4 + 3*0.4}, // DistinctAnswers(0.6, 3) = 2.136
		{"judged, accuracy unknown", 0.8, false, "J", 1},
		{"other action", 0.8, true, "X", 1},
	}
	for _, tt := range tests {
		got := SampledDistinct(tt.temp, free, judged, 0.6, tt.known)(tt.a, 3)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: got %v; want %v", tt.name, got, tt.want)
		}
	}
}
