package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/sqllex"
)

// Spider hardness levels, as the official evaluator names them.
const (
	HardnessEasy   = "easy"
	HardnessMedium = "medium"
	HardnessHard   = "hard"
	HardnessExtra  = "extra"
)

// HardnessCounts are the three quantities the official Spider evaluator
// (taoyds/test-suite-sql-eval evaluation.py: count_component1,
// count_component2, count_others) derives from a parsed gold query.
type HardnessCounts struct {
	// Component1 = [WHERE] + [GROUP BY] + [ORDER BY] + [LIMIT]
	// + (FROM table units - 1) + OR connectives in ON/WHERE/HAVING
	// + LIKE conditions in ON/WHERE/HAVING.
	Component1 int
	// Component2 = nested SELECTs in ON/WHERE/HAVING conditions
	// + [INTERSECT] + [UNION] + [EXCEPT] of the outermost query.
	Component2 int
	// Others = [aggregates > 1] + [SELECT columns > 1]
	// + [WHERE conditions > 1] + [GROUP BY columns > 1].
	Others int
}

// Level maps the counts to easy/medium/hard/extra with the rules of
// eval_hardness:
//
//	easy:   c1 <= 1 && others == 0 && c2 == 0
//	medium: (others <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && others < 2 && c2 == 0)
//	hard:   (others > 2 && c1 <= 2 && c2 == 0) || (2 < c1 <= 3 && others <= 2 && c2 == 0)
//	        || (c1 <= 1 && others == 0 && c2 <= 1)
//	extra:  everything else
func (h HardnessCounts) Level() string {
	c1, c2, o := h.Component1, h.Component2, h.Others
	switch {
	case c1 <= 1 && o == 0 && c2 == 0:
		return HardnessEasy
	case (o <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && o < 2 && c2 == 0):
		return HardnessMedium
	case (o > 2 && c1 <= 2 && c2 == 0) || (2 < c1 && c1 <= 3 && o <= 2 && c2 == 0) || (c1 <= 1 && o == 0 && c2 <= 1):
		return HardnessHard
	default:
		return HardnessExtra
	}
}

// SpiderHardness returns the Spider hardness level of a SQL query, counted
// from the SQL text by CountHardness.
func SpiderHardness(sql string) (string, error) {
	h, err := CountHardness(sql)
	if err != nil {
		return "", err
	}
	return h.Level(), nil
}

// CountHardness counts the eval_hardness components from SQL text with a
// light clause scanner (no schema needed). It follows the official
// evaluator's counting, including its quirks:
//   - only the outermost query (the left operand of INTERSECT/UNION/EXCEPT)
//     is counted; the right operand adds 1 to Component2;
//   - a subquery in FROM is a table unit (Component1), not a nested query;
//   - an ON condition is cut at its first OR, as in the parse trees of
//     Spider's dev.json (whose counts give the published 248/446/174/166);
//   - in WHERE, a condition counts as an "aggregate" only when negated
//     (NOT IN, NOT LIKE, NOT BETWEEN): the evaluator tests the cond unit's
//     first field, which is the not-flag;
//   - in HAVING, every AND/OR connective and every negated condition counts
//     as an aggregate, for the same reason; aggregates in HAVING operands do
//     not count.
func CountHardness(sql string) (HardnessCounts, error) {
	toks, err := lexSQL(sql)
	if err != nil {
		return HardnessCounts{}, err
	}
	return countHardness(toks)
}

