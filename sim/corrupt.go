package sim

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/sqllex"
)

// Corruption kinds the simulator applies to a gold SQL to make a wrong
// answer, in the spirit of the error taxonomies of Text-to-SQL papers
// (schema linking, clause and value errors).
const (
	CorruptColumn    = "wrong_column"    // a selected column swapped for another column of its table
	CorruptPredicate = "drop_predicate"  // one WHERE predicate (or the whole WHERE) dropped
	CorruptAggregate = "wrong_aggregate" // COUNT<->SUM, MAX<->MIN, AVG<->SUM
	CorruptJoin      = "wrong_join"      // a join key changed or a join condition dropped
	CorruptLimit     = "limit_off_by_one"
	CorruptOrder     = "flip_order"      // ASC<->DESC on the first ORDER BY term
	CorruptLiteral   = "changed_literal" // a number or string constant changed
	CorruptFallback  = "empty_result"    // last resort: wrap the query so it returns no rows
)

// corruptionKinds lists the kinds tried (in an order drawn per sample).
var corruptionKinds = []string{CorruptColumn, CorruptPredicate, CorruptAggregate, CorruptJoin, CorruptLimit, CorruptOrder, CorruptLiteral}

// Corrupt returns a realistic, deterministic (given rng) corruption of sql
// and the kind applied. The result always differs from sql: kinds whose
// pattern is absent are skipped, and when none applies the query is wrapped
// to return no rows. schema may be nil; the wrong-column kind and schema-aware
// join-key and literal changes then fall back to other kinds.
func Corrupt(sql string, schema *datasets.Schema, rng *rand.Rand) (string, string) {
	toks := tokenize(sql)
	order := rng.Perm(len(corruptionKinds))
	for _, k := range order {
		kind := corruptionKinds[k]
		var out []token
		var ok bool
		switch kind {
		case CorruptColumn:
			out, ok = wrongColumn(toks, schema, rng)
		case CorruptPredicate:
			out, ok = dropPredicate(toks, rng)
		case CorruptAggregate:
			out, ok = wrongAggregate(toks, rng)
		case CorruptJoin:
			out, ok = wrongJoin(toks, schema, rng)
		case CorruptLimit:
			out, ok = limitOffByOne(toks, rng)
		case CorruptOrder:
			out, ok = flipOrder(toks)
		case CorruptLiteral:
			out, ok = changeLiteral(toks, schema, rng)
		}
		if ok {
			if s := joinTokens(out); s != sql {
				return s, kind
			}
		}
	}
	body := strings.TrimRight(strings.TrimSpace(sql), ";")
	return "SELECT * FROM (" + body + ") AS sim_t WHERE 1 = 0", CorruptFallback
}

type tokKind uint8

const (
	tkSpace tokKind = iota
	tkWord
	tkNumber
	tkString // '...'
	tkIdent  // "...", `...`, [...]
	tkPunct
)

type token struct {
	kind tokKind
	text string
}

// simLex are the sqllex options tokenize reads SQL with: ASCII words, white
// space and operators, numbers without exponents, no comments ("--" is two
// minus signs), quotes ('...', "...", `...`, [...]) running to the end
// when unterminated.
var simLex = sqllex.Options{Bytes: true, Spaces: " \t\n\r", NoComments: true, NoExponent: true,
	Operators: []string{"<=", ">=", "<>", "!=", "||", "=="}}

// tokenize splits SQL into tokens whose concatenation is the input: the
// tokens of sqllex (simLex), quoted ones with their quotes, and the white
// space between them.
func tokenize(s string) []token {
	lt, _ := sqllex.Lex(s, simLex) // never fails without Strict
	out := make([]token, 0, 2*len(lt)+1)
	last := 0
	for _, t := range lt {
		if last < t.Start {
			out = append(out, token{tkSpace, s[last:t.Start]})
		}
		last = t.End
		k := tkPunct
		switch t.Kind {
		case sqllex.Word:
			k = tkWord
		case sqllex.Number:
			k = tkNumber
		case sqllex.String:
			k = tkString
		case sqllex.Ident:
			k = tkIdent
		}
		out = append(out, token{k, s[t.Start:t.End]})
	}
	if last < len(s) {
		out = append(out, token{tkSpace, s[last:]})
	}
	return out
}

