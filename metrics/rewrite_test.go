package metrics

import (
	"strings"
	"testing"
)

// TestPreparePred: one case per Spider rewrite, citing its source line.
func TestPreparePred(t *testing.T) {
	cases := []struct {
		rule string
		mode Mode
		q    Quirks
		in   string
		want string
	}{
		{"evaluation.py:568 strip and keep text before TAB", ModeSpider, Quirks{}, "  SELECT a FROM t\tconcert_singer\n", "SELECT a FROM t"},
		{"TAB cut switched off", ModeSpider, Quirks{KeepTabSuffix: true}, "SELECT a\tdb", "SELECT a\tdb"},
		{"evaluation.py:569 literal 'value' -> '1' in the prediction", ModeSpider, Quirks{}, "SELECT value FROM t WHERE x = 'value'", "SELECT 1 FROM t WHERE x = '1'"},
		{"'value' rewrite is case-sensitive", ModeSpider, Quirks{}, "SELECT Value, values_x FROM t", "SELECT Value, 1s_x FROM t"},
		{"'value' rewrite switched off", ModeSpider, Quirks{KeepValueWord: true}, "SELECT value FROM t", "SELECT value FROM t"},
		{"exec_eval.py:172 postprocess operator fixes", ModeSpider, Quirks{}, "SELECT a FROM t WHERE a > = 1 AND b < = 2 AND c ! = 3", "SELECT a FROM t WHERE a >= 1 AND b <= 2 AND c != 3"},
		{"operator fix switched off", ModeSpider, Quirks{NoOperatorFix: true}, "SELECT a WHERE a > = 1", "SELECT a WHERE a > = 1"},
		{"exec_eval.py:188 DISTINCT tokens removed, spaces kept", ModeSpider, Quirks{}, "SELECT DISTINCT a FROM t", "SELECT  a FROM t"},
		{"DISTINCT removed inside count(), any case", ModeSpider, Quirks{}, "SELECT count(Distinct a) FROM t", "SELECT count( a) FROM t"},
		{"DISTINCT kept inside string literals and quoted names", ModeSpider, Quirks{}, `SELECT "distinct", [distinct] FROM t WHERE x = 'distinct'`, `SELECT "distinct", [distinct] FROM t WHERE x = 'distinct'`},
		{"DISTINCT kept inside longer identifiers and comments", ModeSpider, Quirks{}, "SELECT distinct_n FROM t -- distinct", "SELECT distinct_n FROM t -- distinct"},
		{"spider-keep-distinct keeps DISTINCT", ModeSpiderKeepDistinct, Quirks{}, "SELECT DISTINCT a FROM t", "SELECT DISTINCT a FROM t"},
		{"sqlparse.parse(s)[0]: only the first statement survives DISTINCT removal", ModeSpider, Quirks{}, "SELECT a FROM t; DROP TABLE t", "SELECT a FROM t; "},
		{"first-statement cut switched off", ModeSpider, Quirks{AllStatements: true}, "SELECT a FROM t; SELECT b", "SELECT a FROM t; SELECT b"},
		{"';' inside a string does not end the statement", ModeSpider, Quirks{}, "SELECT ';' FROM t", "SELECT ';' FROM t"},
		{"exec_eval.py:125 YEAR(CURDATE()) -> 2020 (regex eats trailing space)", ModeSpider, Quirks{}, "SELECT year ( curdate ( ) ) - age FROM t", "SELECT 2020- age FROM t"},
		{"YEAR rewrite switched off", ModeSpider, Quirks{NoCurYear: true}, "SELECT YEAR(CURDATE())", "SELECT YEAR(CURDATE())"},
		{"bird: no rewrites at all", ModeBIRD, Quirks{}, " SELECT DISTINCT value\tx ", " SELECT DISTINCT value\tx "},
		{"logiccat: no rewrites", ModeLogicCat, Quirks{}, "SELECT DISTINCT a > = 1", "SELECT DISTINCT a > = 1"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			if got := PreparePred(c.mode, c.q, c.in); got != c.want {
				t.Errorf("PreparePred(%s, %q) = %q; want %q", c.mode, c.in, got, c.want)
			}
		})
	}
}

