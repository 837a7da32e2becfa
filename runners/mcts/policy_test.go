package mcts

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// xyz is the action space of the test problems fan and spread: a root
// with three actions X, Y, Z, each followed by the terminal T.
type xyz struct{}

func (xyz) Actions(_ *Tree, n *Node) []Action {
	if n.Action == RootAction {
		return []Action{"X", "Y", "Z"}
	}
	return []Action{"T"}
}
func (xyz) Terminal(_ *Tree, n *Node) bool { return n.Action == "T" }

// fan is xyz where empty actions expand to no output (a model answer that
// was cut).
type fan struct {
	xyz
	empty  map[Action]bool
	expand []Action
}

func (f *fan) Expand(_ context.Context, _ *Tree, n *Node, a Action, k int) (Expansion, error) {
	f.expand = append(f.expand, a)
	if f.empty[a] {
		return Expansion{Requests: 1}, nil
	}
	return Expansion{Outputs: []Output{{Text: string(a)}}, Requests: 1}, nil
}
func (f *fan) Reward(context.Context, *Tree, *Node) (float64, error) { return 0.5, nil }

// TestPolicyRequests counts the requests of each policy on fan, by hand:
// AllActions' first rollout expands the root's three actions and the
// chosen child's T (4 requests), and each later rollout into a new child
// expands its T (1); OneAction's rollout expands one untried root action
// and simulates through its T (2 requests), so three rollouts try X, Y
// and Z once each (6) and the fourth selects by UCT among expanded nodes
// (no request).
func TestPolicyRequests(t *testing.T) {
	for _, tc := range []struct {
		policy       Policy
		rollouts     int
		wantRequests int
		wantRoot     int // root children
		wantTried    int
		wantExpanded bool
	}{
		{AllActions, 1, 4, 3, 0, true},
		{AllActions, 3, 6, 3, 0, true},
		{OneAction, 1, 2, 1, 1, false},
		{OneAction, 2, 4, 2, 2, false},
		{OneAction, 3, 6, 3, 3, true},
		{OneAction, 4, 6, 3, 3, true},
	} {
		f := &fan{}
		tr, err := Search(context.Background(), f, Config{Policy: tc.policy, Rollouts: tc.rollouts, Samples: 3, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		root := tr.Root()
		if tr.ExpandRequests != tc.wantRequests || len(root.Children) != tc.wantRoot || len(root.Tried) != tc.wantTried || root.Expanded != tc.wantExpanded {
			t.Errorf("%v, %d rollouts: requests %d, root children %d, tried %d, expanded %v; want %d, %d, %d, %v",
				tc.policy, tc.rollouts, tr.ExpandRequests, len(root.Children), len(root.Tried), root.Expanded,
				tc.wantRequests, tc.wantRoot, tc.wantTried, tc.wantExpanded)
		}
		if tr.Rewards != min(tc.rollouts, 3) {
			t.Errorf("%v, %d rollouts: rewards %d; want %d (one per distinct terminal)", tc.policy, tc.rollouts, tr.Rewards, min(tc.rollouts, 3))
		}
		if root.Visits != tc.rollouts {
			t.Errorf("%v: root visits %d; want %d", tc.policy, root.Visits, tc.rollouts)
		}
	}
}

// TestOneActionTriesAnotherAfterEmpty: an action that yields no child
// stays tried and the same rollout expands another at the node, so the
// rollout still ends at a terminal.
func TestOneActionTriesAnotherAfterEmpty(t *testing.T) {
	for seed := uint64(0); seed < 8; seed++ {
		f := &fan{empty: map[Action]bool{"X": true, "Y": true}}
		tr, err := Search(context.Background(), f, Config{Policy: OneAction, Rollouts: 1, Samples: 1, Rand: rand.New(rand.NewPCG(seed, 2))})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Terminals()) != 1 {
			t.Fatalf("seed %d: terminals %d; want 1 (Z then T)", seed, len(tr.Terminals()))
		}
		if !slices.Contains(tr.Root().Tried, "Z") || f.expand[len(f.expand)-1] != "T" {
			t.Errorf("seed %d: tried %v, expansions %v; want Z tried and T last", seed, tr.Root().Tried, f.expand)
		}
	}
	// Every action empty: the root is dead after trying all three.
	f := &fan{empty: map[Action]bool{"X": true, "Y": true, "Z": true}}
	tr, err := Search(context.Background(), f, Config{Policy: OneAction, Rollouts: 2, Samples: 1, Rand: rand.New(rand.NewPCG(0, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Root().Dead || len(f.expand) != 3 {
		t.Errorf("root dead %v after %d expansions; want true after 3", tr.Root().Dead, len(f.expand))
	}
}

// TestOneActionDeterministic: the same seed builds the same tree.
func TestOneActionDeterministic(t *testing.T) {
	run := func() []Action {
		f := &fan{}
		if _, err := Search(context.Background(), f, Config{Policy: OneAction, Rollouts: 5, Samples: 1, Rand: rand.New(rand.NewPCG(7, 2))}); err != nil {
			t.Fatal(err)
		}
		return f.expand
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Errorf("expansion order %v then %v; want equal", a, b)
	}
}
