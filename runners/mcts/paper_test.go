package mcts

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// spread is xyz where every expansion returns k distinct outputs (a
// model whose samples all differ) and records k and the children it
// added; rewards come from a script, in order.
type spread struct {
	xyz
	ks       []int
	rewards  []float64
	rewarded map[int]int // terminal node id -> Reward calls
}

func (s *spread) Expand(_ context.Context, _ *Tree, n *Node, a Action, k int) (Expansion, error) {
	s.ks = append(s.ks, k)
	out := make([]Output, k)
	for i := range out {
		out[i] = Output{Text: fmt.Sprintf("%s@%d/%d", a, n.ID, i)}
	}
	return Expansion{Outputs: out, Requests: 1}, nil
}
func (s *spread) Reward(_ context.Context, _ *Tree, n *Node) (float64, error) {
	if s.rewarded == nil {
		s.rewarded = map[int]int{}
	}
	i := 0
	for _, c := range s.rewarded {
		i += c
	}
	s.rewarded[n.ID]++
	return s.rewards[i%len(s.rewards)], nil
}

// TestOneActionOneChildPerStep: under OneAction (IESR's Algorithm 2,
// "u <- Step(v, a, M); add edge (v, a) -> u") every expansion step asks
// for one output and adds one child, whatever Samples is; under
// AllActions each expansion asks for Samples outputs, all children here.
// One rollout, Samples = 3: OneAction expands one root action and its T
// (2 calls, 2 children: one per step); AllActions expands X, Y and Z at
// the root and T under the chosen child (4 calls, 3 outputs each, 12
// children).
func TestOneActionOneChildPerStep(t *testing.T) {
	for _, tc := range []struct {
		policy        Policy
		wantCalls     int
		wantK         int
		wantChildren  int
		childrenEvery int // children added by every expansion call
	}{
		{OneAction, 2, 1, 2, 1},
		{AllActions, 4, 3, 12, 3},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			s := &spread{rewards: []float64{0.5}}
			tr, err := Search(context.Background(), s, Config{Policy: tc.policy, Rollouts: 1, Samples: 3, Rand: rand.New(rand.NewPCG(1, 2))})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.ks) != tc.wantCalls || tr.ExpandRequests != tc.wantCalls {
				t.Errorf("expansion calls %d (requests %d); want %d", len(s.ks), tr.ExpandRequests, tc.wantCalls)
			}
			for i, k := range s.ks {
				if k != tc.wantK {
					t.Errorf("expansion %d asked for %d outputs; want %d", i, k, tc.wantK)
				}
			}
			if got := len(tr.Nodes) - 1; got != tc.wantChildren {
				t.Errorf("children %d; want %d", got, tc.wantChildren)
			}
			for _, n := range tr.Nodes {
				if len(n.Children) > 0 && n.Action != RootAction && len(n.Children) != tc.childrenEvery {
					t.Errorf("node %d (%s) has %d children; want %d per expansion", n.ID, n.Action, len(n.Children), tc.childrenEvery)
				}
			}
			if tc.policy == OneAction && len(tr.Root().Children) != 1 {
				t.Errorf("root children %d after one expansion step; want 1", len(tr.Root().Children))
			}
		})
	}
}

// chain is the single path root -> A -> T.
type chain struct{ spread }

func (c *chain) Actions(_ *Tree, n *Node) []Action {
	if n.Action == RootAction {
		return []Action{"A"}
	}
	return []Action{"T"}
}

// TestRescoreTerminal: a terminal reached again is scored again under
// Rescore (Algorithm 2 evaluates the reward of every rollout's terminal)
// and backs up its first reward's mean otherwise. On the single path
// root -> A -> T with scripted rewards 0.2, 0.4, 0.6, 0.8, four rollouts:
//
//	Rescore: 4 Reward calls, T.Rolls 4, T.Reward = (0.2+0.4+0.6+0.8)/4 = 0.5,
//	         root Q = 0.2+0.4+0.6+0.8 = 2.0;
//	no Rescore: 1 Reward call, T.Reward 0.2, root Q = 4 * 0.2 = 0.8.
func TestRescoreTerminal(t *testing.T) {
	for _, tc := range []struct {
		rescore        bool
		wantCalls      int
		wantReward, wQ float64
	}{
		{true, 4, 0.5, 2.0},
		{false, 1, 0.2, 0.8},
	} {
		t.Run(fmt.Sprint("rescore=", tc.rescore), func(t *testing.T) {
			c := &chain{spread{rewards: []float64{0.2, 0.4, 0.6, 0.8}}}
			tr, err := Search(context.Background(), c, Config{Policy: OneAction, Rescore: tc.rescore, Rollouts: 4, Samples: 3, Rand: rand.New(rand.NewPCG(1, 2))})
			if err != nil {
				t.Fatal(err)
			}
			terms := tr.Terminals()
			if len(terms) != 1 {
				t.Fatalf("terminals %d; want 1", len(terms))
			}
			term := terms[0]
			if got := c.rewarded[term.ID]; got != tc.wantCalls || tr.Rewards != tc.wantCalls {
				t.Errorf("reward calls on the terminal %d (tree %d); want %d", got, tr.Rewards, tc.wantCalls)
			}
			if tc.rescore && term.Rolls != 4 {
				t.Errorf("rolls %d; want 4", term.Rolls)
			}
			if math.Abs(term.Reward-tc.wantReward) > 1e-9 || math.Abs(tr.Root().Value-tc.wQ) > 1e-9 {
				t.Errorf("terminal reward %g, root Q %g; want %g, %g", term.Reward, tr.Root().Value, tc.wantReward, tc.wQ)
			}
		})
	}
}
