package datasets

import "testing"

// The expected counts below were worked by hand from the rules of
// taoyds/test-suite-sql-eval evaluation.py (count_component1,
// count_component2, count_others, eval_hardness); cases marked "Spider dev
// #n" are dev.json items whose official level is the stated one.
func TestCountHardness(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		want  HardnessCounts
		level string
	}{
		{"count star (Spider dev #0)", "SELECT count(*) FROM singer", HardnessCounts{0, 0, 0}, HardnessEasy},
		{"three columns ordered", "SELECT name , country , age FROM singer ORDER BY age DESC", HardnessCounts{1, 0, 1}, HardnessMedium},
		{"join where and like", "SELECT T2.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id WHERE T1.x = 1 AND T1.y LIKE '%z%'", HardnessCounts{3, 0, 1}, HardnessHard},
		{"not in subquery", "SELECT name FROM t WHERE id NOT IN (SELECT id FROM u)", HardnessCounts{1, 1, 0}, HardnessHard},
		{"intersect", "SELECT a FROM t INTERSECT SELECT a FROM u", HardnessCounts{0, 1, 0}, HardnessHard},
		{"subquery plus union", "SELECT a FROM t WHERE b > (SELECT avg(b) FROM t) UNION SELECT a FROM u", HardnessCounts{1, 2, 0}, HardnessExtra},
		{"between is one condition", "SELECT a FROM t WHERE b BETWEEN 1 AND 5", HardnessCounts{1, 0, 0}, HardnessEasy},
		// aggregates: select count(*) = 1, HAVING's AND connective = 1 -> 2 > 1.
		{"having connective counts as aggregate", "SELECT a , count(*) FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) < 3", HardnessCounts{1, 0, 2}, HardnessMedium},
		{"order by two aggregates", "SELECT a FROM t GROUP BY a ORDER BY sum(b) - sum(c) DESC LIMIT 1", HardnessCounts{3, 0, 1}, HardnessHard},
		{"from subquery is a table unit", "SELECT count(*) FROM (SELECT a FROM t GROUP BY a)", HardnessCounts{0, 0, 0}, HardnessEasy},
		{"or in where", "SELECT a FROM t WHERE b = 1 OR b = 2", HardnessCounts{2, 0, 1}, HardnessMedium},
		// ON condition cut at its first OR: c1 = join 1 + group + order + limit = 4 (Spider dev #225, official "extra").
		{"or in on (Spider dev #225)", "SELECT T1.AirportCode FROM AIRPORTS AS T1 JOIN FLIGHTS AS T2 ON T1.AirportCode  =  T2.DestAirport OR T1.AirportCode  =  T2.SourceAirport GROUP BY T1.AirportCode ORDER BY count(*) DESC LIMIT 1", HardnessCounts{4, 0, 0}, HardnessExtra},
		{"double-quoted literal with keywords", `SELECT a FROM t WHERE b = "x where y or z"`, HardnessCounts{1, 0, 0}, HardnessEasy},
		{"trailing semicolon and parens", "(SELECT a FROM t);", HardnessCounts{0, 0, 0}, HardnessEasy},
		// \f and \v are white space to SQLite (sqlite3CtypeMap) and to the
		// evaluator's nltk tokenizer (\s): GROUP\fBY is GROUP BY.
		{"form feed and vertical tab are white space", "SELECT a FROM t WHERE b = 1 GROUP\fBY\va", HardnessCounts{2, 0, 0}, HardnessMedium},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CountHardness(tt.sql)
			if err != nil {
				t.Fatalf("CountHardness: %v", err)
			}
			if got != tt.want {
				t.Errorf("counts = %+v; want %+v", got, tt.want)
			}
			if l := got.Level(); l != tt.level {
				t.Errorf("level = %s; want %s", l, tt.level)
			}
		})
	}
}

func TestCountHardnessErrors(t *testing.T) {
	for _, sql := range []string{"", ";", "SELECT (a FROM t", "SELECT a) FROM t", "UPDATE t SET a = 1", "SELECT 'open FROM t"} {
		if _, err := CountHardness(sql); err == nil {
			t.Errorf("CountHardness(%q) = nil error; want an error", sql)
		}
	}
}

