package stats

import (
	"fmt"
	"math"
)

// KendallTauB is Kendall's tau-b rank correlation of the paired values x
// and y (Kendall 1945, "The treatment of ties in ranking problems",
// Biometrika 33:239-251), the statistic scipy.stats.kendalltau returns
// by default:
//
//	tau_b = (nc - nd) / sqrt((n0 - n1) (n0 - n2))
//
// with nc and nd the concordant and discordant pairs, n0 = n(n-1)/2, and
// n1 and n2 the pairs tied in x and in y (a pair tied in both counts in
// n1 and n2 and in neither nc nor nd). Only the order of the values
// matters, so x and y may be scores or ranks. It returns NaN when tau-b
// is undefined: fewer than two pairs, or every value of x or of y tied.
// The O(n^2) count suits the few systems of a ranking.
func KendallTauB(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return math.NaN(), fmt.Errorf("stats: kendall: %d and %d values; want paired values", len(x), len(y))
	}
	var nc, nd, tx, ty int
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := sign(x[j]-x[i]), sign(y[j]-y[i])
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				nc++
			default:
				nd++
			}
		}
	}
	n0 := len(x) * (len(x) - 1) / 2
	den := math.Sqrt(float64(n0-tx) * float64(n0-ty))
	if den == 0 {
		return math.NaN(), nil
	}
	return float64(nc-nd) / den, nil
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
