// Package mcts is a generic Monte Carlo tree search (UCT) over a typed
// action space, in the form Alpha-SQL (Li et al., ICML 2025) and rStar use
// for LLM reasoning: every node holds one reasoning step produced by a
// model, an action may appear at most once on a path, and a terminal is
// scored by a self-supervised reward.
//
// A method supplies a Problem: which actions may follow a node
// (Problem.Actions, the valid-transition table), how to sample the outputs
// of one action with one model request (Problem.Expand), which nodes are
// terminal, and the reward of a terminal. Search runs the rollouts:
//
//   - Selection: from the root, while the node is expanded and not
//     terminal, go to an unvisited child if there is one (chosen at random
//     with the seeded source), else to the child maximising
//
//     UCT(v) = Q(v)/N(v) + c * sqrt(ln N(parent) / N(v))
//
//   - Expansion: an unexpanded node gets a child for every valid action not
//     yet on its path; each action is one Problem.Expand call asking for
//     Config.Samples outputs (one model request with n samples). Outputs
//     with equal keys collapse into one child.
//
//   - Simulation: selection and expansion repeat until a terminal, so every
//     node a rollout creates stays in the tree.
//
// That is Config.Policy AllActions (the zero value), the expansion of
// Alpha-SQL's released code. Policy OneAction is the textbook form, as
// IESR's Algorithm 2 writes it: selection descends by UCT only through
// fully expanded nodes (every valid action tried); at the first node with
// an untried valid action it expands one of them, chosen uniformly at
// random with the seeded source, into one child (one Problem.Expand call
// asking for a single output, whatever Config.Samples says: Algorithm 2's
// "u <- Step(v, a, M); add edge (v, a) -> u"), and descends into it; the
// simulation then repeats this from each new node (a uniform rollout
// policy) until a terminal. Simulated nodes stay in the tree and are
// backed up like the rest of the path, so every terminal reached is a
// trajectory; an expansion that yields no child leaves the action tried
// and the rollout tries another at the same node.
//
//   - Backpropagation: the terminal's reward is added to Q and N of every
//     node on the path, root included. A terminal reached again backs up
//     its own mean Q/N (Alpha-SQL) unless Config.Rescore is set: then
//     Problem.Reward scores it again (Algorithm 2 evaluates the reward of
//     every rollout's terminal), and Node.Rolls counts its scorings.
//
// The tree is plain data (Tree.Nodes) so that a runner can store it in its
// trace. Given the same seed and the same model answers, Search builds the
// same tree, bit for bit.
package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Action names one kind of step. Methods define their own constants.
type Action string

// Next returns the actions that table allows after from, in table order,
// without the disabled ones: a method's valid-transition table with its
// ablation switches applied.
func Next(table map[Action][]Action, from Action, disabled map[Action]bool) []Action {
	var out []Action
	for _, a := range table[from] {
		if !disabled[a] {
			out = append(out, a)
		}
	}
	return out
}

// DisabledNames returns the names of the actions disabled switches off,
// sorted (never nil, so that a trace records an empty list as []): a
// method's action ablation as its traces show it.
func DisabledNames(disabled map[Action]bool) []string {
	out := []string{}
	for a, on := range disabled {
		if on {
			out = append(out, string(a))
		}
	}
	sort.Strings(out)
	return out
}

// RootAction is the pseudo-action of the root node.
const RootAction Action = "ROOT"

// DefaultC is the UCT exploration weight (sqrt 2, rounded as Alpha-SQL's
// released configuration writes it: 1.414).
const DefaultC = 1.414

// Output is one sampled outcome of an action.
type Output struct {
	// Text is what the node stores: the step's reasoning and result.
	Text string `json:"text"`
	// Key identifies the outcome for collapsing: outputs of one action with
	// equal keys become one child (the first one's Text is kept). An empty
	// Key means Text.
	Key string `json:"key,omitempty"`
	// Requests counts model requests spent on this output alone, beyond
	// the expansion's shared request (e.g. further SQL revision rounds).
	Requests int `json:"requests,omitempty"`
	// Info is method-specific data kept on the node (parsed fields,
	// execution feedback).
	Info map[string]any `json:"info,omitempty"`
}

