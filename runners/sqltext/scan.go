package sqltext

import (
	"regexp"
	"strings"

	"github.com/t2sbench/t2sbench/sqllex"
)

// fence is one ``` block: text[open:end] in all, its body text[body:bodyEnd].
type fence struct {
	open, body, bodyEnd, end int
	tag                      string
	closed                   bool
}

// scanFences pairs the runs of three or more backticks of s into fences.
// The word after an opening run is its language tag, unless it is SELECT or
// WITH: then the fence was opened on the SQL's own line and the body starts
// right after the backticks. A run followed by a lone language tag always
// opens a fence (a closing fence has no tag), so an untagged run before it
// is a stray closing fence and is skipped; a tagged one is unclosed. The
// last opening run without a closing one is an unclosed fence running to
// the end of s.
func scanFences(s string) []fence {
	if !strings.Contains(s, "```") {
		return nil
	}
	var runs [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i >= 3 {
			runs = append(runs, [2]int{i, j})
		}
		i = j
	}
	var out []fence
	for k := 0; k < len(runs); {
		op := runs[k]
		tag, body := fenceInfo(s, op[1])
		if k+1 == len(runs) {
			out = append(out, fence{open: op[0], body: body, bodyEnd: len(s), end: len(s), tag: tag})
			break
		}
		cl := runs[k+1]
		if lang, _ := fenceInfo(s, cl[1]); lang != "" && aloneOnLine(s, cl[1], lang) {
			if tag != "" && body <= cl[0] {
				out = append(out, fence{open: op[0], body: body, bodyEnd: cl[0], end: cl[0], tag: tag})
			}
			k++
			continue
		}
		if body > cl[0] {
			body = cl[0]
		}
		out = append(out, fence{open: op[0], body: body, bodyEnd: cl[0], end: cl[1], tag: tag, closed: true})
		k += 2
	}
	return out
}

// fenceInfo reads the info string after a backtick run ending at p: the
// language tag (empty when there is none or when the SQL starts there) and
// where the body starts.
func fenceInfo(s string, p int) (tag string, body int) {
	rest := s[p:]
	eol := strings.IndexByte(rest, '\n')
	line := rest
	if eol >= 0 {
		line = rest[:eol]
	}
	if strings.TrimSpace(line) == "" {
		if eol >= 0 {
			return "", p + eol + 1
		}
		return "", len(s)
	}
	a, b, ok := langSpan(line)
	if !ok {
		return "", p
	}
	w := line[a:b]
	if LooksLikeSQL(w) {
		return "", p + a
	}
	// The SQL may follow the tag on its line (```sql SELECT 1```);
	// anything else there is an attribute list, and the body starts on
	// the next line.
	if r := line[b:]; eol >= 0 && !LooksLikeSQL(r) && !strings.Contains(r, "```") {
		return w, p + eol + 1
	}
	return w, p + b
}