func joinTokens(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

func (t token) is(word string) bool { return t.kind == tkWord && strings.EqualFold(t.text, word) }

// name returns the identifier a word or quoted-identifier token names.
func (t token) name() string {
	if t.kind == tkIdent && len(t.text) >= 2 {
		return t.text[1 : len(t.text)-1]
	}
	return t.text
}

// nextTok returns the index of the next non-space token after i, or -1.
func nextTok(toks []token, i int) int {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].kind != tkSpace {
			return j
		}
	}
	return -1
}

// prevTok returns the index of the previous non-space token before i, or -1.
func prevTok(toks []token, i int) int {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind != tkSpace {
			return j
		}
	}
	return -1
}

func replaced(toks []token, i int, text string) []token {
	out := append([]token(nil), toks...)
	out[i].text = text
	return out
}

// without returns toks without [lo, hi).
func without(toks []token, lo, hi int) []token {
	out := append([]token(nil), toks[:lo]...)
	return append(out, toks[hi:]...)
}

var clauseEnd = map[string]bool{
	"GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "UNION": true, "INTERSECT": true,
	"EXCEPT": true, "WINDOW": true, "OFFSET": true,
}

var joinWords = map[string]bool{"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "CROSS": true, "NATURAL": true, "FULL": true, "OUTER": true, "WHERE": true}

// clauseRange returns the end (exclusive) of the clause starting after
// token i: the first token at the same parenthesis depth that ends it.
func clauseRange(toks []token, i int, stop func(t token) bool) int {
	depth := 0
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			if depth == 0 {
				return j
			}
			depth--
		case t.text == ";" && depth == 0:
			return j
		case depth == 0 && stop(t):
			return j
		}
	}
	return len(toks)
}

func isClauseEnd(t token) bool { return t.kind == tkWord && clauseEnd[strings.ToUpper(t.text)] }

// splitConds splits toks[lo:hi) into AND/OR-separated conditions at depth
// 0 (the AND of BETWEEN x AND y stays inside its condition). It returns the
// connector token indexes.
func splitConds(toks []token, lo, hi int) []int {
	var conns []int
	depth := 0
	between := false
	for j := lo; j < hi; j++ {
		t := toks[j]
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case depth == 0 && t.is("BETWEEN"):
			between = true
		case depth == 0 && t.is("AND") && between:
			between = false
		case depth == 0 && (t.is("AND") || t.is("OR")):
			conns = append(conns, j)
		}
	}
	return conns
}

// dropCond removes one of the conditions in toks[lo:hi) separated by
// connectors conns; it returns false when there is only one.
func dropCond(toks []token, lo, hi int, conns []int, rng *rand.Rand) ([]token, bool) {
	if len(conns) == 0 {
		return nil, false
	}
	k := rng.IntN(len(conns) + 1)
	if k == 0 { // first condition and the connector after it
		return without(toks, lo, nextTok(toks, conns[0])), true
	}
	end := hi
	if k < len(conns) {
		end = conns[k]
	}
	// from the space before connector k-1 to the end of condition k
	start := conns[k-1]
	if p := start - 1; p >= 0 && toks[p].kind == tkSpace {
		start = p
	}
	for end > start && toks[end-1].kind == tkSpace {
		end--
	}
	return without(toks, start, end), true
}

func dropPredicate(toks []token, rng *rand.Rand) ([]token, bool) {
	var wheres []int
	for i, t := range toks {
		if t.is("WHERE") {
			wheres = append(wheres, i)
		}
	}
	if len(wheres) == 0 {
		return nil, false
	}
	w := wheres[rng.IntN(len(wheres))]
	end := clauseRange(toks, w, isClauseEnd)
	lo := nextTok(toks, w)
	if lo < 0 || lo >= end {
		return nil, false
	}
	if out, ok := dropCond(toks, lo, end, splitConds(toks, lo, end), rng); ok {
		return out, true
	}
	// the only predicate: drop the whole WHERE clause
	start := w
	if p := w - 1; p >= 0 && toks[p].kind == tkSpace {
		start = p
	}
	stop := end
	for stop > w && toks[stop-1].kind == tkSpace {
		stop--
	}
	return without(toks, start, stop), true
}

var aggSwap = map[string][]string{"COUNT": {"SUM"}, "SUM": {"COUNT", "AVG"}, "AVG": {"SUM"}, "MAX": {"MIN"}, "MIN": {"MAX"}}

