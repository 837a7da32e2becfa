package steinersql

import (
	"strings"

	"github.com/t2sbench/t2sbench/sqllex"
)

// The clause scanner: a small tokenizer that gives the structure the
// validator needs and SQLite's bytecode does not (the SELECT list, the
// GROUP BY list, aggregate calls, FROM aliases, literals). Which tables and
// columns a query reads comes from SQLite itself (explain.go), not from
// here.

// The tokens are sqltext's (shared with IESR's Table 4 analysis).
type token = sqllex.Token

const (
	tWord   = sqllex.Word
	tIdent  = sqllex.Ident
	tString = sqllex.String
	tNumber = sqllex.Number
	tPunct  = sqllex.Punct
)

func scanTokens(sql string) []token { return sqllex.Tokens(sql) }

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
		if t.Kind == tPunct && t.Text == "," && t.Depth == depth {
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
		if t.Is("SELECT") && (base < 0 || t.Depth < base) {
			base = t.Depth
		}
	}
	var out []selectCore
	for i := 0; i < len(toks); i++ {
		if !toks[i].Is("SELECT") || toks[i].Depth != base {
			continue
		}
		c := selectCore{aliases: map[string]string{}, depth: base}
		// The SELECT core runs to the next set operator at base depth.
		end := len(toks)
		for j := i + 1; j < len(toks); j++ {
			t := toks[j]
			if t.Depth < base || t.Depth == base && (t.Is("UNION") || t.Is("INTERSECT") || t.Is("EXCEPT")) {
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
			if t.Depth == base && t.Kind == tWord {
				next := ""
				if j+1 < end {
					next = strings.ToUpper(toks[j+1].Text)
				}
				switch strings.ToUpper(t.Text) {
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
			if clause == "from" && t.Depth == base && (t.Kind == tWord || t.Kind == tIdent) && !sqlWords[strings.ToUpper(t.Text)] {
				// table [AS] alias
				prev := toks[j-1]
				if prev.Is("FROM") || prev.Is("JOIN") || prev.Kind == tPunct && prev.Text == "," && prev.Depth == base {
					name := strings.ToLower(t.Text)
					c.aliases[name] = name
					k := j + 1
					if k < end && toks[k].Is("AS") {
						k++
					}
					if k < end && (toks[k].Kind == tWord || toks[k].Kind == tIdent) && !sqlWords[strings.ToUpper(toks[k].Text)] {
						c.aliases[strings.ToLower(toks[k].Text)] = name
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
		if t.Kind == tWord && aggregateFuncs[strings.ToUpper(t.Text)] && i+1 < len(toks) && toks[i+1].Text == "(" {
			out = append(out, strings.ToUpper(t.Text))
		}
	}
	return out
}

// isSubquery reports whether an item is a parenthesised SELECT.
func isSubquery(item []token) bool {
	return len(item) > 1 && item[0].Text == "(" && item[1].Is("SELECT")
}

// stripAlias returns the expression of a SELECT item and its alias.
func stripAlias(item []token) ([]token, string) {
	n := len(item)
	if n >= 3 && item[n-2].Is("AS") {
		return item[:n-2], strings.ToLower(item[n-1].Text)
	}
	if n >= 2 && (item[n-1].Kind == tWord || item[n-1].Kind == tIdent) && !sqlWords[strings.ToUpper(item[n-1].Text)] {
		p := item[n-2]
		if p.Kind == tWord || p.Kind == tIdent || p.Kind == tNumber || p.Kind == tString || p.Text == ")" {
			if !(p.Kind == tPunct && p.Text == ".") {
				return item[:n-1], strings.ToLower(item[n-1].Text)
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
		if t.Kind != tWord && t.Kind != tIdent {
			continue
		}
		if t.Kind == tWord && sqlWords[strings.ToUpper(t.Text)] {
			continue
		}
		if i+1 < len(toks) && toks[i+1].Text == "(" {
			continue // function call
		}
		if i > 0 && toks[i-1].Text == "." {
			continue // handled with its qualifier
		}
		if i+2 < len(toks) && toks[i+1].Text == "." && (toks[i+2].Kind == tWord || toks[i+2].Kind == tIdent) {
			out = append(out, colRef{qual: strings.ToLower(t.Text), name: strings.ToLower(toks[i+2].Text)})
			i += 2
			continue
		}
		if i+2 < len(toks) && toks[i+1].Text == "." && toks[i+2].Text == "*" {
			i += 2
			continue
		}
		out = append(out, colRef{name: strings.ToLower(t.Text)})
	}
	return out
}

// exprKey is a normalised text of an expression for comparisons.
func exprKey(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(strings.ToLower(t.Text))
		b.WriteByte(' ')
	}
	return b.String()
}

// stringLiterals concatenates the string literals of toks, one space
// after each.
func stringLiterals(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.Kind == tString {
			b.WriteString(t.Text)
			b.WriteByte(' ')
		}
	}
	return b.String()
}
