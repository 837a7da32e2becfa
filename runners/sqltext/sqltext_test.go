package sqltext

import "testing"

func TestExtract(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"fenced sql", "Reasoning...\n```sql\nSELECT name FROM singer;\n```\n", "SELECT name FROM singer", true},
		// Prose containing the words "with" or "select" is not SQL.
		{"refusal with 'with'", "I'm sorry, but I can't help with that request.", "", false},
		{"prose with 'select'", "First I select the right table, then I count.", "", false},
		{"prose WITH at line start", "With the schema above, the answer needs a join.", "", false},
		{"bare CTE", "Answer follows.\nWITH t AS (SELECT id FROM a) SELECT count(*) FROM t", "WITH t AS (SELECT id FROM a) SELECT count(*) FROM t", true},
		{"bare recursive CTE", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT x FROM c", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT x FROM c", true},
		{"mid-line select with from", "The query is SELECT name FROM singer", "SELECT name FROM singer", true},
		{"line-start select without from", "SELECT 1 + 1", "SELECT 1 + 1", true},
		{"last fenced wins", "```sql\nSELECT 1\n```\nbetter:\n```sql\nSELECT 2;;\n```", "SELECT 2", true},
		{"sqlite fence", "```sqlite\nSELECT a FROM t\n```", "SELECT a FROM t", true},
		{"plain fence looks like sql", "```\nSELECT a FROM t WHERE b = 1\n```", "SELECT a FROM t WHERE b = 1", true},
		{"python fence is not sql", "```python\nprint(1)\n```", "", false},
		{"sql fence beats later plain fence", "```sql\nSELECT x FROM y\n```\n```\nnot sql\n```", "SELECT x FROM y", true},
		{"tags", "thinking <sql> SELECT a FROM t </sql> done", "SELECT a FROM t", true},
		{"prefix", "Let me think.\nSQL: SELECT count(*) FROM t;\nThat is all.", "SELECT count(*) FROM t", true},
		{"final query prefix", "Final SQL query: WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"bare to blank line", "SELECT a\nFROM t\n\nThis query selects a.", "SELECT a\nFROM t", true},
		{"bare semicolon in string", "SELECT a FROM t WHERE b = 'x;y'; trailing", "SELECT a FROM t WHERE b = 'x;y'", true},
		{"bare last of several", "SELECT 1 FROM t\n\nCorrected:\nSELECT 2 FROM t", "SELECT 2 FROM t", true},
		{"lowercase", "select a from t", "select a from t", true},
		{"nothing", "I cannot answer that.", "", false},
		{"empty", "", "", false},
		{"word selection is not sql", "The selection is fine", "", false},
		{"empty fence falls through to tags", "```sql\n```\n<sql>SELECT 3</sql>", "SELECT 3", true},
		{"unterminated fence", "```sql\nSELECT a FROM t", "SELECT a FROM t", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Extract(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Extract(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestNormalise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT  a,\n\tb FROM t ;", "SELECT a, b FROM t"},
		{"SELECT 'a  b' FROM t", "SELECT 'a  b' FROM t"},
		{"  SELECT \"x\n y\"  ", "SELECT \"x\n y\""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Normalise(tt.in); got != tt.want {
			t.Errorf("Normalise(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestForDialect(t *testing.T) {
	const in = "Write one SQLite query."
	if got := ForDialect(in, "mysql"); got != "Write one MySQL query." {
		t.Errorf("ForDialect mysql = %q", got)
	}
	if got := ForDialect(in, "sqlite"); got != in {
		t.Errorf("ForDialect sqlite = %q; want unchanged", got)
	}
}
