package stats

import (
	"math"
	"testing"
)

func TestKendallTauB(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		x, y []float64
		want float64 // NaN: undefined
	}{
		// scipy.stats.kendalltau's documentation example
		// (x1 = [12, 2, 1, 12, 2], x2 = [1, 4, 7, 1, 0]: statistic
		// -0.47140452079103173). By hand: of the 10 pairs, (0,4) and
		// (3,4) are concordant, six are discordant, (0,3) is tied in both,
		// (1,4) in x only; n1 = 2 (the two 12s, the two 2s), n2 = 1 (the
		// two 1s): (2 - 6) / sqrt((10 - 2)(10 - 1)) = -4 / sqrt(72).
		{"scipy docs, ties", []float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -4 / math.Sqrt(72)},
		// The same order: every one of the 3 pairs concordant, 1.
		{"same order", []float64{0.5, 0.4, 0.3}, []float64{3, 2, 1}, 1},
		// Reversed: every pair discordant, -1.
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// Two systems swap, one tie in y: x = (3,2,1), y = (2,3,3).
		// Pairs (0,1) and (0,2) discordant, (1,2) tied in y only:
		// (0 - 2) / sqrt((3 - 0)(3 - 1)) = -2 / sqrt(6).
		{"tie in y", []float64{3, 2, 1}, []float64{2, 3, 3}, -2 / math.Sqrt(6)},
		{"one system", []float64{1}, []float64{1}, math.NaN()},
		{"all tied", []float64{1, 1, 1}, []float64{1, 2, 3}, math.NaN()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := KendallTauB(c.x, c.y)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12) {
				t.Errorf("got %v; want %v (tolerance 1e-12)", got, c.want)
			}
		})
	}
	if _, err := KendallTauB([]float64{1}, []float64{1, 2}); err == nil {
		t.Error("got no error for unpaired values; want one")
	}
}
