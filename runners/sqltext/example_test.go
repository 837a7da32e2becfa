package sqltext_test

import (
	"fmt"

	"github.com/t2sbench/t2sbench/runners/sqltext"
)

func ExampleExtractSQL() {
	for _, answer := range []string{
		"Here is the SQL query:\n\n```sql\nSELECT name FROM singer WHERE age > 30;\n```\n\nIt lists the singers older than 30.",
		"1. Draft: SELECT name FROM singer\n2. **Final SQL:** SELECT name FROM singer ORDER BY age\n3. Check: SELECT count(*) FROM singer",
		`{"reasoning": "one table", "sql": "SELECT count(*)\nFROM concert"}`,
		"I'm sorry, but I can't help with that.",
	} {
		e := sqltext.ExtractSQL(answer)
		if !e.Found() {
			fmt.Printf("%s: %s\n", e.Style, e.Note())
			continue
		}
		fmt.Printf("%s: %q (final marker: %v)\n", e.Style, e.SQL, e.Final)
	}
	// Output:
	// fence: "SELECT name FROM singer WHERE age > 30" (final marker: false)
	// bare: "SELECT name FROM singer ORDER BY age" (final marker: true)
	// json: "SELECT count(*)\nFROM concert" (final marker: false)
	// none: no SQL in response
}
