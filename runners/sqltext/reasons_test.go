package sqltext

import "testing"

// TestCountReasons: an empty reason counts as unrecorded, and the counts
// print in the order of the rules (Reasons), unrecorded last.
func TestCountReasons(t *testing.T) {
	c := CountReasons([]Reason{ReasonSingle, "", ReasonFinalMarker, ReasonSingle, ReasonNone, ReasonContinuation})
	if c.Total() != 6 || c[ReasonUnrecorded] != 1 || c[ReasonSingle] != 2 {
		t.Errorf("got counts %v (total %d); want 6 answers, 2 single, 1 unrecorded", c, c.Total())
	}
	if got, want := c.String(), "continuation 1 final_marker 1 single 2 none 1 unrecorded 1"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
