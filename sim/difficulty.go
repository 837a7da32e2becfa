package sim

import (
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/t2sbench/t2sbench/datasets"
)

// DefaultRho is the intra-question correlation ρ of the behaviour model's
// samples (Config.Rho, spec key rho): the correlation of two samples'
// right/wrong outcomes on one question. It is fitted, under this model
// (a Beta question difficulty and a wrong sample repeating the question's
// modal mistake with probability √ρ), to published greedy vs
// self-consistency pairs, each solved for the ρ at which k = 8 samples
// voted gain what the pair gains over one answer:
//
//   - Gao et al., "Text-to-SQL Empowered by Large Language Models: A
//     Benchmark Evaluation" (DAIL-SQL), PVLDB 17(5) 2024: GPT-4 on Spider
//     dev, 83.2% greedy, 83.9% with self-consistency (+0.7): ρ ≈ 0.80.
//   - Kakkar et al., "ReToolSQL: Agentic Reinforcement Learning for Robust
//     Text-to-SQL", abstract: BIRD dev, 73.66% single pass, 74.12% with
//     self-consistency (+0.46), and 74.32% vs 74.77% (+0.45): ρ ≈ 0.84.
//
// The default takes the smaller fit (the larger voting gain). Neither
// pair's EX is a target: only the gain from voting is.
const DefaultRho = 0.8

// rhoOf validates the ρ option of cfg (nil: DefaultRho).
func rhoOf(cfg Config) (float64, error) {
	if cfg.Rho == nil {
		return DefaultRho, nil
	}
	if err := CheckRho(*cfg.Rho); err != nil {
		return 0, fmt.Errorf("sim: rho = %w", err)
	}
	return *cfg.Rho, nil
}

// CheckRho reports whether r is a valid intra-question correlation ρ
// (Config.Rho, spec key rho): one in [0, 1).
func CheckRho(r float64) error {
	if r < 0 || r >= 1 || math.IsNaN(r) {
		return fmt.Errorf("%g out of range [0, 1)", r)
	}
	return nil
}

// questionKey is the key of a question's draws: the model's seed and the
// example (database, id, question), never the prompt, so that every
// method and every style asking the question meets the same difficulty
// and the same modal mistake.
func (s *Model) questionKey(ex datasets.Example, what string) [32]byte {
	h := modelHash(s.cfg.Seed)
	for _, part := range []string{what, ex.DBID, ex.ID, ex.Question} {
		writeField(h, part)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// writeField writes s to h after its length (8 bytes, little-endian), so
// that consecutive fields cannot run into each other.
func writeField(h hash.Hash, s string) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
	h.Write(b[:])
	h.Write([]byte(s))
}

// Difficulty is the latent success probability q of a question for a
// model whose role has probability p: the quantile, at a uniform drawn
// once per (seed, question), of a Beta distribution with mean p and
// intra-question correlation ρ = 1/(a+b+1):
//
//	a = p (1-ρ)/ρ,  b = (1-p)(1-ρ)/ρ
//
// A quantile of one uniform keeps models that differ only in p coupled:
// a stronger model's q is at least a weaker one's on every question. ρ
// = 0 gives q = p (independent samples); p of 0 or 1 gives q = p.
func difficulty(p, rho, u float64) float64 {
	if rho <= 0 || p <= 0 || p >= 1 {
		return p
	}
	a := p * (1 - rho) / rho
	b := (1 - p) * (1 - rho) / rho
	q := distuv.Beta{Alpha: a, Beta: b}.Quantile(u)
	if math.IsNaN(q) {
		return p
	}
	return q
}

// questionQ is the latent success probability of ex for probability p.
func (s *Model) questionQ(ex datasets.Example, p float64) float64 {
	if s.rho <= 0 {
		return p
	}
	k := s.questionKey(ex, "difficulty")
	u := rand.New(rand.NewPCG(sampleSeeds(k, 0))).Float64()
	return difficulty(p, s.rho, u)
}

// modalRand is the generator of ex's most likely mistake: seeded by the
// question alone, so that every sample drawing from it writes the same
// corruption of the gold.
func (s *Model) modalRand(ex datasets.Example) *rand.Rand {
	return rand.New(rand.NewPCG(sampleSeeds(s.questionKey(ex, "mistake"), 0)))
}

// Repeat is the probability that a wrong sample repeats its question's
// modal mistake: √ρ, so that two wrong samples of a question write the
// same query with probability at least ρ (both repeat the modal mistake
// with probability ρ; two mistakes of their own can coincide too), the
// correlation their right/wrong outcomes have. It is a modelling choice.
func Repeat(rho float64) float64 { return math.Sqrt(rho) }