// countHardness is CountHardness on the tokens of the query.
func countHardness(toks []sqlTok) (HardnessCounts, error) {
	for len(toks) > 0 && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return HardnessCounts{}, fmt.Errorf("hardness: empty query")
	}
	if err := checkParens(toks); err != nil {
		return HardnessCounts{}, err
	}
	toks = unwrap(toks)
	if len(toks) == 0 || !toks[0].is("select") {
		return HardnessCounts{}, fmt.Errorf("hardness: query does not start with SELECT")
	}
	var h HardnessCounts
	// Split the outermost set operation: left operand is counted.
	if i := indexTop(toks, 0, "intersect", "union", "except"); i >= 0 {
		h.Component2++
		toks = toks[:i]
	}
	cl := splitClauses(toks)
	aggs := 0

	// SELECT list.
	sel := cl["select"]
	if len(sel) > 0 && sel[0].is("distinct") {
		sel = sel[1:]
	}
	aggs += h.addList(sel)

	// FROM: table units and ON conditions.
	if from, ok := cl["from"]; ok {
		units, conds := splitFrom(from)
		if units > 0 {
			h.Component1 += units - 1
		}
		for _, c := range conds {
			// The parse trees Spider ships (and its hardness counts) keep
			// an ON condition only up to its first OR.
			if i := indexTop(c, 0, "or"); i >= 0 {
				c = c[:i]
			}
			h.addConds(c)
		}
	}

	// WHERE.
	if w, ok := cl["where"]; ok {
		h.Component1++
		cs := h.addConds(w)
		aggs += cs.negated
		if cs.n > 1 {
			h.Others++
		}
	}

	// GROUP BY.
	if g, ok := cl["group"]; ok {
		h.Component1++
		aggs += h.addList(g)
	}

	// HAVING.
	if hv, ok := cl["having"]; ok {
		cs := h.addConds(hv)
		aggs += cs.negated + cs.n - 1
	}

	// ORDER BY: aggregates of both operands of each value unit.
	if ob, ok := cl["order"]; ok {
		h.Component1++
		for _, it := range splitTop(ob, ",") {
			aggs += countTopAggs(it)
		}
	}
	if _, ok := cl["limit"]; ok {
		h.Component1++
	}
	if aggs > 1 {
		h.Others++
	}
	return h, nil
}

// addList counts a comma list (the SELECT items, the GROUP BY columns):
// more than one item is one more "other". It returns how many items start
// with an aggregate.
func (h *HardnessCounts) addList(toks []sqlTok) int {
	items := splitTop(toks, ",")
	if len(items) > 1 {
		h.Others++
	}
	aggs := 0
	for _, it := range items {
		if startsWithAgg(it) {
			aggs++
		}
	}
	return aggs
}

// addConds counts a condition list's ORs and LIKEs (component 1) and its
// nested queries (component 2), and returns the list's stats.
func (h *HardnessCounts) addConds(toks []sqlTok) condStats {
	cs := scanConds(toks)
	h.Component1 += cs.ors + cs.likes
	h.Component2 += cs.nested
	return cs
}

// hardnessLex are the sqllex options of lexSQL.
var hardnessLex = sqllex.Options{Strict: true, NoComments: true, WordChars: "_$", Qualified: true}

// sqlTok is one lexical token; text is lower-cased except for literals.
type sqlTok struct {
	text string
	lit  bool // string literal or quoted identifier
}

func (t sqlTok) is(words ...string) bool {
	if t.lit {
		return false
	}
	for _, w := range words {
		if t.text == w {
			return true
		}
	}
	return false
}

// lexSQL splits SQL into tokens with sqllex: an unterminated quote is an
// error, comment markers are punctuation, as in the official evaluator's
// tokenizer, and a word runs on through dots (t1.name), digits and
// non-ASCII characters. Words are lower-cased; string literals and quoted
// identifiers keep their quotes.
func lexSQL(s string) ([]sqlTok, error) {
	lt, err := sqllex.Lex(s, hardnessLex)
	if err != nil {
		var le *sqllex.Error
		if errors.As(err, &le) {
			return nil, fmt.Errorf("hardness: unterminated quote starting at byte %d", le.Offset)
		}
		return nil, fmt.Errorf("hardness: %w", err)
	}
	toks := make([]sqlTok, len(lt))
	for i, t := range lt {
		switch t.Kind {
		case sqllex.Word, sqllex.Number:
			toks[i] = sqlTok{text: strings.ToLower(t.Text)}
		case sqllex.String, sqllex.Ident:
			toks[i] = sqlTok{text: s[t.Start:t.End], lit: true}
		default:
			toks[i] = sqlTok{text: t.Text}
		}
	}
	return toks, nil
}

func checkParens(toks []sqlTok) error {
	d := 0
	for _, t := range toks {
		if t.is("(") {
			d++
		} else if t.is(")") {
			d--
			if d < 0 {
				return fmt.Errorf("hardness: unbalanced ')'")
			}
		}
	}
	if d != 0 {
		return fmt.Errorf("hardness: unbalanced '('")
	}
	return nil
}

// unwrap removes parentheses enclosing the whole token list.
func unwrap(toks []sqlTok) []sqlTok {
	for len(toks) >= 2 && toks[0].is("(") && matchParen(toks, 0) == len(toks)-1 {
		toks = toks[1 : len(toks)-1]
	}
	return toks
}

// matchParen returns the index of the ')' matching the '(' at i, or -1.
func matchParen(toks []sqlTok, i int) int {
	d := 0
	for j := i; j < len(toks); j++ {
		if toks[j].is("(") {
			d++
		} else if toks[j].is(")") {
			d--
			if d == 0 {
				return j
			}
		}
	}
	return -1
}

