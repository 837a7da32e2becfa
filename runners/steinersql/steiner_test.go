package steinersql

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomGraph returns a connected random graph on n vertices: a random
// spanning tree plus extra edges with probability p, weights uniform in
// [0.05, 1) (or integer weights in {1, 2} when ties is set, to force equal
// costs).
func randomGraph(rng *rand.Rand, n int, p float64, ties bool) *WGraph {
	g := NewWGraph(n)
	weight := func() float64 {
		if ties {
			return float64(1 + rng.IntN(2))
		}
		return 0.05 + 0.95*rng.Float64()
	}
	perm := rng.Perm(n)
	for i := 1; i < n; i++ {
		g.SetEdge(perm[i], perm[rng.IntN(i)], weight())
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if _, ok := g.Weight(u, v); !ok && rng.Float64() < p {
				g.SetEdge(u, v, weight())
			}
		}
	}
	return g
}

// exactSteiner is the optimum by brute force: the minimum, over every set S
// of non-terminals, of the MST weight of the subgraph induced by
// terminals + S when that subgraph is connected. (An optimal Steiner tree on
// vertex set V* costs at least the MST of G[V*], and that MST is itself a
// Steiner tree.)
func exactSteiner(g *WGraph, terms []int) float64 {
	isTerm := map[int]bool{}
	for _, t := range terms {
		isTerm[t] = true
	}
	var others []int
	for v := 0; v < g.N; v++ {
		if !isTerm[v] {
			others = append(others, v)
		}
	}
	best := math.Inf(1)
	for mask := 0; mask < 1<<len(others); mask++ {
		nodes := slices.Clone(terms)
		for i, v := range others {
			if mask&(1<<i) != 0 {
				nodes = append(nodes, v)
			}
		}
		var es []TreeEdge
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				if w, ok := g.Weight(a, b); ok {
					k := edgeKey(a, b)
					es = append(es, TreeEdge{U: k[0], V: k[1], W: w})
				}
			}
		}
		mst := kruskal(nodes, es)
		if len(mst) != len(nodes)-1 {
			continue // not connected
		}
		c := 0.0
		for _, e := range mst {
			c += e.W
		}
		best = min(best, c)
	}
	return best
}

func isTree(t Tree) bool {
	if len(t.Edges) != len(t.Nodes)-1 {
		return false
	}
	return len(kruskalComponents(t.Nodes, t.Edges)) == 1
}

// TestKMBWithinTwiceOptimum checks the KMB guarantee (Kou et al., 1981:
// cost <= 2(1-1/l) * OPT <= 2 * OPT) against the brute-force optimum on 300
// seeded random graphs of 5-11 vertices, and that the result is a tree
// spanning the terminals. Costs are compared with tolerance 1e-9.
func TestKMBWithinTwiceOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	worst := 1.0
	exact := 0
	for it := 0; it < 300; it++ {
		n := 5 + rng.IntN(7)
		g := randomGraph(rng, n, 0.3, it%3 == 0)
		k := 2 + rng.IntN(n-2)
		terms := rng.Perm(n)[:k]
		tr := g.KMB(terms)
		opt := exactSteiner(g, terms)
		if tr.Cost > 2*opt+1e-9 {
			t.Fatalf("graph %d: KMB cost %g > 2 * optimum %g", it, tr.Cost, opt)
		}
		if tr.Cost < opt-1e-9 {
			t.Fatalf("graph %d: KMB cost %g below the optimum %g: brute force is wrong", it, tr.Cost, opt)
		}
		if !isTree(tr) {
			t.Fatalf("graph %d: KMB result %+v is not a tree", it, tr)
		}
		for _, x := range terms {
			if !slices.Contains(tr.Nodes, x) {
				t.Fatalf("graph %d: terminal %d missing from %v", it, x, tr.Nodes)
			}
		}
		if math.Abs(tr.Cost-opt) <= 1e-9 {
			exact++
		}
		worst = max(worst, tr.Cost/opt)
	}
	t.Logf("worst KMB/OPT ratio %.3f; exact on %d of 300 graphs", worst, exact)
}

// TestKMBExactOnTrees: on a tree the Steiner tree is the unique minimal
// subtree spanning the terminals, and KMB must find it exactly.
func TestKMBExactOnTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 200; it++ {
		n := 3 + rng.IntN(10)
		g := randomGraph(rng, n, 0, false) // p = 0: spanning tree only
		terms := rng.Perm(n)[:2+rng.IntN(n-2)]
		tr := g.KMB(terms)
		opt := exactSteiner(g, terms)
		if math.Abs(tr.Cost-opt) > 1e-9 {
			t.Fatalf("tree %d: KMB cost %g; want the optimum %g", it, tr.Cost, opt)
		}
	}
}

