package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
)

// newSim builds the sim backend for benchmark b. A spec's p: 0 is passed as
// the smallest positive probability, because sim.Config reads 0 as "use
// the default".
func newSim(b *datasets.Benchmark, m ModelSpec) (llm.Client, llm.Ident, error) {
	cfg := sim.Config{P: DefaultSimP, Seed: m.Seed, RoleP: m.RoleP,
		Style: m.Style, CutRate: m.CutRate, ReasoningRate: m.ReasoningRate,
		SchemaPenalty: m.SchemaPenalty, ValuePenalty: m.ValuePenalty, EvidencePenalty: m.EvidencePenalty,
		Rho: m.Rho, Profile: m.Profile}
	if m.P != nil {
		cfg.P = *m.P
		if cfg.P == 0 {
			cfg.P = 1e-12
		}
	}
	s, err := sim.New(b, cfg)
	if err != nil {
		return nil, llm.Ident{}, err
	}
	return s, s.Ident(), nil
}

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
//	profile: a sim.Profiles name (default sim.DefaultProfile)
func (m ModelSpec) checkSimStyle() (string, error) {
	switch m.Style {
	case "", sim.StyleClean, sim.StyleRealistic:
	default:
		return "style", fmt.Errorf("unknown style %q (want %s or %s)", m.Style, sim.StyleClean, sim.StyleRealistic)
	}
	if m.Rho != nil && (*m.Rho < 0 || *m.Rho >= 1 || math.IsNaN(*m.Rho)) {
		return "rho", fmt.Errorf("%g out of range [0, 1)", *m.Rho)
	}
	if m.Profile != "" {
		if _, ok := sim.Profiles[strings.ToLower(m.Profile)]; !ok {
			return "profile", fmt.Errorf("unknown profile %q (known: %s)", m.Profile, strings.Join(sim.ProfileNames(), ", "))
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

// hasSimPenalties reports whether any behaviour-model option (a penalty,
// rho, a profile) is set.
func (m ModelSpec) hasSimPenalties() bool {
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
	if m.Profile != "" {
		id["profile"] = strings.ToLower(m.Profile)
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