// TestPrepareGold: the gold gets the shared rewrites but not the
// prediction-only ones (TAB cut, "value").
func TestPrepareGold(t *testing.T) {
	in := "SELECT DISTINCT value FROM t WHERE a > = 1"
	if got, want := PrepareGold(ModeSpider, Quirks{}, in), "SELECT  value FROM t WHERE a >= 1"; got != want {
		t.Errorf("PrepareGold(spider) = %q; want %q", got, want)
	}
	if got, want := PrepareGold(ModeSpiderKeepDistinct, Quirks{}, in), "SELECT DISTINCT value FROM t WHERE a >= 1"; got != want {
		t.Errorf("PrepareGold(spider-keep-distinct) = %q; want %q", got, want)
	}
	if got := PrepareGold(ModeBIRD, Quirks{}, in); got != in {
		t.Errorf("PrepareGold(bird) = %q; want unchanged", got)
	}
}

// TestOrderMatters: exec_eval.py:197 substring test on the gold only.
func TestOrderMatters(t *testing.T) {
	cases := []struct {
		mode Mode
		gold string
		want bool
	}{
		{ModeSpider, "SELECT a FROM t ORDER BY a", true},
		{ModeSpider, "select a from t order by a", true},
		{ModeSpider, "SELECT a FROM t ORDER  BY a", false},
		{ModeSpider, "SELECT a FROM t ORDER\nBY a", false},
		{ModeSpider, "SELECT a FROM t", false},
		{ModeBIRD, "SELECT a FROM t ORDER BY a", false},
	}
	for _, c := range cases {
		if got := OrderMatters(c.mode, c.gold); got != c.want {
			t.Errorf("OrderMatters(%s, %q) = %v; want %v", c.mode, c.gold, got, c.want)
		}
	}
}

// TestRemoveDistinctLexing: the text on which sqlparse's tokens (and so
// remove_distinct) differ from sqllex.Tokens: '[' after a name, words
// glued to digits or '#', backslash escapes in every quote, comments
// around the first statement's end. The wants are the output of the
// rewrite's own lexer before it used sqllex, which every gold query of
// the shared data also matched.
func TestRemoveDistinctLexing(t *testing.T) {
	tests := []struct {
		in        string
		firstOnly bool
		want      string
	}{
		{"SELECT x[distinct] FROM t", false, "SELECT x[] FROM t"},
		{"SELECT x [distinct] FROM t", false, "SELECT x [distinct] FROM t"},
		{"SELECT [] distinct a FROM t", false, "SELECT []  a FROM t"},
		{"SELECT [a[distinct] FROM t", false, "SELECT [a[] FROM t"},
		{"SELECT 1distinct, a#distinct, $distinct FROM t", false, "SELECT 1distinct, a#distinct, $ FROM t"},
		{"SELECT x.distinct, (distinct) FROM t", false, "SELECT x., () FROM t"},
		{"SELECT 'it\\'s distinct' FROM t", false, "SELECT 'it\\'s distinct' FROM t"},
		{"SELECT `a\\`distinct` FROM t", false, "SELECT `a\\`distinct` FROM t"},
		{"SELECT \"a\"\"distinct\" FROM t", false, "SELECT \"a\"\"distinct\" FROM t"},
		{"SELECT a FROM t -- distinct\n WHERE DISTINCT b", false, "SELECT a FROM t -- distinct\n WHERE  b"},
		{"SELECT DISTINCT a FROM t; -- c\n  SELECT DISTINCT b", false, "SELECT  a FROM t; -- c\n  SELECT  b"},
		{"SELECT DISTINCT a FROM t; -- c\n  SELECT DISTINCT b", true, "SELECT  a FROM t; -- c\n  "},
		{"SELECT DISTINCT a FROM t; /* c */ SELECT b", true, "SELECT  a FROM t; "},
		{"SELECT 'open distinct", true, "SELECT 'open distinct"},
		{"SELECT a /* distinct", true, "SELECT a /* distinct"},
	}
	for _, tt := range tests {
		if got := RemoveDistinct(tt.in, tt.firstOnly); got != tt.want {
			t.Errorf("RemoveDistinct(%q, %v): got %q; want %q", tt.in, tt.firstOnly, got, tt.want)
		}
	}
}

