package reactdsl

import (
	"errors"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// fuzzSchema is a small literal schema, so fuzzing needs no database.
var fuzzSchema = &datasets.Schema{DBID: "f", Tables: []datasets.Table{
	{Name: "singer", Columns: []datasets.Column{{Name: "singer_id", Type: "INTEGER"}, {Name: "name", Type: "TEXT"}, {Name: "age", Type: "INTEGER"}}},
	{Name: "concert", Columns: []datasets.Column{{Name: "concert_id", Type: "INTEGER"}, {Name: "year", Type: "TEXT"}}},
}}

func typed(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
	if e.Code == "" || e.Msg == "" {
		t.Fatalf("error without code or message: %#v", e)
	}
}

// FuzzCalls feeds model output to the call parser and the type checker:
// nothing panics, every rejection is a typed *Error, and every relation that
// checks compiles to SQL that the SQL parser reads back.
func FuzzCalls(f *testing.F) {
	for _, s := range []string{
		"r1 = table_ref(\"singer\", as=\"S\")\nr2 = filter_expr(r1, \"S.age > 3 OR S.name LIKE 'a%'\")\nr3 = aggregate(r2, group_by=[\"S.name\"], aggs=[\"count(*) AS n\"])\nr4 = having(r3, \"n > 1\")\nr5 = order_by(r4, [\"n DESC\"])\nr6 = limit(r5, 2)\nexecute(r6)\nanswer(r6)",
		"```dsl\nr1 = table_ref('concert')\nr2 = select_columns(r1, [\"year\"])\nr3 = set_op(r2, r2, op=\"except\")\nr4 = in_relation(r1, \"year\", r3, negate=true)\nr5 = compute(r4, [\"CAST(year AS INTEGER) + 1 AS y\"])\ndistinct_values(r5, \"y\", 3)\n```",
		"r1 = table_ref(\"singer\")\nr2 = join_table(r1, \"concert\", kind=\"cross\")\nr3 = filter_expr(r2, \"age > {r1}\")\nsample_rows(r3, 99)",
		"r1 = table_ref(\"singer\")\nr2 = select_columns(r1, [\"*\"])\nr3 = distinct(r2)\nr4 = table_ref(r3, as=\"x\")\nr5 = filter_expr(r4, \"EXISTS {r1} AND x.age BETWEEN 1 AND 2\")",
		"r1 = table_ref(\"singer\"\nanswer(r7)\n",
		// Real models' wrappings: prose + ```python, untagged fences,
		// numbering, bullets, inline backticks, Action: labels, trailing
		// semicolons, CRLF, a one-line fence, a fence cut at max_tokens.
		"Let me look.\n```python\nr1 = table_ref(\"singer\");\nsample_rows(r1, 3);\nprint(r1)\n```\nThen filter.",
		"```\nr1 = table_ref(\"singer\")\nexecute(r1)\n```",
		"1. `r1 = table_ref(\"singer\", as=\"S\")` loads singers\n2) `r2 = filter_expr(r1, \"S.age > 30\")`;\n- execute(r2)\n* answer(r2)",
		"Thought: done.\nAction: answer(r1)\r\n• execute(r1)",
		"```answer(r1)```",
		"```dsl\nr1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"name = 'x",
		"```sql\nSELECT 1\n```\nBefore the final answer I will call answer(r1) later.\n`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls, perrs := ParseCalls(text)
		for _, e := range perrs {
			typed(t, e)
		}
		// A call reads the same in every wrapping a model may give it
		// (outside a ```dsl fence only call-shaped lines are read: a known
		// operation, or an assignment).
		for _, c := range calls {
			canon := c.String()
			if !looksLikeCall(canon) {
				continue
			}
			for _, form := range []string{"1. " + canon + ";", "- `" + canon + "` then more", "```python\n" + canon + ";\n```", "Action: " + canon} {
				again, errs := ParseCalls(form)
				if len(errs) != 0 || len(again) != 1 || again[0].String() != canon {
					t.Fatalf("call %q wrapped as %q parses to %v, %v; want the same call", canon, form, again, errs)
				}
			}
		}
		s := NewSession(fuzzSchema, "sqlite")
		for _, c := range calls {
			out, err := s.Apply(c)
			typed(t, err)
			if err != nil || out.Rel == nil {
				continue
			}
			sql := s.SQL(out.Rel)
			if _, err := ParseSelect(sql); err != nil {
				var e *Error
				if errors.As(err, &e) && e.Code == NotLiftableCode {
					continue
				}
				t.Fatalf("compiled SQL does not parse: %v\n%s", err, sql)
			}
		}
	})
}

// FuzzParseSelect feeds SQL to the SQL parser: no panics, every rejection
// typed. (The lifter built on it, and its fuzz test FuzzLift, are the
// simulator's: package sim.)
func FuzzParseSelect(f *testing.F) {
	for _, s := range []string{
		"SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.concert_id GROUP BY T1.name HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT 3",
		"SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer) UNION SELECT year FROM concert",
		"SELECT DISTINCT name FROM singer WHERE singer_id NOT IN (SELECT concert_id FROM concert) AND name LIKE \"%a\"",
		"SELECT count(*) FROM (SELECT * FROM singer) WHERE CASE WHEN age > 1 THEN 1 ELSE 0 END = 1",
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"SELECT -(-(1)) || 'a' FROM singer LIMIT 1, 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, err := ParseSelect(sql)
		typed(t, err)
	})
}
