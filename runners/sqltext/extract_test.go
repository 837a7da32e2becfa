package sqltext

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// extractCase is one response and the SQL ExtractSQL must find in it. Each
// is written from the description of a style real models produce, not
// copied from any dataset. want "" means no SQL.
type extractCase struct {
	name  string
	in    string
	want  string
	style Style
}

var extractCases = []extractCase{
	// Fences with any language tag, or none.
	{"fence/sql", "```sql\nSELECT name FROM singer\n```", "SELECT name FROM singer", StyleFence},
	{"fence/SQL upper", "```SQL\nSELECT name FROM singer;\n```", "SELECT name FROM singer", StyleFence},
	{"fence/sqlite", "```sqlite\nSELECT count(*) FROM concert\n```", "SELECT count(*) FROM concert", StyleFence},
	{"fence/SQLite mixed case", "```SQLite\nSELECT max(age) FROM singer\n```", "SELECT max(age) FROM singer", StyleFence},
	{"fence/mysql", "```mysql\nSELECT `name` FROM `singer` LIMIT 1\n```", "SELECT `name` FROM `singer` LIMIT 1", StyleFence},
	{"fence/postgresql", "```postgresql\nSELECT id FROM t WHERE x IS NOT NULL\n```", "SELECT id FROM t WHERE x IS NOT NULL", StyleFence},
	{"fence/untagged", "```\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence},
	{"fence/space before tag", "``` sql\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence},
	{"fence/tag then SQL on the same line", "```sql SELECT a FROM t```", "SELECT a FROM t", StyleFence},
	{"fence/four backticks", "````sql\nSELECT a FROM t\n````", "SELECT a FROM t", StyleFence},
	{"fence/multi-line kept", "```sql\nSELECT T1.name,\n       T2.year\nFROM singer AS T1\nJOIN concert AS T2 ON T1.id = T2.singer_id\n```",
		"SELECT T1.name,\n       T2.year\nFROM singer AS T1\nJOIN concert AS T2 ON T1.id = T2.singer_id", StyleFence},
	{"fence/python is not sql", "```python\nprint(df.head())\n```", "", StyleNone},
	{"fence/json tag with SQL-looking body", "```json\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence},
	{"fence/sql tag beats later untagged prose", "```sql\nSELECT x FROM y\n```\n```\nnot sql\n```", "SELECT x FROM y", StyleFence},
	{"fence/two statements, last wins", "```sql\nSELECT id FROM a;\nSELECT name FROM b;\n```", "SELECT name FROM b", StyleFence},
	{"fence/empty sql fence falls to tag", "```sql\n```\n<sql>SELECT 3</sql>", "SELECT 3", StyleTag},
	{"fence/attributes after the tag", "```sql {.numberLines}\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence},
	{"fence/CRLF line ends", "Query:\r\n```sql\r\nSELECT a\r\nFROM t\r\n```\r\nDone.", "SELECT a\r\nFROM t", StyleFence},
	{"fence/semicolon inside string kept", "```sql\nSELECT a FROM t WHERE b = 'x;y';\n```", "SELECT a FROM t WHERE b = 'x;y'", StyleFence},

	// A fence opened on the SQL's own line.
	{"own-line fence/inline", "```SELECT name FROM singer```", "SELECT name FROM singer", StyleFence},
	{"own-line fence/multi-line", "```SELECT name\nFROM singer\nWHERE age > 30\n```", "SELECT name\nFROM singer\nWHERE age > 30", StyleFence},
	{"own-line fence/WITH", "```WITH t AS (SELECT 1 AS x) SELECT x FROM t```", "WITH t AS (SELECT 1 AS x) SELECT x FROM t", StyleFence},

	// An unclosed fence: cut at a stop sequence or max_tokens.
	{"unclosed/stop sequence", "Here you go:\n```sql\nSELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 30", StyleUnclosedFence},
	{"unclosed/untagged", "```\nSELECT a FROM t\n", "SELECT a FROM t", StyleUnclosedFence},
	{"unclosed/cut mid-query after a complete draft", "```sql\nSELECT count(*) FROM singer\n```\nA better version:\n```sql\nSELECT count(*) FROM singer WHERE",
		"SELECT count(*) FROM singer", StyleFence},
	{"unclosed/prose after forgotten close", "```sql\nSELECT a FROM t\n\nThis returns a.", "SELECT a FROM t", StyleUnclosedFence},

	// A stray closing fence only.
	{"stray close/after SQL", "SELECT name FROM singer\n```", "SELECT name FROM singer", StyleBare},
	{"stray close/with semicolon and prose", "SELECT name FROM singer;```\nThis lists the names.", "SELECT name FROM singer", StyleBare},
	{"stray close/then a real fence", "SELECT a FROM t\n```\nOn reflection:\n```sql\nSELECT b FROM t\n```", "SELECT b FROM t", StyleFence},

	// Markdown escapes outside string literals.
	{"escape/underscore", "SELECT first\\_name FROM people\\_table", "SELECT first_name FROM people_table", StyleBare},
	{"escape/star", "SELECT \\* FROM singer", "SELECT * FROM singer", StyleBare},
	{"escape/kept inside literal", "SELECT a\\_b FROM t WHERE c LIKE 'x\\_%' ESCAPE '\\'", "SELECT a_b FROM t WHERE c LIKE 'x\\_%' ESCAPE '\\'", StyleBare},
	{"escape/in fence", "```sql\nSELECT song\\_name FROM singer\n```", "SELECT song_name FROM singer", StyleFence},

	// Prose before and after unfenced SQL.
	{"prose/next line", "SELECT name FROM singer WHERE age > 30\nThis query returns the names of singers older than 30.", "SELECT name FROM singer WHERE age > 30", StyleBare},
	{"prose/before and after", "To answer, I join the tables.\nSELECT T1.name FROM singer AS T1\nJOIN concert AS T2 ON T1.id = T2.sid\nExplanation: the join keeps singers with concerts.",
		"SELECT T1.name FROM singer AS T1\nJOIN concert AS T2 ON T1.id = T2.sid", StyleBare},
	{"prose/inline code", "Run `SELECT count(*) FROM singer` to get the total.", "SELECT count(*) FROM singer", StyleBare},
	{"prose/trailing full stop", "The query is SELECT name FROM singer.", "SELECT name FROM singer", StyleBare},
	{"prose/stray backticks", "SQL: SELECT name FROM singer`", "SELECT name FROM singer", StyleBare},
	{"prose/backtick identifiers kept", "SELECT `name` FROM `singer`", "SELECT `name` FROM `singer`", StyleBare},
	{"prose/continuation lines", "SELECT name,\n  age\nFROM singer\nWHERE age > 20\n  AND country = 'France'\nORDER BY age DESC\nLIMIT 3\nThat is all.",
		"SELECT name,\n  age\nFROM singer\nWHERE age > 20\n  AND country = 'France'\nORDER BY age DESC\nLIMIT 3", StyleBare},
	{"prose/label on its own line", "SQL Query:\nSELECT a FROM t\nResult: one row per a.", "SELECT a FROM t", StyleBare},
	{"prose/apostrophe after SQL", "SELECT name FROM singer\nIt's the simplest query.", "SELECT name FROM singer", StyleBare},
	{"prose/quoted statement", `The answer is "SELECT name FROM singer".`, "SELECT name FROM singer", StyleBare},
	{"prose/explanation mentions a fragment", "The query is `SELECT name FROM singer WHERE age > 30`.\n\nHere `SELECT name` picks the column.", "SELECT name FROM singer WHERE age > 30", StyleBare},
	{"prose/bold wrapped", "**SELECT name FROM singer**", "SELECT name FROM singer", StyleBare},

	// Prose containing "select" or "with" is not SQL.
	{"not sql/refusal with with", "I'm sorry, but I can't help with that request.", "", StyleNone},
	{"not sql/select mid-sentence", "First I select the right table, then I count.", "", StyleNone},
	{"not sql/Select starts a sentence", "Select the singers from France and count them.", "", StyleNone},
	{"not sql/With starts a sentence", "With the schema above, the answer needs a join.", "", StyleNone},
	{"not sql/lowercase select prose", "select the table that holds the names from the schema", "", StyleNone},
	{"not sql/selection", "The selection is fine", "", StyleNone},

	// Numbered steps with several candidate queries: the final answer wins.
	{"steps/last complete query", "1. Find the ids:\n```sql\nSELECT id FROM singer\n```\n2. Use them:\n```sql\nSELECT name FROM concert WHERE sid IN (SELECT id FROM singer)\n```",
		"SELECT name FROM concert WHERE sid IN (SELECT id FROM singer)", StyleFence},
	{"steps/Final SQL marker beats a later check", "Step 1: SELECT id FROM a\nFinal SQL: SELECT name FROM b\nCheck: SELECT count(*) FROM b", "SELECT name FROM b", StyleBare},
	{"steps/Final answer marker then fence", "```sql\nSELECT 1 FROM t\n```\nFinal answer:\n```sql\nSELECT 2 FROM t\n```\nTo verify, you could run:\n```sql\nSELECT count(*) FROM t\n```",
		"SELECT 2 FROM t", StyleFence},
	{"steps/bold Final Query heading", "**Step 1: ids**\n```sql\nSELECT id FROM a\n```\n**Final Query**\n```sql\nSELECT name FROM a\n```\n**Sanity check**\n```sql\nSELECT count(*) FROM a\n```",
		"SELECT name FROM a", StyleFence},
	{"steps/heading Final SQL query", "### Draft\n```sql\nSELECT x FROM t\n```\n### Final SQL Query\n```sql\nSELECT y FROM t\n```\n### Alternative\n```sql\nSELECT z FROM t\n```", "SELECT y FROM t", StyleFence},
	{"steps/final mid-sentence is not a marker", "Before the final answer, let me check:\n```sql\nSELECT DISTINCT country FROM singer\n```\nSo:\n```sql\nSELECT name FROM singer WHERE country = 'France'\n```",
		"SELECT name FROM singer WHERE country = 'France'", StyleFence},
	{"steps/Step label then Final query", "Step 1:\n```sql\nSELECT 1 FROM t\n```\nStep 2: Final query\n```sql\nSELECT 2 FROM t\n```\nStep 3: verify\n```sql\nSELECT 3 FROM t\n```", "SELECT 2 FROM t", StyleFence},
	{"steps/The final answer is", "Draft: SELECT a FROM t\nThe final answer is:\nSELECT b FROM t\nCheck with SELECT count(*) FROM t.", "SELECT b FROM t", StyleBare},
	{"steps/bare drafts, last wins", "1. SELECT id FROM a\n2. SELECT name FROM b WHERE id IN (SELECT id FROM a)", "SELECT name FROM b WHERE id IN (SELECT id FROM a)", StyleBare},
	{"steps/last is incomplete", "SELECT name FROM singer\n\nRefined:\nSELECT name FROM singer WHERE", "SELECT name FROM singer", StyleBare},

	// SQL inside a JSON object.
	{"json/bare object", `{"sql": "SELECT name FROM singer"}`, "SELECT name FROM singer", StyleJSON},
	{"json/escaped newlines and quotes", `{"reasoning": "join", "sql": "SELECT \"name\"\nFROM singer\nWHERE a = 'x'"}`, "SELECT \"name\"\nFROM singer\nWHERE a = 'x'", StyleJSON},
	{"json/fenced", "```json\n{\"query\": \"SELECT a FROM t;\"}\n```", "SELECT a FROM t", StyleJSON},
	{"json/raw newline inside string", "{\"sql\": \"SELECT a\nFROM t\"}", "SELECT a\nFROM t", StyleJSON},
	{"json/final_sql key", `{"draft_sql": "SELECT 1", "final_sql": "SELECT 2 FROM t"}`, "SELECT 2 FROM t", StyleJSON},
	{"json/nested", `{"answer": {"SQL": "SELECT a FROM t"}}`, "SELECT a FROM t", StyleJSON},
	{"json/prose around", "Here is my answer as JSON: {\"sql\": \"SELECT a FROM t\"} Hope it helps.", "SELECT a FROM t", StyleJSON},
	{"json/no sql field", `{"tables": ["singer"]}`, "", StyleNone},

	// Leaked chat-template tokens.
	{"tokens/im_end", "SELECT name FROM singer<|im_end|>", "SELECT name FROM singer", StyleBare},
	{"tokens/im_end then a new turn", "```sql\nSELECT a FROM t\n```<|im_end|>\n<|im_start|>user\n```sql\nSELECT b FROM t\n```", "SELECT a FROM t", StyleFence},
	{"tokens/eot_id", "SELECT a FROM t;<|eot_id|>", "SELECT a FROM t", StyleBare},
	{"tokens/</s>", "SELECT a FROM t </s>", "SELECT a FROM t", StyleBare},
	{"tokens/[SQL] markers", "[SQL] SELECT a FROM t [/SQL]", "SELECT a FROM t", StyleTag},
	{"tokens/orphan [/SQL]", "SELECT a FROM t WHERE b = 1 [/SQL]", "SELECT a FROM t WHERE b = 1", StyleTag},
	{"tokens/<|end|>", "SELECT a FROM t<|end|>", "SELECT a FROM t", StyleBare},
	{"tokens/DeepSeek end of sentence", "```sql\nSELECT a FROM t\n```<｜end▁of▁sentence｜>", "SELECT a FROM t", StyleFence},
	{"tokens/leading im_start assistant", "<|im_start|>assistant\nSELECT a FROM t<|im_end|>", "SELECT a FROM t", StyleBare},

	// Tags.
	{"tags/sql tags", "thinking <sql> SELECT a FROM t </sql> done", "SELECT a FROM t", StyleTag},
	{"tags/upper case, last wins", "<SQL>SELECT 1 FROM t</SQL> or <SQL>SELECT 2 FROM t</SQL>", "SELECT 2 FROM t", StyleTag},

	{"tags/answer wrapper", "<answer>SELECT a FROM t</answer>", "SELECT a FROM t", StyleBare},
	{"tags/answer wrapper around a fence", "<think>try SELECT b FROM t</think>\n<answer>\n```sql\nSELECT a FROM t\n```\n</answer>", "SELECT a FROM t", StyleFence},
	{"tags/html code", "<code>SELECT a FROM t WHERE b &gt; 1 AND c = &#39;x&#39;</code>", "SELECT a FROM t WHERE b > 1 AND c = 'x'", StyleBare},

	// SQL comment lines: stripped, consistently.
	{"comments/leading line comment", "```sql\n-- names of singers\nSELECT name FROM singer\n```", "SELECT name FROM singer", StyleFence},
	{"comments/trailing inline comment", "```sql\nSELECT name FROM singer -- all of them\nWHERE age > 3\n```", "SELECT name FROM singer\nWHERE age > 3", StyleFence},
	{"comments/block comment", "```sql\n/* step 2 */\nSELECT a /* col */ FROM t\n```", "SELECT a FROM t", StyleFence},
	{"comments/dashes in literal kept", "SELECT a FROM t WHERE b = '--x'", "SELECT a FROM t WHERE b = '--x'", StyleBare},
	{"comments/only comments", "```sql\n-- I cannot write this query\n```", "", StyleNone},

	// <think> reasoning is never searched.
	{"think/draft inside reasoning", "<think>Maybe ```sql\nSELECT wrong FROM t\n```</think>\n```sql\nSELECT right FROM t\n```", "SELECT right FROM t", StyleFence},
	{"think/orphan closing tag", "I try SELECT draft FROM t first.\n</think>\nSELECT final FROM t", "SELECT final FROM t", StyleBare},
	{"think/unclosed is no answer", "<think>\nThe query is SELECT a FROM t but I should check", "", StyleNone},

	// No SQL at all.
	{"none/empty", "", "", StyleNone},
	{"none/refusal", "I cannot answer that: the schema has no table of prices.", "", StyleNone},
	{"none/only reasoning", "<think>The answer needs SELECT a FROM t.</think>", "", StyleNone},

	// Named model families.
	{"family/Qwen2.5-Coder fence then explanation", "```sql\nSELECT name FROM singer WHERE age > 30;\n```\n\nThis query selects the `name` column from the `singer` table where the age is greater than 30.",
		"SELECT name FROM singer WHERE age > 30", StyleFence},
	{"family/Llama-3 prose then fence", "Here is the SQL query that answers the question:\n\n```\nSELECT COUNT(*) FROM concert WHERE year = 2014\n```\n\nThis query counts the concerts held in 2014.",
		"SELECT COUNT(*) FROM concert WHERE year = 2014", StyleFence},
	{"family/GPT-4o bold headings", "To find the youngest singer, we sort by age.\n\n**Steps:**\n1. Sort singers by age.\n2. Take the first.\n\n**SQL Query:**\n\n```sql\nSELECT name\nFROM singer\nORDER BY age ASC\nLIMIT 1;\n```\n\n**Explanation:**\n- `ORDER BY age ASC` puts the youngest first.",
		"SELECT name\nFROM singer\nORDER BY age ASC\nLIMIT 1", StyleFence},
	{"family/DeepSeek-R1 think then answer", "<think>\nThe user wants names. First idea:\n```sql\nSELECT * FROM singer\n```\nNo, only the name.\n</think>\n\nThe final SQL query is:\n\n```sql\nSELECT name FROM singer\n```",
		"SELECT name FROM singer", StyleFence},
	{"family/LangChain SQLQuery label", "Question: how many singers?\nSQLQuery: SELECT count(*) FROM singer\nSQLResult: [(6,)]\nAnswer: 6", "SELECT count(*) FROM singer", StyleBare},

	// Statements that must survive the cutting.
	{"bare/CTE after prose", "Answer follows.\nWITH t AS (SELECT id FROM a) SELECT count(*) FROM t", "WITH t AS (SELECT id FROM a) SELECT count(*) FROM t", StyleBare},
	{"bare/recursive CTE", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT x FROM c", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT x FROM c", StyleBare},
	{"bare/UNION across lines", "SELECT a FROM t\nUNION\nSELECT b FROM u", "SELECT a FROM t\nUNION\nSELECT b FROM u", StyleBare},
	{"bare/subquery on its own line", "SELECT name FROM singer WHERE id IN\n(SELECT sid FROM concert)\nDone.", "SELECT name FROM singer WHERE id IN\n(SELECT sid FROM concert)", StyleBare},
	{"bare/blank line between CTEs", "WITH a AS (\n  SELECT id FROM t\n\n), b AS (SELECT id FROM u)\nSELECT count(*) FROM a JOIN b USING (id)\n\nThis counts the shared ids.",
		"WITH a AS (\n  SELECT id FROM t\n\n), b AS (SELECT id FROM u)\nSELECT count(*) FROM a JOIN b USING (id)", StyleBare},
	{"bare/CRLF then prose", "SELECT a\r\nFROM t\r\nThis returns a.", "SELECT a\r\nFROM t", StyleBare},
	{"bare/tag stripped by a UI", "sql\nSELECT a FROM t", "SELECT a FROM t", StyleBare},
	{"bare/lowercase", "select a from t", "select a from t", StyleBare},
	{"bare/without FROM at line start", "SELECT 1 + 1", "SELECT 1 + 1", StyleBare},
	{"bare/quoted literal with prose words", "SELECT id FROM film WHERE title = 'The Lord of the Rings'", "SELECT id FROM film WHERE title = 'The Lord of the Rings'", StyleBare},
}

func TestExtractSQL(t *testing.T) {
	if len(extractCases) < 60 {
		t.Fatalf("%d extractor cases; want at least 60", len(extractCases))
	}
	for _, tc := range extractCases {
		t.Run(tc.name, func(t *testing.T) {
			e := ExtractSQL(tc.in)
			if e.SQL != tc.want || e.Style != tc.style {
				t.Errorf("ExtractSQL(%q) = %q (%s); want %q (%s)", tc.in, e.SQL, e.Style, tc.want, tc.style)
			}
			if (tc.want == "") != (e.Note() == NoSQL) {
				t.Errorf("ExtractSQL(%q).Note() = %q; want NoSQL exactly when no SQL is found", tc.in, e.Note())
			}
			got, ok := Extract(tc.in)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("Extract(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.want != "")
			}
		})
	}
}

func TestExtractFinalFlag(t *testing.T) {
	tests := []struct {
		in    string
		final bool
		cands int
	}{
		{"```sql\nSELECT 1 FROM t\n```\nFinal answer:\n```sql\nSELECT 2 FROM t\n```", true, 2},
		{"```sql\nSELECT 1 FROM t\n```\n```sql\nSELECT 2 FROM t\n```", false, 2},
		{"Final answer: there is none.", false, 0},
	}
	for _, tt := range tests {
		e := ExtractSQL(tt.in)
		if e.Final != tt.final || e.Candidates != tt.cands {
			t.Errorf("ExtractSQL(%q) final=%v candidates=%d; want %v, %d", tt.in, e.Final, e.Candidates, tt.final, tt.cands)
		}
	}
}

func TestExtractContinuation(t *testing.T) {
	tests := []struct {
		name, in, want string
		style          Style
	}{
		{"continues after SELECT", " name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 30", StyleContinuation},
		{"continues, then prose", " count(*) FROM concert\n\nThis counts the concerts.", "SELECT count(*) FROM concert", StyleContinuation},
		{"continues, stray fence", " name FROM singer;\n```", "SELECT name FROM singer", StyleContinuation},
		{"continues, template token", " T1.name FROM singer AS T1<|im_end|>", "SELECT T1.name FROM singer AS T1", StyleContinuation},
		{"model repeated SELECT", "SELECT name FROM singer", "SELECT name FROM singer", StyleBare},
		{"model answered with a fence", "```sql\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence},
		{"refusal is no SQL", " I'm sorry, I can't answer that without the schema.", "", StyleNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ExtractWith(tt.in, Options{Continues: "SELECT"})
			if e.SQL != tt.want || e.Style != tt.style {
				t.Errorf("ExtractWith(%q, Continues SELECT) = %q (%s); want %q (%s)", tt.in, e.SQL, e.Style, tt.want, tt.style)
			}
		})
	}
}

// FuzzExtractSQL checks that keywordStarts finds what its regexp would,
// and that the extractor never panics, gives a reason from Reasons (none
// exactly when it finds no SQL), never returns SQL
// longer than its input (extraction only removes text), returns trimmed SQL
// without a trailing semicolon, and is idempotent on SQL it found in a
// fence or tag: extracting again from the extracted SQL wrapped in a
// ```sql fence gives it back.
func FuzzExtractSQL(f *testing.F) {
	for _, tc := range extractCases {
		f.Add(tc.in)
	}
	for _, tc := range append(classCases, prefixCases...) {
		f.Add(tc.in)
	}
	for _, s := range []string{"'", "```", "WITH", "--", "/*", "{\"sql\": \"", "<sql>", "<think>", "</think>", "\\_", "SELECT '\n",
		"<<SQL>>", "<</SQL>>", "[SQL]", "[/SQL]", "[/INST]", "</s>", "<|im_end|>", "<answer>", "SQL:", "Final SQL query:\n",
		"\\*", "\\#", "User:", "Assistant:", "<|im_start|>user\n", "[INST]", "Alternatively,", "Wait,", "Corrected query:"} {
		f.Add(s)
	}
	startRe := regexp.MustCompile(`(?i)\b(?:SELECT|WITH)\b`)
	f.Fuzz(func(t *testing.T, in string) {
		var want []int
		for _, l := range startRe.FindAllStringIndex(in, -1) {
			want = append(want, l[0])
		}
		if got := keywordStarts(in); !slices.Equal(got, want) {
			t.Fatalf("keywordStarts(%q) = %v; want %v (the regexp's)", in, got, want)
		}
		e := ExtractSQL(in)
		if e.Found() != (e.Style != StyleNone) || e.Found() != (e.Reason != ReasonNone) || !slices.Contains(Reasons, e.Reason) {
			t.Fatalf("ExtractSQL(%q) = %q with style %q, reason %q", in, e.SQL, e.Style, e.Reason)
		}
		if !e.Found() {
			if e.Note() != NoSQL {
				t.Fatalf("ExtractSQL(%q) found nothing but Note() = %q", in, e.Note())
			}
			return
		}
		if len(Normalise(e.SQL)) > len(in) {
			t.Fatalf("ExtractSQL(%q) = %q, longer than the input", in, e.SQL)
		}
		if strings.HasSuffix(e.SQL, ";") || strings.TrimSpace(e.SQL) != e.SQL {
			t.Fatalf("ExtractSQL(%q) = %q, not trimmed", in, e.SQL)
		}
		if again := ExtractSQL("```sql\n" + e.SQL + "\n```"); again.SQL != e.SQL && LooksLikeSQL(e.SQL) && !strings.Contains(e.SQL, "```") {
			t.Fatalf("ExtractSQL(%q) = %q, but from it in a fence: %q", in, e.SQL, again.SQL)
		}
		_ = ExtractWith(in, Options{Continues: "SELECT"})
	})
}
