package sqllex

import (
	"fmt"
	"strings"
	"testing"
)

// TestTokens: kinds, unquoting, exponents, two-character operators,
// comments and parenthesis depth, on hand-written SQLite and MySQL text.
func TestTokens(t *testing.T) {
	show := func(toks []Token) string {
		var b strings.Builder
		for _, k := range toks {
			fmt.Fprintf(&b, "%c%d:%s ", "wisnp"[k.Kind], k.Depth, k.Text)
		}
		return strings.TrimSpace(b.String())
	}
	cases := []struct{ sql, want string }{
		{`SELECT COUNT(*) FROM t WHERE x >= 1e-5 AND y <> 'it''s'`,
			`w0:SELECT w0:COUNT p0:( p1:* p0:) w0:FROM w0:t w0:WHERE w0:x p0:>= n0:1e-5 w0:AND w0:y p0:<> s0:it's`},
		{"SELECT `a b`, \"c\", [d e] FROM t -- note\n/* more */ LIMIT 1",
			`w0:SELECT i0:a b p0:, i0:c p0:, i0:d e w0:FROM w0:t w0:LIMIT n0:1`},
		{`SELECT (a || b) != .5 * (SELECT 2)`,
			`w0:SELECT p0:( w1:a p1:|| w1:b p0:) p0:!= n0:.5 p0:* p0:( w1:SELECT n1:2 p0:)`},
		{`SELECT 3e FROM t WHERE v = 2E+3`, `w0:SELECT n0:3 w0:e w0:FROM w0:t w0:WHERE w0:v p0:= n0:2E+3`},
		{`SELECT 'open`, `w0:SELECT s0:open`},
	}
	for _, c := range cases {
		if got := show(Tokens(c.sql)); got != c.want {
			t.Errorf("Tokens(%q):\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	if !(Token{Kind: Word, Text: "select"}).Is("SELECT") || (Token{Kind: Ident, Text: "select"}).Is("SELECT") {
		t.Error("Is: a bare word matches its keyword in any case; a quoted identifier never does")
	}
}
