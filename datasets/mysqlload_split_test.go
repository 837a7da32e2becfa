package datasets

import (
	"fmt"
	"testing"
)

// TestSplitMySQLScript: statements, their first lines and the errors of
// scripts as MySQL reads them: executable comments are comments, dropped
// alone and kept in a statement, "--" starts a comment only before white space, backslashes
// escape in '...' and "..." but not in backquotes.
func TestSplitMySQLScript(t *testing.T) {
	cases := []struct {
		script string
		want   string // the statements as "line:text", or the error
	}{
		{"/*!40101 SET NAMES utf8 */;\n/* c */ SELECT 1 /*!50003 x */;", `[2:SELECT 1 /*!50003 x */]`},
		{"# a;\n-- b;\nSELECT 1--2;\nSELECT 3 --\f;\n", `[3:SELECT 1--2 4:SELECT 3 --` + "\f" + `;]`},
		{"SELECT 'a\\';b', \"c\\\";\", `d\\`;\n\n SELECT 2", `[1:SELECT 'a\';b', "c\";", ` + "`d\\`" + ` 3:SELECT 2]`},
		{"-- c\n'x';", "[2:-- c\n'x']"},
		{"SELECT 1;\n\nINSERT INTO t VALUES ('open\n", "line 3: unterminated ' literal"},
		{"SELECT 1;\n/* open", "line 2: unterminated comment"},
	}
	for _, c := range cases {
		stmts, err := splitMySQLScript(c.script)
		got := fmt.Sprint(err)
		if err == nil {
			var parts []string
			for _, s := range stmts {
				parts = append(parts, fmt.Sprintf("%d:%s", s.line, s.text))
			}
			got = fmt.Sprint(parts)
		}
		if got != c.want {
			t.Errorf("splitMySQLScript(%q):\n got %s\nwant %s", c.script, got, c.want)
		}
	}
}

// TestCountValueTuples: the top-level groups of a VALUES list; parentheses
// in strings and comments do not count, and one that closes nothing is an
// error.
func TestCountValueTuples(t *testing.T) {
	cases := []struct {
		values string
		want   string
	}{
		{" (1, 'x (y'), (2, f(3)) /* (4) */, (5, `)`)", "3 <nil>"},
		{" (1, 'a\\'(')", "1 <nil>"},
		{" (1", "0 unbalanced parentheses in VALUES"},
		{" )(", "0 unbalanced parentheses in VALUES"},
		{" ('open", "0 unterminated literal in VALUES"},
	}
	for _, c := range cases {
		n, err := countValueTuples(c.values)
		if got := fmt.Sprint(n, " ", err); got != c.want {
			t.Errorf("countValueTuples(%q) = %s; want %s", c.values, got, c.want)
		}
	}
}
