//go:build race

package llm_test

// raceEnabled is true under the race detector, which slows the CPU-bound
// parts of timing tests several times over.
const raceEnabled = true
