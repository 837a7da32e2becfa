package metrics

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// Gold flags: why a gold query's result may differ from one execution to
// the next. A verdict carries the flags of its gold (Verdict.GoldFlags);
// golds with a flag that NondeterministicFlag accepts are never answered
// from the gold cache but executed beside each prediction, as the official
// scorers execute every gold.
const (
	// FlagStaticPrefix starts a flag naming a function or literal whose
	// value changes between executions: "static:RAND()", "static:NOW()",
	// "static:'now'", "static:CURRENT_TIMESTAMP".
	FlagStaticPrefix = "static:"
	// FlagRowOrderPrefix starts a flag naming a construct whose value
	// depends on the order rows reach it, which no ORDER BY fixes among
	// ties: "row_order:ROW_NUMBER()" (also NTILE, LAG, LEAD, FIRST_VALUE,
	// LAST_VALUE, NTH_VALUE), "row_order:ROWS frame" (a window frame counted
	// in rows), "row_order:SUM() OVER" (a windowed float sum, also AVG and
	// the STDDEV and VARIANCE family), "row_order:GROUP_CONCAT()" without its own ORDER BY (also
	// STRING_AGG, JSON_ARRAYAGG, JSON_GROUP_ARRAY). Found on the text, so a
	// window ordered by a unique key is flagged too.
	FlagRowOrderPrefix = "row_order:"
	// FlagLimitTie: a LIMIT/OFFSET cuts through rows that tie under the
	// query's ORDER BY, and the tied rows differ, so the server may return
	// either (seen by running the query without its LIMIT/OFFSET).
	FlagLimitTie = "limit_tie"
	// FlagSubqueryLimitTie is FlagLimitTie inside an uncorrelated subquery.
	FlagSubqueryLimitTie = "subquery_limit_tie"
	// FlagLimitNoOrder: a LIMIT without ORDER BY drops rows that differ
	// from the rows it keeps.
	FlagLimitNoOrder = "limit_no_order"
	// FlagGroupPick: MySQL may pick a non-aggregated column's value from
	// any row of each group (the query fails under ONLY_FULL_GROUP_BY).
	// Reported by the gold health check only, and not counted as
	// nondeterministic: MariaDB does not detect functional dependencies,
	// so a column that depends on the grouped key is reported too.
	FlagGroupPick = "group_pick"
	// FlagUnstable: two executions of the gold gave results that differ
	// under the mode's comparator. Reported by the gold health check.
	FlagUnstable = "unstable"
)

// NondeterministicFlag reports whether flag f marks a gold whose result
// may change between executions.
func NondeterministicFlag(f string) bool {
	switch f {
	case FlagLimitTie, FlagSubqueryLimitTie, FlagLimitNoOrder, FlagUnstable:
		return true
	}
	return strings.HasPrefix(f, FlagStaticPrefix) || strings.HasPrefix(f, FlagRowOrderPrefix)
}

var rowOrderFuncs = map[string]bool{
	"ROW_NUMBER": true, "NTILE": true, "LAG": true, "LEAD": true, "FIRST_VALUE": true, "LAST_VALUE": true, "NTH_VALUE": true,
}

// windowSums are aggregates whose floating-point result depends on the
// order they add rows in; as window functions MariaDB feeds them rows in
// an order that changes between executions (seen on LogicCat rice_cooker
// 1444: six runs, five different last digits).
var windowSums = map[string]bool{
	"SUM": true, "AVG": true, "STD": true, "STDDEV": true, "STDDEV_POP": true, "STDDEV_SAMP": true,
	"VARIANCE": true, "VAR_POP": true, "VAR_SAMP": true,
}

var concatAggs = map[string]bool{"GROUP_CONCAT": true, "STRING_AGG": true, "JSON_ARRAYAGG": true, "JSON_GROUP_ARRAY": true}

// rowOrderWords are text that every RowOrderFlags finding contains: the
// rowOrderFuncs, ROWS, the OVER that windowSums need, the concatAggs.
// Without any of them (containsAnyFoldASCII) the query is not tokenized.
var rowOrderWords = []string{"row_number", "ntile", "lag", "lead", "first_value", "last_value", "nth_value",
	"rows", "over", "group_concat", "string_agg", "json_arrayagg", "json_group_array"}

