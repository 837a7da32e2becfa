// Package satint adds counts without overflowing: token and call counts
// come from servers and stored runs, and a sum that wraps around (or, in
// SQLite, fails with "integer overflow") would make a run unreadable. Each
// function saturates at the bounds of its type instead. It imports only
// the standard library.
package satint

import "math"

// Add returns a+b, saturated to [math.MinInt, math.MaxInt].
func Add(a, b int) int {
	return int(min(max(Add64(int64(a), int64(b)), math.MinInt), math.MaxInt))
}

// Add64 returns a+b, saturated to [math.MinInt64, math.MaxInt64].
func Add64(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// Clamp returns v limited to [lo, hi] and whether it was changed.
func Clamp(v, lo, hi int) (int, bool) {
	switch {
	case v < lo:
		return lo, true
	case v > hi:
		return hi, true
	}
	return v, false
}
