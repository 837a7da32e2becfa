package sqltext

import "testing"

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

func TestLiteral(t *testing.T) {
	// Which bytes of s belong to a quoted literal, quotes included.
	s := `a'b"c'd"e'f"g` + "`h'i`j"
	want := "0111110111110111110"
	var lit literal
	got := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		got[i] = '0'
		if lit.in(s[i]) {
			got[i] = '1'
		}
	}
	if string(got) != want {
		t.Errorf("literal bytes of %q = %s; want %s", s, got, want)
	}
}