// staticWords are text that every StaticFlags finding contains: each
// volatileFuncs name holds one of them, and the literal 'now' holds "now".
var staticWords = []string{"rand", "uuid", "newid", "now", "cur", "sysdate", "utc_", "localtime", "unix_timestamp"}

var (
	rowOrderSet = newFoldWords(rowOrderWords)
	staticSet   = newFoldWords(staticWords)
)

// RowOrderFlags returns the FlagRowOrderPrefix flags of sql, each once, in
// order of first occurrence.
func RowOrderFlags(sql string) []string {
	if !rowOrderSet.in(sql) {
		return nil
	}
	toks := sqlTokens(sql)
	depth := tokenDepths(toks)
	var flags []string
	add := func(f string) {
		if !containsStr(flags, f) {
			flags = append(flags, f)
		}
	}
	next := func(i int) int {
		for j := i + 1; j < len(toks); j++ {
			if !isNoise(toks[j]) {
				return j
			}
		}
		return -1
	}
	for i, t := range toks {
		if t.kind != tokWord || (i > 0 && toks[i-1].text == ".") {
			continue
		}
		u := strings.ToUpper(t.text)
		j := next(i)
		switch {
		case rowOrderFuncs[u] && j >= 0 && toks[j].text == "(":
			add(FlagRowOrderPrefix + u + "()")
		case u == "ROWS" && j >= 0 && toks[j].kind == tokWord:
			switch w := strings.ToUpper(toks[j].text); {
			case w == "BETWEEN", w == "UNBOUNDED", w == "CURRENT", w[0] >= '0' && w[0] <= '9':
				add(FlagRowOrderPrefix + "ROWS frame")
			}
		case windowSums[u] && j >= 0 && toks[j].text == "(":
			k := j + 1
			for k < len(toks) && depth[k] > depth[j] {
				k++
			}
			if o := next(k); o >= 0 && isKW(toks[o], "OVER") {
				add(FlagRowOrderPrefix + u + "() OVER")
			}
		case concatAggs[u] && j >= 0 && toks[j].text == "(":
			ordered := false
			for k := j + 1; k < len(toks) && depth[k] > depth[j]; k++ {
				if depth[k] == depth[j]+1 && isKW(toks[k], "ORDER") {
					ordered = true
				}
			}
			if !ordered {
				add(FlagRowOrderPrefix + u + "()")
			}
		}
	}
	return flags
}

// Nondeterministic reports whether any of flags is NondeterministicFlag.
func Nondeterministic(flags []string) bool {
	for _, f := range flags {
		if NondeterministicFlag(f) {
			return true
		}
	}
	return false
}

// volatileFuncs are the functions whose value changes between executions,
// in SQLite and MySQL/MariaDB. The CURRENT_* and LOCAL* names are also
// keywords usable without parentheses.
var volatileFuncs = map[string]bool{
	"RAND": true, "RANDOM": true, "RANDOMBLOB": true, "UUID": true, "UUID_SHORT": true, "NEWID": true,
	"NOW": true, "CURDATE": true, "CURTIME": true, "SYSDATE": true, "UTC_DATE": true, "UTC_TIME": true,
	"UTC_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true,
	"LOCALTIME": true, "LOCALTIMESTAMP": true, "UNIX_TIMESTAMP": true,
}

// bareVolatile are the volatile names that need no parentheses.
var bareVolatile = map[string]bool{
	"CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true, "LOCALTIME": true, "LOCALTIMESTAMP": true,
}

