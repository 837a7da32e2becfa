package sqltext

import (
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/sqllex"
)

func TestCommentEnd(t *testing.T) {
	cases := []struct {
		s    string
		i    int
		want int // -1: no comment starts at i
	}{
		{"a -- note\nb", 2, 9},
		{"a -- note", 2, 9},
		{"a /* x */b", 2, 9},
		{"a /* x", 2, 6},
		{"/*/", 0, 3},
		{"a - b", 2, -1},
		{"a / b", 2, -1},
		{"a -", 2, -1},
	}
	for _, c := range cases {
		got := -1
		if commentStart(c.s, c.i) {
			got = commentEnd(c.s, c.i)
		}
		if got != c.want {
			t.Errorf("comment at %q[%d] ends at %d; want %d", c.s, c.i, got, c.want)
		}
	}
}

// TestTextQuotes: the bytes of s that textLex reads as quoted, quotes
// included.
func TestTextQuotes(t *testing.T) {
	s := `a'b"c'd"e'f"g` + "`h'i`j"
	want := "0111110111110111110"
	got := []byte(strings.Repeat("0", len(s)))
	for _, k := range textTokens(s) {
		if k.Kind == sqllex.String || k.Kind == sqllex.Ident {
			copy(got[k.Start:k.End], strings.Repeat("1", k.End-k.Start))
		}
	}
	if string(got) != want {
		t.Errorf("quoted bytes of %q = %s; want %s", s, got, want)
	}
}
