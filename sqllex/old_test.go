package sqllex

import (
	"strings"
	"testing"
	"unicode"

	"github.com/t2sbench/t2sbench/internal/sqlcorpus"
)

// oldTokens is runners/sqltext.Tokens as it was before the move, kept
// until the equivalence below is proven.
func oldTokens(sql string) []Token {
	var out []Token
	depth := 0
	r := []rune(sql)
	digit := func(i int) bool { return i < len(r) && r[i] >= '0' && r[i] <= '9' }
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			i += 2
			for i+1 < len(r) && !(r[i] == '*' && r[i+1] == '/') {
				i++
			}
			i += 2
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			var b strings.Builder
			j := i + 1
			for j < len(r) {
				if r[j] == end {
					if end != ']' && j+1 < len(r) && r[j+1] == end {
						b.WriteRune(end)
						j += 2
						continue
					}
					break
				}
				b.WriteRune(r[j])
				j++
			}
			k := Ident
			if c == '\'' {
				k = String
			}
			out = append(out, Token{Kind: k, Text: b.String(), Depth: depth})
			i = j + 1
		case digit(i) || c == '.' && digit(i+1):
			j := i
			for digit(j) || j < len(r) && r[j] == '.' {
				j++
			}
			if j < len(r) && (r[j] == 'e' || r[j] == 'E') && (digit(j+1) || j+2 < len(r) && (r[j+1] == '-' || r[j+1] == '+') && digit(j+2)) {
				j += 2
				for digit(j) {
					j++
				}
			}
			out = append(out, Token{Kind: Number, Text: string(r[i:j]), Depth: depth})
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			out = append(out, Token{Kind: Word, Text: string(r[i:j]), Depth: depth})
			i = j
		default:
			if c == ')' {
				depth = max(0, depth-1)
			}
			text := string(c)
			if i+1 < len(r) && strings.ContainsRune("<>=!|", c) && strings.ContainsRune("<>=|", r[i+1]) {
				text += string(r[i+1])
				i++
			}
			out = append(out, Token{Kind: Punct, Text: text, Depth: depth})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	return out
}

func sameTokens(a, b []Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Text != b[i].Text || a[i].Depth != b[i].Depth {
			return false
		}
	}
	return true
}

// TestTokensOldCorpus: Tokens gives the old tokens on every gold query.
func TestTokensOldCorpus(t *testing.T) {
	for name, qs := range sqlcorpus.Datasets(t) {
		diff := 0
		for _, q := range qs {
			if !sameTokens(Tokens(q), oldTokens(q)) {
				diff++
				t.Errorf("%s: %q: got %v; want %v", name, q, Tokens(q), oldTokens(q))
			}
		}
		t.Logf("%s: %d queries, %d differences", name, len(qs), diff)
	}
}

func FuzzTokensOld(f *testing.F) {
	for _, s := range []string{"SELECT `a``b`, \"c\", [d] FROM t -- x\n/* y */ WHERE a>=1e-5 AND b<>'it''s'", "'open", "/* open", "x\xffy 'a\xc3'", "1.2.3e+4e5 .5 a$b _x ||= !=< [[a]]", "\u00a0\u2003é中文 ‘q’"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokens(s), oldTokens(s); !sameTokens(got, want) {
			t.Errorf("Tokens(%q):\n got %v\nwant %v", s, got, want)
		}
		for _, tok := range Tokens(s) {
			if tok.Start < 0 || tok.End > len(s) || tok.Start >= tok.End {
				t.Errorf("Tokens(%q): %+v: bad offsets", s, tok)
			}
		}
	})
}
