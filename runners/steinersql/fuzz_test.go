package steinersql

import "testing"

// FuzzScan feeds arbitrary text to the clause scanner, the validator's
// structural and attribute checks, the decomposition parser and the
// dependency analysis: none may panic.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"SELECT a, COUNT(*) FROM t AS x JOIN u ON x.id = u.id GROUP BY a HAVING COUNT(*) > 2 ORDER BY 2 DESC LIMIT 1",
		"WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2",
		"SELECT 'unterminated", "SELECT [x", "/* c", "((((", "))) SELECT", `{"terminal_tables": ["a"]}`,
		"after a 20% raise: SELECT name FROM t WHERE salary * 1.2 > 100,000 AND x < 15 per cent",
		"Sure:\n```json\n{\"Terminal_Tables\": \"a\", \"quantities\": [{\"value\": 60}]}\n```",
		"SELECT a.b FROM a WHERE a.b BETWEEN 1 AND 2 OR SUM(a.b) > 3 HAVING AVG(b) > 2",
		`{"dependencies": {"x": ["a.b", "y"], "y": "x"}}`,
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
		dec := &Decomposition{Operations: []Operation{{Function: "SUM", Target: "a.b"}}}
		v.attributes(s, Question{Text: s, Evidence: s}, dec)
		QuestionNumbers(s)
		if d, err := ParseDecomposition(s); err == nil {
			AnalyzeDependencies(v.Schema, d, DefaultCorrection)
		}
	})
}
