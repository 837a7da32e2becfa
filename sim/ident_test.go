package sim

import (
	"testing"

	"github.com/t2sbench/t2sbench/internal/golden"
)

// TestIdentBehaviourVersion: the identity carries the behaviour version,
// so two simulators differing only in it have different identities (a
// model cache filled by one is not served to the other); and the identity
// of a sim model with a realistic style and a role's p is the golden
// testdata/ident.golden (refreshed with -update when the identity's
// format or BehaviourVersion changes).
func TestIdentBehaviourVersion(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, false)
	s, err := New(b, Config{Model: "sim", P: 0.7, Seed: 3, RoleP: map[string]float64{"reason": 0.5}, Style: StyleRealistic, Profile: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a, b int
	}{
		{"current and next", BehaviourVersion, BehaviourVersion + 1},
		{"first and second", 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if x, y := s.identAt(tc.a), s.identAt(tc.b); x == y {
				t.Errorf("identities under behaviour %d and %d: got both %+v; want them different", tc.a, tc.b, x)
			}
		})
	}
	if s.Ident() != s.identAt(BehaviourVersion) {
		t.Errorf("Ident %+v; want the identity under BehaviourVersion %+v", s.Ident(), s.identAt(BehaviourVersion))
	}
	id := s.Ident()
	golden.CheckString(t, "testdata/ident.golden", id.Backend+"\n"+id.BaseURL+"\n"+id.Model+"\n")
}