// indexTop returns the index of the first depth-0 token at or after from
// that is one of words, or -1.
func indexTop(toks []sqlTok, from int, words ...string) int {
	top := topLevel(toks)
	for i := from; i < len(toks); i++ {
		if top[i] && toks[i].is(words...) {
			return i
		}
	}
	return -1
}

// topLevel reports for each token whether it stands at depth 0: outside
// every parenthesis, and not one itself.
func topLevel(toks []sqlTok) []bool {
	top := make([]bool, len(toks))
	d := 0
	for i, t := range toks {
		switch {
		case t.is("("):
			d++
		case t.is(")"):
			d--
		default:
			top[i] = d == 0
		}
	}
	return top
}

// splitTop splits toks at depth-0 occurrences of sep.
func splitTop(toks []sqlTok, sep string) [][]sqlTok {
	if len(toks) == 0 {
		return nil
	}
	var out [][]sqlTok
	start := 0
	top := topLevel(toks)
	for i, t := range toks {
		if top[i] && t.is(sep) {
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	return append(out, toks[start:])
}

// splitClauses maps each depth-0 clause keyword (select, from, where, group,
// having, order, limit) to the tokens of its body.
func splitClauses(toks []sqlTok) map[string][]sqlTok {
	out := map[string][]sqlTok{}
	cur, start := "", 0
	flush := func(end int) {
		if cur != "" {
			out[cur] = toks[start:end]
		}
	}
	top := topLevel(toks)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case !top[i]:
		case t.is("select", "from", "where", "having", "limit"):
			flush(i)
			cur, start = t.text, i+1
		case t.is("group", "order") && i+1 < len(toks) && toks[i+1].is("by"):
			flush(i)
			cur, start = t.text, i+2
			i++
		}
	}
	flush(len(toks))
	return out
}

// splitFrom counts the table units of a FROM body (tables and subqueries
// separated by JOIN or commas) and returns the ON condition bodies.
func splitFrom(toks []sqlTok) (units int, conds [][]sqlTok) {
	if len(toks) == 0 {
		return 0, nil
	}
	units = 1
	onStart := -1
	top := topLevel(toks)
	for i, t := range toks {
		switch {
		case !top[i]:
		case t.is("join", ","):
			if onStart >= 0 {
				conds = append(conds, trimJoinWords(toks[onStart:i]))
				onStart = -1
			}
			units++
		case t.is("on"):
			onStart = i + 1
		}
	}
	if onStart >= 0 {
		conds = append(conds, toks[onStart:])
	}
	return units, conds
}

// trimJoinWords drops join modifiers (LEFT, INNER, ...) that end an ON
// condition because they precede the next JOIN.
func trimJoinWords(toks []sqlTok) []sqlTok {
	for len(toks) > 0 && toks[len(toks)-1].is("left", "right", "inner", "outer", "cross", "natural", "full") {
		toks = toks[:len(toks)-1]
	}
	return toks
}

type condStats struct {
	n       int // conditions
	ors     int // OR connectives
	likes   int // LIKE conditions (negated or not)
	negated int // conditions with NOT before the operator
	nested  int // subqueries used as condition values
}

// scanConds splits a condition list at depth-0 AND/OR (keeping the AND of
// BETWEEN x AND y inside its condition) and counts what eval_hardness needs.
func scanConds(toks []sqlTok) condStats {
	var cs condStats
	if len(toks) == 0 {
		return cs
	}
	var conds [][]sqlTok
	start, between := 0, false
	top := topLevel(toks)
	for i, t := range toks {
		switch {
		case !top[i]:
		case t.is("between"):
			between = true
		case t.is("and") && between:
			between = false
		case t.is("and", "or"):
			if t.is("or") {
				cs.ors++
			}
			conds = append(conds, toks[start:i])
			start = i + 1
		}
	}
	conds = append(conds, toks[start:])
	cs.n = len(conds)
	for _, c := range conds {
		c = unwrap(c)
		d := 0
		for i, t := range c {
			switch {
			case t.is("("):
				if d == 0 && i+1 < len(c) && c[i+1].is("select") {
					cs.nested++
				}
				d++
			case t.is(")"):
				d--
			case d != 0:
			case t.is("like"):
				cs.likes++
			case t.is("not") && i+1 < len(c) && c[i+1].is("in", "like", "between"):
				cs.negated++
			}
		}
	}
	return cs
}