// StaticFlags returns the FlagStaticPrefix flags of sql, found on its
// tokens (so names inside string literals, quoted identifiers and
// comments do not count, and the literal 'now' of SQLite's date functions
// does): calls of RAND(), RANDOM(), UUID(), NOW(), CURDATE(), SYSDATE(),
// UNIX_TIMESTAMP() without argument, ...; the keywords CURRENT_DATE,
// CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME, LOCALTIMESTAMP; and the
// string 'now'. Each flag appears once, in order of first occurrence.
func StaticFlags(sql string) []string {
	if !staticSet.in(sql) {
		return nil
	}
	toks := sqlTokens(sql)
	var flags []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			flags = append(flags, f)
		}
	}
	next := func(i int) int {
		for j := i + 1; j < len(toks); j++ {
			if k := toks[j].kind; k != tokSpace && k != tokLineComment && k != tokBlockComment {
				return j
			}
		}
		return -1
	}
	for i, t := range toks {
		switch t.kind {
		case tokWord:
			u := strings.ToUpper(t.text)
			if !volatileFuncs[u] {
				continue
			}
			j := next(i)
			if i > 0 && toks[i-1].text == "." {
				continue // a column named like the function: t.now
			}
			call := j >= 0 && toks[j].text == "("
			switch {
			case call && u == "UNIX_TIMESTAMP":
				if k := next(j); k >= 0 && toks[k].text == ")" {
					add(FlagStaticPrefix + "UNIX_TIMESTAMP()")
				}
			case call:
				add(FlagStaticPrefix + u + "()")
			case bareVolatile[u]:
				add(FlagStaticPrefix + u)
			}
		case tokQuoted:
			q := t.text[0]
			if q != '\'' && q != '"' {
				continue
			}
			body := strings.TrimSpace(strings.Trim(t.text, string(q)))
			if strings.EqualFold(body, "now") {
				add(FlagStaticPrefix + "'now'")
			}
		}
	}
	return flags
}

// queryShape is the clause structure of one SELECT query (top level or a
// parenthesised subquery) over a token slice, at the query's own depth.
type queryShape struct {
	lo, hi     int // token range of the query
	compound   bool
	distinct   bool
	itemLo     int // first token of the first SELECT's select list
	from       int // FROM of the first SELECT (or where the list ends)
	orderBy    int // the ORDER token of the final ORDER BY, -1 if none
	limit      int // the LIMIT token, -1 if none
	count, off int64
	limitOK    bool // count and off parsed from integer literals
}

// tokenDepths returns each token's parenthesis depth (a "(" has the depth
// outside it, its content one more), as sqlTokens read it from sqllex.
func tokenDepths(toks []sqlToken) []int {
	d := make([]int, len(toks))
	for i, t := range toks {
		d[i] = t.depth
	}
	return d
}

