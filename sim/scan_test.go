package sim

import (
	"fmt"
	"strings"
	"testing"
)

// The scanners below are tokenize, ddlBody and balanced as they were before
// they read text with sqllex, kept as the reference the fuzz tests of this
// file compare them with: the simulator's output depends on every token.

func tokenizeOld(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		var k tokKind
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			k = tkSpace
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			for j < len(s) {
				if s[j] == end {
					if end != ']' && j+1 < len(s) && s[j+1] == end { // doubled quote
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			k = tkIdent
			if c == '\'' {
				k = tkString
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			k = tkNumber
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] >= 0x80) {
				j++
			}
			k = tkWord
		default:
			if j < len(s) {
				switch s[i : j+1] {
				case "<=", ">=", "<>", "!=", "||", "==":
					j++
				}
			}
			k = tkPunct
		}
		out = append(out, token{k, s[i:j]})
		i = j
	}
	return out
}

func ddlBodyOld(s string) []ddlItem {
	var items []ddlItem
	var cur ddlItem
	var def strings.Builder
	depth, closedLine := 0, -1
	line := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			line++
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(s[i+1:], end)
			if j < 0 {
				return items
			}
			def.WriteString(s[i : i+j+2])
			i += j + 1
			continue
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			comment := s[i+2 : i+j]
			if strings.TrimSpace(def.String()) == "" && closedLine == line && len(items) > 0 {
				items[len(items)-1].comment += comment
			} else {
				cur.comment += comment
			}
			i += j - 1
			continue
		case c == '(':
			depth++
		case c == ')' && depth == 0:
			cur.def = def.String()
			return append(items, cur)
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			cur.def = def.String()
			items = append(items, cur)
			cur, closedLine = ddlItem{}, line
			def.Reset()
			continue
		}
		def.WriteByte(c)
	}
	return items
}

func balancedOld(l string) bool {
	depth := 0
	var q byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case q != 0:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		}
	}
	return depth == 0 && q == 0
}

// FuzzTokenize: tokenize splits SQL into the tokens its own loop did.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"SELECT T1.a$, \"b\"\"c\", `d`, [e f] FROM t AS T1 WHERE x >= 1e5 AND y <> 'it''s' -- no\n/* c */ || z == 2.5.1",
		"a\fb\vc\u00a0d caf\u00e9 \xff 1x .5 $a !=< 'open", "[open", "x -- y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := fmt.Sprintf("%+v", tokenize(s)), fmt.Sprintf("%+v", tokenizeOld(s)); got != want {
			t.Fatalf("tokenize(%q):\n got %q\nwant %q", s, got, want)
		}
	})
}

// FuzzDDLBody: ddlBody splits a CREATE TABLE body as its own loop did.
func FuzzDDLBody(f *testing.F) {
	for _, s := range []string{
		"\n  id INTEGER PRIMARY KEY, -- Value Examples: `1`, `2`\n  \"na,me\" TEXT, -- x\n  [a b] REAL CHECK (a > 0), -- y\n  FOREIGN KEY (id) REFERENCES t(id)\n);",
		"a 'it''s', b /* c, d */ e)", "a, 'open", "a, [open", "a -- only",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := fmt.Sprintf("%#v", ddlBody(s)), fmt.Sprintf("%#v", ddlBodyOld(s)); got != want {
			t.Fatalf("ddlBody(%q):\n got %s\nwant %s", s, got, want)
		}
	})
}

// FuzzBalanced: balanced reads a line as its own loop did, on the lines it
// is asked about (without a backquote).
func FuzzBalanced(f *testing.F) {
	for _, s := range []string{
		`r2 = filter_expr(r1, "a > 1 AND b IN ('x', 'y\\'z')")`, `f(["a", "b"])`, `f(")")`, `f('it''s'`, `)(`, `# (`, `'a\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if strings.Contains(l, "`") {
			return
		}
		if got, want := balanced(l), balancedOld(l); got != want {
			t.Fatalf("balanced(%q) = %v; want %v", l, got, want)
		}
	})
}
