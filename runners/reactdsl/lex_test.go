package reactdsl

import (
	"fmt"
	"testing"
)

// TestLex: the tokens of SQL and DSL text, and the first error of text
// lex rejects, with its offset.
func TestLex(t *testing.T) {
	cases := []struct {
		src  string
		rel  bool
		want string // the tokens as kind:text (tIdent 1 ... tRel 6, tEOF 0), or the error's message
	}{
		{"SELECT \"a\"\"b\", [c d], 'it''s' FROM t -- x\n/* y */ WHERE a>=1e-5 AND b<>.5 || c=<d", false,
			`[1:SELECT 2:a"b 5:, 2:c d 5:, 3:it's 1:FROM 1:t 1:WHERE 1:a 5:>= 4:1e-5 1:AND 1:b 5:<> 4:.5 5:|| 1:c 5:= 5:< 1:d 0:]`},
		{"x > { r1 } AND caf\u00e9$2", true, `[1:x 5:> 6:r1 1:AND 1:café$2 0:]`},
		{"SELECT 1x", false, "malformed number \"1x\" at offset 8"},
		{"1e 'open", false, "malformed number \"1e\" at offset 1"},
		{"a ! b", false, "unexpected character '!' at offset 2"},
		{"{r1}", false, "unexpected character '{' at offset 0"},
		{"a = 'open", false, "unterminated ' quote at offset 4"},
		{"a = [open", false, "unterminated [identifier] at offset 4"},
		{"a /* open", false, "unterminated /* comment at offset 2"},
		{"a > {r1", true, "unterminated {relation} reference at offset 4"},
		{"a > {r 1}", true, "bad relation reference {r 1}: want {name} at offset 4"},
	}
	for _, c := range cases {
		toks, err := lex(c.src, c.rel)
		var got string
		if err != nil {
			got = err.(*Error).Msg
		} else {
			var parts []string
			for _, k := range toks {
				parts = append(parts, fmt.Sprintf("%d:%s", k.kind, k.text))
			}
			got = fmt.Sprint(parts)
		}
		if got != c.want {
			t.Errorf("lex(%q, %v):\n got %s\nwant %s", c.src, c.rel, got, c.want)
		}
	}
}