// Expansion is the result of expanding one action at one node.
type Expansion struct {
	Outputs []Output
	// Requests is the number of model requests the expansion made itself
	// (1 for one request with n samples, 0 for a model-free action such as
	// termination). Output.Requests come on top.
	Requests int
}

// Problem is the search space a method defines.
type Problem interface {
	// Actions returns the actions that may follow node n, by the method's
	// valid-transition table. Search drops those already on n's path.
	Actions(t *Tree, n *Node) []Action
	// Expand samples up to k outputs of action a at node n. It should make
	// at most one model request with n = k for the shared part.
	Expand(ctx context.Context, t *Tree, n *Node, a Action, k int) (Expansion, error)
	// Terminal reports whether n ends a reasoning path.
	Terminal(t *Tree, n *Node) bool
	// Reward scores a terminal node, usually in [0, 1].
	Reward(ctx context.Context, t *Tree, n *Node) (float64, error)
}

// Node is one tree node. Parent is -1 for the root; Children are node ids
// in creation order.
type Node struct {
	ID       int            `json:"id"`
	Parent   int            `json:"parent"`
	Depth    int            `json:"depth"`
	Action   Action         `json:"action"`
	Text     string         `json:"text,omitempty"`
	Key      string         `json:"key,omitempty"`
	Info     map[string]any `json:"info,omitempty"`
	Children []int          `json:"children,omitempty"`
	// Visits (N) and Value (Q, the sum of backed-up rewards).
	Visits int     `json:"visits"`
	Value  float64 `json:"value"`
	// Expanded is true once the node's children were created (under
	// OneAction: once every valid action was tried).
	Expanded bool `json:"expanded,omitempty"`
	// Tried lists the actions expanded at the node under OneAction, in
	// order (nil under AllActions).
	Tried []Action `json:"tried,omitempty"`
	// Terminal is true for a terminal node; Dead for a non-terminal node
	// whose expansion produced no child (scored 0).
	Terminal bool `json:"terminal,omitempty"`
	Dead     bool `json:"dead,omitempty"`
	// Scored is true once Reward was computed; Reward holds it (the mean
	// of its scorings when Config.Rescore scored it again), and Rolls
	// counts the scorings (Problem.Reward reads it as the index of the
	// scoring under way, 0 for the first).
	Scored bool    `json:"scored,omitempty"`
	Reward float64 `json:"reward,omitempty"`
	Rolls  int     `json:"rolls,omitempty"`
	// Requests is the number of model requests spent expanding this node
	// (reward requests are counted in Tree.Rewards). Samples is the number
	// of sampled outputs that collapsed into this node.
	Requests int `json:"requests,omitempty"`
	Samples  int `json:"samples,omitempty"`
	// OwnRequests sums Output.Requests of the outputs that collapsed into
	// this node (requests spent on them alone, e.g. revision rounds).
	OwnRequests int `json:"own_requests,omitempty"`
}

// Mean is Q/N, or 0 for an unvisited node.
func (n *Node) Mean() float64 {
	if n.Visits == 0 {
		return 0
	}
	return n.Value / float64(n.Visits)
}

// Tree is the search tree; Nodes[0] is the root and Nodes[i].ID == i.
type Tree struct {
	Nodes []*Node `json:"nodes"`
	// Rollouts is the number of rollouts completed.
	Rollouts int `json:"rollouts"`
	// ExpandRequests counts model requests made by expansions (including
	// Output.Requests); Rewards counts Reward calls (one per distinct
	// terminal scored, or one per rollout that reached a terminal under
	// Config.Rescore).
	ExpandRequests int `json:"expand_requests"`
	Rewards        int `json:"rewards"`
	// ActionRequests breaks ExpandRequests down by action.
	ActionRequests map[Action]int `json:"action_requests,omitempty"`
	// Pruned lists the branches Config.Prune cut: expansions dropped and
	// terminals scored 0 after an error the search went on from.
	Pruned []Prune `json:"pruned,omitempty"`
}

