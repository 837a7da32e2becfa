package sim

import (
	"regexp"
	"strings"
)

// SteinerSQL's request kinds (runners/steinersql: Responder*).
func init() {
	register(map[string]Responder{
		"steinersql/decompose": steinerDecompose,
		"steinersql/generate":  steinerGenerate,
	})
}

var (
	comparisonRe = regexp.MustCompile(`(?i)\b(more than|greater than|over|above|at least|less than|fewer than|under|below|at most)\s+(-?\d+(?:\.\d+)?)`)
	yearRe       = regexp.MustCompile(`\b(1[89]\d\d|20\d\d)\b`)
)

var comparisonOps = map[string]string{"more than": ">", "greater than": ">", "over": ">", "above": ">", "at least": ">=",
	"less than": "<", "fewer than": "<", "under": "<", "below": "<", "at most": "<="}

// steinerOp and steinerQty are an operation and a quantity of Stage 1's
// answer.
type steinerOp struct {
	Function string `json:"function"`
	Target   string `json:"target"`
}

type steinerQty struct {
	Value     string `json:"value"`
	Operator  string `json:"operator"`
	Attribute string `json:"attribute"`
}

// steinerDecompose is Stage 1's mathematical decomposition read from the
// question: terminal tables among those the prompt's schema shows
// (pickTables), the aggregate the wording asks for, the numeric
// comparisons it states, "per"/"each" groupings and the years it names;
// and, when the prompt asks for "computational dependencies", what each
// entity requires (steinerDependencies).
func steinerDecompose(c *Sample) (string, error) {
	picked := pickTables(c)
	terms := []string{}
	for _, t := range picked {
		terms = append(terms, t.name)
	}
	ops, qs, aggs, temporal := []steinerOp{}, []steinerQty{}, []string{}, []string{}
	if _, fn := intent(c.Question); fn != "" {
		ops = append(ops, steinerOp{Function: fn, Target: aggTarget(picked, fn)})
	}
	for _, m := range comparisonRe.FindAllStringSubmatch(c.Question, -1) {
		qs = append(qs, steinerQty{Value: m[2], Operator: comparisonOps[strings.ToLower(m[1])]})
	}
	low := " " + strings.ToLower(c.Question) + " "
	for _, cue := range []string{" each ", " per "} {
		if i := strings.Index(low, cue); i >= 0 {
			if w := wordsOf(low[i+len(cue):]); len(w) > 0 {
				aggs = append(aggs, "group by "+w[0])
				break
			}
		}
	}
	for _, y := range yearRe.FindAllString(c.Question, -1) {
		temporal = append(temporal, "year "+y)
	}
	d := map[string]any{"operations": ops, "quantities": qs, "aggregations": aggs, "temporal": temporal, "terminal_tables": terms}
	if strings.Contains(c.Prompt.Text, "computational dependencies") {
		d["dependencies"] = steinerDependencies(picked, ops, qs, aggs, temporal)
	}
	return fenceJSON(d), nil
}

// steinerDependencies answers the dependency part of Stage 1 as a model
// that names the final result first (as the paper's Table 8, 1b, does:
// "The final average metric requires ..."): the asked operation, or the
// looked-up answer, requires its target, the columns of the picked
// tables the question names, and every filter, period and grouping; each
// of those follows with what it reads. The runner's dependency analysis
// puts them in computation order.
func steinerDependencies(picked []scoredTable, ops []steinerOp, qs []steinerQty, aggs, temporal []string) []map[string]any {
	attrs := []string{}
	for _, t := range picked {
		for _, col := range t.cols {
			attrs = append(attrs, t.name+"."+col)
		}
	}
	final := "answer"
	req := append([]string{}, attrs...)
	if len(ops) > 0 {
		final = ops[0].Function + "(" + ops[0].Target + ")"
		if ops[0].Target != "*" {
			req = append([]string{ops[0].Target}, req...)
		}
	}
	var rest []map[string]any
	for _, q := range qs {
		name := "filter " + q.Operator + " " + q.Value
		req = append(req, name)
		rest = append(rest, map[string]any{"entity": name, "requires": attrs})
	}
	for _, t := range temporal {
		req = append(req, t)
		rest = append(rest, map[string]any{"entity": t, "requires": []string{}})
	}
	for _, a := range aggs {
		req = append(req, a)
		rest = append(rest, map[string]any{"entity": a, "requires": []string{}})
	}
	return append([]map[string]any{{"entity": final, "requires": req}}, rest...)
}

// steinerGenerate answers SQL generation with the sample's final SQL; the
// behaviour model sees which tables the scaffold's schema shows.
func steinerGenerate(c *Sample) (string, error) {
	return "Following the scaffold and the plan:\n\n```sql\n" + c.SQL() + "\n```", nil
}
