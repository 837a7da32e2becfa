package sim

import (
	"fmt"
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
// from its wording, entities from its quoted and capitalised terms,
// numbers from its digits, field patterns from the prompt's schema, and
// one relation for an aggregate intent.
func iesrUnderstand(c *Sample) (string, error) {
	type number struct {
		Value string `json:"value"`
	}
	type relation struct {
		Subject   string `json:"subject"`
		Predicate string `json:"predicate"`
		Object    string `json:"object"`
		Formula   string `json:"formula,omitempty"`
	}
	in, fn := intent(c.Question)
	ents, nums := []string{}, []number{}
	for _, t := range Terms(c.Question, c.Evidence) {
		switch {
		case isNumber(t):
			nums = append(nums, number{Value: t})
		case t[0] >= 'A' && t[0] <= 'Z' || strings.Contains(c.Question, "'"+t+"'"):
			ents = append(ents, t)
		}
	}
	fields := fieldPatterns(c)
	rels := []relation{}
	if fn != "" {
		obj, arg := "rows", aggTarget(relevance(c.Prompt, c.Question+" "+c.Evidence), fn)
		if i := strings.IndexByte(arg, '.'); i > 0 {
			obj = arg[:i]
		}
		rels = append(rels, relation{Subject: strings.Join(nameWords(arg), " "), Predicate: in, Object: obj, Formula: fn + "(" + arg + ")"})
	}
	st := map[string]any{"intent": in, "entities": ents, "relations": rels, "numbers": nums, "units": []string{}, "field_patterns": fields}
	return "The question's latent semantic state:\n" + fenceJSON(st), nil
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
