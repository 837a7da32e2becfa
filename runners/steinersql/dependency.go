package steinersql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// dependencyInstruction is the part of the Stage 1 prompt that asks for
// the computational dependencies (paper Section 3.2 "Computational
// Dependency Analysis"; Tables 6 and 8, part 1b).
const dependencyInstruction = `Then list the computational dependencies: one entry per entity (a computation, a filter,
a grouping or a derived value) with a short entity name and what it requires: the table.column attributes
it reads and the entity names of the results it uses. Refer to another entity by exactly its entity name.
`

// DepGraph is the output of the mathematical dependency analysis (paper
// Algorithm 1): the dependency graph G_dep over entities and attributes,
// the entities in dependency order, and the tables the attributes live in.
type DepGraph struct {
	// Entities are the entity names, in the order the decomposition gives
	// them (dependencies first, then one entity per operation and per
	// quantity the dependencies do not already name).
	Entities []string `json:"entities"`
	// Edges are the dependency edges "from -> to": an attribute
	// ("table.column") flowing into an entity (Step 1), an entity whose
	// result another uses, and a constrained attribute flowing into its
	// constraint (Step 3).
	Edges []DepEdge `json:"edges"`
	// Joins are the table pairs one entity combines (Step 2: RequiresJoin),
	// "a -- b" with a < b.
	Joins []string `json:"joins,omitempty"`
	// Order is a topological order of the entities: every entity after
	// the entities whose results it uses; ties keep the decomposition's
	// order.
	Order []string `json:"order"`
	// Inputs gives, per entity, the attributes and entities it requires
	// (resolved spelling), for the query plan.
	Inputs map[string][]string `json:"inputs"`
	// Tables are the tables holding a required or constrained attribute
	// (Steps 1 and 3: FindContainingTables, PropagateConstraint), sorted.
	Tables []string `json:"tables"`
	// Unresolved lists requirements that name neither an entity nor a
	// schema attribute (or a column name several tables share).
	Unresolved []string `json:"unresolved,omitempty"`
	// Cycle lists the entities left in a dependency cycle; they follow the
	// ordered ones in the decomposition's order.
	Cycle []string `json:"cycle,omitempty"`
}

// DepEdge is one edge of G_dep.
type DepEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"` // "attribute", "entity", "constraint"
}

// entityKey normalises an entity name for matching: lower case, single
// spaces, without a leading "the" or a trailing "result" ("the
// classification result" names the entity "classification").
func entityKey(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 1 && f[0] == "the" {
		f = f[1:]
	}
	if n := len(f); n > 1 && (f[n-1] == "result" || f[n-1] == "results") {
		f = f[:n-1]
	}
	return strings.Join(f, " ")
}

// fuzzyEntity returns the entity whose key is most similar to r's, when
// that edit similarity is >= threshold (-1 otherwise).
func fuzzyEntity(keys []string, r string, threshold float64) int {
	k := entityKey(r)
	best, bestSim := -1, -1.0
	for i, e := range keys {
		if sim := retrieval.EditSimilarity(k, e); sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if bestSim >= threshold {
		return best
	}
	return -1
}

// resolveAttribute maps a requirement to a schema attribute "table.column"
// (schema spelling): a qualified name whose table resolves as a terminal
// name does (exact, else edit similarity >= threshold) and whose column
// matches exactly (case-insensitive), else by edit similarity >= threshold
// within that table; a bare column name that exactly one table has. It
// returns "" when nothing matches or a bare name is ambiguous.
func resolveAttribute(s *datasets.Schema, name string, threshold float64) (table, column string) {
	n := strings.TrimSpace(name)
	for _, q := range []string{"`", `"`, "[", "]"} {
		n = strings.ReplaceAll(n, q, "")
	}
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		tabs, _ := ResolveTerminals(s, []string{n[:i]}, threshold)
		if len(tabs) != 1 {
			return "", ""
		}
		t, _ := s.Table(tabs[0])
		col := n[i+1:]
		best, bestSim := "", -1.0
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, col) {
				return t.Name, c.Name
			}
			if sim := retrieval.EditSimilarity(strings.ToLower(col), strings.ToLower(c.Name)); sim > bestSim {
				best, bestSim = c.Name, sim
			}
		}
		if bestSim >= threshold {
			return t.Name, best
		}
		return "", ""
	}
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, n) {
				if table != "" {
					return "", "" // several tables have it
				}
				table, column = t.Name, c.Name
			}
		}
	}
	return table, column
}