func wrongAggregate(toks []token, rng *rand.Rand) ([]token, bool) {
	var cands []int
	for i, t := range toks {
		if t.kind != tkWord {
			continue
		}
		if _, ok := aggSwap[strings.ToUpper(t.text)]; !ok {
			continue
		}
		p := nextTok(toks, i)
		if p < 0 || toks[p].text != "(" {
			continue
		}
		if a := nextTok(toks, p); strings.EqualFold(t.text, "COUNT") && a >= 0 && toks[a].text == "*" {
			continue // SUM(*) is not SQL
		}
		cands = append(cands, i)
	}
	if len(cands) == 0 {
		return nil, false
	}
	i := cands[rng.IntN(len(cands))]
	opts := aggSwap[strings.ToUpper(toks[i].text)]
	repl := opts[rng.IntN(len(opts))]
	if toks[i].text == strings.ToLower(toks[i].text) {
		repl = strings.ToLower(repl)
	}
	return replaced(toks, i, repl), true
}

func limitOffByOne(toks []token, rng *rand.Rand) ([]token, bool) {
	for i, t := range toks {
		if !t.is("LIMIT") {
			continue
		}
		j := nextTok(toks, i)
		if j < 0 || toks[j].kind != tkNumber {
			continue
		}
		n, err := strconv.Atoi(toks[j].text)
		if err != nil {
			continue
		}
		if n > 1 && rng.IntN(2) == 0 {
			n--
		} else {
			n++
		}
		return replaced(toks, j, strconv.Itoa(n)), true
	}
	return nil, false
}

func flipOrder(toks []token) ([]token, bool) {
	for i, t := range toks {
		if !t.is("ORDER") {
			continue
		}
		by := nextTok(toks, i)
		if by < 0 || !toks[by].is("BY") {
			continue
		}
		end := clauseRange(toks, by, func(t token) bool { return t.text == "," || isClauseEnd(t) })
		last := prevTok(toks, end)
		if last <= by {
			continue
		}
		switch {
		case toks[last].is("ASC"):
			return replaced(toks, last, matchCase(toks[last].text, "DESC")), true
		case toks[last].is("DESC"):
			return replaced(toks, last, matchCase(toks[last].text, "ASC")), true
		}
		out := append([]token(nil), toks[:last+1]...)
		out = append(out, token{tkSpace, " "}, token{tkWord, matchCase(toks[i].text, "DESC")})
		return append(out, toks[last+1:]...), true
	}
	return nil, false
}

func matchCase(like, word string) string {
	if like == strings.ToLower(like) {
		return strings.ToLower(word)
	}
	return word
}

// tableRefs maps the aliases and names of the tables in FROM/JOIN clauses
// (lower-cased) to their schema tables.
func tableRefs(toks []token, schema *datasets.Schema) map[string]*datasets.Table {
	refs := map[string]*datasets.Table{}
	if schema == nil {
		return refs
	}
	for i, t := range toks {
		if !t.is("FROM") && !t.is("JOIN") && !(t.text == "," && inFrom(toks, i)) {
			continue
		}
		j := nextTok(toks, i)
		if j < 0 || (toks[j].kind != tkWord && toks[j].kind != tkIdent) {
			continue
		}
		tab, ok := schema.Table(toks[j].name())
		if !ok {
			continue
		}
		refs[strings.ToLower(tab.Name)] = tab
		a := nextTok(toks, j)
		if a >= 0 && toks[a].is("AS") {
			a = nextTok(toks, a)
		}
		if a >= 0 && (toks[a].kind == tkWord && !sqlKeyword(toks[a].text) || toks[a].kind == tkIdent) {
			refs[strings.ToLower(toks[a].name())] = tab
		}
	}
	return refs
}

// inFrom reports whether the comma at i is in a FROM list.
func inFrom(toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		if t.kind != tkWord {
			if t.text == "(" || t.text == ")" {
				return false
			}
			continue
		}
		switch strings.ToUpper(t.text) {
		case "FROM":
			return true
		case "SELECT", "WHERE", "GROUP", "ORDER", "ON", "HAVING":
			return false
		}
	}
	return false
}

var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "JOIN": true, "ON": true, "AS": true, "AND": true, "OR": true,
	"NOT": true, "GROUP": true, "BY": true, "ORDER": true, "LIMIT": true, "HAVING": true, "UNION": true,
	"INTERSECT": true, "EXCEPT": true, "INNER": true, "LEFT": true, "RIGHT": true, "OUTER": true, "CROSS": true,
	"NATURAL": true, "USING": true, "IN": true, "LIKE": true, "BETWEEN": true, "IS": true, "NULL": true,
	"DISTINCT": true, "ASC": true, "DESC": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true,
	"END": true, "EXISTS": true, "OFFSET": true, "ALL": true, "CAST": true, "FULL": true, "WINDOW": true,
}

