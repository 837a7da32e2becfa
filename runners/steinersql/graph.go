package steinersql

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// Edge cost modes (param edge_cost).
const (
	// EdgeCostPaper takes sim_name and sim_type of a table pair each as
	// its own maximum over the join candidate column pairs (Section
	// 3.3.3: "calculated by taking the maximum similarity score over
	// column pairs between the tables"); a non-FK edge needs both maxima
	// at least tau, and its join columns are the pair of the highest name
	// similarity.
	EdgeCostPaper = "paper"
	// EdgeCostPair takes both similarities from the one candidate pair of
	// the highest name*type product, and a non-FK edge needs that product
	// at least tau.
	EdgeCostPair = "pair"
)

// Weights are the cost weights of Eq. (1): C = Alpha*C_connect +
// Beta*C_sem + Gamma*C_stat. The paper's defaults are 0.4, 0.4, 0.2
// (Section 3.3.3); an ablation "w/o X cost" sets that weight to 0.
type Weights struct{ Alpha, Beta, Gamma float64 }

// GraphOptions configure the schema graph.
type GraphOptions struct {
	Weights Weights
	// Tau is the similarity threshold for a non-FK edge (paper: 0.75).
	Tau float64
	// EdgeCost says how sim_name and sim_type of a table pair are taken:
	// EdgeCostPaper (each its own maximum over the column pairs, Eq. 2)
	// or EdgeCostPair (both from the one pair of best name*type
	// similarity). The empty string is EdgeCostPaper.
	EdgeCost string
	// Sample bounds the rows each statistics query reads per table.
	Sample int
	// Embeddings maps a table name to its embedding (the mean of the
	// embeddings of the table name and its column names); nil selects the
	// lexical vector (see lexicalVector).
	Embeddings map[string][]float32
}

// Edge is one edge of the schema graph, A < B by name order. Every cost
// part lies in [0, 1].
type Edge struct {
	A    string `json:"a"`
	B    string `json:"b"`
	ColA string `json:"col_a"`
	ColB string `json:"col_b"`
	// FK is true when a declared foreign key joins A.ColA and B.ColB.
	FK      bool    `json:"fk"`
	NameSim float64 `json:"sim_name"`
	TypeSim float64 `json:"sim_type"`
	Connect float64 `json:"c_connect"`
	Sem     float64 `json:"c_sem"`
	Stat    float64 `json:"c_stat"`
	Stats   Stats   `json:"stats"`
	Cost    float64 `json:"cost"`
}

// On returns the join predicate "A.ColA = B.ColB".
func (e Edge) On() string { return e.A + "." + e.ColA + " = " + e.B + "." + e.ColB }

// SchemaGraph is G_S of the paper: a vertex per table (numbered in
// lexicographic order of the lower-cased names, the tie-breaking order) and
// the weighted edges.
type SchemaGraph struct {
	Tables []string
	Edges  []Edge
	// Semantic says how C_sem was computed: "lexical" or "embedding".
	Semantic string
	index    map[string]int
	edgeAt   map[[2]int]int
	W        *WGraph
}

// ID returns the vertex of table name (case-insensitive).
func (g *SchemaGraph) ID(name string) (int, bool) {
	i, ok := g.index[strings.ToLower(name)]
	return i, ok
}

// Edge returns the edge between vertices u and v.
func (g *SchemaGraph) Edge(u, v int) (Edge, bool) {
	i, ok := g.edgeAt[edgeKey(u, v)]
	if !ok {
		return Edge{}, false
	}
	return g.Edges[i], true
}

// typeClass maps a declared type to a SQLite affinity class
// (https://sqlite.org/datatype3.html, section 3.1).
func typeClass(t string) string {
	u := strings.ToUpper(t)
	switch {
	case strings.Contains(u, "INT"):
		return "integer"
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return "text"
	case u == "" || strings.Contains(u, "BLOB"):
		return "blob"
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return "real"
	}
	return "numeric"
}

// TypeSim is the type compatibility of two declared types: 1 for the same
// affinity class, 0.5 for two numeric classes (integer, real, numeric) or
// an untyped side, 0 otherwise.
func TypeSim(a, b string) float64 {
	ca, cb := typeClass(a), typeClass(b)
	num := func(c string) bool { return c == "integer" || c == "real" || c == "numeric" }
	switch {
	case ca == cb:
		return 1
	case num(ca) && num(cb), ca == "blob" || cb == "blob":
		return 0.5
	}
	return 0
}

// qualified expands a bare "id" column to "<table>_id", so that
// singer.id and concert.singer_id compare as equal names.
func qualified(table, col string) string {
	if strings.EqualFold(col, "id") {
		return table + "_id"
	}
	return col
}