// AnalyzeDependencies is the mathematical dependency analysis of the
// paper's Algorithm 1 over the entities Stage 1 extracted:
//
//	Step 1 (data flow): each entity's required attributes
//	(ExtractRequiredAttributes) are resolved to schema columns, their
//	tables (FindContainingTables) join the terminal set, and each
//	attribute gets an edge into its entity; a requirement naming another
//	entity gets an entity edge.
//	Step 2 (join requirements): an entity whose attributes, directly or
//	through the entities it uses, span several tables requires joins
//	between them (RequiresJoin); the pairs are recorded. FindJoinPath is
//	left to Stage 2: the Steiner tree over the terminals is the join path
//	the paper's navigation computes, and adding path tables here would
//	make them terminals before the cost graph is consulted.
//	Step 3 (constraint propagation): each numerical constraint's
//	attribute (PropagateConstraint) adds its table and a constraint edge.
//
// Entities are the decomposition's dependencies, plus an entity per
// operation ("AVG(enrollment.grade)", requiring its target) and per
// quantity ("enrollment.grade >= 60", requiring its attribute) that no
// dependency already names. Order is the dependency ordering: a
// topological order of the entity edges (Kahn's algorithm, ties in the
// decomposition's order); entities on a cycle follow in that order and
// are listed in Cycle.
func AnalyzeDependencies(s *datasets.Schema, d *Decomposition, threshold float64) *DepGraph {
	g := &DepGraph{Inputs: map[string][]string{}}
	if d == nil {
		return g
	}
	type entity struct {
		name       string
		requires   []string
		constraint bool
	}
	var ents []entity
	index := map[string]int{}
	add := func(e entity) {
		k := entityKey(e.name)
		if k == "" {
			return
		}
		if i, ok := index[k]; ok {
			ents[i].requires = append(ents[i].requires, e.requires...)
			return
		}
		index[k] = len(ents)
		ents = append(ents, e)
	}
	for _, dep := range d.Dependencies {
		add(entity{name: strings.TrimSpace(dep.Entity), requires: dep.Requires})
	}
	for _, op := range d.Operations {
		name := strings.ToUpper(strings.TrimSpace(op.Function)) + "(" + strings.TrimSpace(op.Target) + ")"
		var req []string
		if t := strings.TrimSpace(op.Target); t != "" && t != "*" {
			req = []string{t}
		}
		add(entity{name: name, requires: req})
	}
	for _, q := range d.Quantities {
		attr := strings.TrimSpace(q.Attribute)
		if attr == "" {
			continue // a number without an attribute constrains nothing in the schema
		}
		add(entity{name: strings.TrimSpace(attr + " " + q.Operator + " " + q.Value), requires: []string{attr}, constraint: true})
	}

	uses := make([][]int, len(ents)) // uses[i]: entities whose result i uses
	keys := make([]string, len(ents))
	for i, e := range ents {
		keys[i] = entityKey(e.name)
	}
	useEntity := func(i, j int) {
		if j == i || slices.Contains(uses[i], j) {
			return
		}
		uses[i] = append(uses[i], j)
		g.Edges = append(g.Edges, DepEdge{From: ents[j].name, To: ents[i].name, Kind: "entity"})
		g.Inputs[ents[i].name] = append(g.Inputs[ents[i].name], ents[j].name)
	}
	tables := map[string]bool{}
	entAttrTables := make([]map[string]bool, len(ents))
	for i, e := range ents {
		g.Entities = append(g.Entities, e.name)
		entAttrTables[i] = map[string]bool{}
		seen := map[string]bool{}
		for _, r := range e.requires {
			if j, ok := index[entityKey(r)]; ok {
				useEntity(i, j)
				continue
			}
			t, c := resolveAttribute(s, r, threshold)
			if t == "" {
				if j := fuzzyEntity(keys, r, threshold); j >= 0 {
					useEntity(i, j)
					continue
				}
				if !slices.Contains(g.Unresolved, r) {
					g.Unresolved = append(g.Unresolved, r)
				}
				continue
			}
			attr := t + "." + c
			if seen[attr] {
				continue
			}
			seen[attr] = true
			kind := "attribute"
			if e.constraint {
				kind = "constraint"
			}
			g.Edges = append(g.Edges, DepEdge{From: attr, To: e.name, Kind: kind})
			g.Inputs[e.name] = append(g.Inputs[e.name], attr)
			tables[t] = true
			entAttrTables[i][t] = true
		}
	}
	for t := range tables {
		g.Tables = append(g.Tables, t)
	}
	slices.Sort(g.Tables)

	// Step 2: the tables an entity combines, through the entities it uses.
	joins := map[string]bool{}
	for i := range ents {
		reach := map[string]bool{}
		visited := map[int]bool{}
		var walk func(int)
		walk = func(k int) {
			if visited[k] {
				return
			}
			visited[k] = true
			for t := range entAttrTables[k] {
				reach[t] = true
			}
			for _, j := range uses[k] {
				walk(j)
			}
		}
		walk(i)
		var ts []string
		for t := range reach {
			ts = append(ts, t)
		}
		slices.Sort(ts)
		for a := 0; a < len(ts); a++ {
			for b := a + 1; b < len(ts); b++ {
				joins[ts[a]+" -- "+ts[b]] = true
			}
		}
	}
	for j := range joins {
		g.Joins = append(g.Joins, j)
	}
	slices.Sort(g.Joins)

	// Dependency order: Kahn's algorithm, ready entities in input order.
	indeg := make([]int, len(ents))
	for i := range ents {
		indeg[i] = len(uses[i])
	}
	done := make([]bool, len(ents))
	for len(g.Order) < len(ents) {
		next := -1
		for i := range ents {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			for i := range ents {
				if !done[i] {
					g.Cycle = append(g.Cycle, ents[i].name)
					g.Order = append(g.Order, ents[i].name)
				}
			}
			break
		}
		done[next] = true
		g.Order = append(g.Order, ents[next].name)
		for i := range ents {
			if slices.Contains(uses[i], next) {
				indeg[i]--
			}
		}
	}
	return g
}

// planSteps renders the dependency order as query-plan steps.
func (g *DepGraph) planSteps() []string {
	var out []string
	for _, e := range g.Order {
		step := "Compute " + e
		if in := g.Inputs[e]; len(in) > 0 {
			step += " from " + strings.Join(in, ", ")
		}
		out = append(out, step+".")
	}
	if len(g.Cycle) > 0 {
		out = append(out, fmt.Sprintf("(The entities %s depend on each other; resolve them together.)", strings.Join(g.Cycle, ", ")))
	}
	return out
}
