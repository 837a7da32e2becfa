package bench

import (
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestRunRecordsPrices checks that the spec's price table reaches the run
// store, so reports can price a run without repeating it on the command line.
func TestRunRecordsPrices(t *testing.T) {
	p := mustPlan(t, runSpec+"prices: {m: {prompt: 0.3, completion: 2.5}}\n")
	env, _ := testEnv(5, 0.6, nil)
	dir := t.TempDir()
	if _, err := runOnce(t, dir, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Prices()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]spec.Price{"m": {PromptPerM: 0.3, CompletionPerM: 2.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Prices() = %v; want %v", got, want)
	}

	// A spec without prices records none.
	dir2 := t.TempDir()
	if _, err := runOnce(t, dir2, mustPlan(t, runSpec), env, Options{}); err != nil {
		t.Fatal(err)
	}
	r2, err := runstore.ReadRun(dir2, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r2.Prices(); err != nil || got != nil {
		t.Errorf("Prices() without a price table = %v, %v; want nil, nil", got, err)
	}
}
