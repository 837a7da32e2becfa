package sim

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Alpha-SQL's request kinds (runners/alphasql: Resp*).
func init() {
	register(map[string]Responder{
		"alphasql/keywords":         alphaKeywords,
		"alphasql/rephrase":         alphaRephrase,
		"alphasql/schema_selection": alphaSchema,
		"alphasql/column_values":    alphaValues,
		"alphasql/column_functions": alphaFunctions,
		"alphasql/sql_generation":   alphaSQL,
		"alphasql/sql_revision":     reviseSQL,
	})
}

// alphaKeywords: the question's terms (Terms).
func alphaKeywords(c *Sample) (string, error) {
	kw := Terms(c.Question, c.Evidence)
	if kw == nil {
		kw = []string{}
	}
	return "The question mentions these values and entities.\n" + fenceJSON(map[string]any{"keywords": kw}), nil
}

// alphaRephrase: the quoted and capitalised terms and numbers as
// conditions, then the question as asked, in one of the phrasings of
// samplePhrasing (a real model's samples at temperature > 0 word a
// rephrasing differently; at temperature 0 they coincide).
func alphaRephrase(c *Sample) (string, error) {
	ph := samplePhrasing(c, []phrasing{
		{"Conditions:\n", "- the question concerns %s\n", "- none beyond the question itself\n"},
		{"Conditions:\n", "- it is about %s\n", "- no explicit condition\n"},
		{"Conditions:\n", "- %s is given\n", "- the question states none\n"},
		{"Conditions:\n", "- restricted to %s\n", "- nothing to restrict\n"},
	})
	var b strings.Builder
	b.WriteString(ph.head)
	n := 0
	for _, t := range Terms(c.Question, "") {
		if t[0] >= 'A' && t[0] <= 'Z' || isNumber(t) || strings.Contains(c.Question, "'"+t+"'") {
			fmt.Fprintf(&b, ph.item, t)
			n++
		}
	}
	if n == 0 {
		b.WriteString(ph.none)
	}
	b.WriteString("Question: " + c.Question)
	return b.String(), nil
}

// phrasing is one wording of a free-text answer: a heading, a line per
// item (one %s) and the line when there is no item.
type phrasing struct{ head, item, none string }

// samplePhrasing picks the wording of one sample of a free-text answer.
// At temperature 0 every sample takes the first; above it, the samples of
// one request take distinct wordings (from an offset drawn per prompt,
// then by sample index, so up to len(ps) samples never coincide): a
// model sampling a paragraph at temperature > 0 does not repeat it word
// for word, while its content (the terms, the question) stays the same.
func samplePhrasing(c *Sample, ps []phrasing) phrasing {
	if c.Request.Temperature <= 0 {
		return ps[0]
	}
	return ps[(int(promptOffset(c))+c.Index)%len(ps)]
}

// promptOffset is a number drawn from the request's draw key (its seed
// and its messages, quoted earlier answers read as their payloads) alone,
// not the sample index, so the samples of one request share it.
func promptOffset(c *Sample) uint32 { return binary.LittleEndian.Uint32(c.base[:4]) }

// alphaSchema selects, whole, the prompt's tables that pickTables keeps.
func alphaSchema(c *Sample) (string, error) {
	sel := map[string][]string{}
	var names []string
	for _, t := range pickTables(c) {
		sel[t.name] = []string{"*"}
		names = append(names, t.name)
	}
	return fmt.Sprintf("The question needs table(s) %s.\n", strings.Join(names, ", ")) + fenceJSON(map[string]any{"tables": sel}), nil
}

// alphaValues: the question's terms that equal a value example the
// prompt's schema shows, as equality filters on that column.
func alphaValues(c *Sample) (string, error) {
	type cond struct {
		Column string `json:"column"`
		Op     string `json:"op"`
		Value  string `json:"value"`
	}
	vals := []cond{}
	for _, m := range valueMatches(c.Prompt, Terms(c.Question, c.Evidence)) {
		vals = append(vals, cond{Column: m.table + "." + m.column, Op: "=", Value: m.value})
	}
	return "Filters the question implies, with the values as the database stores them:\n" + fenceJSON(map[string]any{"values": vals}), nil
}

// alphaFunctions: the aggregate the question's wording asks for, over the
// column of the best related table the question names.
func alphaFunctions(c *Sample) (string, error) {
	fs := []string{}
	if _, fn := intent(c.Question); fn != "" {
		fs = append(fs, fn+"("+aggTarget(c.scored(), fn)+")")
	}
	return "Functions the query needs:\n" + fenceJSON(map[string]any{"functions": fs}), nil
}

// alphaSQL answers SQL generation (and the reward's resampling) with
// divide-and-conquer reasoning and the sample's final SQL.
func alphaSQL(c *Sample) (string, error) {
	sql := c.SQL()
	return fmt.Sprintf("Sub-question 1: which rows of %s are relevant?\nSub-question 2: what does the question ask of them?\nAssembling the pseudo SQL of both gives the final query.\n\n```sql\n%s\n```",
		strings.Join(fromTables(sql), ", "), sql), nil
}

// reviseSQL answers an SQL revision with the sample's final SQL.
func reviseSQL(c *Sample) (string, error) {
	return "Checking the execution feedback against the question, the corrected query is:\n\n```sql\n" + c.SQL() + "\n```", nil
}
