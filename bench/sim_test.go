package bench

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
	"github.com/t2sbench/t2sbench/spec"
)

// TestSimStyleSpec checks the sim style options: accepted values, errors
// that name the key and the spec line, and the identity that goes into
// trial ids (unchanged for the clean style).
func TestSimStyleSpec(t *testing.T) {
	yml := func(model string) string {
		return "benchmarks: [{name: mini}]\nmodels:\n  s: " + model + "\nrunners: [{name: direct}]\n"
	}
	errs := []struct{ name, model, want string }{
		{"unknown style", "{backend: sim, style: fancy}", `bad.yaml:3: models.s.style: unknown style "fancy"`},
		{"cut rate above 1", "{backend: sim, style: realistic, cut_rate: 1.5}", "bad.yaml:3: models.s.cut_rate: 1.5 out of range [0, 1]"},
		{"negative reasoning rate", "{backend: sim, style: realistic, reasoning_rate: -0.1}", "bad.yaml:3: models.s.reasoning_rate: -0.1 out of range [0, 1]"},
		{"cut rate with clean", "{backend: sim, cut_rate: 0.1}", "bad.yaml:3: models.s.cut_rate: applies to style: realistic only"},
		{"unknown key", "{backend: sim, style: realistic, cut: 0.1}", `unknown key "cut"`},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseSpec([]byte(yml(tt.model)), "bad.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want containing %q", err, tt.want)
			}
		})
	}
	ids := []struct {
		name, model string
		want        map[string]any
	}{
		{"clean default", "{backend: sim, seed: 3}", map[string]any{"backend": "sim", "p": spec.DefaultSimP, "seed": int64(3)}},
		{"clean explicit", "{backend: sim, seed: 3, style: clean}", map[string]any{"backend": "sim", "p": spec.DefaultSimP, "seed": int64(3)}},
		// 0.01 and 0.3 are sim.DefaultCutRate and DefaultReasoningRate.
		{"realistic defaults", "{backend: sim, seed: 3, style: realistic}", map[string]any{"backend": "sim", "p": spec.DefaultSimP, "seed": int64(3), "style": "realistic", "cut_rate": 0.01, "reasoning_rate": 0.3}},
		{"realistic rates", "{backend: sim, seed: 3, style: realistic, cut_rate: 0, reasoning_rate: 1}", map[string]any{"backend": "sim", "p": spec.DefaultSimP, "seed": int64(3), "style": "realistic", "cut_rate": 0.0, "reasoning_rate": 1.0}},
	}
	for _, tt := range ids {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.ParseSpec([]byte(yml(tt.model)), "ok.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Models["s"].Identity(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Identity() = %v; want %v", got, tt.want)
			}
		})
	}
}

// TestNewSimStyle checks that the style reaches the simulator: a realistic
// model's cache identity differs from a clean one's, and a bad rate is
// refused by sim.New too.
func TestNewSimStyle(t *testing.T) {
	b := &datasets.Benchmark{Name: "t", Split: "dev", Examples: []datasets.Example{{ID: "0", Question: "How many singers?", GoldSQL: "SELECT count(*) FROM singer"}}}
	_, clean, err := newSim(b, spec.ModelSpec{Backend: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	_, real, err := newSim(b, spec.ModelSpec{Backend: "sim", Style: "realistic"})
	if err != nil {
		t.Fatal(err)
	}
	if clean == real {
		t.Errorf("clean and realistic sims share the cache identity %v", clean)
	}
	if !strings.Contains(real.Model, "style=realistic") {
		t.Errorf("realistic identity %q; want it to name style=realistic", real.Model)
	}
	bad := 2.0
	if _, _, err := newSim(b, spec.ModelSpec{Backend: "sim", Style: "realistic", CutRate: &bad}); err == nil || !strings.Contains(err.Error(), "cut_rate") {
		t.Errorf("cut_rate 2: err = %v; want one naming cut_rate", err)
	}
}

// TestNewSimLazy builds the simulator of a benchmark on its first call:
// its identity and answers are those of sim.New on the whole benchmark,
// and a benchmark with a blank question is refused before any call, with
// sim's own error.
func TestNewSimLazy(t *testing.T) {
	t.Parallel()
	b := &datasets.Benchmark{Name: "t", Split: "dev", Examples: []datasets.Example{
		{ID: "0", DBID: "db", Question: "How many singers?", GoldSQL: "SELECT count(*) FROM singer"},
		{ID: "1", DBID: "db", Question: "How many concerts?", GoldSQL: "SELECT count(*) FROM concert"},
	}}
	c, ident, err := newSim(b, spec.ModelSpec{Backend: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := c.(*lazySim)
	if !ok {
		t.Fatalf("newSim gave a %T; want a *lazySim", c)
	}
	if l.model != nil {
		t.Errorf("simulator built before its first call")
	}
	eager, err := sim.New(b, simConfig(spec.ModelSpec{Backend: "sim"}))
	if err != nil {
		t.Fatal(err)
	}
	if ident != eager.Ident() {
		t.Errorf("identity %+v; want sim.New's %+v", ident, eager.Ident())
	}
	// The second question, which the identity's simulator did not index.
	req := llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: "Question: How many concerts?"}}, N: 3}
	got, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eager.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Choices, want.Choices) {
		t.Errorf("lazy answers %q; want sim.New's %q", got.Choices, want.Choices)
	}
	blank := &datasets.Benchmark{Name: "t", Split: "dev", Examples: []datasets.Example{b.Examples[0], {ID: "2", Question: " \n"}}}
	_, _, err = newSim(blank, spec.ModelSpec{Backend: "sim"})
	if _, werr := sim.New(blank, simConfig(spec.ModelSpec{Backend: "sim"})); err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("blank question: err = %v; want sim.New's %v", err, werr)
	}
}
