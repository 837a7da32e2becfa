package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
)

// newSim builds the sim backend for benchmark b. A spec's p: 0 is passed as
// the smallest positive probability, because sim.Config reads 0 as "use
// the default".
//
// The simulator indexes every question of b when it is built, which a
// run answered from the model cache never needs: the one returned is
// built on its first call (lazySim). Its settings are checked, and its
// identity taken, now, on a simulator of b's first question; a benchmark
// without questions, or with a blank one, builds the whole simulator now,
// so that sim reports it before the run starts.
func newSim(b *datasets.Benchmark, m ModelSpec) (llm.Client, llm.Ident, error) {
	cfg := simConfig(m)
	if len(b.Examples) == 0 || slices.ContainsFunc(b.Examples, func(e datasets.Example) bool { return strings.TrimSpace(e.Question) == "" }) {
		s, err := sim.New(b, cfg)
		if err != nil {
			return nil, llm.Ident{}, err
		}
		return s, s.Ident(), nil
	}
	first := *b
	first.Examples = b.Examples[:1]
	s, err := sim.New(&first, cfg)
	if err != nil {
		return nil, llm.Ident{}, err
	}
	return &lazySim{b: b, cfg: cfg, ident: s.Ident()}, s.Ident(), nil
}

// lazySim is the simulator of benchmark b, built on its first call.
type lazySim struct {
	b     *datasets.Benchmark
	cfg   sim.Config
	ident llm.Ident

	once  sync.Once
	model *sim.Model
	err   error
}

// get returns the simulator, building it on the first call.
func (l *lazySim) get() (*sim.Model, error) {
	l.once.Do(func() {
		m, err := sim.New(l.b, l.cfg)
		switch {
		case err != nil:
			l.err = err
		case m.Ident() != l.ident:
			l.err = fmt.Errorf("sim: identity %+v of the whole benchmark differs from %+v of its first question", m.Ident(), l.ident)
		default:
			l.model = m
		}
	})
	return l.model, l.err
}

// Complete answers req (sim.Model.Complete).
func (l *lazySim) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m, err := l.get()
	if err != nil {
		return nil, err
	}
	return m.Complete(ctx, req)
}

// CompleteFrom answers samples first.. of req (sim.Model.CompleteFrom).
func (l *lazySim) CompleteFrom(ctx context.Context, req llm.Request, first int) (*llm.Response, error) {
	m, err := l.get()
	if err != nil {
		return nil, err
	}
	return m.CompleteFrom(ctx, req, first)
}

// simConfig is the sim.Config of model spec m.
func simConfig(m ModelSpec) sim.Config {
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
	return cfg
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
