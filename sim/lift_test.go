package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// TestLift checks the programs the lifter writes for SQL on the literal
// schema liftFuzzSchema, and the NotLiftable errors for SQL outside the DSL
// subset. The expected programs are SQL's logical clause order written as
// calls (FROM/JOIN, WHERE, GROUP BY, HAVING, SELECT, DISTINCT, ORDER BY,
// LIMIT), each subquery lifted into a relation of its own first. The Spider round trip (TestRoundTripSpider) checks that
// such programs compute the gold results.
func TestLift(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		want      string // the program, one call a line
		final     string
	}{
		{"filter order limit", "SELECT name FROM singer WHERE age > 30 ORDER BY age DESC LIMIT 2", `t1_r0 = table_ref("singer")
t1_r1 = filter_expr(t1_r0, "age > 30")
t1_r2 = select_columns(t1_r1, ["name"])
t1_r3 = order_by(t1_r2, ["age DESC"])
t1_r4 = limit(t1_r3, 2)
`, "t1_r4"},
		{"join group having", "SELECT T1.name, count(*) AS n FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.concert_id GROUP BY T1.name HAVING count(*) > 1", `t1_r0 = table_ref("singer", as="T1")
t1_r1 = join_table(t1_r0, "concert", on="T1.singer_id = T2.concert_id", as="T2")
t1_r2 = aggregate(t1_r1, group_by=["T1.name"])
t1_r3 = having(t1_r2, "count(*) > 1")
t1_r4 = select_columns(t1_r3, ["T1.name", "count(*) AS n"])
`, "t1_r4"},
		{"not in subquery and parenthesised or", "SELECT name FROM singer WHERE singer_id NOT IN (SELECT concert_id FROM concert) AND (age < 20 OR age > 60)", `t1_r0 = table_ref("singer")
t1_r1 = table_ref("concert")
t1_r2 = select_columns(t1_r1, ["concert_id"])
t1_r3 = in_relation(t1_r0, "singer_id", t1_r2, negate=true)
t1_r4 = filter_expr(t1_r3, "(age < 20 OR age > 60)")
t1_r5 = select_columns(t1_r4, ["name"])
`, "t1_r5"},
		{"scalar subquery and union", "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer) UNION SELECT year FROM concert", `t1_r0 = table_ref("singer")
t1_r1 = table_ref("singer")
t1_r2 = select_columns(t1_r1, ["avg(age)"])
t1_r3 = filter_expr(t1_r0, "age > {t1_r2}")
t1_r4 = select_columns(t1_r3, ["name"])
t1_r5 = table_ref("concert")
t1_r6 = select_columns(t1_r5, ["year"])
t1_r7 = set_op(t1_r4, t1_r6, op="union")
`, "t1_r7"},
		{"distinct star offset", "SELECT DISTINCT * FROM singer LIMIT 3 OFFSET 1", `t1_r0 = table_ref("singer")
t1_r1 = distinct(t1_r0)
t1_r2 = limit(t1_r1, 3, offset=1)
`, "t1_r2"},
		{"keyword alias quoted", `SELECT name AS "select" FROM singer`, "t1_r0 = table_ref(\"singer\")\nt1_r1 = select_columns(t1_r0, [\"name AS `select`\"])\n", "t1_r1"},
	} {
		calls, final, err := lift(tc.sql, liftFuzzSchema, "t1_")
		if err != nil {
			t.Errorf("%s: lift(%q): got error %v; want a program", tc.name, tc.sql, err)
			continue
		}
		if got := formatProgram(calls); got != tc.want || final != tc.final {
			t.Errorf("%s: lift(%q): got final %q and\n%s; want final %q and\n%s", tc.name, tc.sql, final, got, tc.final, tc.want)
		}
	}
}

// TestLiftNotLiftable checks that SQL outside the DSL subset, SQL that
// does not parse and SQL the DSL check rejects each give a
// *reactdsl.Error with Code NotLiftableCode, saying why, with the
// underlying error as Cause where there is one.
func TestLiftNotLiftable(t *testing.T) {
	for _, tc := range []struct {
		sql, msg string        // msg: a part of the message
		cause    reactdsl.Code // "" for none
	}{
		{"WITH x AS (SELECT 1) SELECT * FROM x", "WITH (common table expressions) is outside", ""},
		{"SELECT 1", "SELECT without FROM is outside", ""},
		{"SELECT * FROM singer GROUP BY name", "SELECT * with GROUP BY is outside", ""},
		{"SELECT count(*) FROM singer HAVING count(*) > 1", "HAVING without GROUP BY is outside", ""},
		{"SELECT name FROM singer LIMIT age", "a non-literal LIMIT is outside", ""},
		{"SELECT name FROM singer LIMIT 1 OFFSET age", "a non-literal OFFSET is outside", ""},
		{"SELEC name", "cannot parse the SQL: SyntaxError", reactdsl.SyntaxError},
		{"SELECT nosuch FROM singer", "fails the DSL check (UnknownColumn)", reactdsl.UnknownColumn},
		// A correlated subquery: the lifted inner relation cannot see S.
		{"SELECT name FROM singer AS S WHERE EXISTS (SELECT 1 FROM concert AS C WHERE C.concert_id = S.singer_id)", "fails the DSL check (UnknownColumn)", reactdsl.UnknownColumn},
	} {
		calls, final, err := lift(tc.sql, liftFuzzSchema, "")
		var e *reactdsl.Error
		if !errors.As(err, &e) || e.Code != reactdsl.NotLiftableCode {
			t.Errorf("lift(%q): got %d calls, final %q, error %v; want a NotLiftable *reactdsl.Error", tc.sql, len(calls), final, err)
			continue
		}
		if !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("lift(%q): got message %q; want it to contain %q", tc.sql, e.Msg, tc.msg)
		}
		var cause reactdsl.Code
		if e.Cause != nil {
			cause = e.Cause.Code
		}
		if cause != tc.cause {
			t.Errorf("lift(%q): got cause %q; want %q", tc.sql, cause, tc.cause)
		}
		if calls != nil || final != "" {
			t.Errorf("lift(%q): got %d calls, final %q with the error; want none", tc.sql, len(calls), final)
		}
	}
}