// Prune records one pruned branch: the node it hung from, the action whose
// expansion failed ("" for a failed reward of the terminal Node) and the
// error.
type Prune struct {
	Node   int    `json:"node"`
	Action Action `json:"action,omitempty"`
	Error  string `json:"error"`
}

// Root returns the root node.
func (t *Tree) Root() *Node { return t.Nodes[0] }

// Path returns the nodes from the root to n, root first.
func (t *Tree) Path(n *Node) []*Node {
	var rev []*Node
	for cur := n; ; cur = t.Nodes[cur.Parent] {
		rev = append(rev, cur)
		if cur.Parent < 0 {
			break
		}
	}
	out := make([]*Node, len(rev))
	for i, x := range rev {
		out[len(rev)-1-i] = x
	}
	return out
}

// OnPath reports whether action a occurs on the path from the root to n.
func (t *Tree) OnPath(n *Node, a Action) bool {
	for cur := n; ; cur = t.Nodes[cur.Parent] {
		if cur.Action == a {
			return true
		}
		if cur.Parent < 0 {
			return false
		}
	}
}

// Terminals returns the terminal nodes that were reached (visited), in id
// order.
func (t *Tree) Terminals() []*Node {
	var out []*Node
	for _, n := range t.Nodes {
		if n.Terminal && n.Visits > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Summary is a compact description of a tree for traces.
type Summary struct {
	Nodes          int            `json:"nodes"`
	Expanded       int            `json:"expanded"`
	Terminals      int            `json:"terminals"`
	Dead           int            `json:"dead,omitempty"`
	MaxDepth       int            `json:"max_depth"`
	Rollouts       int            `json:"rollouts"`
	ExpandRequests int            `json:"expand_requests"`
	Rewards        int            `json:"rewards"`
	Pruned         int            `json:"pruned,omitempty"`
	ByAction       map[Action]int `json:"nodes_by_action"`
	// BestPath is the most-visited path from the root (actions).
	BestPath []Action `json:"best_path"`
}

// Summarize describes t.
func (t *Tree) Summarize() Summary {
	s := Summary{Nodes: len(t.Nodes), Rollouts: t.Rollouts, ExpandRequests: t.ExpandRequests, Rewards: t.Rewards, Pruned: len(t.Pruned), ByAction: map[Action]int{}}
	for _, n := range t.Nodes {
		if n.Expanded {
			s.Expanded++
		}
		if n.Terminal && n.Visits > 0 {
			s.Terminals++
		}
		if n.Dead {
			s.Dead++
		}
		if n.Depth > s.MaxDepth {
			s.MaxDepth = n.Depth
		}
		s.ByAction[n.Action]++
	}
	for cur := t.Root(); len(cur.Children) > 0; {
		best := t.Nodes[cur.Children[0]]
		for _, id := range cur.Children[1:] {
			if c := t.Nodes[id]; c.Visits > best.Visits {
				best = c
			}
		}
		if best.Visits == 0 {
			break
		}
		s.BestPath = append(s.BestPath, best.Action)
		cur = best
	}
	return s
}

// Policy is how a rollout grows the tree (see the package documentation).
type Policy int

const (
	// AllActions expands every valid action of a node at once (Alpha-SQL's
	// released code).
	AllActions Policy = iota
	// OneAction expands one untried valid action into one child per
	// visit and simulates to a terminal (IESR's Algorithm 2, the textbook
	// MCTS step).
	OneAction
)

// String names the policy as specs write it.
func (p Policy) String() string {
	if p == OneAction {
		return "one-action"
	}
	return "all-actions"
}

// Config configures Search.
type Config struct {
	// Policy is the expansion policy; the zero value is AllActions.
	Policy Policy
	// Rollouts is the number of rollouts (N_rollout).
	Rollouts int
	// Samples is the number of outputs sampled per action in one request
	// (N_expansion) under AllActions; OneAction samples one.
	Samples int
	// Rescore scores a terminal again each time a rollout reaches it,
	// instead of backing up its mean Q/N.
	Rescore bool
	// C is the UCT exploration weight; 0 means DefaultC.
	C float64
	// Rand breaks ties among unvisited children. Required: pass a source
	// seeded from the task seed.
	Rand *rand.Rand
	// OnRollout, when set, is called after every rollout with the path's
	// terminal and the backed-up reward.
	OnRollout func(i int, terminal *Node, reward float64)
	// Prune, when set, says whether an error of Problem.Expand or
	// Problem.Reward is confined to its branch (a model that rejects this
	// one prompt, e.g. for its length): the failed action adds no child, a
	// failed reward scores its terminal 0, the prune is recorded in
	// Tree.Pruned, and the search goes on. Any other error, and any error
	// once ctx is done, stops the search. nil: every error stops it.
	Prune func(error) bool
}

// ErrConfig is wrapped by Search for an invalid configuration.
var ErrConfig = errors.New("mcts: invalid configuration")

// Search runs cfg.Rollouts rollouts of UCT over p and returns the tree.
// It stops early only on an error from the problem that cfg.Prune does not
// confine to its branch, or on ctx; the tree built so far is returned with
// the error.
func Search(ctx context.Context, p Problem, cfg Config) (*Tree, error) {
	if cfg.Rollouts < 1 || cfg.Samples < 1 || cfg.Rand == nil || cfg.C < 0 {
		return nil, fmt.Errorf("%w: rollouts %d and samples %d must be >= 1, c %g >= 0, and Rand set", ErrConfig, cfg.Rollouts, cfg.Samples, cfg.C)
	}
	if cfg.C == 0 {
		cfg.C = DefaultC
	}
	t := &Tree{Nodes: []*Node{{ID: 0, Parent: -1, Action: RootAction, Samples: 1}}, ActionRequests: map[Action]int{}}
	t.Root().Terminal = p.Terminal(t, t.Root())
	for i := 0; i < cfg.Rollouts; i++ {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		leaf, reward, err := rollout(ctx, p, t, cfg)
		if err != nil {
			return t, err
		}
		t.Rollouts++
		if cfg.OnRollout != nil {
			cfg.OnRollout(i, leaf, reward)
		}
	}
	return t, nil
}

// rollout runs one selection-expansion-simulation pass and backs up the
// reward.
func rollout(ctx context.Context, p Problem, t *Tree, cfg Config) (*Node, float64, error) {
	path := []*Node{t.Root()}
	node := t.Root()
	for !node.Terminal && !node.Dead {
		if !node.Expanded && cfg.Policy == OneAction {
			untried := untriedActions(p, t, node)
			if len(untried) == 0 {
				node.Expanded = true
				continue
			}
			a := untried[cfg.Rand.IntN(len(untried))]
			node.Tried = append(node.Tried, a)
			node.Expanded = len(untried) == 1
			created, err := expandAction(ctx, p, t, node, a, 1, cfg)
			if err != nil {
				return nil, 0, err
			}
			if len(created) == 0 {
				continue
			}
			node = created[cfg.Rand.IntN(len(created))]
			path = append(path, node)
			continue
		}
		if !node.Expanded {
			if err := expand(ctx, p, t, node, cfg); err != nil {
				return nil, 0, err
			}
		}
		if len(node.Children) == 0 {
			node.Dead = true
			break
		}
		node = selectChild(t, node, cfg)
		path = append(path, node)
	}
	var reward float64
	switch {
	case node.Dead:
		reward = 0
	case node.Scored && node.Visits > 0 && !cfg.Rescore:
		// A revisited terminal backs up its mean (Alpha-SQL: Q/N).
		reward = node.Mean()
	default:
		r, err := p.Reward(ctx, t, node)
		switch {
		case err == nil:
			t.Rewards++
		case prunable(ctx, cfg, err):
			t.Pruned = append(t.Pruned, Prune{Node: node.ID, Error: err.Error()})
			r = 0
		default:
			return nil, 0, err
		}
		node.Rolls++
		node.Scored, node.Reward = true, node.Reward+(r-node.Reward)/float64(node.Rolls)
		reward = r
	}
	for _, n := range path {
		n.Visits++
		n.Value += reward
	}
	return node, reward, nil
}

// expand creates node's children: one Problem.Expand per valid action not
// already on the path, identical outputs of an action collapsed.
func expand(ctx context.Context, p Problem, t *Tree, node *Node, cfg Config) error {
	node.Expanded = true
	for _, a := range p.Actions(t, node) {
		if a == RootAction || t.OnPath(node, a) {
			continue
		}
		if _, err := expandAction(ctx, p, t, node, a, cfg.Samples, cfg); err != nil {
			return err
		}
	}
	return nil
}

// untriedActions are node's valid actions not on its path and not yet
// tried (OneAction).
func untriedActions(p Problem, t *Tree, node *Node) []Action {
	var out []Action
	for _, a := range p.Actions(t, node) {
		if a == RootAction || t.OnPath(node, a) || slices.Contains(node.Tried, a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// expandAction makes one Problem.Expand call of action a at node for k
// outputs and adds its distinct outputs as children, which it returns. A
// pruned expansion is recorded and adds none.
func expandAction(ctx context.Context, p Problem, t *Tree, node *Node, a Action, k int, cfg Config) ([]*Node, error) {
	ex, err := p.Expand(ctx, t, node, a, k)
	if err != nil {
		if prunable(ctx, cfg, err) {
			t.Pruned = append(t.Pruned, Prune{Node: node.ID, Action: a, Error: err.Error()})
			return nil, nil
		}
		return nil, fmt.Errorf("mcts: expand %s at node %d: %w", a, node.ID, err)
	}
	reqs := ex.Requests
	seen := map[string]*Node{}
	var created []*Node
	for _, o := range ex.Outputs {
		reqs += o.Requests
		key := o.Key
		if key == "" {
			key = o.Text
		}
		if c, dup := seen[key]; dup {
			c.Samples++
			c.OwnRequests += o.Requests
			continue
		}
		c := &Node{ID: len(t.Nodes), Parent: node.ID, Depth: node.Depth + 1, Action: a, Text: o.Text, Key: o.Key, Info: o.Info, Samples: 1, OwnRequests: o.Requests}
		t.Nodes = append(t.Nodes, c)
		node.Children = append(node.Children, c.ID)
		c.Terminal = p.Terminal(t, c)
		seen[key] = c
		created = append(created, c)
	}
	node.Requests += reqs
	t.ExpandRequests += reqs
	t.ActionRequests[a] += reqs
	return created, nil
}

// prunable reports whether err is confined to its branch (cfg.Prune) while
// ctx is still live.
func prunable(ctx context.Context, cfg Config, err error) bool {
	return ctx.Err() == nil && cfg.Prune != nil && cfg.Prune(err)
}

// selectChild picks an unvisited child at random, else the UCT maximum
// (ties to the earliest child).
func selectChild(t *Tree, node *Node, cfg Config) *Node {
	var unvisited []*Node
	for _, id := range node.Children {
		if c := t.Nodes[id]; c.Visits == 0 {
			unvisited = append(unvisited, c)
		}
	}
	if len(unvisited) > 0 {
		return unvisited[cfg.Rand.IntN(len(unvisited))]
	}
	var best *Node
	bestScore := math.Inf(-1)
	for _, id := range node.Children {
		c := t.Nodes[id]
		if s := UCT(c.Value, c.Visits, node.Visits, cfg.C); s > bestScore {
			best, bestScore = c, s
		}
	}
	return best
}

// UCT is the upper confidence bound of a child with value q over n visits
// whose parent has parentN visits:
//
//	q/n + c * sqrt(ln parentN / n)
//
// An unvisited child (n == 0) scores +Inf.
func UCT(q float64, n, parentN int, c float64) float64 {
	if n == 0 {
		return math.Inf(1)
	}
	explore := 0.0
	if parentN > 1 {
		explore = c * math.Sqrt(math.Log(float64(parentN))/float64(n))
	}
	return q/float64(n) + explore
}

// SortedActions returns the actions of m sorted, for stable output.
func SortedActions(m map[Action]int) []Action {
	out := make([]Action, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
