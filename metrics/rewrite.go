package metrics

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/sqllex"
)

// PreparePred returns the prediction SQL that mode m executes. Only the
// Spider modes rewrite; the steps, in the official order, are:
//
//	strip, keep the text before the first TAB  evaluation.py:568 (l.strip().split('\t'), p[0])
//	"value" -> "1" (literal, case-sensitive)     evaluation.py:569
//	"> =" -> ">=", "< =" -> "<=", "! =" -> "!="  exec_eval.py:172 postprocess
//	DISTINCT tokens removed, first statement     exec_eval.py:188-190, parse.py:139
//	YEAR(CURDATE()) -> 2020                     exec_eval.py:125 replace_cur_year
//
// Each step is switched off by its field in q. The scorer refuses a
// prediction with text after its first statement before these steps
// (predText, datasets.CheckPrediction), so for it the first-statement cut
// drops only comments.
func PreparePred(m Mode, q Quirks, sql string) string {
	if !m.spiderFamily() {
		return sql
	}
	q = m.effective(q)
	sql = predText(m, q, sql)
	if !q.KeepValueWord {
		sql = strings.ReplaceAll(sql, "value", "1")
	}
	return spiderCommon(q, sql)
}

// predText is the prediction text mode m reads, before any rewrite: for
// the Spider modes stripped and cut at the first TAB (evaluation.py:568),
// otherwise sql itself. q must be m.effective already for Spider modes.
func predText(m Mode, q Quirks, sql string) string {
	if !m.spiderFamily() {
		return sql
	}
	sql = pyStrip(sql)
	if !q.KeepTabSuffix {
		sql, _, _ = strings.Cut(sql, "\t")
	}
	return sql
}

// PrepareGold returns the gold SQL that mode m executes: for the Spider
// modes the operator fix, DISTINCT removal and YEAR(CURDATE()) rewrite that
// the official evaluator applies to both queries; the gold unchanged
// otherwise.
func PrepareGold(m Mode, q Quirks, sql string) string {
	if !m.spiderFamily() {
		return sql
	}
	return spiderCommon(m.effective(q), sql)
}

// OrderMatters reports whether row order is compared: for the Spider modes
// when the prepared gold contains "order by" (exec_eval.py:197, a
// case-insensitive substring test on the gold only, so "ORDER  BY" with two
// spaces does not count); never for the set-based modes.
func OrderMatters(m Mode, preparedGold string) bool {
	return m.spiderFamily() && strings.Contains(strings.ToLower(preparedGold), "order by")
}

func (m Mode) effective(q Quirks) Quirks {
	if m == ModeSpiderKeepDistinct {
		q.KeepDistinct = true
	}
	return q
}

func spiderCommon(q Quirks, sql string) string {
	if !q.NoOperatorFix {
		sql = operatorFix.Replace(sql)
	}
	if !q.KeepDistinct {
		sql = RemoveDistinct(sql, !q.AllStatements)
	}
	if !q.NoCurYear && containsFoldASCII(sql, "curdate") {
		// curYearRE matches only text holding CURDATE (in any case; the
		// regexp's (?i) folds K and S to the Kelvin and long-s signs too,
		// which the check leaves to the regexp: see containsFoldASCII).
		sql = curYearRE.ReplaceAllString(sql, "2020")
	}
	return sql
}

var operatorFix = strings.NewReplacer("> =", ">=", "< =", "<=", "! =", "!=")

// containsFoldASCII reports whether s may contain word (lower-case ASCII)
// under Unicode case folding: true when s holds it with ASCII letters in
// any case, and true whenever s holds a non-ASCII byte, since the Kelvin
// sign and the long s fold to k and s. false is therefore exact: neither
// strings.EqualFold nor a (?i) regexp can find word in s.
func containsFoldASCII(s, word string) bool {
	return containsAnyFoldASCII(s, []string{word})
}

// containsAnyFoldASCII is containsFoldASCII for several words at once, in
// one pass over s and without allocating.
func containsAnyFoldASCII(s string, words []string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return true
		}
		c = lowerASCII(c)
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && equalFoldASCII(s[i+1:i+len(w)], w[1:]) {
				return true
			}
		}
	}
	return false
}

// foldWords is a set of lower-case ASCII words indexed by their first
// byte, so that a scan tries only the words that can start at each byte
// (containsAnyFoldASCII tries every word at every byte).
type foldWords [256][]string

func newFoldWords(words []string) *foldWords {
	var f foldWords
	for _, w := range words {
		f[w[0]] = append(f[w[0]], w)
	}
	return &f
}

