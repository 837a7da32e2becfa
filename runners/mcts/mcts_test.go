package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// bandit is a root with two terminal arms of fixed reward.
type bandit struct {
	rewards map[Action]float64
	scored  int
}

func (b *bandit) Actions(t *Tree, n *Node) []Action {
	if n.Action == RootAction {
		return []Action{"A", "B"}
	}
	return nil
}
func (b *bandit) Expand(_ context.Context, _ *Tree, _ *Node, a Action, k int) (Expansion, error) {
	out := make([]Output, k)
	for i := range out {
		out[i] = Output{Text: string(a)}
	}
	return Expansion{Outputs: out, Requests: 1}, nil
}
func (b *bandit) Terminal(_ *Tree, n *Node) bool { return n.Action != RootAction }
func (b *bandit) Reward(_ context.Context, _ *Tree, n *Node) (float64, error) {
	b.scored++
	return b.rewards[n.Action], nil
}

// TestBanditFollowsUCT checks visit counts against a hand computation of
// UCT with c = 1.414 for arms of reward 0.7 (A) and 0.3 (B). Rollouts 1-2
// visit each arm once (unvisited first). Then, with P the root's visits:
//
//	P=2: A 0.7+1.414*sqrt(ln2/1)=1.8772  B 0.3+1.1772=1.4772 -> A
//	P=3: A 0.7+1.414*sqrt(ln3/2)=1.7480  B 0.3+1.414*sqrt(ln3)=1.7821 -> B
//	P=4: A 0.7+1.414*sqrt(ln4/2)=1.8772  B 0.3+1.414*sqrt(ln4/2)=1.4772 -> A
//	P=5: A 0.7+1.414*sqrt(ln5/3)=1.7357  B 1.5684 -> A
//	P=6: A 0.7+1.414*sqrt(ln6/4)=1.6464  B 1.6384 -> A
//	P=7: A 0.7+1.414*sqrt(ln7/5)=1.5821  B 1.6947 -> B
//	P=8: A 1.6119  B 1.4772 -> A;  P=9: A 1.5557  B 1.5101 -> A
//
// giving A 7, B 3 after 10 rollouts (values rounded to 4 places; the
// decisions are not close ties).
func TestBanditFollowsUCT(t *testing.T) {
	wantSeq := []Action{"A", "B", "A", "A", "A", "B", "A", "A"}
	for seed := uint64(0); seed < 4; seed++ {
		b := &bandit{rewards: map[Action]float64{"A": 0.7, "B": 0.3}}
		var seq []Action
		tr, err := Search(context.Background(), b, Config{Rollouts: 10, Samples: 3, C: 1.414, Rand: rand.New(rand.NewPCG(seed, 1)),
			OnRollout: func(i int, n *Node, _ float64) {
				if i >= 2 {
					seq = append(seq, n.Action)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(seq, wantSeq) {
			t.Errorf("seed %d: arms chosen in rollouts 3-10 = %v; want %v", seed, seq, wantSeq)
		}
		root := tr.Root()
		if len(root.Children) != 2 {
			t.Fatalf("root children = %d; want 2 (3 identical samples per arm collapse)", len(root.Children))
		}
		a, bb := tr.Nodes[root.Children[0]], tr.Nodes[root.Children[1]]
		if a.Visits != 7 || bb.Visits != 3 || root.Visits != 10 {
			t.Errorf("visits A, B, root = %d, %d, %d; want 7, 3, 10", a.Visits, bb.Visits, root.Visits)
		}
		if a.Samples != 3 {
			t.Errorf("A collapsed samples = %d; want 3", a.Samples)
		}
		// Revisited terminals are not re-scored: two Reward calls only.
		if b.scored != 2 || tr.Rewards != 2 {
			t.Errorf("reward calls = %d (tree says %d); want 2", b.scored, tr.Rewards)
		}
		if math.Abs(root.Value-(7*0.7+3*0.3)) > 1e-12 {
			t.Errorf("root Q = %v; want 5.8", root.Value)
		}
		if tr.ExpandRequests != 2 {
			t.Errorf("expand requests = %d; want 2 (one per arm)", tr.ExpandRequests)
		}
	}
}

func TestUCT(t *testing.T) {
	if !math.IsInf(UCT(0, 0, 5, 1.414), 1) {
		t.Error("unvisited child should score +Inf")
	}
	// 0.5 + 1.414*sqrt(ln 10 / 4) = 0.5 + 1.414*0.758714 = 1.572821 (hand computation).
	if got := UCT(2, 4, 10, 1.414); math.Abs(got-1.572821) > 1e-5 {
		t.Errorf("UCT(2,4,10) = %v; want 1.572821", got)
	}
}

// orderProblem: pick 3 distinct letters of "abcd" in order; the reward of
// a path is the fraction of positions matching the target "dba", so the
// optimum is unique. Actions follow a transition table: after "a" only
// "b", "c" or "d"; letters may not repeat (the search enforces it).
type orderProblem struct {
	target  string
	samples int
	calls   int
}

func (o *orderProblem) word(t *Tree, n *Node) string {
	var b strings.Builder
	for _, x := range t.Path(n)[1:] {
		b.WriteString(string(x.Action))
	}
	return b.String()
}
func (o *orderProblem) Actions(t *Tree, n *Node) []Action {
	if n.Action == "a" {
		return []Action{"b", "c", "d"}
	}
	return []Action{"a", "b", "c", "d"}
}
func (o *orderProblem) Expand(_ context.Context, t *Tree, n *Node, a Action, k int) (Expansion, error) {
	o.calls++
	o.samples += k
	// Two distinct outputs per action, differing in text but equal in key
	// for the first two samples.
	var out []Output
	for i := 0; i < k; i++ {
		out = append(out, Output{Text: fmt.Sprintf("%s#%d", a, i), Key: fmt.Sprintf("%s/%d", a, min(i, 1))})
	}
	return Expansion{Outputs: out, Requests: 1}, nil
}
func (o *orderProblem) Terminal(t *Tree, n *Node) bool { return n.Depth == 3 }
func (o *orderProblem) Reward(_ context.Context, t *Tree, n *Node) (float64, error) {
	w := o.word(t, n)
	m := 0
	for i := range w {
		if w[i] == o.target[i] {
			m++
		}
	}
	return float64(m) / 3, nil
}

func TestSearchFindsOptimum(t *testing.T) {
	p := &orderProblem{target: "dba"}
	tr, err := Search(context.Background(), p, Config{Rollouts: 300, Samples: 3, Rand: rand.New(rand.NewPCG(7, 7))})
	if err != nil {
		t.Fatal(err)
	}
	best, bestR := "", -1.0
	for _, n := range tr.Terminals() {
		w := p.word(tr, n)
		seen := map[rune]bool{}
		for _, r := range w {
			if seen[r] {
				t.Fatalf("path %q repeats an action", w)
			}
			seen[r] = true
		}
		if strings.HasPrefix(w, "a") && strings.ContainsAny(w[1:2], "a") {
			t.Fatalf("path %q breaks the transition table", w)
		}
		if n.Reward > bestR {
			best, bestR = w, n.Reward
		}
	}
	if best != "dba" || bestR != 1 {
		t.Errorf("best terminal = %q (%v); want dba (1)", best, bestR)
	}
	s := tr.Summarize()
	if got := string(s.BestPath[0]) + string(s.BestPath[1]) + string(s.BestPath[2]); got != "dba" {
		t.Errorf("most-visited path = %v; want d b a", s.BestPath)
	}
	// Collapse: 3 samples with keys x/0, x/1, x/1 -> 2 children per action.
	if n := len(tr.Root().Children); n != 8 {
		t.Errorf("root children = %d; want 8 (4 actions x 2 distinct keys)", n)
	}
	if tr.ExpandRequests != p.calls {
		t.Errorf("tree counts %d expansion requests; problem saw %d", tr.ExpandRequests, p.calls)
	}
	if tr.Rollouts != 300 || tr.Root().Visits != 300 {
		t.Errorf("rollouts = %d, root visits = %d; want 300", tr.Rollouts, tr.Root().Visits)
	}
}

func TestSearchDeterministic(t *testing.T) {
	run := func(seed uint64) *Tree {
		tr, err := Search(context.Background(), &orderProblem{target: "cab"}, Config{Rollouts: 40, Samples: 2, Rand: rand.New(rand.NewPCG(seed, 0))})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b, c := run(1), run(1), run(2)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different trees")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds gave identical trees (tie-breaking ignores the seed)")
	}
}

// deadProblem: the root's only action yields no output.
type deadProblem struct{ orderProblem }

func (d *deadProblem) Expand(context.Context, *Tree, *Node, Action, int) (Expansion, error) {
	return Expansion{Requests: 1}, nil
}

func TestDeadEndScoresZero(t *testing.T) {
	tr, err := Search(context.Background(), &deadProblem{}, Config{Rollouts: 3, Samples: 1, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Root()
	if !r.Dead || r.Visits != 3 || r.Value != 0 || tr.ExpandRequests != 4 {
		t.Errorf("root dead=%v visits=%d value=%v requests=%d; want dead, 3, 0, 4 (one per action, expanded once)", r.Dead, r.Visits, r.Value, tr.ExpandRequests)
	}
}

type failProblem struct{ orderProblem }

var errBoom = errors.New("boom")

func (f *failProblem) Reward(context.Context, *Tree, *Node) (float64, error) { return 0, errBoom }

func TestErrorsAndConfig(t *testing.T) {
	_, err := Search(context.Background(), &failProblem{}, Config{Rollouts: 3, Samples: 1, Rand: rand.New(rand.NewPCG(1, 1))})
	if !errors.Is(err, errBoom) {
		t.Errorf("err = %v; want boom", err)
	}
	if _, err := Search(context.Background(), &orderProblem{}, Config{Rollouts: 0, Samples: 1, Rand: rand.New(rand.NewPCG(1, 1))}); !errors.Is(err, ErrConfig) {
		t.Errorf("err = %v; want ErrConfig", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr, err := Search(ctx, &orderProblem{target: "abc"}, Config{Rollouts: 3, Samples: 1, Rand: rand.New(rand.NewPCG(1, 1))})
	if !errors.Is(err, context.Canceled) || tr == nil || tr.Rollouts != 0 {
		t.Errorf("canceled: err = %v, tree = %v; want context.Canceled and an empty tree", err, tr)
	}
}

// pruneProblem is a bandit whose arm B cannot be expanded and whose arm C
// cannot be scored, both with errRejected.
type pruneProblem struct{ bandit }

var errRejected = errors.New("rejected")

func (p *pruneProblem) Actions(t *Tree, n *Node) []Action {
	if n.Action == RootAction {
		return []Action{"A", "B", "C"}
	}
	return nil
}
func (p *pruneProblem) Expand(ctx context.Context, t *Tree, n *Node, a Action, k int) (Expansion, error) {
	if a == "B" {
		return Expansion{}, fmt.Errorf("expand B: %w", errRejected)
	}
	return p.bandit.Expand(ctx, t, n, a, k)
}
func (p *pruneProblem) Reward(ctx context.Context, t *Tree, n *Node) (float64, error) {
	if n.Action == "C" {
		return 0, errRejected
	}
	return p.bandit.Reward(ctx, t, n)
}

func TestPruneConfinedErrors(t *testing.T) {
	isRejected := func(err error) bool { return errors.Is(err, errRejected) }
	p := &pruneProblem{bandit{rewards: map[Action]float64{"A": 0.7}}}
	tr, err := Search(context.Background(), p, Config{Rollouts: 6, Samples: 2, Rand: rand.New(rand.NewPCG(1, 1)), Prune: isRejected})
	if err != nil {
		t.Fatalf("Search: %v; want the search to go on past pruned branches", err)
	}
	if tr.Rollouts != 6 {
		t.Errorf("rollouts = %d; want 6", tr.Rollouts)
	}
	var arms []Action
	for _, id := range tr.Root().Children {
		arms = append(arms, tr.Nodes[id].Action)
	}
	if !reflect.DeepEqual(arms, []Action{"A", "C"}) {
		t.Errorf("root children = %v; want [A C] (B pruned)", arms)
	}
	// B is pruned at the root's one expansion; C's reward fails once (a
	// scored terminal backs up its mean afterwards).
	want := []Prune{{Node: 0, Action: "B", Error: "expand B: rejected"}, {Node: 2, Error: "rejected"}}
	if !reflect.DeepEqual(tr.Pruned, want) {
		t.Errorf("pruned = %+v; want %+v", tr.Pruned, want)
	}
	if c := tr.Nodes[2]; !c.Scored || c.Reward != 0 {
		t.Errorf("C scored=%v reward=%v; want scored with reward 0", c.Scored, c.Reward)
	}
	if tr.Rewards != 1 {
		t.Errorf("rewards = %d; want 1 (only A's reward request succeeded)", tr.Rewards)
	}

	// Without Prune, or for an error Prune does not confine, the search stops.
	for name, prune := range map[string]func(error) bool{"nil": nil, "other": func(error) bool { return false }} {
		p := &pruneProblem{bandit{rewards: map[Action]float64{"A": 0.7}}}
		_, err := Search(context.Background(), p, Config{Rollouts: 6, Samples: 2, Rand: rand.New(rand.NewPCG(1, 1)), Prune: prune})
		if !errors.Is(err, errRejected) {
			t.Errorf("prune %s: err = %v; want rejected", name, err)
		}
	}
}
