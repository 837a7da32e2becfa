package steinersql

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
)

const abcScript = `
CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE b (b_id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id), label TEXT);
CREATE TABLE c (c_id INTEGER PRIMARY KEY, note TEXT, name TEXT);
INSERT INTO a VALUES (1,'w'),(2,'x'),(3,'y'),(4,'z');
INSERT INTO b VALUES (10,1,'p'),(11,1,'q'),(12,2,'r'),(13,9,'s');
INSERT INTO c VALUES (1,'n','w');
`

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-4 }

// TestGraphCosts checks every cost part of the one FK edge against values
// computed by hand from abcScript (tolerance 1e-4):
//
//	sim_name(a.id -> "a_id", b.a_id) = 1, sim_type = 1, FK: C_connect = 0
//	lexical vectors a = {a:2, id:1, name:1}, b = {b:2, id:2, a:1, label:1}:
//	cos = (2*1 + 1*2) / sqrt(6*10) = 0.516398, C_sem = 0.483602
//	dA = |{1,2,3,4}| = 4, dB = |{1,2,9}| = 3, m = 2:
//	selectivity = 2/3, correlation = 2/5, C_stat = 0.5/3 + 0.5*0.6 = 0.466667
//	C = 0.4*0 + 0.4*0.483602 + 0.2*0.466667 = 0.286774
//
// and that a and c (sharing only non-key "name" columns and "*_id" keys
// with different stems) get no edge.
func TestGraphCosts(t *testing.T) {
	ctx := context.Background()
	db := runkit.DB(t, "fixture", abcScript)
	s, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cache := NewStatsCache(t.TempDir())
	g, err := BuildGraph(ctx, s, cache.Func(db, 1000), GraphOptions{Weights: Weights{0.4, 0.4, 0.2}, Tau: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Edges) != 1 {
		t.Fatalf("edges: got %+v; want only a-b", g.Edges)
	}
	e := g.Edges[0]
	if e.A != "a" || e.B != "b" || e.ColA != "id" || e.ColB != "a_id" || !e.FK {
		t.Errorf("edge: got %+v; want FK a.id = b.a_id", e)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"sim_name", e.NameSim, 1}, {"sim_type", e.TypeSim, 1}, {"C_connect", e.Connect, 0},
		{"C_sem", e.Sem, 1 - 4/math.Sqrt(60)}, {"selectivity", e.Stats.Selectivity, 2.0 / 3},
		{"correlation", e.Stats.Correlation, 0.4}, {"C_stat", e.Stat, 0.5/3 + 0.3},
		{"C", e.Cost, 0.4*(1-4/math.Sqrt(60)) + 0.2*(0.5/3+0.3)},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s: got %.6f; want %.6f", c.name, c.got, c.want)
		}
	}
	if err := cache.Flush(db); err != nil {
		t.Fatal(err)
	}
	// The on-disk cache is read back by a fresh cache: a StatsFunc over a
	// database whose statistics queries would all fail still returns the
	// cached value.
	entries, _ := os.ReadDir(cache.Dir)
	if len(entries) != 1 {
		t.Fatalf("cache dir holds %d files; want 1", len(entries))
	}
	fresh := NewStatsCache(cache.Dir)
	st, err := fresh.Func(db, 1000)(ctx, "a", "id", "b", "a_id")
	if err != nil || st != e.Stats {
		t.Errorf("cached stats: got %+v %v; want %+v", st, err, e.Stats)
	}
}

