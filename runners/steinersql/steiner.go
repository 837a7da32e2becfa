package steinersql

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// Path algorithms (param path_algorithm).
const (
	// AlgSteiner is the Kou-Markowsky-Berman 2-approximation (the paper's
	// choice, Section 3.3.4).
	AlgSteiner = "steiner"
	// AlgShortestPathUnion is the union of the shortest paths between every
	// pair of terminals ("Shortest Path Combination", Figure 4). It is not
	// pruned, so it may hold cycles and redundant paths.
	AlgShortestPathUnion = "shortest-path-union"
	// AlgMSTOnTerminals is the minimum spanning tree of the subgraph induced
	// by the terminals alone ("MST on Terminals", Figure 4): no
	// intermediate tables, so it is a forest when the terminals are not
	// directly joinable.
	AlgMSTOnTerminals = "mst-on-terminals"
)

// WGraph is an undirected weighted graph whose vertices are 0..N-1. Vertex
// ids carry the tie-breaking order: callers number vertices in the
// lexicographic order of their names, so that "smaller id first" is the
// paper's lexicographic rule. WGraph wraps a gonum simple graph and caches
// its metric closure.
type WGraph struct {
	N int
	g *simple.WeightedUndirectedGraph
	// closure is the all-pairs shortest paths (Floyd-Warshall), computed on
	// first use.
	closure *path.AllShortest
}

// NewWGraph returns a graph with n isolated vertices.
func NewWGraph(n int) *WGraph {
	g := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
	for i := 0; i < n; i++ {
		g.AddNode(simple.Node(i))
	}
	return &WGraph{N: n, g: g}
}

// SetEdge adds (or replaces) the edge u-v with weight w >= 0.
func (w *WGraph) SetEdge(u, v int, weight float64) {
	if u == v {
		return
	}
	w.g.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(u), T: simple.Node(v), W: weight})
	w.closure = nil
}

// Weight returns the weight of edge u-v and whether it exists.
func (w *WGraph) Weight(u, v int) (float64, bool) {
	if u == v {
		return 0, false
	}
	return w.g.Weight(int64(u), int64(v))
}

// neighbors returns the neighbours of u in increasing id order.
func (w *WGraph) neighbors(u int) []int {
	it := w.g.From(int64(u))
	out := make([]int, 0, it.Len())
	for it.Next() {
		out = append(out, int(it.Node().ID()))
	}
	slices.Sort(out)
	return out
}

// dist returns the shortest-path distance u-v in the metric closure
// (+Inf when disconnected).
func (w *WGraph) dist(u, v int) float64 {
	if w.closure == nil {
		ap, _ := path.FloydWarshall(w.g) // weights are >= 0: no negative cycle
		w.closure = &ap
	}
	return w.closure.Weight(int64(u), int64(v))
}

// Closure computes the metric closure now (Floyd-Warshall, O(N^3)); later
// calls reuse it until an edge changes.
func (w *WGraph) Closure() { w.dist(0, 0) }

// tieEps is the tolerance under which two path lengths count as equal.
const tieEps = 1e-9

// shortestPath returns the lexicographically smallest shortest path from u
// to v (by vertex id sequence), or nil when v is unreachable. At each step it
// moves to the smallest-id neighbour that stays on a shortest path, which
// yields the lexicographically smallest sequence among all shortest paths.
// (gonum's AllShortest.Between picks among equal paths at random.)
func (w *WGraph) shortestPath(u, v int) []int {
	d := w.dist(u, v)
	if math.IsInf(d, 1) {
		return nil
	}
	p := []int{u}
	cur := u
	for cur != v {
		next := -1
		rest := w.dist(cur, v)
		for _, x := range w.neighbors(cur) {
			ew, _ := w.Weight(cur, x)
			if math.Abs(ew+w.dist(x, v)-rest) <= tieEps*(1+rest) && (x == v || !slices.Contains(p, x)) {
				next = x
				break
			}
		}
		if next < 0 { // cannot happen with a consistent closure
			return nil
		}
		p = append(p, next)
		cur = next
	}
	return p
}

