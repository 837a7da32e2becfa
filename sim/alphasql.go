package sim

import (
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
// conditions, then the question as asked.
func alphaRephrase(c *Sample) (string, error) {
	var b strings.Builder
	b.WriteString("Conditions:\n")
	n := 0
	for _, t := range Terms(c.Question, "") {
		if t[0] >= 'A' && t[0] <= 'Z' || isNumber(t) || strings.Contains(c.Question, "'"+t+"'") {
			fmt.Fprintf(&b, "- the question concerns %s\n", t)
			n++
		}
	}
	if n == 0 {
		b.WriteString("- none beyond the question itself\n")
	}
	b.WriteString("Question: " + c.Question)
	return b.String(), nil
}

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
		fs = append(fs, fn+"("+aggTarget(relevance(c.Prompt, c.Question+" "+c.Evidence), fn)+")")
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
