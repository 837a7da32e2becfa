package bench

import (
	"errors"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// newSim builds the sim backend for benchmark b.
func newSim(b *datasets.Benchmark, m ModelSpec) (llm.Client, llm.Ident, error) {
	return nil, llm.Ident{}, errors.New("sim backend not available in this build")
}
