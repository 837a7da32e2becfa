package steinersql

import (
	"strings"
	"unicode"
)

// The clause scanner: a small tokenizer that gives the structure the
// validator needs and SQLite's bytecode does not (the SELECT list, the
// GROUP BY list, aggregate calls, FROM aliases, literals). Which tables and
// columns a query reads comes from SQLite itself (explain.go), not from
// here.

type tokKind int

const (
	tWord   tokKind = iota // bare word: keyword or identifier
	tIdent                 // quoted identifier ("x", `x`, [x])
	tString                // 'text'
	tNumber                // 12, 3.5
	tPunct                 // ( ) , . * = < ...
)

type token struct {
	kind  tokKind
	text  string // identifiers unquoted, strings unquoted
	depth int    // parenthesis depth before the token
}

func (t token) is(kw string) bool { return t.kind == tWord && strings.EqualFold(t.text, kw) }

// scanTokens tokenizes sql. Comments are skipped; unterminated quotes run
// to the end.
func scanTokens(sql string) []token {
	var out []token
	depth := 0
	r := []rune(sql)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			i += 2
			for i+1 < len(r) && !(r[i] == '*' && r[i+1] == '/') {
				i++
			}
			i += 2
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			var b strings.Builder
			j := i + 1
			for j < len(r) {
				if r[j] == end {
					if end != ']' && j+1 < len(r) && r[j+1] == end {
						b.WriteRune(end)
						j += 2
						continue
					}
					break
				}
				b.WriteRune(r[j])
				j++
			}
			k := tIdent
			if c == '\'' {
				k = tString
			}
			out = append(out, token{kind: k, text: b.String(), depth: depth})
			i = j + 1
		case unicode.IsDigit(c) || c == '.' && i+1 < len(r) && unicode.IsDigit(r[i+1]):
			j := i
			for j < len(r) && (unicode.IsDigit(r[j]) || r[j] == '.' || r[j] == 'e' || r[j] == 'E') {
				j++
			}
			out = append(out, token{kind: tNumber, text: string(r[i:j]), depth: depth})
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			out = append(out, token{kind: tWord, text: string(r[i:j]), depth: depth})
			i = j
		default:
			if c == ')' {
				depth = max(0, depth-1)
			}
			text := string(c)
			if i+1 < len(r) && strings.Contains("<>=!|", string(c)) && strings.Contains("<>=|", string(r[i+1])) {
				text += string(r[i+1])
				i++
			}
			out = append(out, token{kind: tPunct, text: text, depth: depth})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	return out
}

// aggregateFuncs are SQL's aggregate functions (SQLite and MySQL names).
var aggregateFuncs = map[string]bool{
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true, "TOTAL": true,
	"GROUP_CONCAT": true, "STDDEV": true, "VARIANCE": true,
}

