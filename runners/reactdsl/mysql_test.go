package reactdsl

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
)

// logicCatDB opens LogicCat database id through this package's own
// read-only account (internal/mysqltest); it skips without a server.
func logicCatDB(t *testing.T, id string) datasets.Database {
	return mysqltest.LogicCatDB(t, "t2s_ro_reactdsl", id)
}

// TestLogicCatMySQL compiles DSL programs in the MySQL dialect and runs
// them on LogicCat's bike database (MariaDB): every program compiles to
// MySQL syntax (backquotes, CONCAT, CAST AS SIGNED), the server accepts it,
// and it returns rows.
func TestLogicCatMySQL(t *testing.T) {
	db := logicCatDB(t, "bike")
	ctx := context.Background()
	schema, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, prog string }{
		{"count", `r1 = table_ref("Bicycle", as="B")
r2 = select_columns(r1, ["count(*) AS n"])`},
		{"join-aggregate-having", `r1 = table_ref("Bicycle", as="B")
r2 = join_table(r1, "BicycleRider", on="R.BicycleID = B.BicycleID", as="R")
r3 = aggregate(r2, group_by=["B.Manufacturer"], aggs=["avg(R.RiderWeight) AS w", "count(*) AS n"])
r4 = having(r3, "count(*) >= 1")
r5 = order_by(r4, ["w DESC", "B.Manufacturer"])
r6 = limit(r5, 3, offset=0)`},
		{"concat-cast-in", `r1 = table_ref("Bicycle", as="B")
r2 = compute(r1, ["B.Manufacturer || '-' || B.Model AS label", "CAST(B.Price AS INTEGER) AS p"])
r3 = table_ref("BicycleRider", as="R")
r4 = select_columns(r3, ["R.BicycleID"])
r5 = in_relation(r2, "B.BicycleID", r4, negate=false)
r6 = select_columns(r5, ["label", "p"])
r7 = distinct(r6)`},
		{"set-op", `r1 = table_ref("Bicycle", as="B")
r2 = select_columns(r1, ["B.BicycleID"])
r3 = table_ref("BicycleRider", as="R")
r4 = select_columns(r3, ["R.BicycleID"])
r5 = set_op(r2, r4, op="except")`},
		{"scalar-subquery", `r1 = table_ref("Bicycle", as="B")
r2 = select_columns(r1, ["avg(B.Price)"])
r3 = filter_expr(r1, "B.Price > {r2}")
r4 = select_columns(r3, ["B.Model"])`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSession(schema, "mysql")
			out, err := run(t, s, tt.prog)
			if err != nil {
				t.Fatal(err)
			}
			sql := s.SQL(out.Rel)
			if strings.Contains(sql, `"`) || strings.Contains(sql, "||") {
				t.Errorf("SQLite syntax in MySQL SQL: %s", sql)
			}
			rs, err := db.Execute(ctx, sql)
			if err != nil {
				t.Fatalf("MySQL rejected %s: %v", sql, err)
			}
			if len(rs.Rows) == 0 {
				t.Errorf("%s: no rows; want some", sql)
			}
			t.Logf("%s -> %d rows", sql, len(rs.Rows))
		})
	}
}
