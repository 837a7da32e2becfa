package datasets_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// openShip opens LogicCat's ship database through the test's SELECT-only
// account.
func openShip(t testing.TB) *datasets.MySQLDatabase {
	t.Helper()
	f := setupMySQL(t)
	eng, err := datasets.NewMySQLEngine(f.ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	h, err := eng.Open(context.Background(), "ship")
	if err != nil {
		t.Fatal(err)
	}
	return h.(*datasets.MySQLDatabase)
}

// TestMySQLExecuteCleanSession: each Execute starts from a clean session:
// a user variable and LAST_INSERT_ID set by one statement are gone in the
// next. The same statements through the pooled connections
// (PooledExecute, how Execute ran before) show the state kept, so the
// pooled path BenchmarkMySQLSessionIsolation compares with is the leaky
// one. One goroutine runs them in turn, so the pool hands back its one
// idle connection.
func TestMySQLExecuteCleanSession(t *testing.T) {
	db := openShip(t)
	ctx := context.Background()
	steps := []struct{ sql, clean, pooled string }{
		{"SELECT @v := 42", "42", "42"},
		{"SELECT LAST_INSERT_ID(7)", "7", "7"},
		{"SELECT @v", "<nil>", "42"},
		{"SELECT LAST_INSERT_ID()", "0", "7"},
		{"SELECT COUNT(*) FROM information_schema.USER_VARIABLES", "0", "1"},
	}
	for _, path := range []struct {
		name string
		db   *datasets.MySQLDatabase
	}{{"clean", db}, {"pooled", db.PooledExecute()}} {
		for _, s := range steps {
			rs, err := path.db.Execute(ctx, s.sql)
			if err != nil {
				t.Fatalf("%s: %s: %v", path.name, s.sql, err)
			}
			got := fmt.Sprint(rs.Rows[0][0])
			want := s.clean
			if path.name == "pooled" {
				want = s.pooled
			}
			if got != want {
				t.Errorf("%s: %s = %s; want %s", path.name, s.sql, got, want)
			}
		}
	}
}

// BenchmarkMySQLSessionIsolation measures what a clean session costs per
// executed prediction: each iteration runs the same 5 LogicCat-style
// queries on ship 40 times over, alternating between Execute (a new
// session per statement) and PooledExecute (pooled connections reused
// from one statement to the next, without reset), one statement at a
// time, through the SELECT-only account. It reports the time per
// execution of each (fresh-us/exec, pooled-us/exec), their ratio
// (fresh/pooled) and the difference (added-us/exec), the cost of the
// clean session per prediction. Skipped without a MySQL server.
func BenchmarkMySQLSessionIsolation(b *testing.B) {
	db := openShip(b)
	pooled := db.PooledExecute()
	ctx := context.Background()
	queries := []string{
		"SELECT Ship_Name FROM ship WHERE Ship_ID = 3",
		"SELECT Ship_Type, COUNT(*), AVG(Gross_Tonnage) FROM ship GROUP BY Ship_Type ORDER BY Ship_Type",
		"SELECT s.Ship_Name, c.Last_Name FROM ship s JOIN crew c ON c.Ship_ID = s.Ship_ID ORDER BY s.Ship_ID, c.Crew_ID",
		"SELECT Flag_Country FROM ship WHERE Max_Speed > (SELECT AVG(Max_Speed) FROM ship)",
		"SELECT COUNT(*) FROM voyage_plan",
	}
	const rounds = 40
	run := func(d *datasets.MySQLDatabase) time.Duration {
		start := time.Now()
		for _, q := range queries {
			if _, err := d.Execute(ctx, q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		return time.Since(start)
	}
	run(db) // warm: the server's caches, the pool's connection
	run(pooled)
	var fresh, reused time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			fresh += run(db)
			reused += run(pooled)
		}
	}
	b.StopTimer()
	n := float64(b.N * rounds * len(queries))
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
	b.ReportMetric(us(fresh), "fresh-us/exec")
	b.ReportMetric(us(reused), "pooled-us/exec")
	b.ReportMetric(float64(fresh)/float64(reused), "fresh/pooled")
	b.ReportMetric(us(fresh)-us(reused), "added-us/exec")
}

// TestMySQLExecuteCleanSessionUnderContention: more Executes at once on
// one database than it opens connections for (16) each still run on a
// session of their own. The connection a finished Execute returns is
// never handed to one waiting for a connection: every Execute reports a
// different CONNECTION_ID() (MariaDB numbers sessions without reuse).
// SLEEP keeps the first 16 busy until the other 16 wait.
func TestMySQLExecuteCleanSessionUnderContention(t *testing.T) {
	db := openShip(t)
	const n = 32
	ids := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rs, err := db.Execute(context.Background(), "SELECT CONNECTION_ID(), SLEEP(0.2)")
			if err != nil {
				errs[i] = err
				return
			}
			ids[i] = fmt.Sprint(rs.Rows[0][0])
		}()
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatalf("Execute %d: %v", i, errs[i])
		}
		if j, ok := seen[id]; ok {
			t.Errorf("Executes %d and %d ran on session %s; want a session of its own each", j, i, id)
		}
		seen[id] = i
	}
}
