package runners

import (
	"context"
	"sync"
	"testing"
)

type nopRunner struct{}

func (nopRunner) Name() string                              { return "registry-test" }
func (nopRunner) Run(context.Context, Task) (Result, error) { return Result{}, nil }

// registerInfoTest registers the test runners once per process, so the
// test also passes under -count > 1.
var registerInfoTest = sync.OnceFunc(func() {
	defs := map[string]float64{"k": 8}
	RegisterInfo(Info{Name: "registry-test", New: func(Params) (Runner, error) { return nopRunner{}, nil },
		Paper: "a test runner", Roles: []RoleInfo{{Role: "reason", Does: "everything"}}, Defaults: defs})
	defs["k"] = 9 // the registry keeps its own copy
	Register("registry-test-plain", func(Params) (Runner, error) { return nopRunner{}, nil })
})

// TestRegisterInfo checks what a registration carries to Lookup, New and
// PaperDefaults, and that bad registrations panic.
func TestRegisterInfo(t *testing.T) {
	registerInfoTest()
	info, ok := Lookup("registry-test")
	if !ok || info.Paper != "a test runner" || len(info.Roles) != 1 || info.Roles[0] != (RoleInfo{"reason", "everything"}) {
		t.Errorf("Lookup = %+v, %v; want the registered info", info, ok)
	}
	if r, err := New("registry-test", nil); err != nil || r.Name() != "registry-test" {
		t.Errorf("New = %v, %v; want the test runner", r, err)
	}
	pd := PaperDefaults()
	if got := pd["registry-test"]["k"]; got != 8 {
		t.Errorf("PaperDefaults()[registry-test][k] = %v; want 8 (as registered)", got)
	}
	pd["registry-test"]["k"] = 10
	if got := PaperDefaults()["registry-test"]["k"]; got != 8 {
		t.Errorf("after the caller changed its copy, PaperDefaults()[registry-test][k] = %v; want 8", got)
	}
	if _, ok := PaperDefaults()["registry-test-plain"]; ok {
		t.Errorf("PaperDefaults has registry-test-plain; want no entry for a runner without defaults")
	}
	for _, tt := range []struct {
		name string
		info Info
	}{
		{"no name", Info{New: func(Params) (Runner, error) { return nopRunner{}, nil }}},
		{"no factory", Info{Name: "registry-test-nil"}},
		{"duplicate", Info{Name: "registry-test", New: func(Params) (Runner, error) { return nopRunner{}, nil }}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterInfo(%+v) did not panic; want a panic", tt.info)
				}
			}()
			RegisterInfo(tt.info)
		})
	}
}
