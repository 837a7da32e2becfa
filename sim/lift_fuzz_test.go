package sim

import (
	"errors"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// liftFuzzSchema is a small literal schema, so fuzzing needs no database.
var liftFuzzSchema = &datasets.Schema{DBID: "f", Tables: []datasets.Table{
	{Name: "singer", Columns: []datasets.Column{{Name: "singer_id", Type: "INTEGER"}, {Name: "name", Type: "TEXT"}, {Name: "age", Type: "INTEGER"}}},
	{Name: "concert", Columns: []datasets.Column{{Name: "concert_id", Type: "INTEGER"}, {Name: "year", Type: "TEXT"}}},
}}

// typedDSL fails t unless err is nil or a *reactdsl.Error with a code and a
// message.
func typedDSL(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *reactdsl.Error
	if !errors.As(err, &e) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
	if e.Code == "" || e.Msg == "" {
		t.Fatalf("error without code or message: %#v", e)
	}
}

// FuzzLift feeds SQL to the SQL parser and the lifter: no panics, every
// rejection typed, and every success has calls.
func FuzzLift(f *testing.F) {
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
		_, err := reactdsl.ParseSelect(sql)
		typedDSL(t, err)
		calls, _, err := lift(sql, liftFuzzSchema, "")
		typedDSL(t, err)
		if err == nil && len(calls) == 0 {
			t.Fatal("lift succeeded with no calls")
		}
	})
}
