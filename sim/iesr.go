package sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// IESR's request kinds (runners/iesr: Resp*).
func init() {
	register(map[string]Responder{
		"iesr/understand":        iesrUnderstand,
		"iesr/equation_analysis": iesrEquation,
		"iesr/schema_selection":  iesrSchema,
		"iesr/identify_columns":  iesrColumns,
		"iesr/entity_extraction": iesrEntities,
		"iesr/sql_generation":    iesrSQL,
		"iesr/sql_revision":      reviseSQL,
		"iesr/discriminator":     iesrDiscriminator,
		"iesr/verify_keywords":   iesrVerify,
	})
}

// fieldPatterns are the "table.column" names of the prompt's schema whose
// name words the question (or the evidence the prompt carries) uses.
func fieldPatterns(c *Sample) []string {
	out := []string{}
	for _, t := range relevance(c.Prompt, c.Question+" "+c.Evidence) {
		for _, col := range t.cols {
			out = append(out, t.name+"."+col)
		}
	}
	return out
}

// iesrUnderstand: the semantic state read from the question: the intent
// from its wording, entities from its quoted and capitalised terms, one
// relation for an aggregate intent, and the keywords (keywordReading):
// tables, field patterns, numbers with units and operators. Each item of
// the reading is kept with the recall of its kind in the profile's
// Extract row, and each kept item brings a
// wrong one with probability (1-P)/P, P the kind's precision (extract).
func iesrUnderstand(c *Sample) (string, error) {
	type relation struct {
		Subject   string `json:"subject"`
		Predicate string `json:"predicate"`
		Object    string `json:"object"`
		Formula   string `json:"formula,omitempty"`
	}
	in, fn := intent(c.Question)
	ents := []string{}
	for _, t := range Terms(c.Question, c.Evidence) {
		if !isNumber(t) && (t[0] >= 'A' && t[0] <= 'Z' || strings.Contains(c.Question, "'"+t+"'")) {
			ents = append(ents, t)
		}
	}
	rels := []relation{}
	if fn != "" {
		obj, arg := "rows", aggTarget(relevance(c.Prompt, c.Question+" "+c.Evidence), fn)
		if i := strings.IndexByte(arg, '.'); i > 0 {
			obj = arg[:i]
		}
		rels = append(rels, relation{Subject: strings.Join(nameWords(arg), " "), Predicate: in, Object: obj, Formula: fn + "(" + arg + ")"})
	}
	k := keywordReading(c)
	prof := Rates(c.model.prof.Extract)
	tables := c.extract(k.tables, k.tablePool, prof[KindTable], 0)
	var numVals []string
	for _, n := range k.numbers {
		numVals = append(numVals, n.Value)
	}
	var nums []keywordNumber
	for _, v := range c.extract(numVals, misreadNumbers(numVals), prof[KindNumber], 0) {
		nums = append(nums, keywordNumber{Value: v, Unit: k.unitOf(v)})
	}
	st := map[string]any{"intent": in, "entities": ents, "relations": rels, "numbers": orEmpty(nums), "units": []string{},
		"field_patterns": c.extract(k.columns, k.columnPool, prof[KindColumn], 0), "tables": tables,
		"operators": c.extract(k.operators, k.operatorPool(), prof[KindOperator], 0)}
	return "The question's latent semantic state:\n" + fenceJSON(st), nil
}

// extract keeps each item of reading with probability pr.R (the first
// always items always) and, per kept item, adds with probability
// (1-pr.P)/pr.P one item of pool it has not listed: a recall of pr.R and a
// precision of pr.P against the reading.
func (c *Sample) extract(reading, pool []string, pr KindPR, always int) []string {
	out := []string{}
	for i, x := range reading {
		if i < always || c.Rand.Float64() < pr.R {
			out = append(out, x)
		}
	}
	return c.addWrong(out, len(out), pool, pr.P)
}

// addWrong adds to out, for each of n true items, with probability
// (1-prec)/prec, an item of pool that out does not list.
func (c *Sample) addWrong(out []string, n int, pool []string, prec float64) []string {
	if prec <= 0 {
		return out
	}
	rate := (1 - prec) / prec
	for i := 0; i < n; i++ {
		if c.Rand.Float64() >= rate {
			continue
		}
		var free []string
		for _, x := range pool {
			if !containsFold(out, x) {
				free = append(free, x)
			}
		}
		if len(free) > 0 {
			out = append(out, free[c.Rand.IntN(len(free))])
		}
	}
	return out
}

// misreadNumbers are the wrong numbers a model writes for the question's
// numbers: each with a zero appended, a misread magnitude (a modelling
// choice).
func misreadNumbers(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		out = append(out, v+"0")
	}
	return out
}

