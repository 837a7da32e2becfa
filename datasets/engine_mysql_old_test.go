package datasets

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/sqlcorpus"
)

// oldMySQLTokens is mysqlTokens as it was before it used sqllex, kept
// until the equivalence below is proven. It splits q into words and punctuation, skipping whitespace,
// comments (#, "-- ", /* */), string literals ('...', "...", with
// backslash escapes and doubled quotes) and `quoted identifiers`, which
// become single non-word tokens. Executable comments and unterminated
// literals are errors.
func oldMySQLTokens(q string) ([]mysqlToken, error) {
	var toks []mysqlToken
	isWord := func(c byte) bool {
		return c == '_' || c == '$' || c == '@' || c >= 0x80 ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '-' && i+1 < len(q) && q[i+1] == '-' && (i+2 == len(q) || strings.IndexByte(" \t\n\r\f\v", q[i+2]) >= 0):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if i+2 < len(q) && (q[i+2] == '!' || (q[i+2] == 'M' && i+3 < len(q) && q[i+3] == '!')) {
				return nil, errors.New("executable comments (/*! ... */) are not allowed")
			}
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("unterminated comment")
			}
			i += 2 + end + 2
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for {
				if j >= len(q) {
					return nil, fmt.Errorf("unterminated %c literal at byte %d", c, i)
				}
				if q[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, mysqlToken{text: q[i : j+1], start: i, end: j + 1})
			i = j + 1
		case isWord(c):
			j := i
			for j < len(q) && isWord(q[j]) {
				j++
			}
			w := q[i:j]
			toks = append(toks, mysqlToken{text: w, upper: strings.ToUpper(w), word: true, start: i, end: j})
			i = j
		default:
			toks = append(toks, mysqlToken{text: q[i : i+1], start: i, end: i + 1})
			i++
		}
	}
	return toks, nil
}

func checkResult(q string, toks func(string) ([]mysqlToken, error)) string {
	tt, err := toks(q)
	if err != nil {
		return "error: " + err.Error()
	}
	s, err := checkMySQLTokens(q, tt)
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}

// TestCheckMySQLReadOnlyOldCorpus: CheckMySQLReadOnly gives the statement
// (or the error) of the old lexer on every gold query of the shared data.
func TestCheckMySQLReadOnlyOldCorpus(t *testing.T) {
	for name, qs := range sqlcorpus.Datasets(t) {
		diff := 0
		for _, q := range qs {
			got, want := checkResult(q, mysqlTokens), checkResult(q, oldMySQLTokens)
			if got != want {
				diff++
				t.Errorf("%s: %q:\n got %s\nwant %s", name, q, got, want)
			}
		}
		t.Logf("%s: %d queries, %d differences", name, len(qs), diff)
	}
}

func FuzzCheckMySQLReadOnlyOld(f *testing.F) {
	for _, s := range []string{"SELECT a FROM t WHERE x = 'op\\'en", "/*!50000 SELECT */ 1", "SELECT 1 -- c\n; # d", "SELECT @update, 1update, `a``b`, \"c\\\"d\" FROM t", "<> SELECT", ".5", "SELECT * FROM t /* open", "SELECT\u00a0a FROM t INTO OUTFILE 'x'", "(SELECT REPLACE(a, 'b', 'c') FROM t);;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := checkResult(s, mysqlTokens), checkResult(s, oldMySQLTokens); got != want {
			t.Errorf("CheckMySQLReadOnly(%q):\n got %s\nwant %s", s, got, want)
		}
		got, err := mysqlTokens(s)
		want, werr := oldMySQLTokens(s)
		if fmt.Sprint(got, err) != fmt.Sprint(want, werr) {
			t.Errorf("mysqlTokens(%q):\n got %v %v\nwant %v %v", s, got, err, want, werr)
		}
	})
}
