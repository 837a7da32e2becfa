package bench

import (
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// newSim builds the sim backend for benchmark b. A spec's p: 0 is passed as
// the smallest positive probability, because llm.SimConfig reads 0 as "use
// the default".
func newSim(b *datasets.Benchmark, m ModelSpec) (llm.Client, llm.Ident, error) {
	cfg := llm.SimConfig{P: DefaultSimP, Seed: m.Seed, RoleP: m.RoleP}
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
