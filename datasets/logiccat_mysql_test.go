package datasets_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/metrics"
)

// The MySQL tests load the LogicCat dumps once (idempotent; ~3 s the first
// time on a fresh server, well under 1 s afterwards) and create a test
// SELECT-only account whose password lives only in this process's
// environment.
const (
	testROUser  = "t2s_ro_test"
	testROPWEnv = "T2SBENCH_TEST_RO_PASSWORD"
)

var (
	mysqlOnce    sync.Once
	mysqlErr     error
	mysqlImports []datasets.MySQLImport
)

type mysqlFixture struct {
	adminDSN string
	dir      string
	ro       datasets.MySQLConfig
}

func setupMySQL(t testing.TB) mysqlFixture {
	t.Helper()
	dsn := testenv.MySQLDSN(t)
	dir := testenv.Datasets(t, "logiccat")
	mysqlOnce.Do(func() {
		b := make([]byte, 16)
		rand.Read(b)
		os.Setenv(testROPWEnv, hex.EncodeToString(b))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		mysqlImports, mysqlErr = datasets.ImportMySQLDumps(ctx, dsn, dir+"/mysql/database", datasets.MySQLImportOptions{
			ROUser: testROUser, ROPasswordEnv: testROPWEnv, ResetROPassword: true,
		})
	})
	if mysqlErr != nil {
		t.Fatalf("import LogicCat dumps: %v", mysqlErr)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd, cfg.DBName = testROUser, "", ""
	return mysqlFixture{adminDSN: dsn, dir: dir, ro: datasets.MySQLConfig{
		DSN: cfg.FormatDSN(), PasswordEnv: testROPWEnv, Timeout: 2 * time.Second,
	}}
}

func TestMySQLImport(t *testing.T) {
	f := setupMySQL(t)
	// Counts from shared/datasets/logiccat/MARIADB.md §3: 45 dumps, 363
	// tables, 6,443 rows (views not counted).
	tables, rows := 0, int64(0)
	for _, imp := range mysqlImports {
		tables += imp.Tables
		rows += imp.Rows
	}
	if len(mysqlImports) != 45 || tables != 363 || rows != 6443 {
		t.Errorf("imported %d dumps, %d tables, %d rows; want 45, 363, 6443", len(mysqlImports), tables, rows)
	}
	// A second import finds every marker and loads nothing.
	ctx := context.Background()
	start := time.Now()
	again, err := datasets.ImportMySQLDumps(ctx, f.adminDSN, f.dir+"/mysql/database", datasets.MySQLImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range again {
		if imp.Status != "present" {
			t.Errorf("second import of %s: status %s; want present", imp.Schema, imp.Status)
		}
	}
	t.Logf("re-import check of 45 dumps: %s", time.Since(start).Round(time.Millisecond))

	// A half-finished import (marker missing, one table emptied) is redone.
	admin, err := sql.Open("mysql", f.adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// Tests of other packages that need every LogicCat database intact
	// wait while ship is broken and reloaded.
	mysqltest.HoldDataLock(t)
	for _, q := range []string{"DELETE FROM t2sbench_meta.imports WHERE db = 'ship'", "DROP TABLE `ship`.`crew`"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Two imports at once (as from parallel processes) take turns: exactly
	// one of them reloads ship, the other finds it present.
	var redos [2][]datasets.MySQLImport
	var redoErrs [2]error
	var wg sync.WaitGroup
	for i := range redos {
		wg.Go(func() {
			redos[i], redoErrs[i] = datasets.ImportMySQLDumps(ctx, f.adminDSN, f.dir+"/mysql/database", datasets.MySQLImportOptions{ROUser: testROUser, ROPasswordEnv: testROPWEnv, ResetROPassword: true})
		})
	}
	wg.Wait()
	shipLoads := 0
	for i, redo := range redos {
		if redoErrs[i] != nil {
			t.Fatalf("concurrent import %d: %v", i, redoErrs[i])
		}
		for _, imp := range redo {
			switch {
			case imp.Schema == "ship" && imp.Status == "loaded":
				shipLoads++
			case imp.Status != "present":
				t.Errorf("after damaging ship: %s status %s; want present (or loaded for ship)", imp.Schema, imp.Status)
			}
		}
	}
	if shipLoads != 1 {
		t.Errorf("ship reloaded by %d of 2 concurrent imports; want exactly 1", shipLoads)
	}
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM `ship`.`crew`").Scan(&n); err != nil || n == 0 {
		t.Errorf("ship.crew after the redo: %d rows, %v; want it restored", n, err)
	}

	// The read-only account has per-database grants only: it cannot read
	// the password hashes in mysql.global_priv (MARIADB.md §5).
	ro := openRO(t, f)
	if _, err := ro.Exec("SELECT * FROM mysql.global_priv"); !isMySQLErr(err, 1142) {
		t.Errorf("ro reading mysql.global_priv: err = %v; want 1142 denied", err)
	}
	if _, err := ro.Exec("DROP TABLE `bike`.`Bicycle`"); !isMySQLErr(err, 1142) {
		t.Errorf("ro DROP TABLE: err = %v; want 1142 denied", err)
	}
}

func openRO(t testing.TB, f mysqlFixture) *sql.DB {
	cfg, _ := mysql.ParseDSN(f.ro.DSN)
	cfg.Passwd = os.Getenv(testROPWEnv)
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func isMySQLErr(err error, n uint16) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == n
}

func TestMySQLEngineRefusesPrivilegedAccount(t *testing.T) {
	f := setupMySQL(t)
	_, err := datasets.NewMySQLEngine(datasets.MySQLConfig{DSN: f.adminDSN})
	if err == nil || !strings.Contains(err.Error(), "not SELECT-only") {
		t.Errorf("NewMySQLEngine(root) err = %v; want a not-SELECT-only refusal", err)
	}
	if _, err := datasets.NewMySQLEngine(datasets.MySQLConfig{DSN: "u:secret@unix(/x)/"}); err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("DSN with a password: err = %v; want a refusal", err)
	}
}

// TestLogicCatMySQLGoldAsPrediction scores every MySQL gold against itself
// on MariaDB. Expected (MARIADB.md §4-5, run as a SELECT-only account with
// multi-statements off): 2,369 questions, 310 without MySQL gold
// (missing_db), 2,059 golds of which 2,059 - 123 errors - 3 INSERTs - 2
// empty = 1,931 run; every gold that runs must score correct (EX 100%).
func TestLogicCatMySQLGoldAsPrediction(t *testing.T) {
	f := setupMySQL(t)
	// One whole-benchmark test at a time per server: several at once run
	// out of connections (Error 1040).
	mysqltest.HoldDataLock(t)
	cfg := f.ro
	cfg.Timeout = 30 * time.Second
	b, err := datasets.LoadLogicCat(f.dir, "mysql", "test", datasets.LoadOptions{MySQL: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	cacheDir := t.TempDir()
	cache, err := metrics.NewGoldCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close() // closed again below before the second scoring; Close is idempotent
	sc, err := metrics.NewScorer(b, cache, metrics.ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	vs, err := sc.ScoreAll(context.Background(), metrics.GoldPredictions(b), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scored %d gold-as-prediction in %s", len(vs), time.Since(start).Round(time.Millisecond))
	counts := map[metrics.Status]int{}
	first := map[string]string{}
	reCode := regexp.MustCompile(`Error (\d+)`)
	// MARIADB.md §4.5: 78 golds are nondeterministic across runs (ties
	// under ORDER BY ... LIMIT, RAND()/NOW(), window functions over ties,
	// float summation order). A gold-vs-itself miss is accepted only for a
	// gold of those classes, and logged; any other miss fails the test.
	nondet := regexp.MustCompile(`(?i)\bLIMIT\b|\bRAND\s*\(|\bNOW\s*\(|\bCURDATE\b|\bCURRENT_|\bSYSDATE\b|\bOVER\s*\(`)
	tolerated := 0
	for _, v := range vs {
		counts[v.Status]++
		if v.Status == metrics.StatusOK && !v.Correct {
			ex, _ := b.ByID(v.QuestionID)
			if nondet.MatchString(ex.GoldSQL) {
				tolerated++
				t.Logf("%s: gold vs itself differs between two runs (nondeterministic gold: %.100s)", v.QuestionID, ex.GoldSQL)
				continue
			}
			t.Errorf("%s: deterministic gold vs itself scored wrong: %s", v.QuestionID, ex.GoldSQL)
		}
		if v.Status != metrics.StatusOK {
			kind := string(v.Status)
			if m := reCode.FindStringSubmatch(v.Error); m != nil {
				kind += "/" + m[1]
			}
			if _, ok := first[kind]; !ok {
				first[kind] = v.QuestionID + ": " + v.Error
			}
		}
	}
	kinds := make([]string, 0, len(first))
	for k := range first {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t.Logf("statuses: %v; nondeterministic golds that differed this run: %d", counts, tolerated)
	if tolerated > 40 {
		t.Errorf("%d nondeterministic gold misses; MARIADB.md §4.5 saw at most 78 varying golds over 12 runs, 37 in content", tolerated)
	}
	for _, k := range kinds {
		msg := first[k]
		if len(msg) > 160 {
			msg = msg[:160] + "..."
		}
		t.Logf("first %s: %s", k, msg)
	}
	if len(vs) != 2369 {
		t.Errorf("verdicts = %d; want 2369", len(vs))
	}
	if counts[metrics.StatusMissingDB] != 310 {
		t.Errorf("missing_db = %d; want 310 (questions without MySQL gold)", counts[metrics.StatusMissingDB])
	}
	// MARIADB.md §4.1/§5: 1,931 golds return a result set as a
	// SELECT-only account (1,636 + 234 + 61); 123 + 3 + 2 do not. The
	// engine additionally refuses the 3 INSERT golds before sending.
	if got := counts[metrics.StatusOK]; got < 1925 || got > 1931 {
		t.Errorf("ok = %d; want 1931 (MARIADB.md §4.1), tolerance 6 for nondeterministic golds (§4.5)", got)
	}
	if counts[metrics.StatusGoldTimeout] != 0 {
		t.Errorf("gold timeouts = %d; want 0", counts[metrics.StatusGoldTimeout])
	}

	// A second scoring, as a second eval would make it: a new gold cache on
	// the same directory, read from disk (the first filled it). Every gold
	// without a nondeterministic flag gets the verdict it got the first
	// time.
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	cache2, err := metrics.NewGoldCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache2.Close()
	sc2, err := metrics.NewScorer(b, cache2, metrics.ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs2, err := sc2.ScoreAll(context.Background(), metrics.GoldPredictions(b), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hits, _ := cache2.Stats(); hits == 0 {
		t.Errorf("second scoring: no gold read from the cache; want the first scoring's golds")
	}
	deterministic := func(vs []metrics.Verdict) map[string]bool {
		m := map[string]bool{}
		for _, v := range vs {
			if v.Status == metrics.StatusOK && !metrics.Nondeterministic(v.GoldFlags) {
				m[v.QuestionID] = v.Correct
			}
		}
		return m
	}
	d1, d2 := deterministic(vs), deterministic(vs2)
	if len(d1) == 0 || !reflect.DeepEqual(d1, d2) {
		t.Errorf("deterministic verdicts: %d in the first scoring, %d in the second, equal %v; want the same verdicts", len(d1), len(d2), reflect.DeepEqual(d1, d2))
	}
	for id, ok := range d2 {
		if !ok {
			t.Errorf("%s: second scoring: deterministic gold vs itself scored wrong", id)
		}
	}
}

// TestMySQLAdversarial runs hostile predictions as the SELECT-only account
// and checks each fails with a clear kind within timeout + margin, and that
// no table's CHECKSUM TABLE changed.
func TestMySQLAdversarial(t *testing.T) {
	f := setupMySQL(t)
	cfg := f.ro
	cfg.Timeout = time.Second
	eng, err := datasets.NewMySQLEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	h, err := eng.Open(ctx, "bike")
	if err != nil {
		t.Fatal(err)
	}
	db := h.(*datasets.MySQLDatabase)
	before, err := db.Checksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sql  string
		want datasets.ExecKind
	}{
		{"DROP TABLE Bicycle", datasets.ExecDenied},
		{"UPDATE Bicycle SET Weight = 0", datasets.ExecDenied},
		{"INSERT INTO Bicycle SELECT * FROM Bicycle", datasets.ExecDenied},
		{"CREATE TABLE x (a int)", datasets.ExecDenied},
		{"LOAD DATA INFILE '/etc/passwd' INTO TABLE Bicycle", datasets.ExecDenied},
		{"SELECT * FROM Bicycle INTO OUTFILE '/tmp/t2sbench_pwn'", datasets.ExecDenied},
		{"SET GLOBAL max_connections = 1", datasets.ExecDenied},
		{"SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(100)", datasets.ExecDenied},
		{"SELECT 1; DROP TABLE Bicycle", datasets.ExecDenied},
		{"SELECT 1 /*! INTO OUTFILE '/tmp/t2sbench_pwn2' */", datasets.ExecDenied},
		{"SELECT COUNT(*) FROM Bicycle\x00 WHERE 1=0", datasets.ExecDenied},
		{"SELECT GET_LOCK('t2sbench_adversarial', 0)", datasets.ExecDenied},
		{"SELECT SLEEP(100)", datasets.ExecTimeout},
		{"SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b, seq_1_to_100000 c", datasets.ExecTimeout},
		{"SELECT nosuchcol FROM Bicycle", datasets.ExecErrorKind},
	}
	for _, c := range cases {
		start := time.Now()
		rs, err := db.Execute(ctx, c.sql)
		el := time.Since(start)
		var ee *datasets.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("%q: got %v, %v; want *ExecError %s", c.sql, rs, err, c.want)
			continue
		}
		if ee.Kind != c.want {
			t.Errorf("%q: kind %s (%s); want %s", c.sql, ee.Kind, ee.Msg, c.want)
		}
		if el > cfg.Timeout+time.Second {
			t.Errorf("%q: took %s; want < timeout %s + 1 s", c.sql, el, cfg.Timeout)
		}
		t.Logf("%-70.70q -> %s in %s: %.90s", c.sql, ee.Kind, el.Round(time.Millisecond), ee.Msg)
	}
	// The row cap truncates a large result without reading all of it.
	rs, err := db.Execute(ctx, "SELECT a.seq FROM seq_1_to_1000000 a, seq_1_to_1000 b")
	if err != nil || !rs.Truncated || len(rs.Rows) != 100000 {
		t.Errorf("huge result: err %v, truncated %v; want 100000 rows, truncated", err, rs != nil && rs.Truncated)
	}
	// The caller's cancellation stops the server too (KILL QUERY watchdog).
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	long := cfg
	long.Timeout = time.Minute
	eng2, err := datasets.NewMySQLEngine(long)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	h2, err := eng2.Open(ctx, "bike")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h2.Execute(cctx, "SELECT SLEEP(60) /* t2sbench-watchdog-probe */")
	cancel()
	var ee *datasets.ExecError
	if !errors.As(err, &ee) || ee.Kind != datasets.ExecCanceled {
		t.Errorf("canceled query: err = %v; want ExecCanceled", err)
	}
	admin, err := sql.Open("mysql", f.adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	time.Sleep(200 * time.Millisecond)
	var running int
	admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%t2sbench-watchdog-probe%' AND INFO NOT LIKE '%PROCESSLIST%'").Scan(&running)
	if running != 0 {
		t.Errorf("%d probe queries still running on the server after cancel; want 0 (watchdog KILL QUERY)", running)
	}

	after, err := db.Checksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("CHECKSUM TABLE changed:\nbefore %v\nafter  %v", before, after)
	}
	if len(before) != 9 {
		t.Errorf("bike has %d tables; want 9 (MARIADB.md §3)", len(before))
	}
}

func TestMySQLSchema(t *testing.T) {
	f := setupMySQL(t)
	eng, err := datasets.NewMySQLEngine(f.ro)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	h, err := eng.Open(ctx, "AirCraft")
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// MARIADB.md §3: AirCraft 8 tables, 44 rows, 3 of them empty.
	var rows int64
	empty := 0
	for _, tb := range s.Tables {
		rows += tb.RowCount
		if tb.RowCount == 0 {
			empty++
		}
	}
	if len(s.Tables) != 8 || rows != 44 || empty != 3 {
		t.Errorf("AirCraft: %d tables, %d rows, %d empty; want 8, 44, 3", len(s.Tables), rows, empty)
	}
	ac, ok := s.Table("aircraft")
	if !ok || len(ac.PrimaryKey) != 1 || ac.PrimaryKey[0] != "Aircraft_ID" {
		t.Fatalf("aircraft table/primary key: %+v", ac)
	}
	if c := ac.Columns[1]; c.Name != "Aircraft" || len(c.Examples) == 0 || c.Examples[0] != "Robinson R-22" || c.Comment == "" {
		t.Errorf("aircraft.Aircraft = %+v; want examples starting with Robinson R-22 and a comment", c)
	}
	ms := datasets.RenderMSchema(s, datasets.RenderOptions{})
	if !strings.Contains(ms, "【DB_ID】 AirCraft") || !strings.Contains(ms, "# Table: aircraft") {
		t.Errorf("M-Schema lacks the header or table:\n%s", ms)
	}
	if fp := h.Fingerprint(); len(fp) != 64 {
		t.Errorf("fingerprint %q; want 64 hex digits", fp)
	}
	if _, err := eng.Open(ctx, "no_such_db"); !errors.Is(err, datasets.ErrMissingDB) {
		t.Errorf("Open(no_such_db) err = %v; want ErrMissingDB", err)
	}
	// A gold with DECIMAL, FLOAT, DATETIME and NULL values comes back in
	// the engine-neutral types.
	rs, err := h.Execute(ctx, "SELECT 1, CAST(2.50 AS DECIMAL(5,2)), SUM(1), Total_Disk_Area, NULL, CAST('2023-01-02 03:04:05' AS DATETIME) FROM aircraft WHERE Aircraft_ID = 1")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%#v", rs.Rows[0])
	want := `[]interface {}{1, 2.5, 1, 46.2, interface {}(nil), "2023-01-02 03:04:05"}`
	if got != want {
		t.Errorf("row = %s; want %s", got, want)
	}
}

// BenchmarkLogicCatGolds scores the 2,059 MySQL golds (gold-as-prediction)
// with an empty gold cache (cold) and with a filled one (warm); it reports
// ns/op of the cold run and the ratio warm/cold.
func BenchmarkLogicCatGolds(b *testing.B) {
	f := setupMySQL(b)
	cfg := f.ro
	cfg.Timeout = 30 * time.Second
	bench, err := datasets.LoadLogicCat(f.dir, "mysql", "test", datasets.LoadOptions{MySQL: &cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer bench.Engine.Close()
	preds := metrics.GoldPredictions(bench)
	ctx := context.Background()
	var cold, warm time.Duration
	for i := 0; i < b.N; i++ {
		cache, err := metrics.NewGoldCache(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ {
			sc, err := metrics.NewScorer(bench, cache, metrics.ScoreOptions{})
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := sc.ScoreAll(ctx, preds, 4, nil); err != nil {
				b.Fatal(err)
			}
			if pass == 0 {
				cold += time.Since(start)
			} else {
				warm += time.Since(start)
			}

		}
	}
	b.ReportMetric(float64(cold.Nanoseconds())/float64(b.N), "cold-ns/op")
	b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
}

// TestMySQLByteBudget runs the MySQL form of the hostile query
// (4,000 rows of a 1 MB value) with a 10 MiB budget: it fails with
// ExecTooLarge after 11 rows (11 * 1,000,008 bytes > 10,485,760) instead of
// reading 4 GB, and a result under the budget is kept whole.
func TestMySQLByteBudget(t *testing.T) {
	f := setupMySQL(t)
	cfg := f.ro
	cfg.MaxBytes = 10 << 20
	eng, err := datasets.NewMySQLEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	db, err := eng.Open(ctx, "bike")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = db.Execute(ctx, "SELECT seq, REPEAT('x', 1000000) FROM seq_1_to_4000")
	var ee *datasets.ExecError
	if !errors.As(err, &ee) || ee.Kind != datasets.ExecTooLarge || !strings.Contains(ee.Msg, "after 11 rows") {
		t.Fatalf("err = %v; want %s after 11 rows", err, datasets.ExecTooLarge)
	}
	t.Logf("too large after %s: %s", time.Since(start).Round(time.Millisecond), ee.Msg)
	rs, err := db.Execute(ctx, "SELECT seq, REPEAT('x', 1000000) FROM seq_1_to_10")
	if err != nil || len(rs.Rows) != 10 {
		t.Fatalf("10 rows of 1 MB: %v, %v; want 10 rows", rs, err)
	}
}