// NameSim is the similarity of two column names in [0, 1]: the larger of
// the edit similarity and the word-token Jaccard similarity of the names
// after a bare "id" is qualified by its table ("id" in singer ->
// "singer_id") and the "id" token is set aside, so that "a_id" and "c_id"
// (which share only the id affix) are dissimilar while "singer_id" and
// singer's "id" are equal.
func NameSim(ta, ca, tb, cb string) float64 {
	strip := func(t, c string) []string {
		var out []string
		for _, tok := range retrieval.Tokens(qualified(t, c)) {
			if tok != "id" {
				out = append(out, tok)
			}
		}
		return out
	}
	a, b := strip(ta, ca), strip(tb, cb)
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	return max(retrieval.EditSimilarity(strings.Join(a, "_"), strings.Join(b, "_")), retrieval.Jaccard(a, b))
}

// isKey reports whether col is (part of) the primary key of t.
func isKey(t *datasets.Table, col string) bool {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, col) && c.Primary {
			return true
		}
	}
	for _, k := range t.PrimaryKey {
		if strings.EqualFold(k, col) {
			return true
		}
	}
	return false
}

// candidate is a join column pair of two tables, or (from tablePairSims)
// the table pair's join columns with its similarities.
type candidate struct {
	colA, colB      string
	fk              bool
	nameSim, typSim float64
}

// candidates returns the join candidate column pairs of tables a and b:
// the declared foreign keys between them (sorted by column names) and
// every column pair where at least one side is a primary-key column
// (pairs of two non-key columns, such as two "name" columns, are not join
// candidates), each with its name and type similarity.
func candidates(s *datasets.Schema, a, b *datasets.Table) (fks, keyed []candidate) {
	colType := func(t *datasets.Table, name string) string {
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, name) {
				return c.Type
			}
		}
		return ""
	}
	for _, fk := range s.ForeignKeys {
		switch {
		case strings.EqualFold(fk.FromTable, a.Name) && strings.EqualFold(fk.ToTable, b.Name):
			fks = append(fks, candidate{colA: fk.FromColumn, colB: fk.ToColumn, fk: true})
		case strings.EqualFold(fk.FromTable, b.Name) && strings.EqualFold(fk.ToTable, a.Name):
			fks = append(fks, candidate{colA: fk.ToColumn, colB: fk.FromColumn, fk: true})
		}
	}
	slices.SortFunc(fks, func(x, y candidate) int { return cmp.Or(cmp.Compare(x.colA, y.colA), cmp.Compare(x.colB, y.colB)) })
	for i := range fks {
		fks[i].nameSim = NameSim(a.Name, fks[i].colA, b.Name, fks[i].colB)
		fks[i].typSim = TypeSim(colType(a, fks[i].colA), colType(b, fks[i].colB))
	}
	for _, x := range a.Columns {
		for _, y := range b.Columns {
			if !isKey(a, x.Name) && !isKey(b, y.Name) {
				continue
			}
			keyed = append(keyed, candidate{colA: x.Name, colB: y.Name,
				nameSim: NameSim(a.Name, x.Name, b.Name, y.Name), typSim: TypeSim(x.Type, y.Type)})
		}
	}
	return fks, keyed
}

// bestPair returns the join pair of tables a and b under EdgeCostPair: a
// declared foreign key when there is one (the lexicographically first),
// else the candidate pair with the highest name*type similarity (the
// first in column order on a tie); sim_name and sim_type are that pair's.
// ok is false when no pair qualifies.
func bestPair(s *datasets.Schema, a, b *datasets.Table) (candidate, bool) {
	fks, keyed := candidates(s, a, b)
	if len(fks) > 0 {
		return fks[0], true
	}
	best, found, bestScore := candidate{}, false, -1.0
	for _, c := range keyed {
		if score := c.nameSim * c.typSim; score > bestScore {
			best, found, bestScore = c, true, score
		}
	}
	return best, found
}

// tablePairSims returns the join pair of tables a and b under
// EdgeCostPaper: sim_name and sim_type are each the maximum over all
// candidate pairs, foreign keys included (Eq. 2's table-pair
// similarities, taken independently, so they may come from different
// pairs); the join columns are the lexicographically first foreign key
// when there is one, else the pair of the highest name similarity (then
// type similarity, then column order). ok is false when no pair
// qualifies.
func tablePairSims(s *datasets.Schema, a, b *datasets.Table) (candidate, bool) {
	fks, keyed := candidates(s, a, b)
	all := append(slices.Clone(fks), keyed...)
	if len(all) == 0 {
		return candidate{}, false
	}
	var join candidate
	if len(fks) > 0 {
		join = fks[0]
	} else {
		join = keyed[0]
		for _, c := range keyed[1:] {
			if c.nameSim > join.nameSim || c.nameSim == join.nameSim && c.typSim > join.typSim {
				join = c
			}
		}
	}
	out := candidate{colA: join.colA, colB: join.colB, fk: join.fk}
	for _, c := range all {
		out.nameSim = max(out.nameSim, c.nameSim)
		out.typSim = max(out.typSim, c.typSim)
	}
	return out, true
}

