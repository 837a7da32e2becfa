package readset

import (
	"context"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
)

// TestReader: the read sets of hand-written queries over a two-table
// database, from SQLite's bytecode (the columns each query names, join
// keys and the INTEGER PRIMARY KEY rowid alias included) and from the
// lexical scan (names that occur as words).
func TestReader(t *testing.T) {
	db := runkit.DB(t, "shop", `CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL);
INSERT INTO customer VALUES (1, 'Ann', 'Oslo'); INSERT INTO orders VALUES (1, 1, 9.5);`)
	ctx := context.Background()
	s, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql            string
		tables, cols   []string
		lexTab, lexCol []string
	}{
		{"SELECT name FROM customer WHERE city = 'Oslo'", []string{"customer"}, []string{"customer.city", "customer.name"},
			[]string{"customer"}, []string{"customer.city", "customer.name"}},
		{"SELECT c.name, SUM(o.total) FROM customer c JOIN orders o ON o.customer_id = c.id GROUP BY c.id",
			[]string{"customer", "orders"}, []string{"customer.id", "customer.name", "orders.customer_id", "orders.total"},
			[]string{"customer", "orders"}, []string{"customer.id", "customer.name", "orders.customer_id", "orders.total"}},
	} {
		rs, err := r.Read(ctx, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Method != "bytecode" || !reflect.DeepEqual(rs.Tables, tc.tables) || !reflect.DeepEqual(rs.Columns, tc.cols) {
			t.Errorf("Read(%q): got %+v; want bytecode %v %v", tc.sql, rs, tc.tables, tc.cols)
		}
		lx := Lexical(s, tc.sql)
		if lx.Method != "lexical" || !reflect.DeepEqual(lx.Tables, tc.lexTab) || !reflect.DeepEqual(lx.Columns, tc.lexCol) {
			t.Errorf("Lexical(%q): got %+v; want %v %v", tc.sql, lx, tc.lexTab, tc.lexCol)
		}
		if !rs.HasTable("CUSTOMER") || rs.HasColumn("customer", "nope") {
			t.Errorf("HasTable/HasColumn on %+v", rs)
		}
	}
}
