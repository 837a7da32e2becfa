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

// TestReasonFor: an answer taken from an extraction records its reason,
// an empty answer (nothing found, or an extraction not taken) none.
func TestReasonFor(t *testing.T) {
	found := ExtractSQL("```sql\nSELECT 1\n```")
	for _, tc := range []struct {
		name string
		e    Extraction
		sql  string
		want Reason
	}{
		{"taken", found, found.SQL, ReasonSingle},
		{"not taken", found, "", ReasonNone},
		{"nothing found", ExtractSQL("I do not know."), "", ReasonNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.ReasonFor(tc.sql); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}
