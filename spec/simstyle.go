package spec

import (
	"fmt"
	"math"

	"github.com/t2sbench/t2sbench/sim"
)

// checkSimStyle validates a sim model's style and behaviour-model options;
// on error it returns the offending key.
//
//	style: clean | realistic   (default clean)
//	cut_rate: [0, 1]           realistic only (default sim.DefaultCutRate)
//	reasoning_rate: [0, 1]     realistic only (default sim.DefaultReasoningRate)
//	schema_penalty: [0, 1]     (default sim.DefaultSchemaPenalty)
//	value_penalty: [0, 1]      (default sim.DefaultValuePenalty)
//	evidence_penalty: [0, 1]   (default sim.DefaultEvidencePenalty)
//	rho: [0, 1)                (default sim.DefaultRho)
//	profile: a sim.ProfileNames name (default sim.DefaultProfile)
func (m ModelSpec) checkSimStyle() (string, error) {
	switch m.Style {
	case "", sim.StyleClean, sim.StyleRealistic:
	default:
		return "style", fmt.Errorf("unknown style %q (want %s or %s)", m.Style, sim.StyleClean, sim.StyleRealistic)
	}
	if m.Rho != nil {
		if err := sim.CheckRho(*m.Rho); err != nil {
			return "rho", err
		}
	}
	if m.Profile != "" {
		if _, err := sim.LookupProfile(m.Profile); err != nil {
			return "profile", err
		}
	}
	for _, o := range []struct {
		key       string
		v         *float64
		realistic bool
	}{{"cut_rate", m.CutRate, true}, {"reasoning_rate", m.ReasoningRate, true},
		{"schema_penalty", m.SchemaPenalty, false}, {"value_penalty", m.ValuePenalty, false}, {"evidence_penalty", m.EvidencePenalty, false}} {
		if o.v == nil {
			continue
		}
		if o.realistic && m.Style != sim.StyleRealistic {
			return o.key, fmt.Errorf("applies to style: %s only", sim.StyleRealistic)
		}
		if *o.v < 0 || *o.v > 1 || math.IsNaN(*o.v) {
			return o.key, fmt.Errorf("%g out of range [0, 1]", *o.v)
		}
	}
	return "", nil
}

// hasSimBehaviour reports whether any behaviour-model option (a penalty,
// rho, a profile) is set.
func (m ModelSpec) hasSimBehaviour() bool {
	return m.SchemaPenalty != nil || m.ValuePenalty != nil || m.EvidencePenalty != nil || m.Rho != nil || m.Profile != ""
}

// simStyleIdentity adds a realistic style and its effective rates, and
// the penalties a spec sets, to a sim model's identity; the clean style
// and default penalties add nothing, so that trial ids of specs written
// before these options existed do not change.
func (m ModelSpec) simStyleIdentity(id map[string]any) {
	for _, o := range []struct {
		key string
		v   *float64
	}{{"schema_penalty", m.SchemaPenalty}, {"value_penalty", m.ValuePenalty}, {"evidence_penalty", m.EvidencePenalty}, {"rho", m.Rho}} {
		if o.v != nil {
			id[o.key] = *o.v
		}
	}
	if p, err := sim.LookupProfile(m.Profile); m.Profile != "" && err == nil {
		id["profile"] = p.Name
	}
	if m.Style != sim.StyleRealistic {
		return
	}
	id["style"] = m.Style
	id["cut_rate"] = sim.DefaultCutRate
	if m.CutRate != nil {
		id["cut_rate"] = *m.CutRate
	}
	id["reasoning_rate"] = sim.DefaultReasoningRate
	if m.ReasoningRate != nil {
		id["reasoning_rate"] = *m.ReasoningRate
	}
}
