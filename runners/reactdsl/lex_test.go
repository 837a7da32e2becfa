package reactdsl

import (
	"fmt"
	"strings"
	"testing"
)

// lexOld is the lexer of SQL and DSL text as it was before lex read tokens
// with sqllex, kept as the reference FuzzLex compares lex with.
func lexOld(src string, allowRel bool) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, syntaxErr(i, "unterminated /* comment")
			}
			i += end + 4
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			out = append(out, token{kind: tIdent, text: src[i:j], pos: i})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j := i
			for j < len(src) && (isDigit(src[j]) || src[j] == '.') {
				j++
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					j = k
					for j < len(src) && isDigit(src[j]) {
						j++
					}
				}
			}
			if j < len(src) && isIdentStart(src[j]) {
				return nil, syntaxErr(j, "malformed number %q", src[i:j+1])
			}
			out = append(out, token{kind: tNumber, text: src[i:j], pos: i})
			i = j
		case c == '\'':
			s, n, err := scanQuotedOld(src, i, '\'', '\'')
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: tString, text: s, pos: i})
			i += n
		case c == '"' || c == '`':
			s, n, err := scanQuotedOld(src, i, c, c)
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: tQIdent, text: s, quote: c, pos: i})
			i += n
		case c == '[':
			end := strings.IndexByte(src[i+1:], ']')
			if end < 0 {
				return nil, syntaxErr(i, "unterminated [identifier]")
			}
			out = append(out, token{kind: tQIdent, text: src[i+1 : i+1+end], quote: '[', pos: i})
			i += end + 2
		case c == '{' && allowRel:
			end := strings.IndexByte(src[i+1:], '}')
			if end < 0 {
				return nil, syntaxErr(i, "unterminated {relation} reference")
			}
			name := strings.TrimSpace(src[i+1 : i+1+end])
			if !isIdent(name) {
				return nil, syntaxErr(i, "bad relation reference {%s}: want {name}", name)
			}
			out = append(out, token{kind: tRel, text: name, pos: i})
			i += end + 2
		default:
			op := ""
			for _, cand := range []string{"||", "==", "!=", "<>", "<=", ">=", "<<", ">>"} {
				if strings.HasPrefix(src[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" && strings.IndexByte("(),.*+-/%=<>;~&|", c) >= 0 {
				op = string(c)
			}
			if op == "" {
				return nil, syntaxErr(i, "unexpected character %q", rune(c))
			}
			out = append(out, token{kind: tOp, text: op, pos: i})
			i += len(op)
		}
	}
	out = append(out, token{kind: tEOF, pos: len(src)})
	return out, nil
}

func scanQuotedOld(src string, i int, open, close byte) (string, int, error) {
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		if src[j] == close {
			if j+1 < len(src) && src[j+1] == close {
				b.WriteByte(close)
				j += 2
				continue
			}
			return b.String(), j + 1 - i, nil
		}
		b.WriteByte(src[j])
		j++
	}
	return "", 0, syntaxErr(i, "unterminated %c quote", open)
}

// FuzzLex: lex reads SQL and DSL text as its own loop did: the same
// tokens, or the same error.
func FuzzLex(f *testing.F) {
	for _, s := range []string{
		"SELECT \"a\"\"b\", `c`, [d e], 'it''s' FROM t -- x\n/* y */ WHERE a>=1e-5 AND b<>.5 || c << 2",
		"x > {r1} AND y IN { r2 } OR {bad name}", "1e 1.2.3 3x $a !b a=<=b", "'open", "[open", "{open", "/* open",
		"caf\u00e9\u00a0x \xff'\xfe' 1x 'open",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, rel := range []bool{false, true} {
			want, werr := lexOld(src, rel)
			got, err := lex(src, rel)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("lex(%q, %v): error %v; want %v", src, rel, err, werr)
			}
			if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
				t.Fatalf("lex(%q, %v):\n got %s\nwant %s", src, rel, g, w)
			}
		}
	})
}
