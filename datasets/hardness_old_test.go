package datasets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/sqlcorpus"
)

// oldLexSQL is lexSQL as it was before it used sqllex, kept until the
// equivalence below is proven. It splits SQL into tokens: quoted strings and identifiers, words,
// numbers, two-character operators and single punctuation.
func oldLexSQL(s string) ([]sqlTok, error) {
	var toks []sqlTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("hardness: unterminated quote starting at byte %d", i)
				}
				if s[j] == end {
					if end != ']' && j+1 < len(s) && s[j+1] == end { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, sqlTok{text: s[i : j+1], lit: true})
			i = j + 1
		case oldIsWordByte(c):
			j := i
			for j < len(s) && (oldIsWordByte(s[j]) || s[j] == '.') {
				j++
			}
			toks = append(toks, sqlTok{text: strings.ToLower(s[i:j])})
			i = j
		default:
			if i+1 < len(s) {
				two := s[i : i+2]
				switch two {
				case ">=", "<=", "!=", "<>", "||", "==":
					toks = append(toks, sqlTok{text: two})
					i += 2
					continue
				}
			}
			toks = append(toks, sqlTok{text: string(c)})
			i++
		}
	}
	return toks, nil
}

func oldIsWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func oldCountHardness(sql string) (HardnessCounts, error) {
	toks, err := oldLexSQL(sql)
	if err != nil {
		return HardnessCounts{}, err
	}
	return countHardness(toks)
}

func hardnessResult(h HardnessCounts, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v %s", h, h.Level())
}

// TestCountHardnessOldCorpus: CountHardness gives the counts (or the
// error) of the old lexer on every gold query of the shared data.
func TestCountHardnessOldCorpus(t *testing.T) {
	for name, qs := range sqlcorpus.Datasets(t) {
		diff := 0
		for _, q := range qs {
			got, want := hardnessResult(CountHardness(q)), hardnessResult(oldCountHardness(q))
			if got != want {
				diff++
				t.Errorf("%s: %q:\n got %s\nwant %s", name, q, got, want)
			}
		}
		t.Logf("%s: %d queries, %d differences", name, len(qs), diff)
	}
}

func FuzzCountHardnessOld(f *testing.F) {
	for _, s := range []string{"SELECT a FROM t WHERE x = 'open", "SELECT T1.order FROM t", "select 2or 3", "SELECT a -- b\n FROM t", "SELECT\u00a0a FROM t", "SELECT count(*) FROM a JOIN b ON a.x = b.y OR a.z LIKE 'q' WHERE c NOT IN (SELECT 1) GROUP BY a, b HAVING count(*) > 1 ORDER BY max(a) LIMIT 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hardnessResult(CountHardness(s)), hardnessResult(oldCountHardness(s)); got != want {
			t.Errorf("CountHardness(%q):\n got %s\nwant %s", s, got, want)
		}
	})
}
