package stats

import (
	"math"
	"testing"
)

// TestMeanSD: the mean and the sample standard deviation (n - 1).
// Expected values: numpy.mean([0.5, 0.75, 1.0]) = 0.75 and
// numpy.std([0.5, 0.75, 1.0], ddof=1) = 0.25, exact in binary; NaN for
// what is undefined.
func TestMeanSD(t *testing.T) {
	if m, sd := MeanSD([]float64{0.5, 0.75, 1.0}); m != 0.75 || sd != 0.25 {
		t.Errorf("MeanSD(0.5, 0.75, 1) = %v, %v; want 0.75, 0.25", m, sd)
	}
	if m, sd := MeanSD([]float64{0.4}); m != 0.4 || !math.IsNaN(sd) {
		t.Errorf("MeanSD(0.4) = %v, %v; want 0.4, NaN", m, sd)
	}
	if m, sd := MeanSD(nil); !math.IsNaN(m) || !math.IsNaN(sd) {
		t.Errorf("MeanSD() = %v, %v; want NaN, NaN", m, sd)
	}
}