// lexicalVector is the lexical stand-in for the paper's table embedding
// (the mean of all-MiniLM-L6-v2 embeddings of the table name and its column
// names): a bag of the word tokens of the table name and of every column
// name (retrieval.Tokens, e.g. "major_dept" -> major, dept), with a bare
// "id" qualified by the table name. Its cosine with another table's
// vector is in [0, 1].
func lexicalVector(t *datasets.Table) map[string]float64 {
	v := map[string]float64{}
	for _, tok := range retrieval.Tokens(t.Name) {
		v[tok]++
	}
	for _, c := range t.Columns {
		for _, tok := range retrieval.Tokens(qualified(t.Name, c.Name)) {
			v[tok]++
		}
	}
	return v
}

func cosineMap(a, b map[string]float64) float64 {
	var dot, na, nb float64
	for k, x := range a {
		dot += x * b[k]
		na += x * x
	}
	for _, y := range b {
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }

// BuildGraph builds G_S for schema s: an edge for every table pair joined by
// a foreign key or whose similarity reaches opt.Tau (EdgeCostPaper: both
// sim_name and sim_type, each the maximum over the candidate column pairs;
// EdgeCostPair: name*type of the best candidate pair), with cost
//
//	C = Alpha*C_connect + Beta*C_sem + Gamma*C_stat
//	C_connect = ([no FK] + (1 - sim_name) + (1 - sim_type)) / 3
//	C_sem     = 1 - cos(e_a, e_b)            (cos clamped to [0, 1])
//	C_stat    = 0.5*(1 - selectivity) + 0.5*(1 - correlation)
//
// where the statistics of the join pair come from stats (measured on the
// data, see Stats). Tables are numbered in lower-case lexicographic order.
func BuildGraph(ctx context.Context, s *datasets.Schema, stats StatsFunc, opt GraphOptions) (*SchemaGraph, error) {
	g := &SchemaGraph{index: map[string]int{}, edgeAt: map[[2]int]int{}, Semantic: "lexical"}
	if opt.Embeddings != nil {
		g.Semantic = "embedding"
	}
	tabs := make([]*datasets.Table, len(s.Tables))
	for i := range s.Tables {
		tabs[i] = &s.Tables[i]
	}
	slices.SortFunc(tabs, func(a, b *datasets.Table) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.Name, b.Name))
	})
	for i, t := range tabs {
		g.Tables = append(g.Tables, t.Name)
		g.index[strings.ToLower(t.Name)] = i
	}
	g.W = NewWGraph(len(tabs))
	vecs := make([]map[string]float64, len(tabs))
	for i, t := range tabs {
		vecs[i] = lexicalVector(t)
	}
	for i, a := range tabs {
		for j := i + 1; j < len(tabs); j++ {
			b := tabs[j]
			var c candidate
			var ok, linked bool
			if opt.EdgeCost == EdgeCostPair {
				c, ok = bestPair(s, a, b)
				linked = c.nameSim*c.typSim >= opt.Tau
			} else {
				c, ok = tablePairSims(s, a, b)
				linked = c.nameSim >= opt.Tau && c.typSim >= opt.Tau
			}
			if !ok || (!c.fk && !linked) {
				continue
			}
			e := Edge{A: a.Name, B: b.Name, ColA: c.colA, ColB: c.colB, FK: c.fk, NameSim: c.nameSim, TypeSim: c.typSim}
			noFK := 1.0
			if c.fk {
				noFK = 0
			}
			e.Connect = (noFK + (1 - c.nameSim) + (1 - c.typSim)) / 3
			if opt.Embeddings != nil {
				e.Sem = 1 - clamp01(retrieval.Cosine(opt.Embeddings[a.Name], opt.Embeddings[b.Name]))
			} else {
				e.Sem = 1 - clamp01(cosineMap(vecs[i], vecs[j]))
			}
			st, err := stats(ctx, a.Name, c.colA, b.Name, c.colB)
			if err != nil {
				return nil, fmt.Errorf("statistics of %s: %w", e.On(), err)
			}
			e.Stats = st
			e.Stat = 0.5*(1-clamp01(st.Selectivity)) + 0.5*(1-clamp01(st.Correlation))
			w := opt.Weights
			e.Cost = w.Alpha*e.Connect + w.Beta*e.Sem + w.Gamma*e.Stat
			g.edgeAt[[2]int{i, j}] = len(g.Edges)
			g.Edges = append(g.Edges, e)
			g.W.SetEdge(i, j, e.Cost)
		}
	}
	return g, nil
}
