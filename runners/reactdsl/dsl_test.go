package reactdsl

import (
	"context"
	"errors"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
)

const fixtureSQL = `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, net_worth REAL);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER, stadium TEXT);
CREATE TABLE singer_in_concert (concert_id INTEGER, singer_id INTEGER);
INSERT INTO singer VALUES (1,'Joe Sharp','Netherlands',52,30.5),(2,'Timbaland','United States',32,12.0),
 (3,'Justin Brown','France',29,3.5),(4,'Rose White','France',41,8.25),(5,'John Nizinik','France',43,1.0),
 (6,'Tribal King','France',25,NULL);
INSERT INTO concert VALUES (1,'Auditions',2014,'Balmoor'),(2,'Super bootcamp',2014,'Glebe Park'),
 (3,'Home Visits',2015,'Balmoor'),(4,'Week 1',2015,'Recreation Park');
INSERT INTO singer_in_concert VALUES (1,2),(1,3),(2,3),(3,5),(4,4),(4,3);
`

// fixture builds the test database from fixtureSQL in a temp dir and opens
// it read-only through datasets.
func fixture(t testing.TB) (datasets.Database, *datasets.Schema) {
	t.Helper()
	db := runkit.DB(t, "concert", fixtureSQL)
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

// run applies a program and returns the last outcome or the first error.
func run(t *testing.T, s *Session, prog string) (Outcome, error) {
	t.Helper()
	calls, perrs := ParseCalls(prog)
	if len(perrs) > 0 {
		return Outcome{}, perrs[0]
	}
	var out Outcome
	for _, c := range calls {
		o, err := s.Apply(c)
		if err != nil {
			return Outcome{}, err
		}
		out = o
	}
	return out, nil
}

func TestTypedErrors(t *testing.T) {
	_, schema := fixture(t)
	tests := []struct {
		name, prog string
		code       Code
		line       int
		suggest    string // a name that must be among the suggestions
	}{
		{"syntax", "r1 = table_ref(\"singer\"\nr2 = filter_expr(r1, \"age >\")", SyntaxError, 1, ""},
		{"expr syntax", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"age > AND\")", SyntaxError, 2, ""},
		{"unknown op", "r1 = tabel_ref(\"singer\")", UnknownOperation, 1, "table_ref"},
		{"undefined rel", "r2 = filter_expr(r1, \"age > 3\")", UndefinedRelation, 1, ""},
		{"unknown table", "r1 = table_ref(\"singers\")", UnknownTable, 1, "singer"},
		{"unknown column", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"nmae = 'x'\")", UnknownColumn, 2, "singer.name"},
		{"unknown qualified", "r1 = table_ref(\"singer\", as=\"S\")\nr2 = select_columns(r1, [\"S.agee\"])", UnknownColumn, 2, "S.age"},
		{"ambiguous", "r1 = table_ref(\"singer\", as=\"S\")\nr2 = join_table(r1, \"singer_in_concert\", on=\"S.singer_id = T.singer_id\", as=\"T\")\nr3 = select_columns(r2, [\"singer_id\"])", AmbiguousColumn, 3, "S.singer_id"},
		{"set arity", "r1 = table_ref(\"singer\")\nr2 = select_columns(r1, [\"name\", \"age\"])\nr3 = select_columns(r1, [\"name\"])\nr4 = set_op(r2, r3, op=\"union\")", ArityMismatch, 4, ""},
		{"in arity", "r1 = table_ref(\"singer\")\nr2 = in_relation(r1, \"singer_id\", r1)", ArityMismatch, 2, ""},
		{"scalar arity", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"age > {r1}\")", ArityMismatch, 2, ""},
		{"limit type", "r1 = table_ref(\"singer\")\nr2 = limit(r1, \"3\")", TypeMismatch, 2, ""},
		{"literal predicate", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"'France'\")", TypeMismatch, 2, ""},
		{"sum of string", "r1 = table_ref(\"singer\")\nr2 = select_columns(r1, [\"sum('age')\"])", TypeMismatch, 2, ""},
		{"bad kind", "r1 = table_ref(\"singer\")\nr2 = join_table(r1, \"concert\", on=\"1=1\", kind=\"outer\")", BadArgument, 2, ""},
		{"unknown param", "r1 = table_ref(\"singer\", ass=\"S\")", BadArgument, 1, "as"},
		{"missing target", "table_ref(\"singer\")", BadArgument, 1, ""},
		{"raw subquery", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"age > (SELECT 1)\")", BadArgument, 2, ""},
		{"self join alias", "r1 = table_ref(\"singer\")\nr2 = join_table(r1, \"singer\", on=\"1=1\")", BadArgument, 2, ""},
		{"agg in filter", "r1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"count(*) > 1\")", MisplacedAggregate, 2, ""},
		{"nested agg", "r1 = table_ref(\"singer\")\nr2 = aggregate(r1, aggs=[\"max(count(*)) AS m\"])", MisplacedAggregate, 2, ""},
		{"having ungrouped", "r1 = table_ref(\"singer\")\nr2 = having(r1, \"count(*) > 1\")", NotGrouped, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSession(schema, "sqlite")
			_, err := run(t, s, tc.prog)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got error %v (%T); want *Error with code %s", err, err, tc.code)
			}
			if e.Code != tc.code {
				t.Fatalf("got code %s (%v); want %s", e.Code, e, tc.code)
			}
			if e.Line != tc.line {
				t.Errorf("got line %d; want %d (%v)", e.Line, tc.line, e)
			}
			if tc.suggest != "" && !contains(e.Suggestions, tc.suggest) {
				t.Errorf("got suggestions %v; want them to include %q", e.Suggestions, tc.suggest)
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestCompileResults checks hand-written programs against hand-computed
// answers on the fixture (the expected rows are read off fixtureSQL).
func TestCompileResults(t *testing.T) {
	db, schema := fixture(t)
	tests := []struct {
		name, prog string
		want       string // rows joined by ";" with cells joined by ","
	}{
		{"filter+order+limit", `
r1 = table_ref("singer")
r2 = filter_expr(r1, "country = 'France'")
r3 = order_by(r2, ["age DESC"])
r4 = limit(r3, 2)
r5 = select_columns(r4, ["name"])`, "John Nizinik;Rose White"},
		{"aggregate+having+alias", `
r1 = table_ref("singer")
r2 = aggregate(r1, group_by=["country"], aggs=["count(*) AS n"])
r3 = having(r2, "n >= 2")
r4 = select_columns(r3, ["country", "n"])`, "France,4"},
		{"join count per concert, top 1", `
r1 = table_ref("concert", as="C")
r2 = join_table(r1, "singer_in_concert", on="C.concert_id = SC.concert_id", as="SC")
r3 = aggregate(r2, group_by=["C.concert_name"], aggs=["count(*) AS n"])
r4 = order_by(r3, ["n DESC", "C.concert_name"])
r5 = limit(r4, 1)
r6 = select_columns(r5, ["C.concert_name"])`, "Auditions"},
		{"left join keeps unmatched", `
r1 = table_ref("singer", as="S")
r2 = join_table(r1, "singer_in_concert", on="S.singer_id = SC.singer_id", kind="left", as="SC")
r3 = filter_expr(r2, "SC.concert_id IS NULL")
r4 = select_columns(r3, ["S.name"])
r5 = order_by(r4, ["S.name"])`, "Joe Sharp;Tribal King"},
		{"scalar subquery and not in", `
r1 = table_ref("singer")
r2 = select_columns(r1, ["avg(age)"])
r3 = filter_expr(r1, "age > {r2}")
r4 = table_ref("singer_in_concert")
r5 = select_columns(r4, ["singer_id"])
r6 = in_relation(r3, "singer_id", r5, negate=true)
r7 = select_columns(r6, ["name"])`, "Joe Sharp"},
		{"compute after limit nests", `
r1 = table_ref("singer")
r2 = order_by(r1, ["age"])
r3 = limit(r2, 2)
r4 = compute(r3, ["age * 2 AS twice"])
r5 = select_columns(r4, ["twice"])
r6 = order_by(r5, ["twice"])`, "50;58"},
		{"set ops", `
r1 = table_ref("concert")
r2 = filter_expr(r1, "year = 2014")
r3 = select_columns(r2, ["stadium"])
r4 = filter_expr(r1, "year = 2015")
r5 = select_columns(r4, ["stadium"])
r6 = set_op(r3, r5, op="intersect")`, "Balmoor"},
		{"distinct count of filtered nest", `
r1 = table_ref("singer_in_concert")
r2 = select_columns(r1, ["singer_id"])
r3 = distinct(r2)
r4 = table_ref(r3, as="D")
r5 = select_columns(r4, ["count(*)"])`, "4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSession(schema, "sqlite")
			out, err := run(t, s, tc.prog)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := db.Execute(context.Background(), s.SQL(out.Rel))
			if err != nil {
				t.Fatalf("%v\nsql: %s", err, s.SQL(out.Rel))
			}
			if got := flat(rs); got != tc.want {
				t.Errorf("got %q; want %q\nsql: %s", got, tc.want, s.SQL(out.Rel))
			}
		})
	}
}

func flat(rs *datasets.ResultSet) string {
	var rows []string
	for _, r := range rs.Rows {
		var cells []string
		for _, v := range r {
			cells = append(cells, cell(v))
		}
		rows = append(rows, strings.Join(cells, ","))
	}
	return strings.Join(rows, ";")
}

func TestMySQLDialect(t *testing.T) {
	_, schema := fixture(t)
	s := NewSession(schema, "mysql")
	out, err := run(t, s, `
r1 = table_ref("singer", as="S")
r2 = filter_expr(r1, "S.name || '!' == 'Joe Sharp!' AND S.country = 'it''s \\ here'")
r3 = select_columns(r2, ["CAST(S.age AS INTEGER) AS a"])
r4 = limit(r3, 5, offset=1)`)
	if err != nil {
		t.Fatal(err)
	}
	got := s.SQL(out.Rel)
	want := "SELECT CAST(`S`.`age` AS SIGNED) AS `a` FROM `singer` AS `S` WHERE CONCAT(`S`.`name`, '!') = 'Joe Sharp!' AND `S`.`country` = 'it''s \\\\ here' LIMIT 5 OFFSET 1"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCombinedAnswer(t *testing.T) {
	db, schema := fixture(t)
	s := NewSession(schema, "sqlite")
	out, err := run(t, s, `
r1 = table_ref("singer")
r2 = select_columns(r1, ["count(*)"])
r3 = select_columns(r1, ["max(age)"])
answer(r2, r3)`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != "answer" || len(out.Answer) != 2 {
		t.Fatalf("got %+v; want a two-relation answer", out)
	}
	rs, err := db.Execute(context.Background(), out.SQL)
	if err != nil {
		t.Fatal(err)
	}
	if got := flat(rs); got != "6,52" {
		t.Errorf("got %q; want \"6,52\" (6 singers, oldest 52)", got)
	}
}

func TestParseCallsExtraction(t *testing.T) {
	text := "Thought: I need singers.\n```sql\nSELECT 1\n```\n```dsl\n# load\nr1 = table_ref(\"singer\",\n   as=\"S\")\nsample_rows(r1, n=3)\n```\nr9 = table_ref(\"ignored outside the block\")\n"
	calls, errs := ParseCalls(text)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(calls) != 2 || calls[0].Op != "table_ref" || calls[1].Op != "sample_rows" {
		t.Fatalf("got %v; want table_ref then sample_rows", calls)
	}
	if calls[0].Line != 7 || calls[0].Args[1].Name != "as" {
		t.Errorf("got line %d args %v; want line 7 with as=", calls[0].Line, calls[0].Args)
	}
	// Without a dsl fence, call-shaped lines are read.
	calls, _ = ParseCalls("I will do r1 = x\nr1 = table_ref('singer')\nexecute(r1)\n")
	if len(calls) != 2 {
		t.Errorf("got %d calls; want 2", len(calls))
	}
}
