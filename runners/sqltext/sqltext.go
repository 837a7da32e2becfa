// Package sqltext pulls SQL out of model output and normalises it.
//
// Model answers come in many shapes: a fenced ```sql block after some
// reasoning, <sql>...</sql> tags, a "SQL:" line, a JSON object, numbered
// steps with several drafts, or a bare statement followed by prose.
// ExtractSQL finds the answer among them and says how it was written, or
// that there was none (NoSQL); Extract is its two-value form.
//
// Custom wrappers a prompt asked for (<<SQL>> ... [/SQL], [SQL] ...
// [/SQL], <sql>, <answer>, a "Final SQL query:" label) are read as tags or
// labels, leaked chat-template tokens ([/INST], </s>, <|im_end|>) end the
// answer, markdown escapes (owner\_id, \*) outside string literals are
// removed, and a transcript of several turns is narrowed to its last
// assistant turn. When a response holds several queries, cue words decide:
// a later query introduced as a correction ("Wait", "Corrected query:")
// replaces the earlier one, one introduced as an alternative
// ("Alternatively", "Another way", "If you want ... you can use") does not.
// Every extraction records the rule that chose its SQL (Reason:
// final_marker, last_correction, first_of_alternatives, ...); ExtractWith
// documents the rules and their order. Options.Continues reads a response
// that continues a prompt ending in "SELECT".
package sqltext

import (
	"strings"
	"unicode"

	"github.com/t2sbench/t2sbench/sqllex"
)

// Extract returns the SQL statement in a model's output and whether one was
// found: ExtractSQL(out).SQL and whether it is non-empty. Trailing
// semicolons and whitespace are stripped.
func Extract(out string) (string, bool) {
	e := ExtractSQL(out)
	return e.SQL, e.Found()
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
func LooksLikeSQL(s string) bool { return startsWithKeyword(s, "(", queryKeywords) }

// queryKeywords are the words a query starts with.
var queryKeywords = []string{"SELECT", "WITH"}

// statementKeywords are the words a SQL statement starts with.
var statementKeywords = []string{"SELECT", "WITH", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP",
	"ALTER", "PRAGMA", "EXPLAIN"}

// StartsStatement reports whether s starts (after white space, -- comments
// and opening parentheses) with a statement keyword (SELECT, WITH, VALUES,
// INSERT, UPDATE, DELETE, ...), in any case.
func StartsStatement(s string) bool { return startsWithKeyword(s, "( \t\r\n", statementKeywords) }

// startsWithKeyword reports whether s, once white space and whole -- comment
// lines are skipped and then the bytes of lead trimmed, starts with one of
// the upper-case keywords kws, in any case, as a whole word. Only leading
// "--" lines are skipped, as prefixes; nothing in s is lexed.
func startsWithKeyword(s, lead string, kws []string) bool {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "--") {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = strings.TrimSpace(s[i+1:])
	}
	// Upper-casing maps rune by rune, so the runes of the longest keyword
	// and the one after it decide: only they are upper-cased.
	t, longest := strings.TrimLeft(s, lead), 0
	for _, kw := range kws {
		longest = max(longest, len(kw))
	}
	n := 0
	for i := range t {
		if n > longest {
			t = t[:i]
			break
		}
		n++
	}
	u := strings.ToUpper(t)
	for _, kw := range kws {
		if strings.HasPrefix(u, kw) && (len(u) == len(kw) || !isWord(rune(u[len(kw)]))) {
			return true
		}
	}
	return false
}

// Prime returns sql read as the continuation of prefix, the start of a
// statement a completion-style prompt ended with ("SELECT"): prefix, a
// space and sql when sql is not empty and does not start a statement of
// its own (StartsStatement), else sql unchanged. The bool reports whether
// the prefix was prepended.
func Prime(sql, prefix string) (string, bool) {
	prefix = strings.TrimSpace(prefix)
	if prefix == "" || strings.TrimSpace(sql) == "" || StartsStatement(sql) {
		return sql, false
	}
	return prefix + " " + strings.TrimLeft(sql, " \t\r\n"), true
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Normalise collapses runs of whitespace outside quoted literals into one
// space and strips trailing semicolons, so that two spellings of the same
// statement compare equal. Quoted text ('...', "...", `...`, read by
// sqllex) is kept byte for byte, as are the input's other bytes: invalid
// UTF-8 stays as it is rather than turned into U+FFFD.
func Normalise(sql string) string {
	var b strings.Builder
	s := clean(sql)
	last := 0
	sqllex.Scan(s, textLex, func(k sqllex.Token) bool { // never fails without Strict
		if k.Start > last && b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[k.Start:k.End])
		last = k.End
		return true
	})
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
