package bench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// FailureLimit stops a run early once more items have failed (failed or
// errored) than it allows. The zero value allows any number.
type FailureLimit struct {
	// Count is the number of failures allowed when Fraction is 0.
	Count int
	// Fraction, in (0, 1), allows floor(Fraction * items of the run).
	Fraction float64
	// Set is false for the zero value: no limit.
	Set bool
}

// ParseFailureLimit reads a count ("0", "25") or a fraction of the run's
// items in (0, 1) ("0.1").
func ParseFailureLimit(s string) (FailureLimit, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return FailureLimit{}, fmt.Errorf("failure limit %q: want a count >= 0 or a fraction in (0, 1)", s)
		}
		return FailureLimit{Count: n, Set: true}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f < 1) {
		return FailureLimit{}, fmt.Errorf("failure limit %q: want a count >= 0 or a fraction in (0, 1)", s)
	}
	return FailureLimit{Fraction: f, Set: true}, nil
}

// Allowed returns how many failures the limit allows among total items,
// or -1 for no limit.
func (l FailureLimit) Allowed(total int) int {
	switch {
	case !l.Set:
		return -1
	case l.Fraction > 0:
		return int(math.Floor(l.Fraction * float64(total)))
	}
	return l.Count
}

func (l FailureLimit) String() string {
	switch {
	case !l.Set:
		return "none"
	case l.Fraction > 0:
		return strconv.FormatFloat(l.Fraction, 'g', -1, 64)
	}
	return strconv.Itoa(l.Count)
}

// ErrTooManyFailures is returned (wrapped) by Run when it stopped early
// because more items failed than Options.MaxFailures allows.
var ErrTooManyFailures = errors.New("too many failed items")
