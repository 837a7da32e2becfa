package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
	"github.com/t2sbench/t2sbench/spec"
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
func newSim(b *datasets.Benchmark, m spec.ModelSpec) (llm.Client, llm.Ident, error) {
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
func simConfig(m spec.ModelSpec) sim.Config {
	cfg := sim.Config{P: spec.DefaultSimP, Seed: m.Seed, RoleP: m.RoleP,
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