// TestKMBTies: with equal costs the lexicographically smallest path wins,
// and the output does not depend on the order edges were added.
func TestKMBTies(t *testing.T) {
	// A 4-cycle 0-1-3-2-0 with unit weights: terminals 0 and 3 are joined
	// through 1 or through 2 at equal cost; the rule picks 0-1-3.
	build := func(order [][2]int) *WGraph {
		g := NewWGraph(4)
		for _, e := range order {
			g.SetEdge(e[0], e[1], 1)
		}
		return g
	}
	edges := [][2]int{{0, 1}, {1, 3}, {3, 2}, {2, 0}}
	want := Tree{Nodes: []int{0, 1, 3}, Edges: []TreeEdge{{0, 1, 1}, {1, 3, 1}}, Cost: 2}
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 50; i++ {
		order := slices.Clone(edges)
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for j := range order {
			if rng.IntN(2) == 0 {
				order[j][0], order[j][1] = order[j][1], order[j][0]
			}
		}
		got := build(order).KMB([]int{3, 0})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("order %v: got %+v; want %+v", order, got, want)
		}
	}
	// On random tie-heavy graphs, repeated runs and rebuilt graphs agree.
	for it := 0; it < 50; it++ {
		seed := uint64(it)
		a := randomGraph(rand.New(rand.NewPCG(seed, 9)), 9, 0.4, true)
		b := randomGraph(rand.New(rand.NewPCG(seed, 9)), 9, 0.4, true)
		terms := []int{0, 4, 8}
		for _, alg := range []string{AlgSteiner, AlgShortestPathUnion, AlgMSTOnTerminals} {
			x, _ := a.Solve(alg, terms)
			y, _ := b.Solve(alg, terms)
			if !reflect.DeepEqual(x, y) {
				t.Fatalf("graph %d %s: %+v vs %+v", it, alg, x, y)
			}
		}
	}
}

func TestAlternatives(t *testing.T) {
	// Star with centre 3 (cost 1 each) and a direct expensive edge 0-1
	// (cost 5); terminals 0, 1, 2.
	g := NewWGraph(4)
	g.SetEdge(0, 3, 1)
	g.SetEdge(1, 3, 1)
	g.SetEdge(2, 3, 1)
	g.SetEdge(0, 1, 5)
	terms := []int{0, 1, 2}
	kmb, _ := g.Solve(AlgSteiner, terms)
	if kmb.Cost != 3 || !slices.Equal(kmb.Nodes, []int{0, 1, 2, 3}) {
		t.Errorf("steiner: got %+v; want the star through 3, cost 3", kmb)
	}
	spu, _ := g.Solve(AlgShortestPathUnion, terms)
	if spu.Cost != 3 || len(spu.Edges) != 3 {
		t.Errorf("shortest-path-union: got %+v; want the 3 star edges", spu)
	}
	mst, _ := g.Solve(AlgMSTOnTerminals, terms)
	// Only 0-1 joins terminals directly; 2 stays disconnected.
	if mst.Cost != 5 || len(mst.Disconnected) != 1 || mst.Disconnected[0] != [2]int{0, 2} {
		t.Errorf("mst-on-terminals: got %+v; want edge 0-1 (5) and 2 disconnected", mst)
	}
	// Disconnected terminals in KMB give a forest with the pair reported.
	h := NewWGraph(4)
	h.SetEdge(0, 1, 1)
	h.SetEdge(2, 3, 1)
	f := h.KMB([]int{0, 1, 3})
	if len(f.Disconnected) != 1 || f.Cost != 1 {
		t.Errorf("disconnected KMB: got %+v; want cost 1 and one disconnected pair", f)
	}
	if _, err := g.Solve("dijkstra", terms); err == nil {
		t.Error("unknown algorithm: got nil error")
	}
	if _, err := g.Solve(AlgSteiner, []int{9}); err == nil {
		t.Error("terminal out of range: got nil error")
	}
}

// BenchmarkSteiner100 times the path algorithms on a 100-table schema
// graph (random connected graph, average degree about 4, 6 terminals).
// Read the result as ratios against the mst-on-terminals baseline in the
// same run; "closure" includes the Floyd-Warshall metric closure, the
// others reuse it.
func BenchmarkSteiner100(b *testing.B) {
	rng := rand.New(rand.NewPCG(100, 1))
	g := randomGraph(rng, 100, 0.02, false)
	terms := rng.Perm(100)[:6]
	b.Run("closure", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.closure = nil
			g.Closure()
		}
	})
	g.Closure()
	for _, alg := range []string{AlgMSTOnTerminals, AlgSteiner, AlgShortestPathUnion} {
		b.Run(alg, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := g.Solve(alg, terms); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleWGraph_KMB() {
	// Two terminals 0 and 2 joined through 1 (cost 0.2 + 0.3) rather than
	// directly (cost 0.9).
	g := NewWGraph(3)
	g.SetEdge(0, 1, 0.2)
	g.SetEdge(1, 2, 0.3)
	g.SetEdge(0, 2, 0.9)
	tr := g.KMB([]int{0, 2})
	fmt.Println(tr.Nodes, tr.Cost)
	// Output: [0 1 2] 0.5
}