func TestLevelBoundaries(t *testing.T) {
	// Each row is one branch of eval_hardness.
	tests := []struct {
		h    HardnessCounts
		want string
	}{
		{HardnessCounts{1, 0, 0}, HardnessEasy},
		{HardnessCounts{1, 0, 2}, HardnessMedium},
		{HardnessCounts{2, 0, 1}, HardnessMedium},
		{HardnessCounts{2, 0, 3}, HardnessHard},
		{HardnessCounts{3, 0, 2}, HardnessHard},
		{HardnessCounts{1, 1, 0}, HardnessHard},
		{HardnessCounts{4, 0, 0}, HardnessExtra},
		{HardnessCounts{0, 2, 0}, HardnessExtra},
		{HardnessCounts{1, 1, 1}, HardnessExtra},
	}
	for _, tt := range tests {
		if got := tt.h.Level(); got != tt.want {
			t.Errorf("%+v.Level() = %s; want %s", tt.h, got, tt.want)
		}
	}
}

func TestParsedHardness(t *testing.T) {
	// Spider dev #5's parse tree (SELECT avg(age), min(age), max(age) FROM
	// singer WHERE country = "France"): c1 = 1 (WHERE), 3 aggregates and 3
	// select columns -> others 2 -> medium (official level: medium).
	raw := `{"from": {"table_units": [["table_unit", 1]], "conds": []}, "select": [false, [[5, [0, [0, 13, false], null]], [2, [0, [0, 13, false], null]], [1, [0, [0, 13, false], null]]]], "where": [[false, 2, [0, [0, 10, false], null], "\"France\"", null]], "groupBy": [], "having": [], "orderBy": [], "limit": null, "intersect": null, "union": null, "except": null}`
	h, err := parsedHardness([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if want := (HardnessCounts{1, 0, 2}); h != want {
		t.Errorf("parsedHardness = %+v; want %+v", h, want)
	}
	text, err := CountHardness(`SELECT avg(age) , min(age) , max(age) FROM singer WHERE country  =  'France'`)
	if err != nil || text != h {
		t.Errorf("CountHardness = %+v, %v; want %+v (same as the parse tree)", text, err, h)
	}
}

// TestCountHardnessLexing: the text on which the hardness scanner reads
// tokens differently from sqllex.Tokens (comment markers, dotted names,
// words glued to digits or non-ASCII characters, unterminated quotes).
// The wants are the output of the scanner's own lexer before it used
// sqllex, which every gold query of the shared data also matched.
func TestCountHardnessLexing(t *testing.T) {
	tests := []struct {
		sql  string
		want HardnessCounts
		err  string
	}{
		// "--" is two minus signs: the OR after it counts (LogicCat golds
		// carry comments on one line).
		{sql: "SELECT a FROM t WHERE b = 1 -- or c = 2", want: HardnessCounts{2, 0, 1}},
		{sql: "SELECT a FROM t WHERE b = 1 -- AND c = 2) OR (d LIKE 'x'", err: "hardness: unbalanced ')'"},
		{sql: "SELECT a FROM t /* WHERE */ WHERE b = 1", want: HardnessCounts{1, 0, 0}},
		// A keyword after a dot is a name; a dot does not start a word.
		{sql: "SELECT T1.order FROM t AS T1 WHERE T1.limit = 1", want: HardnessCounts{1, 0, 0}},
		{sql: "SELECt(0)FROM ON .LIKE", want: HardnessCounts{1, 0, 0}},
		{sql: "SELECT a FROM t WHERE b = 2or c = 3", want: HardnessCounts{1, 0, 0}},
		{sql: "SELECT café FROM t WHERE naïve = 1 GROUP BY café", want: HardnessCounts{2, 0, 0}},
		{sql: "SELECT\u00a0a FROM t", err: "hardness: query does not start with SELECT"},
		{sql: "SELECT a FROM t WHERE b = 'it''s' AND c = [x y] AND d = \"q\"", want: HardnessCounts{1, 0, 1}},
		{sql: "SELECT a FROM t WHERE b <= 1 OR c == 2 OR d <> 3 OR e != 4 OR f || g", want: HardnessCounts{5, 0, 1}},
		{sql: "SELECT a FROM t WHERE b = [open", err: "hardness: unterminated quote starting at byte 26"},
	}
	for _, tt := range tests {
		got, err := CountHardness(tt.sql)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("CountHardness(%q): got error %v; want %s", tt.sql, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CountHardness(%q): got %+v, %v; want %+v", tt.sql, got, err, tt.want)
		}
	}
}
