package steinersql

import (
	"context"
	"math"
	"os"
	"testing"

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