func sqlKeyword(s string) bool { return keywords[strings.ToUpper(s)] }

// colRef is a column reference at token i (the column token), with its
// table.
type colRef struct {
	i   int
	tab *datasets.Table
}

// columnRefs lists the column references in toks[lo:hi) that resolve to a
// table in refs.
func columnRefs(toks []token, lo, hi int, refs map[string]*datasets.Table) []colRef {
	var out []colRef
	names := slices.Sorted(maps.Keys(refs))
	for i := lo; i < hi; i++ {
		t := toks[i]
		if t.kind != tkWord && t.kind != tkIdent || t.kind == tkWord && sqlKeyword(t.text) {
			continue
		}
		if n := nextTok(toks, i); n >= 0 && (toks[n].text == "(" || toks[n].text == ".") {
			continue // a function or a qualifier
		}
		var tab *datasets.Table
		if p := prevTok(toks, i); p > 0 && toks[p].text == "." {
			tab = refs[strings.ToLower(toks[p-1].name())]
			if tab == nil || !hasColumn(tab, t.name()) {
				continue
			}
		} else {
			// In name order: map order would make the answer differ
			// between runs when several tables have the column.
			for _, k := range names {
				if r := refs[k]; hasColumn(r, t.name()) {
					tab = r
					break
				}
			}
		}
		if tab != nil && len(tab.Columns) > 1 {
			out = append(out, colRef{i, tab})
		}
	}
	return out
}