// langSpan returns where the word that starts line, after spaces and tabs,
// starts and ends: an ASCII letter, then ASCII letters, digits and the
// bytes of "_+#.-" (the language tag of a fence); ok is false when line
// starts with no such word.
func langSpan(line string) (start, end int, ok bool) {
	start = 0
	for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	if start == len(line) || !isASCIILetter(line[start]) {
		return 0, 0, false
	}
	end = start + 1
	for end < len(line) && (isASCIIWord(line[end]) || strings.IndexByte("+#.-", line[end]) >= 0) {
		end++
	}
	return start, end, true
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// aloneOnLine reports whether the language tag is all that follows the run
// ending at p on its line.
func aloneOnLine(s string, p int, tag string) bool {
	rest := s[p:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest) == tag
}

// tag is one <sql> span: text[open:end] in all, its body text[body:bodyEnd].
type tag struct {
	open, body, bodyEnd, end int
	closed                   bool // both tags present
}

// scanTags returns the <sql>...</sql> spans of the text whose asciiLower
// is lower. An unclosed last tag runs to the end; a closing tag with no
// opening one closes a body that starts where the previous span ended (the
// opening tag was in the prompt).
func scanTags(lower string) []tag {
	if !strings.Contains(lower, "sql>") {
		return nil
	}
	var out []tag
	for i := 0; ; {
		o := strings.Index(lower[i:], "<sql>")
		c := strings.Index(lower[i:], "</sql>")
		switch {
		case o < 0 && c < 0:
			return out
		case c >= 0 && (o < 0 || c < o): // orphan closing tag
			out = append(out, tag{open: i, body: i, bodyEnd: i + c, end: i + c + len("</sql>")})
			i += c + len("</sql>")
			continue
		}
		o += i
		b := o + len("<sql>")
		c = strings.Index(lower[b:], "</sql>")
		if c < 0 {
			return append(out, tag{open: o, body: b, bodyEnd: len(lower), end: len(lower)})
		}
		out = append(out, tag{open: o, body: b, bodyEnd: b + c, end: b + c + len("</sql>"), closed: true})
		i = b + c + len("</sql>")
	}
}

// keywordStarts returns the offsets of the words SELECT and WITH in s, in
// any case (what the regexp (?i)\b(?:SELECT|WITH)\b finds, without its
// cost on long answers).
func keywordStarts(s string) []int { return lowerKeywordStarts(asciiLower(s)) }

// lowerKeywordStarts is keywordStarts of the text whose asciiLower is
// lower.
func lowerKeywordStarts(lower string) []int {
	var out []int
	for i := 0; i < len(lower); {
		j := strings.IndexAny(lower[i:], "sw")
		if j < 0 {
			break
		}
		p := i + j
		i = p + 1
		var n int
		switch {
		case strings.HasPrefix(lower[p:], "select"):
			n = 6
		case strings.HasPrefix(lower[p:], "with"):
			n = 4
		default:
			continue
		}
		if (p > 0 && isASCIIWord(lower[p-1])) || (p+n < len(lower) && isASCIIWord(lower[p+n])) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isASCIIWord(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// lineStart reports whether position i of s begins a line, once markdown
// decoration (spaces, **, >, #, -, list numbers) is skipped, or follows a
// label's colon or a backtick.
func lineStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && strings.IndexByte(" \t*_#>+-", s[j]) >= 0 {
		j--
	}
	if j < 0 || s[j] == '\n' || s[j] == ':' || s[j] == '`' {
		return true
	}
	if s[j] == '.' || s[j] == ')' {
		k := j - 1
		for k >= 0 && s[k] >= '0' && s[k] <= '9' {
			k--
		}
		if k < j-1 && (k < 0 || s[k] == '\n' || s[k] == ' ' || s[k] == '\t') {
			return true
		}
	}
	// A full-width colon is three bytes in UTF-8.
	return j >= 2 && s[j-2:j+1] == "："
}

// sqlLabelled reports whether position i of s follows an SQL label: the
// text before it on its line, or the previous non-blank line when i starts
// its line, ends with a colon and names SQL or a query ("SQL:", "**Final
// SQL query:**", "SQLQuery:").
func sqlLabelled(s string, i int) bool {
	ls := strings.LastIndexByte(s[:i], '\n') + 1
	before := strings.Trim(s[ls:i], " \t*_`>#")
	if before == "" && ls > 0 {
		prev := strings.TrimRight(s[:ls-1], " \t\r\n")
		before = strings.Trim(prev[strings.LastIndexByte(prev, '\n')+1:], " \t*_`>#")
	}
	if !strings.HasSuffix(before, ":") {
		return false
	}
	l := asciiLower(before)
	return strings.Contains(l, "sql") || strings.Contains(l, "query")
}

// cut returns the statement of running text s that starts at i and where it
// ends: at a semicolon outside quotes, at a fence, at a closing backtick
// when the statement is inline code, or at a newline after which the text
// does not continue the statement (a blank line, prose).
//
// cut scans bytes itself rather than with sqllex: it reads prose around
// the SQL, where a quote that no later quote closes is an apostrophe,
// ended by the newline, and a backtick may end inline code.
func cut(s string, i int, inline bool) (string, int) {
	depth := 0
	var q byte
	for p := i; p < len(s); p++ {
		c := s[p]
		if q != 0 {
			if c == q {
				q = 0
				continue
			}
			if c != '\n' || strings.IndexByte(s[p:], q) >= 0 {
				continue
			}
			q = 0 // a quote never closed is an apostrophe in prose
		}
		switch {
		case c == '`' && strings.HasPrefix(s[p:], "```"):
			return s[i:p], p
		case c == '`' && inline:
			return s[i:p], p + 1
		case c == '\'' || c == '"' || c == '`':
			q = c
		case commentStart(s, p):
			p = commentEnd(s, p) - 1
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ';':
			return s[i:p], p + 1
		case c == '\n':
			if !continues(s[i:p], s[p+1:], depth) && !(depth == 0 && cteOnly(s[i:p]) && startsSelect(s[p+1:])) {
				return s[i:p], p
			}
		}
	}
	return s[i:], len(s)
}

// cteOnly reports whether s is a WITH clause still waiting for its main
// query: it starts with WITH and holds no SELECT outside parentheses.
func cteOnly(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n(")
	if len(t) < 4 || !strings.EqualFold(t[:4], "with") {
		return false
	}
	depth, selects := 0, false
	sqllex.Scan(s, textLex, func(k sqllex.Token) bool { // never fails without Strict
		depth += parenStep(k)
		selects = depth == 0 && k.Kind == sqllex.Word && holdsSelect(k.Text)
		return !selects
	})
	return !selects
}

// holdsSelect reports whether the word w holds SELECT, in any case,
// between two bytes that start no identifier (SELECT1 does).
func holdsSelect(w string) bool {
	for i := 0; i+6 <= len(w); i++ {
		if (w[i] == 's' || w[i] == 'S') && strings.EqualFold(w[i:i+6], "select") &&
			(i == 0 || !isIdentStart(w[i-1])) && (i+6 == len(w) || !isIdentStart(w[i+6])) {
			return true
		}
	}
	return false
}

// startsSelect reports whether the first line of s starts with SELECT.
func startsSelect(s string) bool {
	t := strings.TrimLeft(s, " \t\r")
	return len(t) >= 6 && strings.EqualFold(t[:6], "select") && (len(t) == 6 || !isIdentStart(t[6]))
}

// contKeywords are the words that, written all upper or all lower case,
// start a line that continues a statement.
var contKeywords = wordSet(`FROM WHERE AND OR NOT JOIN INNER LEFT RIGHT FULL OUTER CROSS NATURAL ON USING
	GROUP ORDER BY HAVING LIMIT OFFSET UNION INTERSECT EXCEPT ALL AS CASE WHEN THEN ELSE END IN EXISTS
	BETWEEN LIKE GLOB REGEXP IS NULL DISTINCT ASC DESC WINDOW OVER PARTITION FETCH COLLATE ESCAPE NULLS`)

// openKeywords are the words after which a statement cannot end.
var openKeywords = wordSet(`SELECT FROM WHERE AND OR NOT JOIN ON BY AS IN LIKE GLOB BETWEEN HAVING UNION
	ALL INTERSECT EXCEPT CASE WHEN THEN ELSE DISTINCT SET WITH IS LIMIT OFFSET USING OUTER INNER LEFT RIGHT
	CROSS NATURAL FULL ORDER GROUP OVER PARTITION RECURSIVE VALUES EXISTS`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var listRe = regexp.MustCompile(`^(?:\d+[.)]|[-*+])[ \t]`)

// leadingWord returns the identifier s starts with: an ASCII letter or
// '_', then ASCII letters, digits, '_' and '$'; "" when s starts with
// none.
func leadingWord(s string) string {
	if s == "" || !isIdentStart(s[0]) {
		return ""
	}
	i := 1
	for i < len(s) && (isASCIIWord(s[i]) || s[i] == '$') {
		i++
	}
	return s[:i]
}

// continues reports whether the text after a newline, rest, continues the
// statement prev (cut so far) at paren depth.
func continues(prev, rest string, depth int) bool {
	line := rest
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		line = rest[:i]
	}
	t := strings.TrimSpace(line)
	if t == "" {
		return depth > 0 // a blank line inside parentheses (between CTEs)
	}
	if strings.HasPrefix(t, "```") {
		return false
	}
	if depth > 0 || open(prev) {
		return true
	}
	if strings.HasPrefix(t, "--") || strings.HasPrefix(t, "/*") {
		return true
	}
	if listRe.MatchString(t) {
		return false
	}
	if w := leadingWord(t); w != "" {
		if (w == strings.ToUpper(w) || w == strings.ToLower(w)) && contKeywords[strings.ToUpper(w)] {
			return true
		}
		after := strings.TrimLeft(t[len(w):], " \t")
		switch {
		case strings.HasPrefix(t[len(w):], "("):
			return true
		case len(t) > len(w)+1 && t[len(w)] == '.' && (isIdentStart(t[len(w)+1]) || t[len(w)+1] == '"' || t[len(w)+1] == '`'):
			return true
		case after != "" && strings.IndexByte("=<>!", after[0]) >= 0:
			return true
		}
		return false
	}
	return strings.IndexByte(`(),'"*.|=<>+/%`+"`", t[0]) >= 0 || (t[0] >= '0' && t[0] <= '9')
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// open reports whether the statement s cannot end where it does: its last
// line ends on a comma, an opening parenthesis, an operator or a keyword
// that needs an operand. It reads the last line only, cut at its first
// "--" wherever that lies: a heuristic over text, not a lexer's question.
func open(s string) bool {
	last := s
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		last = s[i+1:]
	}
	if i := strings.Index(last, "--"); i >= 0 {
		last = last[:i]
	}
	last = strings.TrimRight(last, " \t\r")
	if last == "" {
		return false
	}
	if c := last[len(last)-1]; !isIdentStart(c) {
		return strings.IndexByte(",(=<>+-/|", c) >= 0
	}
	i := len(last)
	for i > 0 && isIdentStart(last[i-1]) {
		i--
	}
	tok := last[i:]
	return openKeywords[strings.ToUpper(tok)]
}

// complete reports whether sql could be a whole statement: quotes and
// parentheses balance and it does not end on a dangling keyword or
// operator (as an answer cut at max_tokens would).
func complete(sql string) bool {
	depth := 0
	err := sqllex.Scan(sql, strictTextLex, func(k sqllex.Token) bool {
		depth += parenStep(k)
		return true
	})
	return err == nil && depth == 0 && !open(sql) && !cteOnly(sql)
}

// proseWords are English words that are not SQL keywords and rarely SQL
// identifiers; SQL cut from running text that holds them is prose.
var proseWords = wordSet(`the an of to we this that which will would should could can i you it its our
	your us there here these those was were be been has have me my sorry please following need needs want
	let let's i'm can't cannot don't`)

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '\'' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// prosey counts the prose words of s outside quotes (everywhere when the
// quotes do not balance, as in "I'm sorry").
func prosey(s string) int {
	outside := s
	// Without a quote byte s holds no literal: outside is s.
	if strings.ContainsAny(s, "'\"`") && (complete(s) || !strings.ContainsAny(s, `'"`)) {
		var b strings.Builder
		last := 0
		sqllex.Scan(s, textLex, func(k sqllex.Token) bool { // never fails without Strict
			if k.Kind == sqllex.String || k.Kind == sqllex.Ident {
				b.WriteString(s[last:k.Start])
				b.WriteByte(' ') // a literal reads as one space
				last = k.End
			}
			return true
		})
		b.WriteString(s[last:])
		outside = b.String()
	}
	n := 0
	for i := 0; i < len(outside); {
		if !isWordByte(outside[i]) {
			i++
			continue
		}
		// A word is a maximal run of identifier characters, so that the
		// "to" of link_to_event is no prose word; an alias qualifying a
		// column (we.energy) is none either.
		j := i
		for j < len(outside) && isWordByte(outside[j]) {
			j++
		}
		qualified := (i > 0 && outside[i-1] == '.') || (j < len(outside) && outside[j] == '.')
		if !qualified && proseWords[asciiLower(outside[i:j])] {
			n++
		}
		i = j
	}
	return n
}

// withRe is the shape a bare WITH statement must have: a CTE name, AS (
// and a SELECT, so that prose such as "I can't help with that." is never
// taken for SQL.
var withRe = regexp.MustCompile(`(?is)^WITH\s+(?:RECURSIVE\s+)?[\w"\x60\[\]]+\s*(?:\([^)]*\)\s*)?AS\s*(?:(?:NOT\s+)?MATERIALIZED\s*)?\(.*\bSELECT\b`)

// hasFrom reports whether s holds the word FROM, in any case, between
// bytes that are no ASCII letters, digits or '_' (what the regexp
// (?i)\bFROM\b finds: no other character folds to these letters): the FROM
// clause required of a SELECT found mid-sentence.
func hasFrom(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if s[i]|0x20 == 'f' && s[i+1]|0x20 == 'r' && s[i+2]|0x20 == 'o' && s[i+3]|0x20 == 'm' &&
			(i == 0 || !isASCIIWord(s[i-1])) && (i+4 == len(s) || !isASCIIWord(s[i+4])) {
			return true
		}
	}
	return false
}

// plausible reports whether s, a statement cut from running text, is SQL
// rather than prose that happens to contain "select" or "with": it must
// start with SELECT or WITH written in upper or lower case (not "Select",
// which starts sentences, unless the statement is labelled: it follows an
// SQL label such as "SQL:" or "Final SQL query:"), a WITH must have the
// CTE shape, a SELECT found mid-line must have a FROM clause, and it must
// hold no more than one English prose word (none without a FROM clause).
func plausible(s string, atLineStart, labelled bool) bool {
	s = strings.TrimSpace(s)
	if !LooksLikeSQL(s) {
		return false
	}
	w := leadingWord(strings.TrimLeft(s, "("))
	if w != strings.ToUpper(w) && w != strings.ToLower(w) {
		// A capitalised Select after a label is SQL only when it reads
		// from a table without a single prose word.
		return labelled && hasFrom(s) && prosey(s) == 0
	}
	if strings.EqualFold(w, "with") {
		return withRe.MatchString(s) && prosey(s) < 2
	}
	from := hasFrom(s)
	if !atLineStart && !from {
		return false
	}
	if from {
		return prosey(s) < 2
	}
	return prosey(s) == 0
}

// finish cleans an extracted statement: SQL comments and markdown escapes
// outside string literals removed, stray backticks, bold markers and a
// sentence's full stop stripped, trimmed, without trailing semicolons.
func finish(s string) string {
	s = stripComments(s)
	s = unescapeMarkdown(s)
	for {
		prev := s
		s = clean(s)
		s = strings.TrimSuffix(s, "**")
		s = strings.TrimPrefix(s, "**")
		if strings.HasSuffix(s, "`") && oddOutside(s, '`') {
			s = s[:len(s)-1]
		}
		if strings.HasPrefix(s, "`") && oddOutside(s, '`') {
			s = s[1:]
		}
		if strings.HasSuffix(s, `"`) && oddOutside(s, '"') {
			s = s[:len(s)-1] // the statement was quoted in prose
		}
		if n := len(s); n >= 2 && s[n-1] == '.' && !(s[n-2] >= '0' && s[n-2] <= '9') {
			s = s[:n-1] // a sentence's full stop
		}
		if s == prev {
			return s
		}
	}
}

// oddOutside reports whether s holds an odd number of the quote character
// c outside literals quoted with the other two of ', " and `: a stray one.
// It counts quote characters that a lexer would read as opening literals,
// so it scans bytes itself rather than with sqllex.
func oddOutside(s string, c byte) bool {
	n := 0
	var q byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case q != 0:
			if ch == q {
				q = 0
			}
		case ch == c:
			n++
		case ch == '\'' || ch == '"' || ch == '`':
			q = ch
		}
	}
	return n%2 == 1
}

// stripComments removes -- line comments and /* */ block comments outside
// quotes; a line that held only comments is removed with its newline.
func stripComments(s string) string {
	if !strings.Contains(s, "--") && !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:] is still to write
	// Scan never fails without Strict.
	sqllex.Scan(s, commentLex, func(k sqllex.Token) bool {
		if k.Kind != sqllex.Comment {
			return true
		}
		b.WriteString(s[last:k.Start])
		stop := k.End
		out := b.String()
		ls := strings.LastIndexByte(out, '\n') + 1
		rl := firstLine(s[stop:])
		b.Reset()
		if strings.TrimSpace(out[ls:]) == "" && strings.TrimSpace(rl) == "" {
			b.WriteString(out[:ls])            // the line held only comments
			last = min(stop+len(rl)+1, len(s)) // and goes with its newline
			return true
		}
		b.WriteString(strings.TrimRight(out, " \t"))
		if s[k.Start] == '/' && b.Len() > 0 && stop < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[stop])) {
			b.WriteByte(' ')
		}
		last = stop
		return true
	})
	b.WriteString(s[last:])
	return b.String()
}

