package bench

import (
	"fmt"
	"math"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// newSim builds the sim backend for benchmark b. A spec's p: 0 is passed as
// the smallest positive probability, because llm.SimConfig reads 0 as "use
// the default".
func newSim(b *datasets.Benchmark, m ModelSpec) (llm.Client, llm.Ident, error) {
	cfg := llm.SimConfig{P: DefaultSimP, Seed: m.Seed, RoleP: m.RoleP,
		Style: m.Style, CutRate: m.CutRate, ReasoningRate: m.ReasoningRate}
	if m.P != nil {
		cfg.P = *m.P
		if cfg.P == 0 {
			cfg.P = 1e-12
		}
	}
	s, err := llm.NewSim(b, cfg)
	if err != nil {
		return nil, llm.Ident{}, err
	}
	return s, s.Ident(), nil
}

// checkSimStyle validates a sim model's style options; on error it returns
// the offending key.
//
//	style: clean | realistic   (default clean)
//	cut_rate: [0, 1]           realistic only (default llm.DefaultSimCutRate)
//	reasoning_rate: [0, 1]     realistic only (default llm.DefaultSimReasoningRate)
func (m ModelSpec) checkSimStyle() (string, error) {
	switch m.Style {
	case "", llm.SimStyleClean, llm.SimStyleRealistic:
	default:
		return "style", fmt.Errorf("unknown style %q (want %s or %s)", m.Style, llm.SimStyleClean, llm.SimStyleRealistic)
	}
	for _, o := range []struct {
		key string
		v   *float64
	}{{"cut_rate", m.CutRate}, {"reasoning_rate", m.ReasoningRate}} {
		if o.v == nil {
			continue
		}
		if m.Style != llm.SimStyleRealistic {
			return o.key, fmt.Errorf("applies to style: %s only", llm.SimStyleRealistic)
		}
		if *o.v < 0 || *o.v > 1 || math.IsNaN(*o.v) {
			return o.key, fmt.Errorf("%g out of range [0, 1]", *o.v)
		}
	}
	return "", nil
}

// simStyleIdentity adds a realistic style and its effective rates to a sim
// model's identity; the clean style adds nothing, so that trial ids of
// specs written before styles existed do not change.
func (m ModelSpec) simStyleIdentity(id map[string]any) {
	if m.Style != llm.SimStyleRealistic {
		return
	}
	id["style"] = m.Style
	id["cut_rate"] = llm.DefaultSimCutRate
	if m.CutRate != nil {
		id["cut_rate"] = *m.CutRate
	}
	id["reasoning_rate"] = llm.DefaultSimReasoningRate
	if m.ReasoningRate != nil {
		id["reasoning_rate"] = *m.ReasoningRate
	}
}