// FuzzRemoveDistinct: never panics, never grows the text, keeps every
// byte that is not part of a removed DISTINCT token, and is idempotent.
func FuzzRemoveDistinct(f *testing.F) {
	for _, s := range []string{"SELECT DISTINCT a FROM t", "select 'distinct' ; distinct", "[distinct] `distinct` \"x", "/* distinct */ DISTINCT--\n"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, first bool) {
		out := RemoveDistinct(s, first)
		if len(out) > len(s) {
			t.Fatalf("output longer than input: %q -> %q", s, out)
		}
		if !first && strings.Count(strings.ToLower(s), "distinct") == 0 && out != s {
			t.Fatalf("text without DISTINCT changed: %q -> %q", s, out)
		}
		if again := RemoveDistinct(out, first); again != out && !first {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

// TestRewriteShortcuts checks that the checks letting RemoveDistinct and
// the YEAR(CURDATE()) rewrite return early never change their result: each
// query is rewritten as spiderCommon does and compared with the full
// rewrite (removeDistinctTokens and the regexp alone).
func TestRewriteShortcuts(t *testing.T) {
	queries := []string{
		"SELECT a FROM t",
		"SELECT DISTINCT a FROM t",
		"select distinct a from t",
		"SELECT DIſTINCT a FROM t",         // long s folds to s: the word is removed
		"SELECT \u212a FROM t WHERE y = 1", // Kelvin sign, no distinct
		"SELECT a FROM t; SELECT b FROM u", // second statement dropped
		"SELECT 'a;b' FROM t",              // ';' inside a literal
		"SELECT count(*) FROM t WHERE YEAR(CURDATE()) - y > 3",
		"SELECT count(*) FROM t WHERE year ( curdate ( ) ) > 3",
		"SELECT count(*) FROM t WHERE YEAR(CURDATE ) > 3",
		"SELECT distinct_count FROM t",
		"",
	}
	for _, q := range queries {
		for _, firstOnly := range []bool{false, true} {
			want := removeDistinctTokens(q, firstOnly)
			if got := RemoveDistinct(q, firstOnly); got != want {
				t.Errorf("RemoveDistinct(%q, %v) = %q; want %q", q, firstOnly, got, want)
			}
		}
		want := curYearRE.ReplaceAllString(q, "2020")
		if got := spiderCommon(Quirks{NoOperatorFix: true, KeepDistinct: true}, q); got != want {
			t.Errorf("YEAR(CURDATE()) rewrite of %q = %q; want %q", q, got, want)
		}
	}
	for _, c := range []struct {
		s    string
		want bool
	}{{"SELECT DiStInCt", true}, {"select a", false}, {"curdat", false}, {"é", true}, {"CURDATE", true}} {
		if got := containsFoldASCII(c.s, "curdate") || containsFoldASCII(c.s, "distinct"); got != c.want {
			t.Errorf("containsFoldASCII(%q) = %v; want %v", c.s, got, c.want)
		}
	}
}

// TestFoldWordsAgrees: foldWords.in answers as containsAnyFoldASCII does,
// on the word lists it serves and on texts with and without them, in any
// case, at the start, the end and across non-ASCII bytes.
func TestFoldWordsAgrees(t *testing.T) {
	texts := []string{"", "r", "SELECT * FROM t", "select RANDOM() from t", "x ROW_NUMBER() OVER (ORDER BY a)", "ends with no", "ends with now",
		"NOW", "curdate", "Currency", "café", "SELECT name FROM singer ORDER BY age LIMIT 1", "sysdat", "utc", "utc_time", "group_conca"}
	for _, words := range [][]string{staticWords, rowOrderWords, {"a"}, {"limit", "lim"}} {
		f := newFoldWords(words)
		for _, s := range texts {
			if got, want := f.in(s), containsAnyFoldASCII(s, words); got != want {
				t.Errorf("foldWords(%q).in(%q) = %v; want %v", words, s, got, want)
			}
		}
	}
}
