package satint

import (
	"math"
	"testing"
)

// TestAdd checks sums at and past the bounds of int and int64 (the
// expected values are the bounds themselves, or the exact sum when it is
// representable).
func TestAdd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b, want int64
	}{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64},
		{math.MinInt64, math.MinInt64, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1},
		{-5, 3, -2},
	}
	for _, tt := range tests {
		if got := Add64(tt.a, tt.b); got != tt.want {
			t.Errorf("Add64(%d, %d) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Add(int(tt.a), int(tt.b)); int64(got) != tt.want {
			t.Errorf("Add(%d, %d) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClamp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v, want int
		changed bool
	}{{-1, 0, true}, {0, 0, false}, {10, 10, false}, {11, 10, true}, {math.MaxInt, 10, true}}
	for _, tt := range tests {
		got, changed := Clamp(tt.v, 0, 10)
		if got != tt.want || changed != tt.changed {
			t.Errorf("Clamp(%d, 0, 10) = %d, %v; want %d, %v", tt.v, got, changed, tt.want, tt.changed)
		}
	}
}