// TreeEdge is one edge of a result tree, U < V.
type TreeEdge struct {
	U, V int
	W    float64
}

// Tree is the result of a path algorithm: the vertices and edges of the
// scaffold, sorted, and its total cost. Disconnected lists terminal pairs
// that no path joins (the result is then a forest).
type Tree struct {
	Nodes        []int
	Edges        []TreeEdge
	Cost         float64
	Disconnected [][2]int
}

func edgeKey(u, v int) [2]int {
	if u > v {
		u, v = v, u
	}
	return [2]int{u, v}
}

// kruskal returns a minimum spanning forest of the given edges over the
// given vertices. Ties are broken by (weight, smaller id, larger id), so the
// result does not depend on the order of edges.
func kruskal(nodes []int, edges []TreeEdge) []TreeEdge {
	es := slices.Clone(edges)
	slices.SortFunc(es, func(a, b TreeEdge) int {
		return cmp.Or(cmp.Compare(a.W, b.W), cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V))
	})
	parent := map[int]int{}
	for _, n := range nodes {
		parent[n] = n
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var out []TreeEdge
	for _, e := range es {
		a, b := find(e.U), find(e.V)
		if a == b {
			continue
		}
		parent[max(a, b)] = min(a, b)
		out = append(out, e)
	}
	return out
}

// finish sorts the edges, derives the vertex set (terminals always
// included) and the cost.
func finish(terms []int, edges []TreeEdge, disc [][2]int) Tree {
	slices.SortFunc(edges, func(a, b TreeEdge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	seen := map[int]bool{}
	t := Tree{Edges: edges, Disconnected: disc}
	for _, x := range terms {
		seen[x] = true
	}
	for _, e := range edges {
		seen[e.U], seen[e.V] = true, true
		t.Cost += e.W
	}
	for x := range seen {
		t.Nodes = append(t.Nodes, x)
	}
	slices.Sort(t.Nodes)
	return t
}

func uniqueSorted(terms []int) []int {
	out := slices.Clone(terms)
	slices.Sort(out)
	return slices.Compact(out)
}

// closureMST is the MST over the terminals in the metric closure (KMB
// step 2), plus the terminal pairs left disconnected.
func (w *WGraph) closureMST(terms []int) ([]TreeEdge, [][2]int) {
	var ce []TreeEdge
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			if d := w.dist(a, b); !math.IsInf(d, 1) {
				ce = append(ce, TreeEdge{U: a, V: b, W: d})
			}
		}
	}
	mst := kruskal(terms, ce)
	return mst, disconnected(terms, mst)
}

// disconnected lists, for a forest over terms, one pair per extra
// component: (first terminal of the first component, first terminal of the
// other component).
func disconnected(terms []int, forest []TreeEdge) [][2]int {
	comp := kruskalComponents(terms, forest)
	var out [][2]int
	for _, c := range comp[1:] {
		out = append(out, [2]int{comp[0][0], c[0]})
	}
	return out
}

