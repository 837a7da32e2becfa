package sqltext

import (
	"strings"
	"unicode"
)

// TokenKind is the kind of a SQL token.
type TokenKind int

// Token kinds.
const (
	Word   TokenKind = iota // bare word: keyword or identifier
	Ident                   // quoted identifier ("x", `x`, [x])
	String                  // 'text'
	Number                  // 12, 3.5, 1e-5
	Punct                   // ( ) , . * = < <= || ...
)

// Token is one token of a SQL statement.
type Token struct {
	Kind TokenKind
	// Text is the token as written; quoted identifiers and strings are
	// unquoted, a doubled quote read as one.
	Text string
	// Depth is the parenthesis depth before the token.
	Depth int
}

// Is reports whether t is the bare word kw, letter case ignored.
func (t Token) Is(kw string) bool { return t.Kind == Word && strings.EqualFold(t.Text, kw) }

// Tokens splits sql into tokens: words, quoted identifiers, string
// literals, numbers (with an exponent, its sign included) and punctuation
// (the two-character comparison and concatenation operators as one token).
// Comments are skipped; an unterminated quote or comment runs to the end.
// It is a lexer, not a parser: it accepts any text.
func Tokens(sql string) []Token {
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