// keywordNumber is a number of the question with its unit.
type keywordNumber struct {
	Value string `json:"value"`
	Unit  string `json:"unit"`
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// questionKeywords is what the simulated model reads as the question's keywords.
type questionKeywords struct {
	tables, columns, operators []string
	numbers                    []keywordNumber
	// tablePool and columnPool are the shown tables and columns (of the
	// reading's tables) the reading does not list: where a wrong item
	// comes from.
	tablePool, columnPool []string
}

// unitOf is the unit the reading gives number v ("" for none).
func (k questionKeywords) unitOf(v string) string {
	for _, n := range k.numbers {
		if n.Value == v {
			return n.Unit
		}
	}
	return ""
}

// readableOperators are the operators a model names for a question.
var readableOperators = []string{"=", ">", "<", "COUNT", "SUM", "AVG", "MAX", "MIN"}

// operatorPool is where a wrong operator comes from: the readable
// operators the reading does not list.
func (k questionKeywords) operatorPool() []string {
	var out []string
	for _, o := range readableOperators {
		if !slices.Contains(k.operators, o) {
			out = append(out, o)
		}
	}
	return out
}

// unitWords are the units the simulated model recognises after a number.
var unitWords = map[string]bool{"km": true, "m": true, "cm": true, "mm": true, "kg": true, "g": true, "t": true, "s": true,
	"h": true, "min": true, "hours": true, "hour": true, "minutes": true, "seconds": true, "days": true, "years": true,
	"km/h": true, "m/s": true, "mph": true, "kw": true, "kwh": true, "w": true, "v": true, "a": true, "l": true, "ml": true,
	"%": true, "percent": true, "°c": true, "°f": true, "k": true, "pa": true, "kpa": true, "mb": true, "gb": true}

// numberWords are the number words a question spells out.
var numberWords = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10"}

// hintComparisonRe finds the comparison operators a hint writes.
var hintComparisonRe = regexp.MustCompile(`>=|<=|<>|!=|=|<|>`)

var numberUnitRe = regexp.MustCompile(`(?:^|[^\w.])(-?\d+(?:\.\d+)?)\s*(%|°[CcFf]|[A-Za-z]+(?:/[A-Za-z]+)?)?`)

// keywordReading reads the keywords of the question from the prompt: the
// tables the question relates to (relevance > 0, best first) and the join
// tables it implies (bridgeTables), their columns the question names
// (fieldPatterns), the names that identify their rows (displayColumns)
// and the keys that join them (joinColumns); the numbers of the question
// and of the hint the prompt carries (quoted literals aside, number words
// spelt out), with the unit written after them; and the operators its
// wording and the hint's formula imply (the aggregate of intent;
// comparisons from "more than", "less than", "at least", "at most";
// "-" from "difference", "/" from "per"; the hint's arithmetic signs,
// comparisons and aggregate functions; "=" for a join or a named value).
func keywordReading(c *Sample) questionKeywords {
	var k questionKeywords
	rel := related(c.Prompt, c.Question+" "+c.Evidence)
	for _, t := range rel {
		k.tables = append(k.tables, t.name)
	}
	for _, t := range c.Prompt.Tables {
		if !slices.Contains(k.tables, t.Name) {
			k.tablePool = append(k.tablePool, t.Name)
		}
	}
	k.columns = fieldPatterns(c)
	for _, f := range displayColumns(rel) {
		if !containsFold(k.columns, f) {
			k.columns = append(k.columns, f)
		}
	}
	for _, f := range joinColumns(rel) {
		if !containsFold(k.columns, f) {
			k.columns = append(k.columns, f)
		}
	}
	for _, t := range rel {
		for _, col := range t.table.Columns {
			if f := t.name + "." + col.Name; !containsFold(k.columns, f) {
				k.columnPool = append(k.columnPool, f)
			}
		}
	}
	// The hint's numbers count as the question's (a hint is read with
	// it), its quoted literals aside: a date or code is a value.
	hint := quotedRe.ReplaceAllString(c.Evidence, "''")
	for _, m := range numberUnitRe.FindAllStringSubmatch(c.Question+" \n "+hint, -1) {
		unit := m[2]
		if !unitWords[strings.ToLower(unit)] {
			unit = ""
		}
		if !slices.ContainsFunc(k.numbers, func(n keywordNumber) bool { return n.Value == m[1] }) {
			k.numbers = append(k.numbers, keywordNumber{Value: m[1], Unit: unit})
		}
	}
	q := " " + strings.ToLower(c.Question) + " "
	for w, v := range numberWords {
		if strings.Contains(q, " "+w+" ") && !slices.ContainsFunc(k.numbers, func(n keywordNumber) bool { return n.Value == v }) {
			k.numbers = append(k.numbers, keywordNumber{Value: v})
		}
	}
	addOp := func(op string) {
		if !slices.Contains(k.operators, op) {
			k.operators = append(k.operators, op)
		}
	}
	if _, fn := intent(c.Question); fn != "" {
		addOp(fn)
	}
	for _, w := range []struct{ phrase, op string }{{" more than ", ">"}, {" greater than ", ">"}, {" over ", ">"}, {" above ", ">"},
		{" less than ", "<"}, {" fewer than ", "<"}, {" below ", "<"}, {" under ", "<"}, {" at least ", ">="}, {" at most ", "<="},
		{" difference ", "-"}, {" minus ", "-"}, {" range ", "-"}, {" per ", "/"}, {" percentage ", "/"}} {
		if strings.Contains(q, w.phrase) {
			addOp(w.op)
		}
	}
	// The hint's formula: arithmetic signs between spaces ("salary / 12",
	// not the unit "m/s"), comparisons and aggregate functions.
	for _, op := range []string{"*", "/", "+", "-"} {
		if strings.Contains(hint, " "+op+" ") {
			addOp(op)
		}
	}
	for _, m := range hintComparisonRe.FindAllString(hint, -1) {
		addOp(m)
	}
	up := strings.ToUpper(hint)
	for _, fn := range []string{"COUNT", "SUM", "AVG", "MIN", "MAX"} {
		if strings.Contains(up, fn+"(") {
			addOp(fn)
		}
	}
	named := len(valueMatches(c.Prompt, Terms(c.Question, c.Evidence))) > 0 || strings.Contains(c.Question, "'") || strings.Contains(c.Question, "\"")
	if len(rel) > 1 || named {
		addOp("=")
	}
	return k
}

// iesrVerify answers a keyword-verification round: it reads the state the
// prompt shows (the JSON after 【Extracted keywords】; none shown: an empty
// one), drops the tables and columns the prompt's schema does not have,
// and repairs each kind against its own reading of the question
// (keywordReading) to the profile's Verified row: an item of the reading
// the state misses is added with the probability that brings its recall
// from the Extract row's to the Verified row's, and the items the reading
// does not support are kept at the rate that gives the Verified row's
// precision.
func iesrVerify(c *Sample) (string, error) {
	st := map[string]any{}
	text := c.Prompt.Text
	if i := strings.Index(text, "【Extracted keywords】"); i >= 0 {
		text = text[i:]
		if j := strings.Index(text, "【Task】"); j > 0 {
			text = text[:j]
		}
		if a, b := strings.Index(text, "{"), strings.LastIndex(text, "}"); a >= 0 && b > a {
			if err := json.Unmarshal([]byte(text[a:b+1]), &st); err != nil {
				return "", fmt.Errorf("sim: iesr/verify_keywords: the 【Extracted keywords】 JSON: %w", err)
			}
		}
	}
	for _, f := range []string{"entities", "relations", "units"} {
		if st[f] == nil {
			st[f] = []string{}
		}
	}
	if st["intent"] == nil {
		st["intent"] = ""
	}
	k := keywordReading(c)
	ext, ver := Rates(c.model.prof.Extract), Rates(c.model.prof.Verified)
	repair := func(shown any, reading []string, exists func(string) bool, kind int) []string {
		var supported, unsupported []string
		list, _ := shown.([]any)
		for _, x := range list {
			s, _ := x.(string)
			if s == "" || exists != nil && !exists(s) || containsFold(supported, s) || containsFold(unsupported, s) {
				continue
			}
			if containsFold(reading, s) {
				supported = append(supported, s)
			} else {
				unsupported = append(unsupported, s)
			}
		}
		add := ver[kind].R
		if re := ext[kind].R; len(list) > 0 && re < 1 {
			add = max(0, (add-re)/(1-re))
		}
		out := append([]string{}, supported...)
		for _, r := range reading {
			if !containsFold(out, r) && c.Rand.Float64() < add {
				out = append(out, r)
			}
		}
		if pv := ver[kind].P; len(unsupported) > 0 && pv > 0 {
			keep := min(1, float64(len(out))*(1-pv)/pv/float64(len(unsupported)))
			for _, u := range unsupported {
				if c.Rand.Float64() < keep {
					out = append(out, u)
				}
			}
		}
		return out
	}
	st["tables"] = repair(st["tables"], k.tables, func(s string) bool { _, ok := c.Prompt.Table(s); return ok }, KindTable)
	st["field_patterns"] = repair(st["field_patterns"], k.columns, func(s string) bool {
		t, col, ok := strings.Cut(s, ".")
		return ok && c.Prompt.HasColumn(t, col)
	}, KindColumn)
	st["operators"] = repair(st["operators"], k.operators, nil, KindOperator)
	var shownNums, readNums []string
	unitOf := map[string]string{}
	if list, ok := st["numbers"].([]any); ok {
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				v := fmt.Sprint(m["value"])
				shownNums = append(shownNums, v)
				if u, ok := m["unit"].(string); ok {
					unitOf[v] = u
				}
			}
		}
	}
	for _, n := range k.numbers {
		readNums = append(readNums, n.Value)
		unitOf[n.Value] = n.Unit // the reading's unit wins: it normalises
	}
	anyNums := make([]any, len(shownNums))
	for i, v := range shownNums {
		anyNums[i] = v
	}
	nums := []keywordNumber{}
	for _, v := range repair(anyNums, readNums, nil, KindNumber) {
		nums = append(nums, keywordNumber{Value: v, Unit: unitOf[v]})
	}
	st["numbers"] = nums
	return "I checked each keyword against the schema and the question.\n" + fenceJSON(st), nil
}

