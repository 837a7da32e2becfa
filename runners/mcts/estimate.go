package mcts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Estimate is the expected shape of a search, averaged over seeds.
type Estimate struct {
	// Requests are the expansion requests (one per expanded action that
	// costs a model call).
	Requests float64
	// Terminals are the distinct terminals reached: a trajectory-level
	// stage (IESR's discriminator) works per terminal.
	Terminals float64
	// Rewards are the reward calls: one per distinct terminal, or one per
	// rollout that reached a terminal under SearchModel.Rescore.
	Rewards float64
	// ByAction are the expansion requests per action.
	ByAction map[Action]float64
	// Children are the nodes the expansions made, per action (the
	// distinct outputs: a step that works per output, as Alpha-SQL's
	// further revision rounds, works per child).
	Children map[Action]float64
	// PathSteps is the mean number of steps (actions after the root) of
	// the terminals' paths.
	PathSteps float64
}

// EstimateSearch estimates the model requests of Search over a Problem
// whose valid actions follow table (minus disabled), whose terminal
// action is terminal, and whose free actions cost no request (Alpha-SQL's
// A7, IESR's END copy the path's SQL). It runs the real Search, with cfg's
// rollouts, samples and c, on a model-free replica of that Problem,
// seeds 0..runs-1, and averages.
//
// The replica answers each expansion request of action a with
// m.Distinct(a, samples) distinct outputs on average (samples when
// Distinct is nil), and a free action with one: identical outputs of one
// request collapse into one child (mcts.expand), so how many of a
// request's samples differ is the assumption on the model (see
// DistinctAnswers). Rewards are drawn uniformly from [0, 1] (they steer
// UCT among visited children, not how many children are new).
//
// With those assumptions the count follows from Search's own logic: a
// rollout expands every unexpanded node on its path (one request per
// valid action not already on the path), unvisited children are
// selected first, and a terminal costs one reward request the first time
// it is reached only (every time under Rescore).
func EstimateSearch(m SearchModel, rollouts, samples int, c float64, runs int) (Estimate, error) {
	est := Estimate{ByAction: map[Action]float64{}, Children: map[Action]float64{}}
	if runs < 1 {
		runs = 1
	}
	for seed := 0; seed < runs; seed++ {
		p := &replica{m: m, rng: rand.New(rand.NewPCG(uint64(seed), 0x65737469))}
		tree, err := Search(context.Background(), p, Config{Policy: m.Policy, Rescore: m.Rescore, Rollouts: rollouts, Samples: samples, C: c,
			Rand: rand.New(rand.NewPCG(uint64(seed), 0x72656c))})
		if err != nil {
			return Estimate{}, fmt.Errorf("mcts: estimate: %w", err)
		}
		est.Requests += float64(tree.ExpandRequests)
		est.Rewards += float64(tree.Rewards)
		for a, n := range tree.ActionRequests {
			est.ByAction[a] += float64(n)
		}
		for _, n := range tree.Nodes[1:] {
			est.Children[n.Action]++
		}
		steps, terms := 0, 0
		for _, n := range tree.Terminals() {
			steps += n.Depth
			terms++
		}
		est.Terminals += float64(terms)
		if terms > 0 {
			est.PathSteps += float64(steps) / float64(terms)
		}
	}
	r := float64(runs)
	est.Requests /= r
	est.Terminals /= r
	est.Rewards /= r
	est.PathSteps /= r
	for a := range est.ByAction {
		est.ByAction[a] /= r
	}
	for a := range est.Children {
		est.Children[a] /= r
	}
	return est, nil
}

// SearchModel describes a Problem's action space and what its model
// calls yield, for EstimateSearch.
type SearchModel struct {
	// Policy is the search's expansion policy; Rescore scores a terminal
	// each time it is reached (Config.Rescore).
	Policy  Policy
	Rescore bool
	// Table is the valid-transition table; Disabled actions are removed.
	Table    map[Action][]Action
	Disabled map[Action]bool
	// Terminal is the action that ends a path.
	Terminal Action
	// Free actions cost no model request and make one child.
	Free map[Action]bool
	// Distinct is the expected number of distinct outputs (children)
	// among the k samples of one expansion request of action a, in
	// [1, k]; nil means k.
	Distinct func(a Action, k int) float64
}

// replica is a model-free Problem with a given action space.
type replica struct {
	m    SearchModel
	rng  *rand.Rand
	next int
}

func (p *replica) Actions(_ *Tree, n *Node) []Action { return Next(p.m.Table, n.Action, p.m.Disabled) }

func (p *replica) Terminal(_ *Tree, n *Node) bool { return n.Action == p.m.Terminal }

func (p *replica) Expand(_ context.Context, _ *Tree, _ *Node, a Action, k int) (Expansion, error) {
	ex := Expansion{Requests: 1}
	switch {
	case p.m.Free[a]:
		k, ex.Requests = 1, 0
	case p.m.Distinct != nil:
		// A whole number of children with the given mean: floor(d),
		// plus one with probability frac(d).
		d := min(max(p.m.Distinct(a, k), 1), float64(k))
		k = int(d)
		if p.rng.Float64() < d-float64(k) {
			k++
		}
	}
	for i := 0; i < k; i++ {
		p.next++
		ex.Outputs = append(ex.Outputs, Output{Text: fmt.Sprint(p.next)})
	}
	return ex, nil
}

func (p *replica) Reward(context.Context, *Tree, *Node) (float64, error) { return p.rng.Float64(), nil }

// DistinctAnswers is the expected number of distinct answers among the k
// samples of one request to an action whose answers are right or wrong
// and canonicalised into a key (a schema selection, a SQL query: equal
// keys collapse into one child), for a model whose sample is right with
// probability acc, independently per sample:
//
//	E[distinct] = P(some sample is right) + E[wrong samples] = 1 - (1-acc)^k + k(1-acc)
//
// The right samples share one key (the right answer, canonicalised); the
// wrong ones are taken as pairwise distinct (mistakes vary; where two
// coincide the true count is lower, so this is an upper bound). At acc =
// 1 every sample is the same answer (1); at acc = 0.6, k = 3 it is 2.136;
// at acc = 0, k.
func DistinctAnswers(acc float64, k int) float64 {
	if k < 1 {
		return 1
	}
	acc = min(max(acc, 0), 1)
	wrong := 1.0
	for i := 0; i < k; i++ {
		wrong *= 1 - acc
	}
	return 1 - wrong + float64(k)*(1-acc)
}

// SampledDistinct is the SearchModel.Distinct of a search whose actions
// sample k answers at temperature temp: 1 at temperature 0 (the samples
// coincide); k for the free-text actions (worded differently each time);
// DistinctAnswers(acc, k) for the judged actions when the model's accuracy
// is known (known), else 1; and 1 for every other action (extractions the
// samples agree on).
func SampledDistinct(temp float64, free, judged []Action, acc float64, known bool) func(Action, int) float64 {
	return func(a Action, k int) float64 {
		switch {
		case temp <= 0:
			return 1
		case slices.Contains(free, a):
			return float64(k)
		case known && slices.Contains(judged, a):
			return DistinctAnswers(acc, k)
		}
		return 1
	}
}