func isKW(t sqlToken, w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

func isNoise(t sqlToken) bool {
	return t.kind == tokSpace || t.kind == tokLineComment || t.kind == tokBlockComment
}

// shapeOf reads the structure of the query in toks[lo:hi] at depth d.
func shapeOf(toks []sqlToken, depth []int, lo, hi, d int) queryShape {
	q := queryShape{lo: lo, hi: hi, itemLo: -1, from: -1, orderBy: -1, limit: -1}
	selects := 0
	for i := lo; i < hi; i++ {
		t := toks[i]
		if depth[i] != d || t.kind != tokWord {
			continue
		}
		switch strings.ToUpper(t.text) {
		case "SELECT":
			selects++
			if selects == 1 {
				j := i + 1
				for j < hi && isNoise(toks[j]) {
					j++
				}
				if j < hi && (isKW(toks[j], "DISTINCT") || isKW(toks[j], "ALL")) {
					q.distinct = isKW(toks[j], "DISTINCT")
					j++
				}
				q.itemLo = j
			}
		case "UNION", "INTERSECT", "EXCEPT":
			q.compound = true
		case "FROM", "WHERE", "GROUP", "HAVING", "WINDOW":
			if selects == 1 && q.from < 0 && q.itemLo >= 0 {
				q.from = i
			}
		case "ORDER":
			q.orderBy = i
		case "LIMIT":
			q.limit = i
		}
	}
	if q.orderBy >= 0 && q.limit >= 0 && q.orderBy > q.limit {
		q.orderBy = -1 // an ORDER BY after LIMIT belongs to something else
	}
	if q.itemLo >= 0 && q.from < 0 {
		q.from = hi
		if q.orderBy >= 0 {
			q.from = q.orderBy
		} else if q.limit >= 0 {
			q.from = q.limit
		}
	}
	if q.limit >= 0 {
		q.count, q.off, q.limitOK = parseLimit(toks[q.limit+1 : hi])
	}
	return q
}

// parseLimit reads "n", "n OFFSET m" or "m, n" from the tokens after LIMIT.
func parseLimit(toks []sqlToken) (count, off int64, ok bool) {
	var words []string
	for _, t := range toks {
		if isNoise(t) {
			continue
		}
		words = append(words, t.text)
	}
	num := func(s string) (int64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && n >= 0
	}
	switch {
	case len(words) == 1:
		c, ok := num(words[0])
		return c, 0, ok
	case len(words) == 3 && strings.EqualFold(words[1], "OFFSET"):
		c, ok1 := num(words[0])
		o, ok2 := num(words[2])
		return c, o, ok1 && ok2
	case len(words) == 3 && words[1] == ",":
		o, ok1 := num(words[0])
		c, ok2 := num(words[2])
		return c, o, ok1 && ok2
	}
	return 0, 0, false
}

// splitTop splits toks[lo:hi] at commas of depth d and trims noise.
func splitTop(toks []sqlToken, depth []int, lo, hi, d int) [][2]int {
	var parts [][2]int
	start := lo
	for i := lo; i <= hi; i++ {
		if i == hi || (depth[i] == d && toks[i].kind == tokPunct && toks[i].text == ",") {
			a, b := start, i
			for a < b && isNoise(toks[a]) {
				a++
			}
			for b > a && isNoise(toks[b-1]) {
				b--
			}
			parts = append(parts, [2]int{a, b})
			start = i + 1
		}
	}
	return parts
}

func joinToks(toks []sqlToken) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

// normExpr is an expression's text for matching: no white space or
// comments, lower case, identifier quotes removed.
func normExpr(toks []sqlToken) string {
	var b strings.Builder
	for _, t := range toks {
		if isNoise(t) {
			continue
		}
		s := t.text
		if t.kind == tokQuoted && (s[0] == '`' || s[0] == '"' || s[0] == '[') {
			s = s[1 : len(s)-1]
		}
		b.WriteString(strings.ToLower(s))
	}
	return b.String()
}

// selectItem is one entry of a select list: its expression and alias
// (both normalised, alias "" when none).
type selectItem struct{ expr, alias string }

func selectItems(toks []sqlToken, depth []int, q queryShape, d int) []selectItem {
	var items []selectItem
	for _, p := range splitTop(toks, depth, q.itemLo, q.from, d) {
		it := toks[p[0]:p[1]]
		var sig []int // indices of non-noise tokens
		for i, t := range it {
			if !isNoise(t) {
				sig = append(sig, i)
			}
		}
		item := selectItem{expr: normExpr(it)}
		if n := len(sig); n >= 2 {
			last, prev := it[sig[n-1]], it[sig[n-2]]
			if last.kind == tokWord || last.kind == tokQuoted {
				switch {
				case isKW(prev, "AS"):
					item = selectItem{expr: normExpr(it[:sig[n-2]]), alias: normExpr(it[sig[n-1]:])}
				case prev.kind == tokWord || prev.kind == tokQuoted || prev.text == ")":
					item = selectItem{expr: normExpr(it[:sig[n-1]]), alias: normExpr(it[sig[n-1]:])}
				}
			}
		}
		items = append(items, item)
	}
	return items
}

// orderKey is one ORDER BY term: its text and, when it names a result
// column (a position, an alias or a select-list expression), that column.
type orderKey struct {
	text  string
	col   int // -1: not a result column
	pos   bool
	alias string
}

func orderKeys(toks []sqlToken, depth []int, q queryShape, d int, items []selectItem) []orderKey {
	start := q.orderBy + 1
	for start < q.hi && (isNoise(toks[start]) || isKW(toks[start], "BY")) {
		start++
	}
	end := q.hi
	if q.limit >= 0 {
		end = q.limit
	}
	var keys []orderKey
	for _, p := range splitTop(toks, depth, start, end, d) {
		a, b := p[0], p[1]
		// Drop ASC/DESC and NULLS FIRST/LAST.
		for b > a {
			t := toks[b-1]
			if isNoise(t) || isKW(t, "ASC") || isKW(t, "DESC") || isKW(t, "NULLS") || isKW(t, "FIRST") || isKW(t, "LAST") {
				b--
				continue
			}
			break
		}
		if a >= b {
			continue
		}
		k := orderKey{text: joinToks(toks[a:b]), col: -1}
		n := normExpr(toks[a:b])
		if pos, err := strconv.Atoi(n); err == nil && pos >= 1 {
			k.col, k.pos = pos-1, true
		} else {
			for i, it := range items {
				if it.alias != "" && it.alias == n {
					k.col, k.alias = i, it.alias
					break
				}
			}
			if k.col < 0 {
				for i, it := range items {
					if it.expr == n {
						k.col, k.alias = i, it.alias
						break
					}
				}
			}
		}
		keys = append(keys, k)
	}
	return keys
}

// limitProbe is how to look past one LIMIT: the query without its
// LIMIT/OFFSET (and with the ORDER BY terms that are not result columns
// appended to the select list), and where the key columns are.
type limitProbe struct {
	sql        string
	sub        bool // a subquery, not the whole statement
	ordered    bool
	count, off int64
	keys       []keyRef
	injected   int // key columns appended by the probe
}

// keyRef says where one ORDER BY key is in the probe's result: a fixed
// column (col >= 0), the inj-th appended column (inj >= 0), or the column
// named name (an alias in a select list holding a star, whose position is
// known only from the result).
type keyRef struct {
	col, inj int
	name     string
}

// resolve returns the probe result columns holding the keys, given the
// result's column names.
func (p limitProbe) resolve(cols []string) ([]int, error) {
	visible := len(cols) - p.injected
	out := make([]int, 0, len(p.keys))
	for _, k := range p.keys {
		switch {
		case k.inj >= 0:
			out = append(out, visible+k.inj)
		case k.name != "":
			at := -1
			for i, c := range cols[:visible] {
				if strings.EqualFold(c, k.name) {
					if at >= 0 {
						return nil, fmt.Errorf("ORDER BY %s names two result columns", k.name)
					}
					at = i
				}
			}
			if at < 0 {
				return nil, fmt.Errorf("ORDER BY %s names no result column", k.name)
			}
			out = append(out, at)
		case k.col < visible:
			out = append(out, k.col)
		default:
			return nil, fmt.Errorf("ORDER BY column %d of %d", k.col+1, visible)
		}
	}
	return out, nil
}

// limitProbes finds the LIMIT clauses of sql worth probing: the statement's
// own, and those of parenthesised subqueries (probed standalone, so only
// uncorrelated ones give an answer). Queries whose LIMIT is not integer
// literals, or whose ORDER BY terms cannot be read back (a DISTINCT or
// compound query ordered by an expression that is not a result column),
// are skipped: the second result reports them.
func limitProbes(sql string) (probes []limitProbe, unchecked []string) {
	if !containsFoldASCII(sql, "limit") {
		return nil, nil // no LIMIT token
	}
	toks := sqlTokens(sql)
	depth := tokenDepths(toks)
	offs := make([]int, len(toks)+1)
	for i, t := range toks {
		offs[i+1] = offs[i] + len(t.text)
	}
	// Drop a trailing ';'.
	hi := len(toks)
	for hi > 0 && (isNoise(toks[hi-1]) || (toks[hi-1].kind == tokPunct && toks[hi-1].text == ";")) {
		hi--
	}
	type region struct{ lo, hi, d int }
	regions := []region{{0, hi, 0}}
	for i := 0; i < hi; i++ {
		if toks[i].kind != tokPunct || toks[i].text != "(" {
			continue
		}
		j := i + 1
		for j < hi && isNoise(toks[j]) {
			j++
		}
		if j >= hi || !(isKW(toks[j], "SELECT") || isKW(toks[j], "WITH")) {
			continue
		}
		end := j
		for end < hi && !(depth[end] == depth[i] && toks[end].text == ")") {
			end++
		}
		regions = append(regions, region{i + 1, end, depth[i] + 1})
	}
	for ri, r := range regions {
		q := shapeOf(toks, depth, r.lo, r.hi, r.d)
		if q.limit < 0 {
			continue
		}
		where := "LIMIT"
		if ri > 0 {
			where = "subquery LIMIT"
		}
		if !q.limitOK {
			unchecked = append(unchecked, where+" is not integer literals")
			continue
		}
		if q.itemLo < 0 {
			unchecked = append(unchecked, where+": no select list found")
			continue
		}
		items := selectItems(toks, depth, q, r.d)
		star := false
		for _, it := range items {
			if it.expr == "*" || strings.HasSuffix(it.expr, ".*") {
				star = true
			}
		}
		p := limitProbe{sub: ri > 0, ordered: q.orderBy >= 0, count: q.count, off: q.off}
		var inject []string
		if q.orderBy >= 0 {
			for _, k := range orderKeys(toks, depth, q, r.d, items) {
				switch {
				case k.pos || (k.col >= 0 && !star):
					p.keys = append(p.keys, keyRef{col: k.col, inj: -1})
					continue
				case k.alias != "":
					p.keys = append(p.keys, keyRef{col: -1, inj: -1, name: k.alias})
					continue
				}
				if q.compound || q.distinct {
					inject = nil
					p.keys = nil
					break
				}
				p.keys = append(p.keys, keyRef{col: -1, inj: len(inject)})
				inject = append(inject, k.text)
			}
			if p.keys == nil {
				unchecked = append(unchecked, where+": ORDER BY term is not a result column of a DISTINCT or compound query")
				continue
			}
		}
		var b strings.Builder
		body := sql[offs[r.lo]:offs[q.from]]
		if len(inject) == 0 {
			b.WriteString(body)
		} else {
			trimmed := strings.TrimRight(body, " \t\r\n")
			b.WriteString(trimmed)
			for i, k := range inject {
				fmt.Fprintf(&b, ", (%s) AS t2s_order_key_%d", k, i+1)
			}
			if rest := body[len(trimmed):]; rest != "" {
				b.WriteString(rest)
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(sql[offs[q.from]:offs[q.limit]])
		p.sql = strings.TrimSpace(b.String())
		p.injected = len(inject)
		probes = append(probes, p)
	}
	return probes, unchecked
}

// TieInfo is what a LIMIT probe found about the statement's own LIMIT.
type TieInfo struct {
	// Rows is the statement's result without its LIMIT/OFFSET, in the
	// server's order, each row its visible columns followed by the ORDER BY
	// keys appended by the probe (see KeyCols).
	Rows    [][]any
	KeyCols []int
	Visible int
	Count   int64
	Offset  int64
	// Dialect is the database's (keyEqual compares text by it).
	Dialect string
	// Tie is true when the window [Offset, Offset+Count) cuts a group of
	// rows that tie on the keys and differ in their visible columns.
	Tie bool
}

// keyEqual reports whether rows a and b tie on the key columns. Values
// compare with Python's equality (1 == 1.0); on MySQL text also compares
// case-insensitively, as the default *_ci collations order it.
func keyEqual(a, b []any, cols []int, dialect string) bool {
	for _, c := range cols {
		x, y := a[c], b[c]
		px, err1 := toPy(x, textDropInvalid)
		py, err2 := toPy(y, textDropInvalid)
		if err1 != nil || err2 != nil {
			return false
		}
		if px.key == py.key {
			continue
		}
		if dialect == "mysql" && px.class == 's' && py.class == 's' && strings.EqualFold(strings.TrimRight(px.str, " "), strings.TrimRight(py.str, " ")) {
			continue
		}
		return false
	}
	return true
}

func visibleKey(row []any, n int) string {
	var b strings.Builder
	for _, v := range row[:n] {
		p, err := toPy(v, textDropInvalid)
		if err != nil {
			return fmt.Sprint(row[:n])
		}
		b.WriteString(strconv.Itoa(len(p.key)))
		b.WriteByte(':')
		b.WriteString(p.key)
	}
	return b.String()
}

// tieGroup returns, for rows sorted on keys, the [start, end) range of the
// tie group holding position i.
func tieGroup(rows [][]any, keys []int, dialect string, i int) (int, int) {
	lo, hi := i, i+1
	for lo > 0 && keyEqual(rows[lo-1], rows[i], keys, dialect) {
		lo--
	}
	for hi < len(rows) && keyEqual(rows[hi], rows[i], keys, dialect) {
		hi++
	}
	return lo, hi
}

// boundaryTie reports whether the window [off, off+count) of rows cuts a
// tie group whose rows differ in their first visible columns.
func boundaryTie(rows [][]any, keys []int, visible int, off, count int64, dialect string) bool {
	n := int64(len(rows))
	cut := func(at int) bool { // do the rows of the tie group holding position at differ?
		glo, ghi := tieGroup(rows, keys, dialect, at)
		first := visibleKey(rows[glo], visible)
		for _, r := range rows[glo+1 : ghi] {
			if visibleKey(r, visible) != first {
				return true
			}
		}
		return false
	}
	if off > 0 && off < n && keyEqual(rows[off-1], rows[off], keys, dialect) && cut(int(off)) {
		return true
	}
	end := off + count
	if count > 0 && end < n && end > 0 && keyEqual(rows[end-1], rows[end], keys, dialect) && cut(int(end)) {
		return true
	}
	return false
}

// noOrderCut reports whether a LIMIT without ORDER BY drops rows that
// differ from rows it keeps.
func noOrderCut(rows [][]any, visible int, off, count int64) bool {
	if off == 0 && count >= int64(len(rows)) {
		return false
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[visibleKey(r, visible)] = true
		if len(seen) > 1 {
			return true
		}
	}
	return false
}

// GoldAnalysis is what AnalyzeGold found about one gold query.
type GoldAnalysis struct {
	// Flags are the gold's flags (static, row_order, limit_tie,
	// subquery_limit_tie, limit_no_order), in that order.
	Flags []string
	// Unchecked lists LIMIT clauses that could not be probed, and why.
	Unchecked []string
	// Tie describes the statement's own ORDER BY ... LIMIT when its window
	// cuts a tie (FlagLimitTie); nil otherwise.
	Tie *TieInfo
}

// Nondeterministic reports whether the gold has a nondeterministic flag.
func (a GoldAnalysis) Nondeterministic() bool { return Nondeterministic(a.Flags) }

// AnalyzeGold finds the reasons the prepared gold sql may give another
// result on db next time: StaticFlags, then each LIMIT probe of limitProbes
// run through cache (the probe's result does not depend on how the server
// orders tied rows, so caching it is safe): a LIMIT whose window boundary
// cuts a tie group of differing rows is FlagLimitTie (FlagSubqueryLimitTie
// in a subquery), a LIMIT without ORDER BY that drops differing rows is
// FlagLimitNoOrder. A probe that fails (a correlated subquery run alone, a
// timeout) or whose result the row cap truncated is listed in Unchecked.
// AnalyzeGold returns an error only when ctx is canceled.
func AnalyzeGold(ctx context.Context, db datasets.Database, cache *GoldCache, sql string, timeout time.Duration) (GoldAnalysis, error) {
	a := GoldAnalysis{Flags: append(StaticFlags(sql), RowOrderFlags(sql)...)}
	probes, unchecked := limitProbes(sql)
	a.Unchecked = unchecked
	var flags []string
	for _, p := range probes {
		where := "LIMIT"
		if p.sub {
			where = "subquery LIMIT"
		}
		r, err := cache.Get(ctx, db, p.sql, timeout)
		if err != nil {
			return GoldAnalysis{}, err
		}
		if r.Status != ExecOK {
			a.Unchecked = append(a.Unchecked, fmt.Sprintf("%s probe failed: %s", where, truncate(r.Err, 120)))
			continue
		}
		rows := r.Result.Rows
		if r.Result.Truncated && p.off+p.count >= int64(len(rows)) {
			a.Unchecked = append(a.Unchecked, where+" probe truncated by the row cap")
			continue
		}
		visible := len(r.Result.Columns) - p.injected
		keyCols, err := p.resolve(r.Result.Columns)
		if err != nil {
			a.Unchecked = append(a.Unchecked, fmt.Sprintf("%s probe: %v", where, err))
			continue
		}
		switch {
		case p.ordered:
			tie := boundaryTie(rows, keyCols, visible, p.off, p.count, db.Dialect())
			if tie {
				if p.sub {
					flags = append(flags, FlagSubqueryLimitTie)
				} else {
					flags = append(flags, FlagLimitTie)
				}
			}
			if tie && !p.sub { // kept only when needed: Rows can be long
				a.Tie = &TieInfo{Rows: rows, KeyCols: keyCols, Visible: visible, Count: p.count, Offset: p.off, Dialect: db.Dialect(), Tie: tie}
			}
		case noOrderCut(rows, visible, p.off, p.count):
			flags = append(flags, FlagLimitNoOrder)
		}
	}
	for _, f := range flags {
		if !containsStr(a.Flags, f) {
			a.Flags = append(a.Flags, f)
		}
	}
	return a, nil
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// tieAwareGold returns, for a gold "ORDER BY ... LIMIT k [OFFSET m]" whose
// window cuts a tie group (tie), the valid top-k result closest to pred: a
// result the gold could have returned under some order of its tied rows.
// Walking the probe's rows group by group (rows tying on the ORDER BY
// keys), a group inside the window is taken whole; a group the window cuts
// gives as many rows as the window holds of it, chosen first among the
// rows pred holds (matched on their values: as a multiset of values for
// the Spider modes, whose comparator permutes columns; column by column
// otherwise), then in the server's order. Within each group the rows
// follow pred's order where pred holds them. So when pred is a valid top-k
// the result equals it under every mode, and when it is not the result is
// still a valid gold, which the mode's comparator then judges. This goes
// beyond every official scorer (ScoreOptions.TieAware).
func tieAwareGold(m Mode, tie *TieInfo, cols []string, pred *datasets.ResultSet) *datasets.ResultSet {
	match := func(row []any, n int) string {
		if !m.spiderFamily() {
			return visibleKey(row, n)
		}
		keys := make([]string, 0, n)
		for _, v := range row[:n] {
			p, err := toPy(v, textDropInvalid)
			if err != nil {
				return fmt.Sprint(row[:n])
			}
			keys = append(keys, p.key)
		}
		slices.Sort(keys)
		return strings.Join(keys, "\x00")
	}
	// Where each value row of pred stands, in order.
	predPos := map[string][]int{}
	for i, r := range pred.Rows {
		k := match(r, len(r))
		predPos[k] = append(predPos[k], i)
	}
	rows, dialect := tie.Rows, tie.Dialect
	n := int64(len(rows))
	lo, hi := min(tie.Offset, n), min(tie.Offset+tie.Count, n)
	out := &datasets.ResultSet{Columns: cols}
	for i := lo; i < hi; {
		glo, ghi := tieGroup(rows, tie.KeyCols, dialect, int(i))
		take := int(min(int64(ghi), hi) - i)
		type pick struct {
			row []any
			pos int
		}
		var picked []pick
		used := make([]bool, ghi-glo)
		for j := glo; j < ghi && len(picked) < take; j++ {
			k := match(rows[j], tie.Visible)
			if q := predPos[k]; len(q) > 0 {
				picked = append(picked, pick{rows[j][:tie.Visible], q[0]})
				predPos[k] = q[1:]
				used[j-glo] = true
			}
		}
		for j := glo; j < ghi && len(picked) < take; j++ {
			if !used[j-glo] {
				picked = append(picked, pick{rows[j][:tie.Visible], len(pred.Rows) + j})
			}
		}
		slices.SortStableFunc(picked, func(a, b pick) int { return a.pos - b.pos })
		for _, p := range picked {
			out.Rows = append(out.Rows, p.row)
		}
		i = int64(ghi)
	}
	return out
}

// DeterministicEX is EX over the verdicts whose gold has no
// nondeterministic flag, with the same counting as SummarizeEX's groups.
func DeterministicEX(vs []Verdict) EXGroup {
	var g EXGroup
	for _, v := range vs {
		if !Nondeterministic(v.GoldFlags) {
			g.add(v)
		}
	}
	g.finish()
	return g
}

// NondeterministicCount is the number of verdicts whose gold ran (the
// database exists and the gold neither failed nor timed out) and has a
// nondeterministic flag: the runnable questions DeterministicEX leaves
// out.
func NondeterministicCount(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		switch v.Status {
		case StatusMissingDB, StatusGoldError, StatusGoldTimeout:
			continue
		}
		if Nondeterministic(v.GoldFlags) {
			n++
		}
	}
	return n
}
