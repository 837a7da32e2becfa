// Package speckit builds plans from spec text in tests. It imports spec
// only, so that the tests of spec's importers (runstore, bench) may use
// it.
package speckit

import (
	"testing"

	"github.com/t2sbench/t2sbench/spec"
)

// Plan parses spec text yml (as file spec.yaml) and expands it into a
// plan; an error stops the test. The runners the spec names must be
// registered (a blank import of their packages).
func Plan(t testing.TB, yml string) *spec.Plan {
	t.Helper()
	s, err := spec.ParseSpec([]byte(yml), "spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