// kruskalComponents groups terms into connected components of forest,
// each sorted, components ordered by their smallest member.
func kruskalComponents(terms []int, forest []TreeEdge) [][]int {
	adj := map[int][]int{}
	for _, e := range forest {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	seen := map[int]bool{}
	var comps [][]int
	for _, t := range terms {
		if seen[t] {
			continue
		}
		var c []int
		stack := []int{t}
		seen[t] = true
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if slices.Contains(terms, x) {
				c = append(c, x)
			}
			for _, y := range adj[x] {
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		slices.Sort(c)
		comps = append(comps, c)
	}
	return comps
}

// KMB computes a Steiner tree for terms with the Kou-Markowsky-Berman
// 2-approximation (Kou et al., 1981; paper Section 3.3.4):
//
//  1. metric closure of the graph (Floyd-Warshall, gonum/graph/path);
//  2. minimum spanning tree of the closure restricted to the terminals;
//  3. each MST edge replaced by its shortest path in the graph;
//  4. minimum spanning tree of that union (removes cycles);
//  5. repeated removal of leaves that are not terminals.
//
// The cost is at most 2(1 - 1/l) times the optimum, l the number of leaves
// of an optimal tree. Equal costs are broken lexicographically by vertex id
// (shortest paths, both MSTs), so the output is deterministic. Terminals in
// different components give a forest, with the pairs in Disconnected.
func (w *WGraph) KMB(terms []int) Tree {
	terms = uniqueSorted(terms)
	if len(terms) <= 1 {
		return finish(terms, nil, nil)
	}
	mst, disc := w.closureMST(terms)
	union := map[[2]int]TreeEdge{}
	nodes := map[int]bool{}
	for _, e := range mst {
		p := w.shortestPath(e.U, e.V)
		for i := 0; i+1 < len(p); i++ {
			k := edgeKey(p[i], p[i+1])
			ew, _ := w.Weight(p[i], p[i+1])
			union[k] = TreeEdge{U: k[0], V: k[1], W: ew}
			nodes[p[i]], nodes[p[i+1]] = true, true
		}
	}
	var ns []int
	for n := range nodes {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	var es []TreeEdge
	for _, e := range union {
		es = append(es, e)
	}
	tree := kruskal(ns, es)
	tree = pruneLeaves(tree, terms)
	return finish(terms, tree, disc)
}

// pruneLeaves removes, repeatedly, edges that end in a non-terminal leaf.
func pruneLeaves(edges []TreeEdge, terms []int) []TreeEdge {
	isTerm := map[int]bool{}
	for _, t := range terms {
		isTerm[t] = true
	}
	for {
		deg := map[int]int{}
		for _, e := range edges {
			deg[e.U]++
			deg[e.V]++
		}
		kept := edges[:0:0]
		for _, e := range edges {
			if (deg[e.U] == 1 && !isTerm[e.U]) || (deg[e.V] == 1 && !isTerm[e.V]) {
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) == len(edges) {
			return kept
		}
		edges = kept
	}
}

// ShortestPathUnion is the union of the lexicographically smallest shortest
// path between every pair of terminals ("Shortest Path Combination"). It is
// not pruned to a tree.
func (w *WGraph) ShortestPathUnion(terms []int) Tree {
	terms = uniqueSorted(terms)
	union := map[[2]int]TreeEdge{}
	var disc [][2]int
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			p := w.shortestPath(a, b)
			if p == nil {
				disc = append(disc, [2]int{a, b})
				continue
			}
			for j := 0; j+1 < len(p); j++ {
				k := edgeKey(p[j], p[j+1])
				ew, _ := w.Weight(p[j], p[j+1])
				union[k] = TreeEdge{U: k[0], V: k[1], W: ew}
			}
		}
	}
	var es []TreeEdge
	for _, e := range union {
		es = append(es, e)
	}
	return finish(terms, es, disc)
}

// MSTOnTerminals is the minimum spanning forest of the subgraph induced by
// the terminals ("MST on Terminals"): only direct edges between terminals.
func (w *WGraph) MSTOnTerminals(terms []int) Tree {
	terms = uniqueSorted(terms)
	var es []TreeEdge
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			if ew, ok := w.Weight(a, b); ok {
				es = append(es, TreeEdge{U: a, V: b, W: ew})
			}
		}
	}
	mst := kruskal(terms, es)
	return finish(terms, mst, disconnected(terms, mst))
}

// Solve runs the named path algorithm.
func (w *WGraph) Solve(alg string, terms []int) (Tree, error) {
	for _, t := range terms {
		if t < 0 || t >= w.N {
			return Tree{}, fmt.Errorf("steiner: terminal %d out of range [0, %d)", t, w.N)
		}
	}
	switch alg {
	case AlgSteiner:
		return w.KMB(terms), nil
	case AlgShortestPathUnion:
		return w.ShortestPathUnion(terms), nil
	case AlgMSTOnTerminals:
		return w.MSTOnTerminals(terms), nil
	}
	return Tree{}, fmt.Errorf("steiner: unknown path algorithm %q", alg)
}