// TestGraphMini checks the university schema of the mini benchmark: every
// declared foreign key is an edge, all parts lie in [0, 1], and the Steiner
// scaffold joining student and course goes through enrollment.
func TestGraphMini(t *testing.T) {
	ctx := context.Background()
	db := runkit.MiniDB(t, "university")
	s, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, err := BuildGraph(ctx, s, NewStatsCache("").Func(db, 1000), GraphOptions{Weights: Weights{0.4, 0.4, 0.2}, Tau: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	for _, fk := range s.ForeignKeys {
		u, _ := g.ID(fk.FromTable)
		v, _ := g.ID(fk.ToTable)
		if e, ok := g.Edge(u, v); !ok || !e.FK {
			t.Errorf("FK %s->%s: no FK edge", fk.FromTable, fk.ToTable)
		}
	}
	for _, e := range g.Edges {
		for _, x := range []float64{e.Connect, e.Sem, e.Stat, e.Cost} {
			if x < 0 || x > 1 {
				t.Errorf("edge %s: part %g outside [0, 1]", e.On(), x)
			}
		}
	}
	st, _ := g.ID("student")
	co, _ := g.ID("course")
	tr := g.W.KMB([]int{st, co})
	var names []string
	for _, n := range tr.Nodes {
		names = append(names, g.Tables[n])
	}
	if len(names) != 3 || names[1] != "enrollment" {
		t.Errorf("scaffold student-course: got %v; want [course enrollment student]", names)
	}
}

// edgeCostSchema is a hand-made schema for TestEdgeCostModes, no data:
//
//	a(id INTEGER PK)
//	b(id INTEGER PK, a_id TEXT), FK b.a_id -> a.id
//	c(id INTEGER PK, a_id TEXT), no FK
func edgeCostSchema() *datasets.Schema {
	keyed := func(name string, extra ...datasets.Column) datasets.Table {
		return datasets.Table{Name: name, Columns: append([]datasets.Column{{Name: "id", Type: "INTEGER", Primary: true}}, extra...)}
	}
	return &datasets.Schema{
		Tables:      []datasets.Table{keyed("a"), keyed("b", datasets.Column{Name: "a_id", Type: "TEXT"}), keyed("c", datasets.Column{Name: "a_id", Type: "TEXT"})},
		ForeignKeys: []datasets.ForeignKey{{FromTable: "b", FromColumn: "a_id", ToTable: "a", ToColumn: "id"}},
	}
}

// TestEdgeCostModes checks C_connect (Eq. 2, w1 = w2 = w3 = 1/3) of every
// edge of edgeCostSchema under both edge_cost modes, worked by hand
// (weights 1, 0, 0, so C = C_connect; tolerance 1e-9). The join candidate
// pairs (at least one key column, or a declared FK) and their similarities:
//
//	a.id ~ b.id:   names "a" vs "b" (a bare id is qualified, then set aside): 0; INTEGER/INTEGER: 1
//	a.id ~ b.a_id: names "a" vs "a": 1; INTEGER/TEXT: 0 (the FK pair)
//	a.id ~ c.id: 0, 1      a.id ~ c.a_id: 1, 0
//	b.id ~ c.id: 0, 1      b.id ~ c.a_id: "b" vs "a": 0, 0      b.a_id ~ c.id: "a" vs "c": 0, 0
//
// paper: sim_name and sim_type are each the maximum over the pairs.
//
//	a-b: FK, sim_name 1 (a.id~b.a_id), sim_type 1 (a.id~b.id): C_connect = (0 + 0 + 0)/3 = 0
//	a-c: no FK, both maxima 1 >= tau 0.75: an edge, C_connect = (1 + 0 + 0)/3 = 1/3
//	b-c: sim_name 0 < tau: no edge
//
// pair: both similarities come from one pair.
//
//	a-b: the FK pair, sim_name 1, sim_type 0: C_connect = (0 + 0 + 1)/3 = 1/3
//	a-c: best name*type is 0 (both pairs): below tau, no edge
//	b-c: no edge
func TestEdgeCostModes(t *testing.T) {
	zero := func(context.Context, string, string, string, string) (Stats, error) { return Stats{}, nil }
	type edge struct {
		a, b             string
		name, typ, cconn float64
	}
	for _, tt := range []struct {
		mode string
		want []edge
	}{
		{EdgeCostPaper, []edge{{"a", "b", 1, 1, 0}, {"a", "c", 1, 1, 1.0 / 3}}},
		{EdgeCostPair, []edge{{"a", "b", 1, 0, 1.0 / 3}}},
		{"", []edge{{"a", "b", 1, 1, 0}, {"a", "c", 1, 1, 1.0 / 3}}}, // the empty mode is paper
	} {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			g, err := BuildGraph(context.Background(), edgeCostSchema(), zero, GraphOptions{Weights: Weights{1, 0, 0}, Tau: 0.75, EdgeCost: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Edges) != len(tt.want) {
				t.Fatalf("edges: got %+v; want %d", g.Edges, len(tt.want))
			}
			for i, w := range tt.want {
				e := g.Edges[i]
				if e.A != w.a || e.B != w.b || math.Abs(e.NameSim-w.name) > 1e-9 || math.Abs(e.TypeSim-w.typ) > 1e-9 ||
					math.Abs(e.Connect-w.cconn) > 1e-9 || math.Abs(e.Cost-w.cconn) > 1e-9 {
					t.Errorf("edge %d: got %s-%s sim_name %.4f sim_type %.4f C_connect %.4f C %.4f; want %s-%s %.4f %.4f %.4f",
						i, e.A, e.B, e.NameSim, e.TypeSim, e.Connect, e.Cost, w.a, w.b, w.name, w.typ, w.cconn)
				}
			}
		})
	}
	// Under paper the edge a-c joins on the pair of the highest name
	// similarity (a.id = c.a_id), not on the first pair (a.id = c.id).
	g, _ := BuildGraph(context.Background(), edgeCostSchema(), zero, GraphOptions{Weights: Weights{1, 0, 0}, Tau: 0.75})
	if on := g.Edges[1].On(); on != "a.id = c.a_id" {
		t.Errorf("paper join of a-c: got %s; want a.id = c.a_id", on)
	}
}
