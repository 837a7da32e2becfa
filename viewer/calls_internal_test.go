package viewer

import (
	"strings"
	"testing"
)

// TestShares: texts that fit an equal share stay whole, the rest split
// what is left equally, and the kept bytes never pass the budget.
func TestShares(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sizes  []int
		budget int
		want   []int
	}{
		{[]int{10, 20}, 100, []int{10, 20}},           // all fit
		{[]int{100, 10, 100}, 90, []int{40, 10, 40}},  // 10 whole, 80 shared by two
		{[]int{300, 300, 300}, 90, []int{30, 30, 30}}, // equal shares
		{[]int{5, 1000, 20}, 64, []int{5, 39, 20}},    // the long one gets the rest
		{nil, 64, []int{}},
	}
	for _, tt := range tests {
		got := shares(tt.sizes, tt.budget)
		sum := 0
		for i := range got {
			sum += got[i]
			if got[i] != tt.want[i] {
				t.Errorf("shares(%v, %d) = %v; want %v", tt.sizes, tt.budget, got, tt.want)
				break
			}
		}
		if sum > tt.budget {
			t.Errorf("shares(%v, %d) keeps %d bytes; want at most %d", tt.sizes, tt.budget, sum, tt.budget)
		}
	}
}

// TestCut cuts on a rune boundary.
func TestCut(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 10) // 20 bytes
	for _, tt := range []struct {
		n    int
		want string
	}{{20, s}, {25, s}, {5, "éé"}, {4, "éé"}, {1, ""}} {
		if got := cut(s, tt.n); got != tt.want {
			t.Errorf("cut(%d) = %q; want %q", tt.n, got, tt.want)
		}
	}
}