var aggNames = []string{"max", "min", "count", "sum", "avg"}

func startsWithAgg(toks []sqlTok) bool {
	return len(toks) >= 2 && toks[0].is(aggNames...) && toks[1].is("(")
}

// countTopAggs counts depth-0 aggregate calls in a value unit, at most two
// (a value unit is col_unit [op col_unit]); ASC/DESC are ignored.
func countTopAggs(toks []sqlTok) int {
	n := 0
	top := topLevel(toks)
	for i, t := range toks {
		if top[i] && t.is(aggNames...) && i+1 < len(toks) && toks[i+1].is("(") {
			n++
		}
	}
	if n > 2 {
		n = 2
	}
	return n
}

// parsedHardness computes the counts from the parsed gold SQL that Spider's
// dev.json carries in its "sql" field (the output of the official
// process_sql.get_sql), mirroring evaluation.py line for line. It is exact
// where the text scanner is an approximation.
func parsedHardness(raw json.RawMessage) (HardnessCounts, error) {
	var sql map[string]any
	if err := json.Unmarshal(raw, &sql); err != nil {
		return HardnessCounts{}, fmt.Errorf("parsed sql: %w", err)
	}
	if sql == nil {
		return HardnessCounts{}, fmt.Errorf("parsed sql: null")
	}
	var h HardnessCounts
	from, _ := sql["from"].(map[string]any)
	units := asList(from["table_units"])
	fconds := asList(from["conds"])
	where := asList(sql["where"])
	having := asList(sql["having"])
	group := asList(sql["groupBy"])
	order := asList(sql["orderBy"])
	sel := asList(sql["select"])

	// count_component1
	for _, l := range [][]any{where, group, order} {
		if len(l) > 0 {
			h.Component1++
		}
	}
	if sql["limit"] != nil {
		h.Component1++
	}
	if len(units) > 0 {
		h.Component1 += len(units) - 1
	}
	conds := append(append(everyOther(fconds, 0), everyOther(where, 0)...), everyOther(having, 0)...)
	for _, ao := range append(append(everyOther(fconds, 1), everyOther(where, 1)...), everyOther(having, 1)...) {
		if s, _ := ao.(string); s == "or" {
			h.Component1++
		}
	}
	const opLike = 9 // WHERE_OPS.index('like')
	for _, c := range conds {
		if cu := asList(c); len(cu) > 1 && num(cu[1]) == opLike {
			h.Component1++
		}
	}

	// count_component2 (get_nestedSQL)
	for _, c := range conds {
		cu := asList(c)
		for k := 3; k <= 4 && k < len(cu); k++ {
			if _, ok := cu[k].(map[string]any); ok {
				h.Component2++
			}
		}
	}
	for _, k := range []string{"intersect", "except", "union"} {
		if sql[k] != nil {
			h.Component2++
		}
	}

	// count_others
	aggs := 0
	var selItems []any
	if len(sel) > 1 {
		selItems = asList(sel[1])
	}
	aggs += countAggUnits(selItems)
	aggs += countAggUnits(everyOther(where, 0))
	aggs += countAggUnits(group)
	if len(order) > 1 {
		var us []any
		vus := asList(order[1])
		for _, vu := range vus {
			if v := asList(vu); len(v) > 1 && v[1] != nil {
				us = append(us, v[1])
			}
		}
		for _, vu := range vus {
			if v := asList(vu); len(v) > 2 && v[2] != nil {
				us = append(us, v[2])
			}
		}
		aggs += countAggUnits(us)
	}
	aggs += countAggUnits(having)
	if aggs > 1 {
		h.Others++
	}
	if len(selItems) > 1 {
		h.Others++
	}
	if len(where) > 1 {
		h.Others++
	}
	if len(group) > 1 {
		h.Others++
	}
	return h, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func everyOther(l []any, start int) []any {
	var out []any
	for i := start; i < len(l); i += 2 {
		out = append(out, l[i])
	}
	return out
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// countAggUnits is count_agg: units whose first element differs from 0 in
// Python's sense (an aggregate id, a True not-flag, or an "and"/"or" string).
func countAggUnits(units []any) int {
	n := 0
	for _, u := range units {
		var first any
		if l, ok := u.([]any); ok {
			if len(l) == 0 {
				continue
			}
			first = l[0]
		} else {
			first = u
		}
		switch f := first.(type) {
		case float64:
			if f != 0 {
				n++
			}
		case bool:
			if f {
				n++
			}
		case string:
			n++ // has_agg('and') is 'a' != 0
		}
	}
	return n
}