// iesrEquation states the formula the question's wording implies, in
// one of the phrasings of samplePhrasing (free text: a real model's
// samples at temperature > 0 word it differently).
func iesrEquation(c *Sample) (string, error) {
	_, fn := intent(c.Question)
	formula := "the requested column values"
	if fn != "" {
		formula = fn + "(" + aggTarget(relevance(c.Prompt, c.Question+" "+c.Evidence), fn) + ")"
	} else if fs := fieldPatterns(c); len(fs) > 0 {
		formula = fs[0]
	}
	ph := samplePhrasing(c, []phrasing{
		{"Known quantities: the filters stated in the question.\n", "Formula: %s", ""},
		{"Given: the conditions the question states.\n", "Formula: %s", ""},
		{"Known: the question's filters; unknown: the requested value.\n", "Formula: %s", ""},
		{"The question fixes the filters; what it asks for follows from them.\n", "Formula: %s", ""},
	})
	return ph.head + fmt.Sprintf(ph.item, formula), nil
}

// iesrSchema selects, whole, the prompt's tables that pickTables keeps.
func iesrSchema(c *Sample) (string, error) {
	type entry struct {
		Table   string   `json:"table"`
		Columns []string `json:"columns"`
	}
	list := []entry{}
	var names []string
	for _, t := range pickTables(c) {
		list = append(list, entry{Table: t.name, Columns: []string{}})
		names = append(names, t.name)
	}
	return fmt.Sprintf("The question needs table(s) %s.\n", strings.Join(names, ", ")) + fenceJSON(map[string]any{"tables": list}), nil
}

