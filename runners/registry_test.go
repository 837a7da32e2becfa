package runners

import (
	"context"
	"maps"
	"sync"
	"testing"
)

type nopRunner struct{}

func (nopRunner) Name() string                              { return "registry-test" }
func (nopRunner) Run(context.Context, Task) (Result, error) { return Result{}, nil }

// registerInfoTest registers the test runners once per process, so the
// test also passes under -count > 1.
var registerInfoTest = sync.OnceFunc(func() {
	varied := []string{"k", "temperature", "mode"}
	RegisterInfo(Info{Name: "registry-test", New: func(r *Reader) (Runner, error) {
		r.Int("k", 8, 1, 128)
		r.Int("max_tokens", 1024, 16, 65536) // not varied
		r.Float("temperature", 0.5, 0, 2)
		r.String("mode", "a", "a", "b") // varied, but no number
		return nopRunner{}, r.Err()
	}, Paper: "a test runner", Roles: []RoleInfo{{Role: "reason", Does: "everything"}}, Varied: varied})
	varied[0] = "max_tokens" // the registry keeps its own copy
	Register("registry-test-plain", func(r *Reader) (Runner, error) { r.Int("k", 8, 1, 128); return nopRunner{}, r.Err() })
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
	if got, want := pd["registry-test"], map[string]float64{"k": 8, "temperature": 0.5}; !maps.Equal(got, want) {
		t.Errorf("PaperDefaults()[registry-test] = %v; want %v (the varied parameters' defaults as the factory reads them)", got, want)
	}
	pd["registry-test"]["k"] = 10
	if got := PaperDefaults()["registry-test"]["k"]; got != 8 {
		t.Errorf("after the caller changed its copy, PaperDefaults()[registry-test][k] = %v; want 8", got)
	}
	if got := Defaults("registry-test")["k"]; got != 8 {
		t.Errorf("Defaults(registry-test)[k] = %v; want 8", got)
	}
	if got := Defaults("no-such-runner"); got != nil {
		t.Errorf("Defaults(no-such-runner) = %v; want nil", got)
	}
	if _, ok := PaperDefaults()["registry-test-plain"]; ok {
		t.Errorf("PaperDefaults has registry-test-plain; want no entry for a runner without defaults")
	}
	for _, tt := range []struct {
		name string
		info Info
	}{
		{"no name", Info{New: func(*Reader) (Runner, error) { return nopRunner{}, nil }}},
		{"no factory", Info{Name: "registry-test-nil"}},
		{"duplicate", Info{Name: "registry-test", New: func(*Reader) (Runner, error) { return nopRunner{}, nil }}},
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