// in is containsAnyFoldASCII(s, words) for the words of f.
func (f *foldWords) in(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return true
		}
		for _, w := range f[lowerASCII(c)] {
			if len(s)-i >= len(w) && equalFoldASCII(s[i+1:i+len(w)], w[1:]) {
				return true
			}
		}
	}
	return false
}

// equalFoldASCII reports whether s equals lower (lower-case ASCII) with
// s's ASCII letters in any case.
func equalFoldASCII(s, lower string) bool {
	for k := 0; k < len(lower); k++ {
		if lowerASCII(s[k]) != lower[k] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

var curYearRE = regexp.MustCompile(`(?i)YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*`)

// pyStrip is Python's str.strip(): Unicode white space plus the ASCII
// separators \x1c-\x1f that Python also counts as space.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// RemoveDistinct removes every DISTINCT keyword token from sql, as
// test-suite-sql-eval's remove_distinct does with sqlparse's flattened
// tokens: a token is removed when its text, lower-cased, is "distinct", so
// the word inside string literals, quoted identifiers, comments or longer
// names (distinct_count) stays. White space around a removed token stays.
// With firstOnly, only the first statement is kept (sqlparse.parse(s)[0]):
// text after the first top-level ';' and the white space or line comments
// that follow it is dropped.
func RemoveDistinct(sql string, firstOnly bool) string {
	if !containsFoldASCII(sql, "distinct") && (!firstOnly || !strings.Contains(sql, ";")) {
		return sql // no token to remove and no statement to drop
	}
	return removeDistinctTokens(sql, firstOnly)
}

// removeDistinctTokens is RemoveDistinct without its shortcut.
func removeDistinctTokens(sql string, firstOnly bool) string {
	var b strings.Builder
	b.Grow(len(sql))
	toks := sqlTokens(sql)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokWord && strings.EqualFold(t.text, "distinct") {
			continue
		}
		b.WriteString(t.text)
		if firstOnly && t.kind == tokPunct && t.text == ";" {
			for j := i + 1; j < len(toks) && (toks[j].kind == tokSpace || toks[j].kind == tokLineComment); j++ {
				b.WriteString(toks[j].text)
			}
			break
		}
	}
	return b.String()
}

type tokKind int

const (
	tokSpace tokKind = iota
	tokWord
	tokQuoted
	tokLineComment
	tokBlockComment
	tokPunct
)

type sqlToken struct {
	kind tokKind
	text string
	// depth is the parenthesis depth before the token (a "(" has the
	// depth outside it, its content one more), as sqllex counts it.
	depth int
}

// rewriteLex are the sqllex options of sqlTokens: sqlparse's words,
// quotes and comments, comments kept.
var rewriteLex = sqllex.Options{SQLParse: true, Comments: true}

// sqlTokens splits sql into the tokens sqlparse's lexer would produce, as
// far as DISTINCT removal and statement splitting need: white space,
// words, quoted strings and identifiers ('..', "..", `..`, [..]), comments
// and single punctuation characters, read by sqllex (SQLParse), each with
// its parenthesis depth. The tokens cover s: white space is what lies
// between sqllex's tokens. Unterminated quotes run to the end.
func sqlTokens(s string) []sqlToken {
	lt, _ := sqllex.Lex(s, rewriteLex)
	toks := make([]sqlToken, 0, 2*len(lt)+1)
	last, depth := 0, 0 // depth: after the last token, that of the space before the next
	for _, t := range lt {
		if last < t.Start {
			toks = append(toks, sqlToken{kind: tokSpace, text: s[last:t.Start], depth: depth})
		}
		last, depth = t.End, t.DepthAfter()
		text := s[t.Start:t.End]
		switch t.Kind {
		case sqllex.Word, sqllex.Number:
			toks = append(toks, sqlToken{kind: tokWord, text: text, depth: t.Depth})
		case sqllex.Ident, sqllex.String:
			toks = append(toks, sqlToken{kind: tokQuoted, text: text, depth: t.Depth})
		case sqllex.Comment:
			kind := tokBlockComment
			if strings.HasPrefix(text, "--") {
				kind = tokLineComment
			}
			toks = append(toks, sqlToken{kind: kind, text: text, depth: t.Depth})
		default:
			for text != "" { // <= and the like: a token a character
				_, size := utf8.DecodeRuneInString(text)
				toks = append(toks, sqlToken{kind: tokPunct, text: text[:size], depth: t.Depth})
				text = text[size:]
			}
		}
	}
	if last < len(s) {
		toks = append(toks, sqlToken{kind: tokSpace, text: s[last:], depth: depth})
	}
	return toks
}