// iesrColumns describes the field patterns.
func iesrColumns(c *Sample) (string, error) {
	type note struct {
		Column  string `json:"column"`
		Meaning string `json:"meaning"`
	}
	notes := []note{}
	for _, f := range fieldPatterns(c) {
		i := strings.IndexByte(f, '.')
		notes = append(notes, note{Column: f, Meaning: strings.Join(nameWords(f[i+1:]), " ") + " of " + f[:i]})
	}
	return "Columns the query needs:\n" + fenceJSON(map[string]any{"columns": notes}), nil
}

// iesrEntities grounds the question's terms in the value examples the
// prompt's schema shows.
func iesrEntities(c *Sample) (string, error) {
	type ent struct {
		Mention string `json:"mention"`
		Column  string `json:"column"`
		Value   string `json:"value"`
	}
	ents := []ent{}
	for _, m := range valueMatches(c.Prompt, Terms(c.Question, c.Evidence)) {
		ents = append(ents, ent{Mention: m.term, Column: m.table + "." + m.column, Value: m.value})
	}
	return "Entities grounded in the database:\n" + fenceJSON(map[string]any{"entities": ents}), nil
}

// iesrSQL answers SQL generation and the reward's resampling.
func iesrSQL(c *Sample) (string, error) {
	sql := c.SQL()
	return fmt.Sprintf("Using the tables %s and the analysis above, the query is:\n\n```sql\n%s\n```",
		strings.Join(fromTables(sql), ", "), sql), nil
}

// iesrDiscriminator completes a masked trajectory.
func iesrDiscriminator(c *Sample) (string, error) {
	return "Continuing the reasoning from the last kept step, the remaining steps lead to:\n\n```sql\n" + c.SQL() + "\n```", nil
}
