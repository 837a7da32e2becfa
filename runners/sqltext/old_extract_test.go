package sqltext

// This file keeps the extractor sqltext had before ExtractSQL (commit
// 083aada), callable only from tests, so that BenchmarkExtract can report
// the new extractor's cost as a ratio to the old one's.

import (
	"regexp"
	"strings"
)

var (
	oldFenceRe  = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_+-]*)[^\n`]*\n?(.*?)```")
	oldTagRe    = regexp.MustCompile(`(?is)<sql>(.*?)</sql>`)
	oldPrefixRe = regexp.MustCompile(`(?im)^[ \t>*#-]*(?:final\s+)?(?:sql(?:\s+query)?|query|answer)\s*[:：]\s*`)
	oldStartRe  = regexp.MustCompile(`(?i)\b(SELECT|WITH)\b`)
	// oldWithRe is the shape a bare WITH statement must have: a CTE name, AS (
	// and a SELECT, so that prose such as "I can't help with that." is
	// never taken for SQL.
	oldWithRe = regexp.MustCompile(`(?is)^WITH\s+(?:RECURSIVE\s+)?[\w"\x60\[\]]+\s*(?:\([^)]*\)\s*)?AS\s*(?:(?:NOT\s+)?MATERIALIZED\s*)?\(.*\bSELECT\b`)
	// oldFromRe finds a FROM clause, required of a SELECT found mid-sentence.
	oldFromRe = regexp.MustCompile(`(?i)\bFROM\b`)
)

// bare reports whether s, a statement cut from running text, is plausibly
// SQL rather than prose that happens to contain "select" or "with": a WITH
// must have the CTE shape; a SELECT found mid-line (not at a line start)
// must also have a FROM clause.
func oldBare(s string, atLineStart bool) bool {
	if !LooksLikeSQL(s) {
		return false
	}
	if len(s) >= 4 && strings.EqualFold(s[:4], "with") {
		return oldWithRe.MatchString(s)
	}
	return atLineStart || oldFromRe.MatchString(s)
}

// Extract returns the SQL statement in a model's output and whether one was
// found. It prefers, in order: the last ```sql fenced block; the last fenced
// block of another or no language whose content looks like SQL; the last
// <sql>...</sql> tag; the text after the last "SQL:" (or "Query:",
// "Answer:") prefix; the last bare SELECT/WITH statement, which runs to the
// first semicolon or blank line. Trailing semicolons and whitespace are
// stripped.
func oldExtract(out string) (string, bool) {
	fences := oldFenceRe.FindAllStringSubmatch(out, -1)
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
	if tags := oldTagRe.FindAllStringSubmatch(out, -1); len(tags) > 0 {
		for i := len(tags) - 1; i >= 0; i-- {
			if s := clean(tags[i][1]); s != "" {
				return s, true
			}
		}
	}
	if locs := oldPrefixRe.FindAllStringIndex(out, -1); len(locs) > 0 {
		for i := len(locs) - 1; i >= 0; i-- {
			rest := out[locs[i][1]:]
			if s := oldStatement(rest); LooksLikeSQL(s) {
				return s, true
			}
		}
	}
	if locs := oldStartRe.FindAllStringIndex(out, -1); len(locs) > 0 {
		// The first SELECT/WITH that starts a line (or the text) and
		// yields a statement; a later one may be a subquery.
		for _, l := range locs {
			if l[0] > 0 && !oldLineStart(out, l[0]) {
				continue
			}
			if s := oldStatement(out[l[0]:]); oldBare(s, true) {
				return oldLastStatementFrom(out, s, locs), true
			}
		}
		for _, l := range locs {
			if s := oldStatement(out[l[0]:]); oldBare(s, false) {
				return s, true
			}
		}
	}
	return "", false
}

// oldLastStatementFrom prefers the last line-initial statement when the output
// holds several (a draft and a corrected one).
func oldLastStatementFrom(out, first string, locs [][]int) string {
	best := first
	for _, l := range locs {
		if l[0] > 0 && !oldLineStart(out, l[0]) {
			continue
		}
		if s := oldStatement(out[l[0]:]); oldBare(s, true) {
			best = s
		}
	}
	return best
}

func oldLineStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	return j < 0 || s[j] == '\n' || s[j] == '`' || s[j] == '>' || s[j] == ':'
}

// statement cuts s at the first semicolon outside quotes or the first blank
// line, and cleans it.
func oldStatement(s string) string {
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
