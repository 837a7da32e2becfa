package steinersql

import "testing"

// FuzzScan feeds arbitrary text to the clause scanner, the validator's
// structural checks and the decomposition parser: none may panic.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"SELECT a, COUNT(*) FROM t AS x JOIN u ON x.id = u.id GROUP BY a HAVING COUNT(*) > 2 ORDER BY 2 DESC LIMIT 1",
		"WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2",
		"SELECT 'unterminated", "SELECT [x", "/* c", "((((", "))) SELECT", `{"terminal_tables": ["a"]}`,
		"after a 20% raise: SELECT name FROM t WHERE salary * 1.2 > 100,000 AND x < 15 per cent",
		"Sure:\n```json\n{\"Terminal_Tables\": \"a\", \"quantities\": [{\"value\": 60}]}\n```",
	} {
		f.Add(s)
	}
	v := &Validator{Schema: mustSchema()}
	f.Fuzz(func(t *testing.T, s string) {
		toks := scanTokens(s)
		for _, c := range cores(toks) {
			for _, it := range c.items {
				stripAlias(it)
				columnRefs(it)
			}
		}
		v.level3(s, s, &Decomposition{Operations: []Operation{{Function: "AVG", Target: "a.b"}}})
		QuestionNumbers(s)
		ParseDecomposition(s)
	})
}
