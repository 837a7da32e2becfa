package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/sim"
)

// TestSteinerDependencies: the simulated Stage 1 lists computational
// dependencies only when the prompt asks for them, naming the final
// result first as the paper's Table 8 does; the runner's dependency
// analysis then orders the filter before the result that uses it.
func TestSteinerDependencies(t *testing.T) {
	b := loadMini(t)
	model, err := sim.New(b, sim.Config{P: 0.9, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	idx := -1
	for k, ex := range b.Examples {
		if strings.Contains(ex.Question, "at least 60") {
			idx = k
			break
		}
	}
	if idx < 0 {
		t.Fatal("no mini question with \"at least 60\"")
	}
	ex := b.Examples[idx]
	ctx := context.Background()
	db, err := b.Engine.Open(ctx, ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		rec := &testkit.Recorder{Client: model}
		r, err := runners.New("steinersql", runners.Params{"dependency_analysis": on})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(ctx, runners.Task{Example: ex.WithoutGold(), DB: db, LLM: rec, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		out := answersByKind(rec)[steinersql.ResponderDecompose][0]
		d, err := steinersql.ParseDecomposition(out)
		if err != nil {
			t.Fatal(err)
		}
		if !on {
			if len(d.Dependencies) != 0 {
				t.Errorf("not asked: got dependencies %+v; want none", d.Dependencies)
			}
			continue
		}
		final := ""
		if len(d.Operations) > 0 {
			final = d.Operations[0].Function + "(" + d.Operations[0].Target + ")"
		}
		if len(d.Dependencies) < 2 || final == "" || d.Dependencies[0].Entity != final {
			t.Fatalf("asked: got %+v; want the operation %q first, then its filter", d.Dependencies, final)
		}
		s, err := db.Schema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		g := steinersql.AnalyzeDependencies(s, d, steinersql.DefaultCorrection)
		if n := len(g.Order); n < 2 || g.Order[n-1] != final || !slices.Contains(g.Order, "filter >= 60") {
			t.Errorf("order %v; want the filter >= 60 before %s", g.Order, final)
		}
	}
}
