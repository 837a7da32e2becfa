package stats

import (
	"fmt"
	"math"
	"slices"
)

// Holm returns Holm-Bonferroni adjusted p-values for the family p, in the
// same order as p. With the raw p-values sorted ascending, p(1) <= ... <= p(m),
//
//	adj(i) = min(1, max over j <= i of (m - j + 1) * p(j))
//
// so adjusted values are monotone in the raw ones and capped at 1. Rejecting
// the hypotheses with adj <= alpha controls the family-wise error rate at
// alpha (Holm 1979, Scand. J. Statist. 6:65-70). Ties keep their order.
// A p-value outside [0, 1] or NaN is an error naming its index.
func Holm(p []float64) ([]float64, error) {
	m := len(p)
	for i, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("stats: holm: p-value %d is %v, want a value in [0, 1]", i, v)
		}
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case p[x] < p[y]:
			return -1
		case p[x] > p[y]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		v := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj, nil
}
