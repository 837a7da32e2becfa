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
// tables, field patterns, numbers with units and operators, each kept
// with probability Recall(p) (the best-scored table always), plus, with
// probability 1-p, a table the question does not relate to: a first
// extraction misses items and adds a wrong one, as the paper's Table 4
// measures it.
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
	keep := func(xs []string, always int) []string {
		out := []string{}
		for i, x := range xs {
			if i < always || c.Rand.Float64() < Recall(c.P) {
				out = append(out, x)
			}
		}
		return out
	}
	tables := keep(k.tables, 1)
	if c.Rand.Float64() >= c.P {
		for _, t := range c.Prompt.Tables {
			if !slices.Contains(k.tables, t.Name) {
				tables = append(tables, t.Name)
				break
			}
		}
	}
	var nums []keywordNumber
	for _, n := range k.numbers {
		if c.Rand.Float64() < Recall(c.P) {
			nums = append(nums, n)
		}
	}
	st := map[string]any{"intent": in, "entities": ents, "relations": rels, "numbers": orEmpty(nums), "units": []string{},
		"field_patterns": keep(k.columns, 0), "tables": tables, "operators": keep(k.operators, 0)}
	return "The question's latent semantic state:\n" + fenceJSON(st), nil
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
}

// unitWords are the units the simulated model recognises after a number.
var unitWords = map[string]bool{"km": true, "m": true, "cm": true, "mm": true, "kg": true, "g": true, "t": true, "s": true,
	"h": true, "min": true, "hours": true, "hour": true, "minutes": true, "seconds": true, "days": true, "years": true,
	"km/h": true, "m/s": true, "mph": true, "kw": true, "kwh": true, "w": true, "v": true, "a": true, "l": true, "ml": true,
	"%": true, "percent": true, "°c": true, "°f": true, "k": true, "pa": true, "kpa": true, "mb": true, "gb": true}

var numberUnitRe = regexp.MustCompile(`(?:^|[^\w.])(-?\d+(?:\.\d+)?)\s*(%|°[CcFf]|[A-Za-z]+(?:/[A-Za-z]+)?)?`)

// keywordReading reads the keywords of the question from the prompt: the
// tables the question relates to (relevance > 0, best first), their
// columns the question names (fieldPatterns), the question's numbers with
// the unit written after them, and the operators its wording and the
// hint's formula imply (the aggregate of intent; comparisons from "more
// than", "less than", "at least", "at most"; the arithmetic signs of the
// hint).
func keywordReading(c *Sample) questionKeywords {
	var k questionKeywords
	for _, t := range relevance(c.Prompt, c.Question+" "+c.Evidence) {
		if t.score > 0 {
			k.tables = append(k.tables, t.name)
		}
	}
	k.columns = fieldPatterns(c)
	for _, m := range numberUnitRe.FindAllStringSubmatch(c.Question, -1) {
		unit := m[2]
		if !unitWords[strings.ToLower(unit)] {
			unit = ""
		}
		k.numbers = append(k.numbers, keywordNumber{Value: m[1], Unit: unit})
	}
	if _, fn := intent(c.Question); fn != "" {
		k.operators = append(k.operators, fn)
	}
	q := " " + strings.ToLower(c.Question) + " "
	for _, w := range []struct{ phrase, op string }{{" more than ", ">"}, {" greater than ", ">"}, {" over ", ">"}, {" above ", ">"},
		{" less than ", "<"}, {" fewer than ", "<"}, {" below ", "<"}, {" under ", "<"}, {" at least ", ">="}, {" at most ", "<="}} {
		if strings.Contains(q, w.phrase) && !slices.Contains(k.operators, w.op) {
			k.operators = append(k.operators, w.op)
		}
	}
	for _, op := range []string{"*", "/", "+"} {
		if strings.Contains(c.Evidence, op) {
			k.operators = append(k.operators, op)
		}
	}
	return k
}

// iesrVerify answers a keyword-verification round: it reads the state the
// prompt shows (the JSON after 【Extracted keywords】; none shown: an empty
// one), drops the tables
// and columns the prompt's schema does not have, drops each item its own
// reading of the question (keywordReading) does not support with
// probability p, adds each item of its reading the state misses with
// probability Recall(p), and returns the repaired state.
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
	repair := func(shown any, reading []string, exists func(string) bool) []string {
		out := []string{}
		list, _ := shown.([]any)
		for _, x := range list {
			s, _ := x.(string)
			if s == "" || exists != nil && !exists(s) || slices.Contains(out, s) {
				continue
			}
			if !slices.ContainsFunc(reading, func(r string) bool { return strings.EqualFold(r, s) }) && c.Rand.Float64() < c.P {
				continue
			}
			out = append(out, s)
		}
		for _, r := range reading {
			if !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(r, s) }) && c.Rand.Float64() < Recall(c.P) {
				out = append(out, r)
			}
		}
		return out
	}
	st["tables"] = repair(st["tables"], k.tables, func(s string) bool { _, ok := c.Prompt.Table(s); return ok })
	st["field_patterns"] = repair(st["field_patterns"], k.columns, func(s string) bool {
		t, col, ok := strings.Cut(s, ".")
		return ok && c.Prompt.HasColumn(t, col)
	})
	st["operators"] = repair(st["operators"], k.operators, nil)
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
	for _, v := range repair(anyNums, readNums, nil) {
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
