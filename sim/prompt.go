package sim

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sqllex"
)

// Prompt is what the simulated model reads in a request: the text of every
// message, and the schema the text shows, parsed from the two renderings
// the runners send (datasets.RenderDDL's CREATE TABLE statements and
// datasets.RenderMSchema's "# Table:" blocks). Identifiers are matched
// case-insensitively, quoted (`x`, "x", [x]) or not.
type Prompt struct {
	// Text is the messages' contents joined by newlines.
	Text string
	// Tables are the tables the schema section shows, in prompt order
	// (a table shown twice is listed once, with the union of its columns).
	Tables []PromptTable

	norm  string         // normalizeText(Text)
	index map[string]int // lower-case table name -> Tables index

	// mu guards scored, the tables scored against scoredText
	// (Sample.scored).
	mu         sync.Mutex
	scored     []scoredTable
	scoredText string
}

// PromptTable is one table of a prompt's schema section.
type PromptTable struct {
	Name    string
	Columns []PromptColumn
}

// PromptColumn is one column of a PromptTable, with the value examples the
// rendering shows for it.
type PromptColumn struct {
	Name     string
	Type     string
	Examples []string
}

// ParsePrompt reads the messages of a request.
func ParsePrompt(msgs []llm.Message) *Prompt {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return parsePromptText(b.String())
}

func parsePromptText(text string) *Prompt {
	p := &Prompt{Text: text, norm: normalizeText(text), index: map[string]int{}}
	lower := lowerASCII(text)
	p.parseDDL(lower)
	p.parseMSchema()
	p.parseTableList(lower)
	return p
}

// lowerASCII returns s with the ASCII letters A-Z in lower case: every
// byte stays at its offset, so that an index found in it is one in s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// asciiWord reports whether c is a byte of regexp's \w ([0-9A-Za-z_]).
func asciiWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// Table returns the prompt's table named name (case-insensitive).
func (p *Prompt) Table(name string) (*PromptTable, bool) {
	i, ok := p.index[strings.ToLower(name)]
	if !ok {
		i, ok = p.index[strings.ToLower(unquote(name))]
	}
	if !ok {
		return nil, false
	}
	return &p.Tables[i], true
}

// HasColumn reports whether the prompt shows column col of table.
func (p *Prompt) HasColumn(table, col string) bool {
	t, ok := p.Table(table)
	return ok && t.HasColumn(col)
}

