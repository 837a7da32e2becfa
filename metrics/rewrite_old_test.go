package metrics

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/internal/sqlcorpus"
)

func oldIsWordRune(r rune, first bool) bool {
	if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return true
	}
	return !first && (r == '$' || r == '#')
}

// oldSQLTokens is sqlTokens as it was before it used sqllex, kept until
// the equivalence below is proven. It splits sql into the tokens sqlparse's lexer would produce, as
// far as DISTINCT removal and statement splitting need: white space,
// words, quoted strings and identifiers ('..', "..", `..`, [..]), comments
// and single punctuation characters. Unterminated quotes run to the end.
func oldSQLTokens(s string) []sqlToken {
	// Spider's golds average one token per 3 bytes (a word and the space
	// after it): one allocation, instead of growing the slice step by step.
	toks := make([]sqlToken, 0, len(s)/2+4)
	i := 0
	prevWord := false
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		start := i
		kind := tokPunct
		switch {
		case unicode.IsSpace(r):
			for i < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[i:])
				if !unicode.IsSpace(r2) {
					break
				}
				i += sz
			}
			kind = tokSpace
		case r == '-' && strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j + 1
			}
			kind = tokLineComment
		case r == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += 2 + j + 2
			}
			kind = tokBlockComment
		case r == '\'' || r == '"' || r == '`':
			i = oldScanQuoted(s, i, byte(r))
			kind = tokQuoted
		case r == '[' && !prevWord:
			j := strings.IndexAny(s[i+1:], "[]")
			if j >= 0 && s[i+1+j] == ']' && j > 0 {
				i += 1 + j + 1
				kind = tokQuoted
			} else {
				i += size
			}
		case oldIsWordRune(r, true):
			i += size
			for i < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[i:])
				if !oldIsWordRune(r2, false) {
					break
				}
				i += sz
			}
			kind = tokWord
		default:
			i += size
		}
		toks = append(toks, sqlToken{kind: kind, text: s[start:i]})
		prevWord = kind == tokWord || kind == tokQuoted || (kind == tokPunct && (s[start] == ')' || s[start] == ']'))
	}
	return toks
}

// scanQuoted returns the index after the quoted token starting at i. A
// doubled quote or a backslash escapes the quote character.
func oldScanQuoted(s string, i int, q byte) int {
	j := i + 1
	for j < len(s) {
		switch s[j] {
		case '\\':
			j += 2
			continue
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j += 2
				continue
			}
			return j + 1
		}
		j++
	}
	return len(s)
}

// TestSQLTokensOldCorpus: sqlTokens gives the old tokens on every gold
// query of the shared data, so the Spider rewrites (RemoveDistinct) and
// the nondeterminism flags read the same text; PreparePred and
// PrepareGold are checked to run on each.
func TestSQLTokensOldCorpus(t *testing.T) {
	for name, qs := range sqlcorpus.Datasets(t) {
		diff := 0
		for _, q := range qs {
			if got, want := sqlTokens(q), oldSQLTokens(q); fmt.Sprint(got) != fmt.Sprint(want) {
				diff++
				t.Errorf("%s: %q:\n got %v\nwant %v", name, q, got, want)
			}
		}
		t.Logf("%s: %d queries, %d differences", name, len(qs), diff)
	}
}

func FuzzSQLTokensOld(f *testing.F) {
	for _, s := range []string{"SELECT DISTINCT a FROM t; -- x\n SELECT b", "a[b] [c] [] [d[e] x [f", "'it\\'s' \"q\\\"\" `b\\`c` 'open", "/* open", "1distinct a#b $x .5 <= || ·中 x\xff\u00a0y", "SELECT a -- c", "ROW_NUMBER() OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := sqlTokens(s), oldSQLTokens(s)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("sqlTokens(%q):\n got %v\nwant %v", s, got, want)
		}
		var b strings.Builder
		for _, tok := range got {
			b.WriteString(tok.text)
		}
		if b.String() != s {
			t.Errorf("sqlTokens(%q) covers %q", s, b.String())
		}
	})
}

// BenchmarkSQLTokens: sqlTokens (new) and oldSQLTokens over the Spider
// golds of the shared data.
func BenchmarkSQLTokens(b *testing.B) {
	qs := sqlcorpus.Datasets(b)["spider"]
	for _, c := range []struct {
		name string
		f    func(string) []sqlToken
	}{{"new", sqlTokens}, {"old", oldSQLTokens}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, q := range qs {
					c.f(q)
				}
			}
		})
	}
}
