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

// steinerDecompose is Stage 1's mathematical decomposition read from the
// question: terminal tables among those the prompt's schema shows
// (pickTables), the aggregate the wording asks for, the numeric
// comparisons it states, "per"/"each" groupings and the years it names.
func steinerDecompose(c *Sample) (string, error) {
	type op struct {
		Function string `json:"function"`
		Target   string `json:"target"`
	}
	type qty struct {
		Value     string `json:"value"`
		Operator  string `json:"operator"`
		Attribute string `json:"attribute"`
	}
	picked := pickTables(c)
	terms := []string{}
	for _, t := range picked {
		terms = append(terms, t.name)
	}
	ops, qs, aggs, temporal := []op{}, []qty{}, []string{}, []string{}
	if _, fn := intent(c.Question); fn != "" {
		ops = append(ops, op{Function: fn, Target: aggTarget(picked, fn)})
	}
	for _, m := range comparisonRe.FindAllStringSubmatch(c.Question, -1) {
		qs = append(qs, qty{Value: m[2], Operator: comparisonOps[strings.ToLower(m[1])]})
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
	return fenceJSON(d), nil
}

// steinerGenerate answers SQL generation with the sample's final SQL; the
// behaviour model sees which tables the scaffold's schema shows.
func steinerGenerate(c *Sample) (string, error) {
	return "Following the scaffold and the plan:\n\n```sql\n" + c.SQL() + "\n```", nil
}