// unescapeMarkdown removes the backslash of markdown escapes (\_, \*, \#,
// ...) outside string literals; SQL has no backslash there. Only '...'
// and "..." are literals here: a model escapes markdown inside backquoted
// names too (`first\_name`), so the scan is its own, not sqllex's.
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '\\' && i+1 < len(s) && s[i+1] == '\\': // an escaped backslash stays
			b.WriteString(`\\`)
			i++
			continue
		case c == '\\' && i+1 < len(s) && strings.IndexByte("_*#[]()<>|~-+.!{}`=", s[i+1]) >= 0:
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// textLex are the sqllex options SQL cut from running text is read with:
// '...', "..." and `...` quotes (brackets are markdown's or JSON's), no
// comments; strictTextLex makes an unterminated quote an error, and
// commentLex keeps "--" and /* */ comments.
var (
	textLex       = sqllex.Options{NoBrackets: true, NoComments: true}
	strictTextLex = sqllex.Options{NoBrackets: true, NoComments: true, Strict: true}
	commentLex    = sqllex.Options{NoBrackets: true, Comments: true}
)

// textTokens returns the tokens of s read with textLex; an unterminated
// quote runs to the end.
func textTokens(s string) []sqllex.Token {
	toks, _ := sqllex.Lex(s, textLex) // never fails without Strict
	return toks
}

// parenStep is what the token k adds to a parenthesis count: 1 for '(',
// -1 for ')', which may take it below zero (the counts here are of text
// cut from prose, where a ')' may close nothing).
func parenStep(k sqllex.Token) int {
	switch {
	case k.Kind != sqllex.Punct:
	case k.Text == "(":
		return 1
	case k.Text == ")":
		return -1
	}
	return 0
}

// commentStart reports whether an SQL comment (-- or /*) starts at s[i].
func commentStart(s string, i int) bool {
	return i+1 < len(s) && (s[i] == '-' && s[i+1] == '-' || s[i] == '/' && s[i+1] == '*')
}

// commentEnd returns where the SQL comment that starts at s[i] ends: before
// the newline of a -- comment, just past the */ of a block comment, or at
// the end of s when it is not closed.
func commentEnd(s string, i int) int {
	end := "*/"
	if s[i] == '-' {
		end = "\n"
	}
	j := strings.Index(s[i+2:], end)
	switch {
	case j < 0:
		return len(s)
	case s[i] == '-':
		return i + 2 + j
	}
	return i + 2 + j + 2
}
