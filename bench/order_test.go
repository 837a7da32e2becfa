package bench

import (
	"strings"
	"testing"
)

// TestAblationsKeepSpecOrder checks that trials (and so report rows)
// follow the order the spec lists ablations in, as paper tables do, for
// block and flow YAML alike.
func TestAblationsKeepSpecOrder(t *testing.T) {
	for _, tc := range []struct{ name, ablations string }{
		{"block", "\n      zeta: {k: 2}\n      alpha: {k: 3}\n      mid: {k: 4}\n"},
		{"flow", " {zeta: {k: 2}, alpha: {k: 3}, mid: {k: 4}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, `name: order
benchmarks: [{name: fake}]
models: {m: {backend: sim, p: 0.6}}
roles: {reason: m}
runners:
  - name: sc
    ablations:`+tc.ablations)
			var labels []string
			for _, tr := range p.Trials {
				labels = append(labels, tr.Label)
			}
			got := strings.Join(labels, ",")
			if want := "sc,sc zeta,sc alpha,sc mid"; got != want {
				t.Errorf("trial labels %s; want %s", got, want)
			}
		})
	}
}