// HasColumn reports whether the table shows the column called name
// (case-insensitive).
func (t *PromptTable) HasColumn(name string) bool {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// Contains reports whether s occurs in the prompt as a whole phrase:
// case-insensitive, white space collapsed, and not inside a longer word
// (so that 'T' is not found in every "the").
func (p *Prompt) Contains(s string) bool {
	n := normalizeText(s)
	if n == "" {
		return true
	}
	for from := 0; ; {
		i := strings.Index(p.norm[from:], n)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(n)
		if !wordByteAt(p.norm, i-1) || !wordByteAt(p.norm, i) {
			if !wordByteAt(p.norm, j) || !wordByteAt(p.norm, j-1) {
				return true
			}
		}
		from = i + 1
	}
}

// wordByteAt reports whether s[i] exists and is part of a word.
func wordByteAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func (p *Prompt) add(name string) *PromptTable {
	key := strings.ToLower(name)
	if i, ok := p.index[key]; ok {
		return &p.Tables[i]
	}
	p.index[key] = len(p.Tables)
	p.Tables = append(p.Tables, PromptTable{Name: name})
	return &p.Tables[len(p.Tables)-1]
}

func (t *PromptTable) addColumn(c PromptColumn) {
	for _, x := range t.Columns {
		if strings.EqualFold(x.Name, c.Name) {
			return
		}
	}
	t.Columns = append(t.Columns, c)
}

// identPat matches one identifier, quoted or not.
const identPat = "(`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|\\[[^\\]]+\\]|[\\p{L}_][\\p{L}\\p{N}_$]*)"

var (
	// createRe matches a CREATE TABLE head at the start of its input;
	// createMatches finds where it may start.
	createRe = regexp.MustCompile(`^(?i)CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?` + identPat + `\s*\(`)
	// mtableRe matches an M-Schema table line at the start of its input;
	// mtableMatches finds where it may start.
	mtableRe    = regexp.MustCompile(`^#\s*Table:\s*([^,\n]+)`)
	mcolumnRe   = regexp.MustCompile(`^\(\s*([^:]+?)\s*:\s*([^,)]*)`)
	valueRe     = regexp.MustCompile("`([^`]*)`")
	mexRe       = regexp.MustCompile(`Examples:\s*\[(.*)\]`)
	leadIdentRe = regexp.MustCompile(`^` + identPat)
	listHeadRe  = regexp.MustCompile(`(?i)tables:\s*$`)
	listItemRe  = regexp.MustCompile(`^\s*[-*]\s*` + identPat + `\s*\(([^()]*)\)\s*$`)
)

// unquote strips one level of identifier quotes.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		switch {
		case s[0] == '`' && s[len(s)-1] == '`':
			return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
		case s[0] == '"' && s[len(s)-1] == '"':
			return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		case s[0] == '[' && s[len(s)-1] == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// parseTableList reads the compact schema of a table list: a line ending
// in "tables:" followed, up to a blank line, by lines "- name(col, col)"
// (SteinerSQL's decomposition prompt shows the schema this way). Only such
// blocks are read, so that a bulleted "- COUNT(x)" elsewhere is no table.
func (p *Prompt) parseTableList(lower string) {
	in := false
	start := 0
	for line := range strings.Lines(p.Text) {
		end := start + len(line)
		line = strings.TrimSuffix(line, "\n")
		// A line listHeadRe matches holds "table" in some ASCII case: no
		// letter of it has another case folding to it.
		head := strings.Contains(lower[start:end], "table") && listHeadRe.MatchString(line)
		start = end
		switch {
		case head:
			in = true
		case !in:
		case strings.TrimSpace(line) == "":
			in = false
		default:
			m := listItemRe.FindStringSubmatch(line)
			if m == nil {
				in = false
				continue
			}
			t := p.add(unquote(m[1]))
			for _, c := range strings.Split(m[2], ",") {
				if c = unquote(c); c != "" {
					t.addColumn(PromptColumn{Name: c})
				}
			}
		}
	}
}

var ddlNonColumn = map[string]bool{"PRIMARY": true, "FOREIGN": true, "CONSTRAINT": true, "UNIQUE": true, "CHECK": true, "KEY": true, "INDEX": true}

// parseDDL reads CREATE TABLE statements: the body up to the matching
// parenthesis, split at top-level commas, each item's first identifier a
// column unless it starts a constraint. A "-- Value Examples:" comment
// gives the column's examples.
func (p *Prompt) parseDDL(lower string) {
	text := p.Text
	for _, loc := range createMatches(text, lower) {
		t := p.add(unquote(text[loc[2]:loc[3]]))
		for _, item := range ddlBody(text[loc[1]:]) {
			def, comment := strings.TrimSpace(item.def), item.comment
			if def == "" {
				continue
			}
			m := leadIdentRe.FindString(def)
			if m == "" || ddlNonColumn[strings.ToUpper(m)] {
				continue
			}
			c := PromptColumn{Name: unquote(m), Type: strings.TrimSpace(def[len(m):])}
			if i := strings.Index(comment, "Value Examples:"); i >= 0 {
				for _, v := range valueRe.FindAllStringSubmatch(comment[i:], -1) {
					c.Examples = append(c.Examples, v[1])
				}
			}
			t.addColumn(c)
		}
	}
}

// createMatches returns what
//
//	regexp.MustCompile(`(?i)\bCREATE\s+TABLE...`).FindAllStringSubmatchIndex(text, -1)
//
// returns, with createRe (the same pattern, anchored, without \b) tried only
// where such a match can start: at a "create" of lower (text in lower case,
// lowerASCII; no letter of "create" has a non-ASCII case folding to it)
// that no \w byte precedes.
func createMatches(text, lower string) [][]int {
	return anchoredMatches(text, createRe, func(from int) int {
		return indexWhere(lower, "create", from, func(i int) bool { return i == 0 || !asciiWord(text[i-1]) })
	})
}

// mtableMatches returns what
//
//	regexp.MustCompile(`(?m)^#\s*Table:\s*([^,\n]+)`).FindAllStringSubmatchIndex(text, -1)
//
// returns, with mtableRe (the same pattern anchored at its input's start)
// tried only at a '#' that starts a line.
func mtableMatches(text string) [][]int {
	return anchoredMatches(text, mtableRe, func(from int) int {
		return indexWhere(text, "#", from, func(i int) bool { return i == 0 || text[i-1] == '\n' })
	})
}

// indexWhere returns the first offset i >= from of sub in s for which ok(i)
// holds, -1 for none.
func indexWhere(s, sub string, from int, ok func(i int) bool) int {
	for {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return -1
		}
		if i += from; ok(i) {
			return i
		}
		from = i + 1
	}
}

