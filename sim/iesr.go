package sim

import (
	"encoding/json"
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
		"iesr/verify_keywords":   iesrVerify,
	})
}

// fieldPatterns are the "table.column" names of the prompt's schema whose
// name words the question (or the evidence the prompt carries) uses.
func fieldPatterns(c *Sample) []string {
	out := []string{}
	for _, t := range c.scored() {
		for _, col := range t.cols {
			out = append(out, t.name+"."+col)
		}
	}
	return out
}

// iesrUnderstand: the semantic state read from the question: the intent
// from its wording, entities from its quoted and capitalised terms, one
// relation for an aggregate intent, and the keywords: per kind (tables,
// field patterns, numbers with units, operators), the items of the
// model's ranked reading (keywordReading) that its extraction keeps at the
// profile's Extract row (Sample.keywords).
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
		obj, arg := "rows", aggTarget(c.scored(), fn)
		if i := strings.IndexByte(arg, '.'); i > 0 {
			obj = arg[:i]
		}
		rels = append(rels, relation{Subject: strings.Join(nameWords(arg), " "), Predicate: in, Object: obj, Formula: fn + "(" + arg + ")"})
	}
	k := keywordReading(c)
	kw := c.keywords(k, stageExtract, nil)
	st := map[string]any{"intent": in, "entities": ents, "relations": rels, "numbers": k.numbersOf(kw[KindNumber]), "units": []string{},
		"field_patterns": kw[KindColumn], "tables": kw[KindTable], "operators": kw[KindOperator]}
	return "The question's latent semantic state:\n" + fenceJSON(st), nil
}

// iesrVerify answers a keyword-verification round: it reads the state the
// prompt shows (the JSON after 【Extracted keywords】; none shown: an empty
// one), keeps its intent, entities, relations and units, and gives, per
// kind, the items of its ranked reading that it keeps at the profile's
// Verified row (Sample.keywords), with the same per-item draws as the
// extraction: an item the extraction missed is added, a doubtful one
// dropped, and what the prompt's schema lacks never listed. A shown item
// that is neither in the reading nor in its pool (a column of a table the
// reading does not relate to) counts as a pool item. The answer does not
// depend on which items the shown state lists, so a second round returns
// the first round's state and the rounds stop.
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
	var shown [numKinds][]string
	strs := func(v any) []string {
		var out []string
		list, _ := v.([]any)
		for _, x := range list {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	for _, s := range strs(st["tables"]) {
		if _, ok := c.Prompt.Table(s); ok {
			shown[KindTable] = append(shown[KindTable], s)
		}
	}
	for _, s := range strs(st["field_patterns"]) {
		if t, col, ok := strings.Cut(s, "."); ok && c.Prompt.HasColumn(t, col) {
			shown[KindColumn] = append(shown[KindColumn], s)
		}
	}
	shown[KindOperator] = strs(st["operators"])
	if list, ok := st["numbers"].([]any); ok {
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				v := fmt.Sprint(m["value"])
				shown[KindNumber] = append(shown[KindNumber], v)
				if u, ok := m["unit"].(string); ok && !k.hasNumber(v) {
					k.numbers = append(k.numbers, keywordNumber{Value: v, Unit: u})
				}
			}
		}
	}
	kw := c.keywords(k, stageVerified, &shown)
	st["tables"], st["field_patterns"], st["operators"] = kw[KindTable], kw[KindColumn], kw[KindOperator]
	st["numbers"] = k.numbersOf(kw[KindNumber])
	return "I checked each keyword against the schema and the question.\n" + fenceJSON(st), nil
}

// iesrEquation states the formula the question's wording implies, in
// one of the phrasings of samplePhrasing (free text: a real model's
// samples at temperature > 0 word it differently).
func iesrEquation(c *Sample) (string, error) {
	_, fn := intent(c.Question)
	formula := "the requested column values"
	if fn != "" {
		formula = fn + "(" + aggTarget(c.scored(), fn) + ")"
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