// sqlWords are keywords and type names that are never column references.
var sqlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT OFFSET AS ON JOIN LEFT RIGHT
		INNER OUTER CROSS NATURAL FULL USING AND OR NOT NULL IS IN LIKE GLOB BETWEEN EXISTS CASE WHEN THEN ELSE END
		DISTINCT ALL UNION INTERSECT EXCEPT ASC DESC CAST INTEGER INT REAL TEXT NUMERIC FLOAT DOUBLE VARCHAR CHAR
		SIGNED UNSIGNED DECIMAL DATE DATETIME TRUE FALSE WITH RECURSIVE ESCAPE COLLATE NOCASE OVER PARTITION
		ROWS RANGE INTERVAL FILTER`) {
		sqlWords[w] = true
	}
}

// colRef is a column reference: optional qualifier and name, lower-cased.
type colRef struct{ qual, name string }

// selectCore is the structure of one top-level SELECT core.
type selectCore struct {
	items   [][]token // SELECT list items (alias included)
	groupBy [][]token
	orderBy [][]token
	// where and having are the tokens of the WHERE and HAVING clauses.
	where, having []token
	// depth is the parenthesis depth of the core's SELECT keyword.
	depth int
	limit bool
	// aliases maps a FROM/JOIN alias (and each bare table name) to the
	// table name, lower-cased.
	aliases map[string]string
}

// splitCommas splits toks at commas of the given depth.
func splitCommas(toks []token, depth int) [][]token {
	var out [][]token
	start := 0
	for i, t := range toks {
		if t.kind == tPunct && t.text == "," && t.depth == depth {
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

// cores returns the SELECT cores at the outermost depth that holds a
// SELECT (depth 0, or the first level inside parentheses for a query
// wrapped in them); CTE bodies are skipped because they sit inside
// parentheses after WITH.
func cores(toks []token) []selectCore {
	base := -1
	for _, t := range toks {
		if t.is("SELECT") && (base < 0 || t.depth < base) {
			base = t.depth
		}
	}
	var out []selectCore
	for i := 0; i < len(toks); i++ {
		if !toks[i].is("SELECT") || toks[i].depth != base {
			continue
		}
		c := selectCore{aliases: map[string]string{}, depth: base}
		// The SELECT core runs to the next set operator at base depth.
		end := len(toks)
		for j := i + 1; j < len(toks); j++ {
			t := toks[j]
			if t.depth < base || t.depth == base && (t.is("UNION") || t.is("INTERSECT") || t.is("EXCEPT")) {
				end = j
				break
			}
		}
		clause := ""
		var cur []token
		flush := func() {
			switch clause {
			case "select":
				c.items = splitCommas(cur, base)
			case "group":
				c.groupBy = splitCommas(cur, base)
			case "order":
				c.orderBy = splitCommas(cur, base)
			case "where":
				c.where = cur
			case "having":
				c.having = cur
			}
			cur = nil
		}
		clause = "select"
		for j := i + 1; j < end; j++ {
			t := toks[j]
			if t.depth == base && t.kind == tWord {
				next := ""
				if j+1 < end {
					next = strings.ToUpper(toks[j+1].text)
				}
				switch strings.ToUpper(t.text) {
				case "DISTINCT", "ALL":
					if clause == "select" && len(cur) == 0 {
						continue
					}
				case "FROM":
					flush()
					clause = "from"
					continue
				case "WHERE":
					flush()
					clause = "where"
					continue
				case "GROUP":
					if next == "BY" {
						flush()
						clause = "group"
						j++
						continue
					}
				case "HAVING":
					flush()
					clause = "having"
					continue
				case "ORDER":
					if next == "BY" {
						flush()
						clause = "order"
						j++
						continue
					}
				case "LIMIT":
					flush()
					clause = "limit"
					c.limit = true
					continue
				case "WINDOW":
					flush()
					clause = "window"
					continue
				}
			}
			if clause == "from" && t.depth == base && (t.kind == tWord || t.kind == tIdent) && !sqlWords[strings.ToUpper(t.text)] {
				// table [AS] alias
				prev := toks[j-1]
				if prev.is("FROM") || prev.is("JOIN") || prev.kind == tPunct && prev.text == "," && prev.depth == base {
					name := strings.ToLower(t.text)
					c.aliases[name] = name
					k := j + 1
					if k < end && toks[k].is("AS") {
						k++
					}
					if k < end && (toks[k].kind == tWord || toks[k].kind == tIdent) && !sqlWords[strings.ToUpper(toks[k].text)] {
						c.aliases[strings.ToLower(toks[k].text)] = name
					}
				}
			}
			cur = append(cur, t)
		}
		flush()
		out = append(out, c)
		i = end - 1
	}
	return out
}

// aggregates returns the upper-cased aggregate functions called in toks.
func aggregates(toks []token) []string {
	var out []string
	for i, t := range toks {
		if t.kind == tWord && aggregateFuncs[strings.ToUpper(t.text)] && i+1 < len(toks) && toks[i+1].text == "(" {
			out = append(out, strings.ToUpper(t.text))
		}
	}
	return out
}

// isSubquery reports whether an item is a parenthesised SELECT.
func isSubquery(item []token) bool {
	return len(item) > 1 && item[0].text == "(" && item[1].is("SELECT")
}

// stripAlias returns the expression of a SELECT item and its alias.
func stripAlias(item []token) ([]token, string) {
	n := len(item)
	if n >= 3 && item[n-2].is("AS") {
		return item[:n-2], strings.ToLower(item[n-1].text)
	}
	if n >= 2 && (item[n-1].kind == tWord || item[n-1].kind == tIdent) && !sqlWords[strings.ToUpper(item[n-1].text)] {
		p := item[n-2]
		if p.kind == tWord || p.kind == tIdent || p.kind == tNumber || p.kind == tString || p.text == ")" {
			if !(p.kind == tPunct && p.text == ".") {
				return item[:n-1], strings.ToLower(item[n-1].text)
			}
		}
	}
	return item, ""
}

// columnRefs returns the column references in toks (identifiers that are
// not keywords, not function names and not qualifiers).
func columnRefs(toks []token) []colRef {
	var out []colRef
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tWord && t.kind != tIdent {
			continue
		}
		if t.kind == tWord && sqlWords[strings.ToUpper(t.text)] {
			continue
		}
		if i+1 < len(toks) && toks[i+1].text == "(" {
			continue // function call
		}
		if i > 0 && toks[i-1].text == "." {
			continue // handled with its qualifier
		}
		if i+2 < len(toks) && toks[i+1].text == "." && (toks[i+2].kind == tWord || toks[i+2].kind == tIdent) {
			out = append(out, colRef{qual: strings.ToLower(t.text), name: strings.ToLower(toks[i+2].text)})
			i += 2
			continue
		}
		if i+2 < len(toks) && toks[i+1].text == "." && toks[i+2].text == "*" {
			i += 2
			continue
		}
		out = append(out, colRef{name: strings.ToLower(t.text)})
	}
	return out
}

// exprKey is a normalised text of an expression for comparisons.
func exprKey(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(strings.ToLower(t.text))
		b.WriteByte(' ')
	}
	return b.String()
}

// stringLiterals concatenates the string literals of toks, one space
// after each.
func stringLiterals(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.kind == tString {
			b.WriteString(t.text)
			b.WriteByte(' ')
		}
	}
	return b.String()
}