// anchoredMatches returns the submatch indexes in text of re, a pattern
// anchored at its input's start, tried at each offset next gives (the
// first place at or after from where a match may start, -1 for none).
// Like FindAllStringSubmatchIndex, each search goes on from the end of the
// match before; re's matches are never empty.
func anchoredMatches(text string, re *regexp.Regexp, next func(from int) int) [][]int {
	var out [][]int
	for from := 0; from < len(text); {
		i := next(from)
		if i < 0 {
			break
		}
		loc := re.FindStringSubmatchIndex(text[i:])
		if loc == nil {
			from = i + 1
			continue
		}
		for k := range loc {
			if loc[k] >= 0 {
				loc[k] += i
			}
		}
		out = append(out, loc)
		from = loc[1]
	}
	return out
}

// ddlItem is one item of a CREATE TABLE body and the "--" comment on its
// line.
type ddlItem struct{ def, comment string }

// ddlLex are the sqllex options ddlBody reads a CREATE TABLE body with:
// quotes ('...', "...", `...`, [...]) and "--" comments, kept; "/*" is
// no comment; an unterminated quote is an error.
var ddlLex = sqllex.Options{Comments: true, NoBlockComments: true, Strict: true}

// ddlBody splits the text after a CREATE TABLE's "(" into its items, up to
// the matching ")". A comment belongs to the item it follows on its line
// (the renderings put it after the item's comma). Text with an
// unterminated quote yields the items before it.
//
// It lexes s only up to the ")" (sqllex.Scan): s is the rest of the whole
// prompt, and lexing all of it for every table made a prompt's parse grow
// with its tables times its length.
func ddlBody(s string) []ddlItem {
	r := ddlReader{s: s, closedLine: -1}
	// On an unterminated quote Scan has read the tokens before it: the
	// body ends at the quote unless it closed before.
	sqllex.Scan(s, ddlLex, r.token)
	return r.items
}

// ddlReader is ddlBody's state as it reads the tokens of s.
type ddlReader struct {
	s     string
	items []ddlItem
	cur   ddlItem
	def   strings.Builder
	depth int
	line  int // newlines outside quotes and comments
	// closedLine is the line of the last item's comma, -1 before one.
	closedLine int
	last       int
}

// token reads token t; it returns false once the body's ")" is read.
func (r *ddlReader) token(t sqllex.Token) bool {
	gap := r.s[r.last:t.Start]
	r.def.WriteString(gap)
	r.line += strings.Count(gap, "\n")
	r.last = t.End
	raw := r.s[t.Start:t.End]
	switch {
	case t.Kind == sqllex.Comment:
		comment := raw[2:]
		if strings.TrimSpace(r.def.String()) == "" && r.closedLine == r.line && len(r.items) > 0 {
			r.items[len(r.items)-1].comment += comment
		} else {
			r.cur.comment += comment
		}
		return true
	case t.Kind != sqllex.Punct:
	case raw == "(":
		r.depth++
	case raw == ")" && r.depth == 0:
		r.cur.def = r.def.String()
		r.items = append(r.items, r.cur)
		return false
	case raw == ")":
		r.depth--
	case raw == "," && r.depth == 0:
		r.cur.def = r.def.String()
		r.items = append(r.items, r.cur)
		r.cur, r.closedLine = ddlItem{}, r.line
		r.def.Reset()
		return true
	}
	r.def.WriteString(raw)
	return true
}

// parseMSchema reads M-Schema "# Table: name" blocks: one "(col:TYPE, ...)"
// per line between "[" and "]".
func (p *Prompt) parseMSchema() {
	text := p.Text
	for _, loc := range mtableMatches(text) {
		t := p.add(unquote(strings.TrimSpace(text[loc[2]:loc[3]])))
		rest := text[loc[1]:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		}
		for _, line := range strings.Split(rest, "\n") {
			line = strings.TrimSpace(line)
			if line == "[" || line == "" {
				continue
			}
			m := mcolumnRe.FindStringSubmatch(line)
			if m == nil {
				break
			}
			c := PromptColumn{Name: unquote(m[1]), Type: strings.TrimSpace(m[2])}
			if ex := mexRe.FindStringSubmatch(line); ex != nil {
				for _, v := range strings.Split(ex[1], ", ") {
					c.Examples = append(c.Examples, strings.TrimSpace(v))
				}
			}
			t.addColumn(c)
		}
	}
}

// wordsOf splits text into lower-case words (letters and digits).
func wordsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
