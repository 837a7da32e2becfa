package sqltext

import "testing"

// classCase is a response of one of the classes real pipelines answer in
// beyond plain fences and prose, the SQL ExtractSQL must find in it, and
// the rule that must choose it. Each is written from the description of
// its class (custom wrappers, markdown escapes, alternatives, corrections,
// transcripts), not copied from any dataset; the name starts with the
// class.
type classCase struct {
	name   string
	in     string
	want   string
	style  Style
	reason Reason
}

var classCases = []classCase{
	// Custom wrappers a prompt asked for, and chat-template debris.
	{"wrapper/<<SQL>> closed by [/SQL]", "<<SQL>> SELECT name FROM singer [/SQL]", "SELECT name FROM singer", StyleTag, ReasonSingle},
	{"wrapper/<<SQL>> on its own lines", "<<SQL>>\nSELECT name\nFROM singer\nWHERE age > 30\n[/SQL]", "SELECT name\nFROM singer\nWHERE age > 30", StyleTag, ReasonSingle},
	{"wrapper/<<SQL>> then </s>", "<<SQL>> SELECT count(*) FROM concert [/SQL]</s>", "SELECT count(*) FROM concert", StyleTag, ReasonSingle},
	{"wrapper/<<SQL>> closed by <</SQL>>", "<<SQL>>SELECT id FROM stadium<</SQL>>", "SELECT id FROM stadium", StyleTag, ReasonSingle},
	{"wrapper/<<SQL>> never closed, cut by [/INST]", "<<SQL>> SELECT name FROM pets WHERE weight > 10 [/INST]", "SELECT name FROM pets WHERE weight > 10", StyleTag, ReasonSingle},
	{"wrapper/lower-case <<sql>>", "<<sql>> select name from singer [/sql]", "select name from singer", StyleTag, ReasonSingle},
	{"wrapper/[SQL] then [/INST]", "[SQL] SELECT title FROM book [/SQL] [/INST]", "SELECT title FROM book", StyleTag, ReasonSingle},
	{"wrapper/[SQL] with prose after", "[SQL]\nSELECT avg(age) FROM student\n[/SQL]\nThis averages the ages.", "SELECT avg(age) FROM student", StyleTag, ReasonSingle},
	{"wrapper/[SQL] twice, last wins", "[SQL] SELECT a FROM t [/SQL]\nBetter:\n[SQL] SELECT a FROM t WHERE b = 1 [/SQL]", "SELECT a FROM t WHERE b = 1", StyleTag, ReasonLastComplete},
	{"wrapper/<sql> then <|im_end|>", "<sql>SELECT name FROM airline</sql><|im_end|>", "SELECT name FROM airline", StyleTag, ReasonSingle},
	{"wrapper/<sql> with a semicolon and newline", "<sql>\nSELECT DISTINCT city FROM airport;\n</sql>", "SELECT DISTINCT city FROM airport", StyleTag, ReasonSingle},
	{"wrapper/<SQL> upper case with prose before", "The query is below.\n<SQL>SELECT max(salary) FROM employee</SQL>", "SELECT max(salary) FROM employee", StyleTag, ReasonSingle},
	{"wrapper/<answer> around bare SQL", "<answer>\nSELECT name FROM course ORDER BY credits DESC LIMIT 1\n</answer>", "SELECT name FROM course ORDER BY credits DESC LIMIT 1", StyleBare, ReasonSingle},
	{"wrapper/<answer> then </s>", "<answer>SELECT count(*) FROM dogs</answer></s>", "SELECT count(*) FROM dogs", StyleBare, ReasonSingle},
	{"wrapper/<answer> around <sql>", "<answer><sql>SELECT id FROM orders</sql></answer>", "SELECT id FROM orders", StyleTag, ReasonSingle},
	{"wrapper/SQL: label then unfenced SQL and [/INST]", "SQL: SELECT name FROM country WHERE population > 1000000\n[/INST]", "SELECT name FROM country WHERE population > 1000000", StyleBare, ReasonSingle},
	{"wrapper/SQL: label on its own line then </s>", "SQL:\nSELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid </s>", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", StyleBare, ReasonSingle},
	{"wrapper/Final SQL query: label then <|im_end|>", "The question asks for a count.\nFinal SQL query:\nSELECT count(*) FROM flights<|im_end|>", "SELECT count(*) FROM flights", StyleBare, ReasonSingle},
	{"wrapper/Final SQL query: after a draft", "Draft: SELECT * FROM flights\nFinal SQL query: SELECT count(*) FROM flights\n</s>", "SELECT count(*) FROM flights", StyleBare, ReasonFinalMarker},
	{"wrapper/SQL query label with bold", "**SQL query:** SELECT name FROM museum WHERE open_year > 2010 <|eot_id|>", "SELECT name FROM museum WHERE open_year > 2010", StyleBare, ReasonSingle},
	{"wrapper/label with template debris before", "[/INST] SQL: SELECT name FROM team", "SELECT name FROM team", StyleBare, ReasonSingle},
	{"wrapper/label then SQL over lines then debris", "SQL:\nSELECT name,\n       age\nFROM people\nWHERE age > 18\n<|im_end|>\n<|im_start|>assistant", "SELECT name,\n       age\nFROM people\nWHERE age > 18", StyleBare, ReasonSingle},
	{"wrapper/<sql_query> tags", "<sql_query>SELECT name FROM singer</sql_query>", "SELECT name FROM singer", StyleTag, ReasonSingle},
	{"wrapper/<SQLQuery> tags over lines", "<SQLQuery>\nSELECT a\nFROM t\n</SQLQuery>\n</s>", "SELECT a\nFROM t", StyleTag, ReasonSingle},
	{"wrapper/<final_sql> after a draft in <sql>", "<sql>SELECT a FROM t</sql>\n<final_sql>SELECT a FROM t WHERE b = 1</final_sql>", "SELECT a FROM t WHERE b = 1", StyleTag, ReasonLastComplete},
	{"wrapper/label then a capitalised Select", "SQL: Select name From singer Where age > 30", "Select name From singer Where age > 30", StyleBare, ReasonSingle},
	{"wrapper/label then a capitalised sentence is no SQL", "Query: Select the singers from France.", "", StyleNone, ReasonNone},

	// Markdown escapes in unfenced SQL: removed outside string literals,
	// kept inside them; in a fence a backslash inside a literal is real.
	{"escape/underscore after a label", "SQL: SELECT owner\\_id FROM pets\\_owners", "SELECT owner_id FROM pets_owners", StyleBare, ReasonSingle},
	{"escape/star in count", "SELECT count(\\*) FROM singer", "SELECT count(*) FROM singer", StyleBare, ReasonSingle},
	{"escape/star as select list", "The query:\nSELECT \\* FROM car\\_makers WHERE maker = 'ford'", "SELECT * FROM car_makers WHERE maker = 'ford'", StyleBare, ReasonSingle},
	{"escape/hash", "SELECT room\\#, floor FROM rooms", "SELECT room#, floor FROM rooms", StyleBare, ReasonSingle},
	{"escape/several on separate lines", "SELECT first\\_name,\n       last\\_name\nFROM staff\\_members\nWHERE dept\\_id = 3", "SELECT first_name,\n       last_name\nFROM staff_members\nWHERE dept_id = 3", StyleBare, ReasonSingle},
	{"escape/kept in a string literal", "SELECT user\\_id FROM logs WHERE path = 'a\\_b'", "SELECT user_id FROM logs WHERE path = 'a\\_b'", StyleBare, ReasonSingle},
	{"escape/kept in a double-quoted identifier", "SELECT \"col\\_x\" FROM t\\_1", "SELECT \"col\\_x\" FROM t_1", StyleBare, ReasonSingle},
	{"escape/LIKE pattern in a fence kept", "```sql\nSELECT name FROM files WHERE name LIKE '%\\_%' ESCAPE '\\'\n```", "SELECT name FROM files WHERE name LIKE '%\\_%' ESCAPE '\\'", StyleFence, ReasonSingle},
	{"escape/backslash in a fenced MySQL literal kept", "```sql\nSELECT id FROM notes WHERE body = 'C:\\\\temp'\n```", "SELECT id FROM notes WHERE body = 'C:\\\\temp'", StyleFence, ReasonSingle},
	{"escape/inside <sql> tags", "<sql>SELECT song\\_name FROM songs</sql>", "SELECT song_name FROM songs", StyleTag, ReasonSingle},
	{"escape/comparison escaped", "SELECT name FROM singer WHERE age \\> 30", "SELECT name FROM singer WHERE age > 30", StyleBare, ReasonSingle},

	// Alternatives: the first query is the answer.
	{"alternative/Alternatively with bare SQL", "SELECT name FROM singer WHERE age > 30\n\nAlternatively, you can write:\nSELECT name FROM singer WHERE NOT age <= 30", "SELECT name FROM singer WHERE age > 30", StyleBare, ReasonFirstOfAlternatives},
	{"alternative/Alternatively with fences", "```sql\nSELECT count(*) FROM dogs\n```\nAlternatively:\n```sql\nSELECT count(dog_id) FROM dogs\n```", "SELECT count(*) FROM dogs", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/Another way", "```sql\nSELECT max(age) FROM student\n```\nAnother way is to sort:\n```sql\nSELECT age FROM student ORDER BY age DESC LIMIT 1\n```", "SELECT max(age) FROM student", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/Another approach heading", "**Query:**\n```sql\nSELECT a FROM t\n```\n**Another approach:**\n```sql\nSELECT DISTINCT a FROM t\n```", "SELECT a FROM t", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/If you want separately you can use", "```sql\nSELECT name, age FROM singer\n```\nIf you want the names separately, you can use:\n```sql\nSELECT name FROM singer\n```", "SELECT name, age FROM singer", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/If you need you could run", "```sql\nSELECT country, count(*) FROM singer GROUP BY country\n```\nIf you need only France, you could run:\n```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```", "SELECT country, count(*) FROM singer GROUP BY country", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/You can also", "```sql\nSELECT name FROM a JOIN b ON a.id = b.aid\n```\nYou can also use a subquery:\n```sql\nSELECT name FROM a WHERE id IN (SELECT aid FROM b)\n```", "SELECT name FROM a JOIN b ON a.id = b.aid", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/Or equivalently", "SELECT name FROM t WHERE x BETWEEN 1 AND 5\nOr equivalently:\nSELECT name FROM t WHERE x >= 1 AND x <= 5", "SELECT name FROM t WHERE x BETWEEN 1 AND 5", StyleBare, ReasonFirstOfAlternatives},
	{"alternative/a chain of three", "```sql\nSELECT 1 FROM t\n```\nAlternatively:\n```sql\nSELECT 2 FROM t\n```\nAnother option:\n```sql\nSELECT 3 FROM t\n```", "SELECT 1 FROM t", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/tagged answers", "<sql>SELECT a FROM t</sql>\nAlternatively, <sql>SELECT b FROM t</sql>", "SELECT a FROM t", StyleTag, ReasonFirstOfAlternatives},
	{"alternative/incomplete first is not the answer", "```sql\nSELECT name FROM singer WHERE\n```\nAlternatively:\n```sql\nSELECT name FROM singer\n```", "SELECT name FROM singer", StyleFence, ReasonLastComplete},
	{"alternative/after a correction", "```sql\nSELECT a FROM t\n```\nWait, that misses the filter.\n```sql\nSELECT a FROM t WHERE b = 1\n```\nAlternatively:\n```sql\nSELECT a FROM t WHERE b IN (1)\n```", "SELECT a FROM t WHERE b = 1", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/commented inside one fence", "```sql\nSELECT name FROM singer ORDER BY age LIMIT 1;\n-- Alternatively, with a subquery:\nSELECT name FROM singer WHERE age = (SELECT min(age) FROM singer);\n```", "SELECT name FROM singer ORDER BY age LIMIT 1", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/Option 2", "Option 1:\n```sql\nSELECT a FROM t WHERE b > 1\n```\nOption 2:\n```sql\nSELECT a FROM t WHERE NOT b <= 1\n```", "SELECT a FROM t WHERE b > 1", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/inline answer then a fenced alternative", "The query is `SELECT count(*) FROM t`.\nAlternatively:\n```sql\nSELECT count(1) FROM t\n```", "SELECT count(*) FROM t", StyleBare, ReasonFirstOfAlternatives},
	{"alternative/a mention without FROM is no answer", "Here `SELECT name` picks the column. Alternatively:\n```sql\nSELECT name FROM t\n```", "SELECT name FROM t", StyleFence, ReasonLastComplete},
	{"alternative/the first cue counts", "```sql\nSELECT a FROM t WHERE b IN (SELECT b FROM u)\n```\nAlternatively, a join, which is actually faster:\n```sql\nSELECT a FROM t JOIN u USING (b)\n```", "SELECT a FROM t WHERE b IN (SELECT b FROM u)", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/actually mid-sentence is no correction", "```sql\nSELECT count(*) FROM t\n```\nThis actually counts every row. If you want distinct names only, you can use:\n```sql\nSELECT count(DISTINCT name) FROM t\n```", "SELECT count(*) FROM t", StyleFence, ReasonFirstOfAlternatives},
	{"alternative/final marker wins", "```sql\nSELECT 1 FROM t\n```\nAlternatively:\n```sql\nSELECT 2 FROM t\n```\nFinal answer:\n```sql\nSELECT 2 FROM t\n```", "SELECT 2 FROM t", StyleFence, ReasonFinalMarker},

	// Corrections: the last query is the answer.
	{"correction/Wait", "```sql\nSELECT name FROM singer\n```\nWait, only singers over 30 are wanted.\n```sql\nSELECT name FROM singer WHERE age > 30\n```", "SELECT name FROM singer WHERE age > 30", StyleFence, ReasonLastCorrection},
	{"correction/Corrected query:", "SELECT name FROM singer WHERE age > '30'\nThe age is a number.\nCorrected query:\nSELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 30", StyleBare, ReasonLastCorrection},
	{"correction/Actually", "```sql\nSELECT count(*) FROM pets\n```\nActually, the question counts owners.\n```sql\nSELECT count(DISTINCT owner_id) FROM pets\n```", "SELECT count(DISTINCT owner_id) FROM pets", StyleFence, ReasonLastCorrection},
	{"correction/Oops", "SELECT nam FROM singer\nOops, a typo:\nSELECT name FROM singer", "SELECT name FROM singer", StyleBare, ReasonLastCorrection},
	{"correction/On second thought", "```sql\nSELECT a FROM t\n```\nOn second thought, DISTINCT is needed.\n```sql\nSELECT DISTINCT a FROM t\n```", "SELECT DISTINCT a FROM t", StyleFence, ReasonLastCorrection},
	{"correction/I made a mistake", "```sql\nSELECT a FROM t ORDER BY a\n```\nI made a mistake: the order is descending.\n```sql\nSELECT a FROM t ORDER BY a DESC\n```", "SELECT a FROM t ORDER BY a DESC", StyleFence, ReasonLastCorrection},
	{"correction/Let me fix", "<sql>SELECT x FROM y WHERE z = 'a'</sql>\nLet me fix the column name.\n<sql>SELECT x FROM y WHERE w = 'a'</sql>", "SELECT x FROM y WHERE w = 'a'", StyleTag, ReasonLastCorrection},
	{"correction/Revised query", "```sql\nSELECT id FROM t\n```\n**Revised query:**\n```sql\nSELECT id FROM t WHERE flag = 1\n```", "SELECT id FROM t WHERE flag = 1", StyleFence, ReasonLastCorrection},
	{"correction/Final answer: after an alternative", "```sql\nSELECT 1 FROM t\n```\nAlternatively:\n```sql\nSELECT 2 FROM t\n```\nFinal answer:\n```sql\nSELECT 1 FROM t\n```", "SELECT 1 FROM t", StyleFence, ReasonFinalMarker},
	{"correction/Wait, then an alternative cue beside it", "```sql\nSELECT a FROM t\n```\nWait, alternatively it should filter:\n```sql\nSELECT a FROM t WHERE b = 2\n```", "SELECT a FROM t WHERE b = 2", StyleFence, ReasonLastCorrection},
	{"correction/incomplete correction falls back", "```sql\nSELECT a FROM t\n```\nWait:\n```sql\nSELECT a FROM t WHERE\n```", "SELECT a FROM t", StyleFence, ReasonLastComplete},
	{"correction/commented inside one fence", "```sql\nSELECT a FROM t;\n-- Corrected: the filter was missing\nSELECT a FROM t WHERE b = 1;\n```", "SELECT a FROM t WHERE b = 1", StyleFence, ReasonLastCorrection},
	{"correction/the correct query should be", "```sql\nSELECT a FROM t\n```\nThe correct query should be:\n```sql\nSELECT a FROM t ORDER BY a\n```", "SELECT a FROM t ORDER BY a", StyleFence, ReasonLastCorrection},
	{"correction/that's wrong", "SELECT a FROM t\nNo, that's wrong; it needs DISTINCT.\nSELECT DISTINCT a FROM t", "SELECT DISTINCT a FROM t", StyleBare, ReasonLastCorrection},
	{"correction/Refined", "<sql>SELECT a FROM t</sql>\nRefined:\n<sql>SELECT a FROM t WHERE b IS NOT NULL</sql>", "SELECT a FROM t WHERE b IS NOT NULL", StyleTag, ReasonLastCorrection},
	{"correction/Hold on in bold", "```sql\nSELECT a FROM t\n```\n**Hold on**, the filter is missing.\n```sql\nSELECT a FROM t WHERE b = 1\n```", "SELECT a FROM t WHERE b = 1", StyleFence, ReasonLastCorrection},
	{"correction/no cue, last wins", "```sql\nSELECT a FROM t\n```\nThen:\n```sql\nSELECT b FROM t\n```", "SELECT b FROM t", StyleFence, ReasonLastComplete},

	// Multi-turn transcripts: the last assistant turn's SQL.
	{"transcript/User and Assistant lines", "User: How many singers?\nAssistant: SELECT count(*) FROM singer\nUser: Only French ones.\nAssistant: SELECT count(*) FROM singer WHERE country = 'France'", "SELECT count(*) FROM singer WHERE country = 'France'", StyleBare, ReasonLastAssistantTurn},
	{"transcript/SQL in a later user turn ignored", "### User:\nHow many?\n### Assistant:\n```sql\nSELECT count(*) FROM a\n```\n### User:\nIs this right?\n```sql\nSELECT count(*) FROM b\n```", "SELECT count(*) FROM a", StyleFence, ReasonLastAssistantTurn},
	{"transcript/last assistant turn has no SQL", "Human: names?\nAssistant: SELECT name FROM t\nHuman: thanks!\nAssistant: You're welcome.", "SELECT name FROM t", StyleBare, ReasonLastAssistantTurn},
	{"transcript/ChatML turns", "<|im_start|>user\nHow many dogs?<|im_end|>\n<|im_start|>assistant\nSELECT count(*) FROM dogs<|im_end|>\n<|im_start|>user\nAnd cats?<|im_end|>\n<|im_start|>assistant\nSELECT count(*) FROM cats<|im_end|>", "SELECT count(*) FROM cats", StyleBare, ReasonLastAssistantTurn},
	{"transcript/Llama-2 INST turns", "[INST] list names [/INST] SELECT name FROM a </s><s>[INST] only adults [/INST] SELECT name FROM a WHERE age >= 18 </s>", "SELECT name FROM a WHERE age >= 18", StyleBare, ReasonLastAssistantTurn},
	{"transcript/Llama-3 header turns", "<|start_header_id|>user<|end_header_id|>\n\nq1<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n```sql\nSELECT 1 FROM t\n```<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nq2<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n```sql\nSELECT 2 FROM t\n```<|eot_id|>", "SELECT 2 FROM t", StyleFence, ReasonLastAssistantTurn},
	{"transcript/Gemma turns", "<start_of_turn>user\nq<end_of_turn>\n<start_of_turn>model\n<sql>SELECT a FROM t</sql><end_of_turn>\n<start_of_turn>user\nSELECT b FROM t<end_of_turn>", "SELECT a FROM t", StyleTag, ReasonLastAssistantTurn},
	{"transcript/answer before a hallucinated user turn", "SELECT name FROM singer\nUser: And their ages?", "SELECT name FROM singer", StyleBare, ReasonLastAssistantTurn},
	{"transcript/correction inside the last turn", "User: q\nAssistant: ```sql\nSELECT a FROM t\n```\nWait, it needs a filter.\n```sql\nSELECT a FROM t WHERE c = 1\n```\nUser: ok", "SELECT a FROM t WHERE c = 1", StyleFence, ReasonLastCorrection},
	{"transcript/bold role names", "**User:** count them\n**Assistant:** SELECT count(*) FROM t\n**User:** by city\n**Assistant:** SELECT city, count(*) FROM t GROUP BY city", "SELECT city, count(*) FROM t GROUP BY city", StyleBare, ReasonLastAssistantTurn},
	{"transcript/few-shot completion runs on into a new Question", "SELECT name FROM singer WHERE age > 30\n\nQuestion: How many concerts were held in 2014?\nSQL: SELECT count(*) FROM concert WHERE year = 2014", "SELECT name FROM singer WHERE age > 30", StyleBare, ReasonLastAssistantTurn},
	{"transcript/few-shot completion runs on into an Instruction", "```sql\nSELECT a FROM t\n```\n\n### Instruction:\nList b.\n\n### Response:\n```sql\nSELECT b FROM t\n```", "SELECT a FROM t", StyleFence, ReasonLastAssistantTurn},
	{"transcript/Q: after an answer", "SELECT max(age) FROM people\nQ: youngest?\nA: SELECT min(age) FROM people", "SELECT max(age) FROM people", StyleBare, ReasonLastAssistantTurn},
	{"transcript/a restated question is no turn", "Question: how many singers are there?\nSQL: SELECT count(*) FROM singer", "SELECT count(*) FROM singer", StyleBare, ReasonSingle},
	{"transcript/restated mid-answer is no turn", "Let me restate it.\nQuestion: how many singers?\nSQL: SELECT count(*) FROM singer", "SELECT count(*) FROM singer", StyleBare, ReasonSingle},
	{"transcript/only user turns hold no answer", "User: SELECT a FROM t\nUser: and b?", "", StyleNone, ReasonNone},
	{"transcript/no user turn is no transcript", "Assistant: SELECT a FROM t", "SELECT a FROM t", StyleBare, ReasonSingle},
	{"transcript/a user table is no role", "SELECT name FROM user\nWHERE id = 1", "SELECT name FROM user\nWHERE id = 1", StyleBare, ReasonSingle},
}

func TestExtractClasses(t *testing.T) {
	if len(classCases) < 60 {
		t.Fatalf("%d class cases; want at least 60", len(classCases))
	}
	for _, tc := range classCases {
		t.Run(tc.name, func(t *testing.T) {
			e := ExtractSQL(tc.in)
			if e.SQL != tc.want || e.Style != tc.style || e.Reason != tc.reason {
				t.Errorf("ExtractSQL(%q) = %q (%s, %s); want %q (%s, %s)", tc.in, e.SQL, e.Style, e.Reason, tc.want, tc.style, tc.reason)
			}
		})
	}
}

// prefixCases are responses to a completion-style prompt that ended with
// "SELECT": most continue the statement, some answer with one of their own.
var prefixCases = []classCase{
	{"prefix/count", "count(*) FROM singer", "SELECT count(*) FROM singer", StyleContinuation, ReasonContinuation},
	{"prefix/leading space", " name FROM singer WHERE age > 30;", "SELECT name FROM singer WHERE age > 30", StyleContinuation, ReasonContinuation},
	{"prefix/DISTINCT", "DISTINCT country FROM singer", "SELECT DISTINCT country FROM singer", StyleContinuation, ReasonContinuation},
	{"prefix/star over lines", "*\nFROM concert\nWHERE year = 2014", "SELECT *\nFROM concert\nWHERE year = 2014", StyleContinuation, ReasonContinuation},
	{"prefix/then explanation", "T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid\n\nThis joins the tables.", "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid", StyleContinuation, ReasonContinuation},
	{"prefix/then template debris", "avg(salary) FROM instructor [/INST]", "SELECT avg(salary) FROM instructor", StyleContinuation, ReasonContinuation},
	{"prefix/with markdown escapes", "count(\\*) FROM pets\\_owners", "SELECT count(*) FROM pets_owners", StyleContinuation, ReasonContinuation},
	{"prefix/runs on into a made-up example", "count(*) FROM concert\n\nQuestion: How many singers?\nSQL: SELECT count(*) FROM singer", "SELECT count(*) FROM concert", StyleContinuation, ReasonContinuation},
	{"prefix/a label is no continuation", "SQL: SELECT a FROM t", "SELECT a FROM t", StyleBare, ReasonSingle},
	{"prefix/a tag is no continuation", "<sql_query>SELECT a FROM t</sql_query>", "SELECT a FROM t", StyleTag, ReasonSingle},
	{"prefix/bold is no continuation", "**SELECT a FROM t**", "SELECT a FROM t", StyleBare, ReasonSingle},
	{"prefix/model repeats SELECT", "select name from singer", "select name from singer", StyleBare, ReasonSingle},
	{"prefix/model writes a CTE", "WITH x AS (SELECT id FROM t) SELECT count(*) FROM x", "WITH x AS (SELECT id FROM t) SELECT count(*) FROM x", StyleBare, ReasonSingle},
	{"prefix/model answers in prose and a fence", "Here is the query:\n```sql\nSELECT a FROM t\n```", "SELECT a FROM t", StyleFence, ReasonSingle},
}

func TestExtractPrefixClass(t *testing.T) {
	for _, tc := range prefixCases {
		t.Run(tc.name, func(t *testing.T) {
			e := ExtractWith(tc.in, Options{Continues: "SELECT"})
			if e.SQL != tc.want || e.Style != tc.style || e.Reason != tc.reason {
				t.Errorf("ExtractWith(%q, Continues SELECT) = %q (%s, %s); want %q (%s, %s)", tc.in, e.SQL, e.Style, e.Reason, tc.want, tc.style, tc.reason)
			}
		})
	}
}

func TestPrime(t *testing.T) {
	tests := []struct {
		name, sql, prefix, want string
		primed                  bool
	}{
		{"completion", "count(*) FROM singer", "SELECT", "SELECT count(*) FROM singer", true},
		{"leading white space", "\n  name FROM singer", "SELECT ", "SELECT name FROM singer", true},
		{"starts with SELECT", "SELECT name FROM singer", "SELECT", "SELECT name FROM singer", false},
		{"lower-case select", "select 1", "SELECT", "select 1", false},
		{"starts with WITH", "WITH t AS (SELECT 1) SELECT * FROM t", "SELECT", "WITH t AS (SELECT 1) SELECT * FROM t", false},
		{"parenthesised", "(SELECT 1) UNION (SELECT 2)", "SELECT", "(SELECT 1) UNION (SELECT 2)", false},
		{"a comment then SELECT", "-- names\nSELECT name FROM t", "SELECT", "-- names\nSELECT name FROM t", false},
		{"selected is no keyword", "selected FROM t", "SELECT", "SELECT selected FROM t", true},
		{"empty stays empty", "  ", "SELECT", "  ", false},
		{"no prefix", "count(*) FROM t", "", "count(*) FROM t", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, primed := Prime(tt.sql, tt.prefix)
			if got != tt.want || primed != tt.primed {
				t.Errorf("Prime(%q, %q) = %q, %v; want %q, %v", tt.sql, tt.prefix, got, primed, tt.want, tt.primed)
			}
		})
	}
}