func hasColumn(t *datasets.Table, name string) bool {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// otherColumn picks another column of tab, preferring one of the same type
// (and, when keyish, a key-like name), quoted like orig.
func otherColumn(tab *datasets.Table, orig token, keyish bool, rng *rand.Rand) (string, bool) {
	var typ string
	for _, c := range tab.Columns {
		if strings.EqualFold(c.Name, orig.name()) {
			typ = strings.ToUpper(c.Type)
		}
	}
	var same, other []string
	for _, c := range tab.Columns {
		if strings.EqualFold(c.Name, orig.name()) {
			continue
		}
		if keyish && !(c.Primary || strings.HasSuffix(strings.ToLower(c.Name), "id")) {
			other = append(other, c.Name)
			continue
		}
		if strings.ToUpper(c.Type) == typ {
			same = append(same, c.Name)
		} else {
			other = append(other, c.Name)
		}
	}
	pool := same
	if len(pool) == 0 {
		pool = other
	}
	if len(pool) == 0 {
		return "", false
	}
	return quoteLike(orig, pool[rng.IntN(len(pool))]), true
}

// quoteLike quotes name the way orig was quoted, or with double quotes when
// name is not a plain identifier.
func quoteLike(orig token, name string) string {
	if orig.kind == tkIdent {
		o, c := orig.text[:1], orig.text[len(orig.text)-1:]
		return o + name + c
	}
	plain := name != "" && !sqlKeyword(name)
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			plain = false
		}
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func wrongColumn(toks []token, schema *datasets.Schema, rng *rand.Rand) ([]token, bool) {
	refs := tableRefs(toks, schema)
	if len(refs) == 0 {
		return nil, false
	}
	// Prefer the SELECT list of the first SELECT; else any column.
	var cands []colRef
	for i, t := range toks {
		if t.is("SELECT") {
			end := clauseRange(toks, i, func(t token) bool { return t.is("FROM") })
			cands = columnRefs(toks, i+1, end, refs)
			break
		}
	}
	if len(cands) == 0 {
		cands = columnRefs(toks, 0, len(toks), refs)
	}
	for len(cands) > 0 {
		k := rng.IntN(len(cands))
		c := cands[k]
		if name, ok := otherColumn(c.tab, toks[c.i], false, rng); ok {
			return replaced(toks, c.i, name), true
		}
		cands = append(cands[:k], cands[k+1:]...)
	}
	return nil, false
}

func wrongJoin(toks []token, schema *datasets.Schema, rng *rand.Rand) ([]token, bool) {
	var ons []int
	for i, t := range toks {
		if t.is("ON") {
			ons = append(ons, i)
		}
	}
	if len(ons) == 0 {
		return nil, false
	}
	on := ons[rng.IntN(len(ons))]
	end := clauseRange(toks, on, func(t token) bool {
		return isClauseEnd(t) || t.kind == tkWord && joinWords[strings.ToUpper(t.text)]
	})
	lo := nextTok(toks, on)
	if lo < 0 || lo >= end {
		return nil, false
	}
	// Change a join key (schema known) half of the time.
	if refs := tableRefs(toks, schema); len(refs) > 0 && rng.IntN(2) == 0 {
		cands := columnRefs(toks, lo, end, refs)
		for len(cands) > 0 {
			k := rng.IntN(len(cands))
			c := cands[k]
			if name, ok := otherColumn(c.tab, toks[c.i], true, rng); ok {
				return replaced(toks, c.i, name), true
			}
			cands = append(cands[:k], cands[k+1:]...)
		}
	}
	if out, ok := dropCond(toks, lo, end, splitConds(toks, lo, end), rng); ok {
		return out, true
	}
	// Drop the only join condition: the join becomes a cross join.
	start := on
	if p := on - 1; p >= 0 && toks[p].kind == tkSpace {
		start = p
	}
	stop := end
	for stop > on && toks[stop-1].kind == tkSpace {
		stop--
	}
	return without(toks, start, stop), true
}

func changeLiteral(toks []token, schema *datasets.Schema, rng *rand.Rand) ([]token, bool) {
	var cands []int
	for i, t := range toks {
		if t.kind != tkNumber && t.kind != tkString {
			continue
		}
		if afterLimit(toks, i) {
			continue
		}
		if p := prevTok(toks, i); p >= 0 && toks[p].text == "." {
			continue
		}
		cands = append(cands, i)
	}
	if len(cands) == 0 {
		return nil, false
	}
	i := cands[rng.IntN(len(cands))]
	t := toks[i]
	if t.kind == tkNumber {
		if n, err := strconv.ParseInt(t.text, 10, 64); err == nil {
			if n > 0 && rng.IntN(2) == 0 {
				n--
			} else {
				n++
			}
			return replaced(toks, i, strconv.FormatInt(n, 10)), true
		}
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, false
		}
		return replaced(toks, i, strconv.FormatFloat(f+1, 'f', -1, 64)), true
	}
	val := strings.ReplaceAll(t.text[1:len(t.text)-1], "''", "'")
	// Another value of the compared column, when the schema shows some.
	if refs := tableRefs(toks, schema); len(refs) > 0 {
		op := prevTok(toks, i)
		if op >= 0 && (toks[op].text == "=" || toks[op].text == "!=" || toks[op].text == "<>") {
			if c := prevTok(toks, op); c >= 0 {
				if rs := columnRefs(toks, c, c+1, refs); len(rs) == 1 {
					for _, col := range rs[0].tab.Columns {
						if !strings.EqualFold(col.Name, toks[c].name()) {
							continue
						}
						var alts []string
						for _, e := range col.Examples {
							if e != val {
								alts = append(alts, e)
							}
						}
						if len(alts) > 0 {
							v := alts[rng.IntN(len(alts))]
							return replaced(toks, i, "'"+strings.ReplaceAll(v, "'", "''")+"'"), true
						}
					}
				}
			}
		}
	}
	core := strings.Trim(val, "%")
	like := false
	if op := prevTok(toks, i); op >= 0 && toks[op].is("LIKE") {
		like = true // LIKE ignores ASCII case in SQLite and MySQL
	}
	var mut string
	switch {
	case like:
		mut = core + "x"
	case core != strings.ToLower(core):
		mut = strings.ToLower(core)
	case len(core) > 1:
		mut = core[:len(core)-1]
	default:
		mut = core + "x"
	}
	mut = strings.Replace(val, core, mut, 1)
	return replaced(toks, i, "'"+strings.ReplaceAll(mut, "'", "''")+"'"), true
}

// afterLimit reports whether the number at i is a LIMIT or OFFSET operand.
func afterLimit(toks []token, i int) bool {
	p := prevTok(toks, i)
	if p < 0 {
		return false
	}
	if toks[p].is("LIMIT") || toks[p].is("OFFSET") {
		return true
	}
	if toks[p].text == "," {
		if q := prevTok(toks, p); q >= 0 {
			r := prevTok(toks, q)
			return r >= 0 && toks[r].is("LIMIT")
		}
	}
	return false
}
