package iesr

import (
	"testing"

	"github.com/t2sbench/t2sbench/runners"
)

// TestEstimateCalls checks the parts of the estimate that follow from the
// switches: the discriminator completes every terminal once per cut, the
// understanding stage is one request, and more rollouts cost more.
func TestEstimateCalls(t *testing.T) {
	full := mustEstimate(t, nil)
	if full[RoleUnderstand] != 1 {
		t.Errorf("understand = %g; want 1", full[RoleUnderstand])
	}
	terminals := full[RoleDiscriminator] / float64(len(DefaultCuts))
	if terminals < 1 || terminals > DefaultRollouts {
		t.Errorf("terminals = %g; want within [1, %d] (one per rollout at most)", terminals, DefaultRollouts)
	}
	off := mustEstimate(t, runners.Params{"stage_discriminator": false, "stage_understanding": false})
	if _, ok := off[RoleDiscriminator]; ok || off[RoleUnderstand] != 0 || off[RoleReason] != full[RoleReason] {
		t.Errorf("without discriminator and understanding: %v; want only reason, %g", off, full[RoleReason])
	}
	two := mustEstimate(t, runners.Params{"disc_cuts": []any{0.3, 0.5}})
	if d := two[RoleDiscriminator] / 2; d != terminals {
		t.Errorf("terminals with 2 cuts = %g; want %g (the cuts do not change the search)", d, terminals)
	}
	if small := mustEstimate(t, runners.Params{"n_rollout": 8}); small[RoleReason] >= full[RoleReason] {
		t.Errorf("reason requests at 8 rollouts %g; want fewer than at 32 (%g)", small[RoleReason], full[RoleReason])
	}
}

func mustEstimate(t *testing.T, p runners.Params) map[string]float64 {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*Runner).EstimateCalls()
}
