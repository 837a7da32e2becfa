// Package sqltext pulls SQL out of model output and normalises it.
//
// Model answers come in many shapes: a fenced ```sql block after some
// reasoning, <sql>...</sql> tags, a "SQL:" line, or a bare statement. Extract
// tries them in a fixed order of confidence and returns the best match.
package sqltext

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	fenceRe  = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_+-]*)[^\n`]*\n?(.*?)```")
	tagRe    = regexp.MustCompile(`(?is)<sql>(.*?)</sql>`)
	prefixRe = regexp.MustCompile(`(?im)^[ \t>*#-]*(?:final\s+)?(?:sql(?:\s+query)?|query|answer)\s*[:：]\s*`)
	startRe  = regexp.MustCompile(`(?i)\b(SELECT|WITH)\b`)
	// withRe is the shape a bare WITH statement must have: a CTE name, AS (
	// and a SELECT, so that prose such as "I can't help with that." is
	// never taken for SQL.
	withRe = regexp.MustCompile(`(?is)^WITH\s+(?:RECURSIVE\s+)?[\w"\x60\[\]]+\s*(?:\([^)]*\)\s*)?AS\s*(?:(?:NOT\s+)?MATERIALIZED\s*)?\(.*\bSELECT\b`)
	// fromRe finds a FROM clause, required of a SELECT found mid-sentence.
	fromRe = regexp.MustCompile(`(?i)\bFROM\b`)
)

// bare reports whether s, a statement cut from running text, is plausibly
// SQL rather than prose that happens to contain "select" or "with": a WITH
// must have the CTE shape; a SELECT found mid-line (not at a line start)
// must also have a FROM clause.
func bare(s string, atLineStart bool) bool {
	if !LooksLikeSQL(s) {
		return false
	}
	if len(s) >= 4 && strings.EqualFold(s[:4], "with") {
		return withRe.MatchString(s)
	}
	return atLineStart || fromRe.MatchString(s)
}

// Extract returns the SQL statement in a model's output and whether one was
// found. It prefers, in order: the last ```sql fenced block; the last fenced
// block of another or no language whose content looks like SQL; the last
// <sql>...</sql> tag; the text after the last "SQL:" (or "Query:",
// "Answer:") prefix; the last bare SELECT/WITH statement, which runs to the
// first semicolon or blank line. Trailing semicolons and whitespace are
// stripped.
func Extract(out string) (string, bool) {
	fences := fenceRe.FindAllStringSubmatch(out, -1)
	for i := len(fences) - 1; i >= 0; i-- {
		if strings.EqualFold(fences[i][1], "sql") || strings.EqualFold(fences[i][1], "sqlite") || strings.EqualFold(fences[i][1], "mysql") {
			if s := clean(fences[i][2]); s != "" {
				return s, true
			}
		}
	}
	for i := len(fences) - 1; i >= 0; i-- {
		if s := clean(fences[i][2]); LooksLikeSQL(s) {
			return s, true
		}
	}
	if tags := tagRe.FindAllStringSubmatch(out, -1); len(tags) > 0 {
		for i := len(tags) - 1; i >= 0; i-- {
			if s := clean(tags[i][1]); s != "" {
				return s, true
			}
		}
	}
	if locs := prefixRe.FindAllStringIndex(out, -1); len(locs) > 0 {
		for i := len(locs) - 1; i >= 0; i-- {
			rest := out[locs[i][1]:]
			if s := statement(rest); LooksLikeSQL(s) {
				return s, true
			}
		}
	}
	if locs := startRe.FindAllStringIndex(out, -1); len(locs) > 0 {
		// The first SELECT/WITH that starts a line (or the text) and
		// yields a statement; a later one may be a subquery.
		for _, l := range locs {
			if l[0] > 0 && !lineStart(out, l[0]) {
				continue
			}
			if s := statement(out[l[0]:]); bare(s, true) {
				return lastStatementFrom(out, s, locs), true
			}
		}
		for _, l := range locs {
			if s := statement(out[l[0]:]); bare(s, false) {
				return s, true
			}
		}
	}
	return "", false
}

// lastStatementFrom prefers the last line-initial statement when the output
// holds several (a draft and a corrected one).
func lastStatementFrom(out, first string, locs [][]int) string {
	best := first
	for _, l := range locs {
		if l[0] > 0 && !lineStart(out, l[0]) {
			continue
		}
		if s := statement(out[l[0]:]); bare(s, true) {
			best = s
		}
	}
	return best
}

func lineStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	return j < 0 || s[j] == '\n' || s[j] == '`' || s[j] == '>' || s[j] == ':'
}

// statement cuts s at the first semicolon outside quotes or the first blank
// line, and cleans it.
func statement(s string) string {
	var q rune
	for i, r := range s {
		switch {
		case q != 0:
			if r == q {
				q = 0
			}
		case r == '\'' || r == '"' || r == '`':
			q = r
		case r == ';':
			return clean(s[:i])
		case r == '\n':
			if rest := s[i+1:]; strings.TrimLeft(firstLine(rest), " \t\r") == "" {
				return clean(s[:i])
			}
		}
	}
	return clean(s)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clean strips surrounding whitespace and trailing semicolons.
func clean(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return s
}

// LooksLikeSQL reports whether s starts (after comments and whitespace) with
// a SELECT or WITH keyword.
func LooksLikeSQL(s string) bool {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "--") {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = strings.TrimSpace(s[i+1:])
	}
	s = strings.TrimLeft(s, "(")
	u := strings.ToUpper(s)
	for _, kw := range []string{"SELECT", "WITH"} {
		if strings.HasPrefix(u, kw) && (len(u) == len(kw) || !isWord(rune(u[len(kw)]))) {
			return true
		}
	}
	return false
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Normalise collapses runs of whitespace outside quoted literals into one
// space and strips trailing semicolons, so that two spellings of the same
// statement compare equal. Quoted text is kept byte for byte.
func Normalise(sql string) string {
	var b strings.Builder
	var q rune
	space := false
	for _, r := range clean(sql) {
		if q != 0 {
			b.WriteRune(r)
			if r == q {
				q = 0
			}
			continue
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if r == '\'' || r == '"' || r == '`' {
			q = r
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ForDialect adapts a prompt text written for SQLite to the dialect of the
// database the query will run on: for "mysql" every "SQLite" becomes
// "MySQL"; other dialects leave the text as it is. Apply it to a runner's
// own instructions, never to benchmark text.
func ForDialect(text, dialect string) string {
	if dialect == "mysql" {
		return strings.ReplaceAll(text, "SQLite", "MySQL")
	}
	return text
}
