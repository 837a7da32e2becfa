package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
)

// suiteData is the content of the three test-suite files of database
// "shop": the primary shop.sqlite and two variants with other rows, as the
// distilled databases of the test-suite release have. Only the primary has
// table extra.
var suiteData = map[string]string{
	"shop": `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, country TEXT);
		INSERT INTO singer VALUES (1,'Ann',25,'France'),(2,'Bob',35,'Spain'),(3,'Cid',45,'France');
		CREATE TABLE extra(x INTEGER); INSERT INTO extra VALUES (9);`,
	"shop_1": `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, country TEXT);
		INSERT INTO singer VALUES (1,'Ann',40,'Spain'),(2,'Bob',20,'France'),(3,'Dee',31,'France');`,
	"shop_2": `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, country TEXT);
		INSERT INTO singer VALUES (1,'Eve',33,'Italy'),(2,'Bob',29,'France'),(3,'Cid',50,'Spain'),(4,'Fay',22,'France');`,
}

// suiteCase is one question of the suite fixture with a prediction and the
// verdicts expected without and with test-suite scoring, worked out by
// hand from suiteData.
type suiteCase struct {
	gold, pred   string
	plainCorrect bool
	suiteStatus  Status
	suiteCorrect bool
	suiteErr     string // substring of the test-suite verdict's Error
}

var suiteCases = []suiteCase{
	// Hard-coded values: Bob and Cid are over 30 only in shop.sqlite
	// (shop_1: Ann and Dee).
	{"SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE name IN ('Bob', 'Cid')",
		true, StatusOK, false, "result differs from the gold on test-suite database shop_1.sqlite (2 of 3)"},
	// Relies on row order: the youngest singer has id 1 only in shop.sqlite.
	{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY id LIMIT 1",
		true, StatusOK, false, "shop_1.sqlite (2 of 3)"},
	// Hard-coded ids: the French singers are 1 and 3 only in shop.sqlite.
	{"SELECT name FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE id IN (1, 3)",
		true, StatusOK, false, "shop_1.sqlite (2 of 3)"},
	// Equivalent query: right on every file.
	{"SELECT count(*) FROM singer", "SELECT count(id) FROM singer", true, StatusOK, true, ""},
	// Right on shop.sqlite, fails on the first variant (no table extra).
	{"SELECT count(*) FROM singer", "SELECT count(*) FROM singer WHERE (SELECT count(*) FROM extra) >= 0",
		true, StatusPredError, false, "on test-suite database shop_1.sqlite (2 of 3): error: no such table: extra"},
	// The gold fails on a variant: gold_error whatever the prediction.
	{"SELECT x FROM extra", "SELECT x FROM extra", true, StatusGoldError, false, "shop_1.sqlite (2 of 3)"},
	{"SELECT x FROM extra", "SELECT nonsense", false, StatusGoldError, false, "shop_1.sqlite (2 of 3)"},
}

// buildSuite writes a Spider-layout directory (dev.json and database/shop/
// with the three files of suiteData) and returns it with the database
// directory.
func buildSuite(t testing.TB) (string, string) {
	t.Helper()
	dir := t.TempDir()
	dbDir := filepath.Join(dir, "database", "shop")
	for name, script := range suiteData {
		testkit.SQLiteAt(t, filepath.Join(dbDir, name+".sqlite"), script)
	}
	var items []string
	for i, c := range suiteCases {
		items = append(items, fmt.Sprintf(`{"db_id": "shop", "query": %q, "question": "q%d"}`, c.gold, i))
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte("["+strings.Join(items, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, dbDir
}

func loadSuite(t testing.TB, dir string) *datasets.Benchmark {
	t.Helper()
	b, err := datasets.Open("spider", dir, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Engine.Close() })
	return b
}

func scoreWith(t testing.TB, b *datasets.Benchmark, cache *GoldCache, testSuite bool, preds map[int]string) []Verdict {
	t.Helper()
	s, err := NewScorer(b, cache, ScoreOptions{TestSuite: testSuite})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.ScoreAll(context.Background(), preds, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestScoreTestSuite(t *testing.T) {
	dir, _ := buildSuite(t)
	b := loadSuite(t, dir)
	cache, err := NewGoldCache("")
	if err != nil {
		t.Fatal(err)
	}
	preds := map[int]string{}
	for i, c := range suiteCases {
		preds[i] = c.pred
	}
	plain := scoreWith(t, b, cache, false, preds)
	suite := scoreWith(t, b, cache, true, preds)
	for i, c := range suiteCases {
		p, s := plain[i], suite[i]
		if p.Correct != c.plainCorrect {
			t.Errorf("q%d without --test-suite: %+v; want correct=%v", i, p, c.plainCorrect)
		}
		if s.Status != c.suiteStatus || s.Correct != c.suiteCorrect || !strings.Contains(s.Error, c.suiteErr) {
			t.Errorf("q%d with --test-suite: status %s correct %v error %q; want %s, %v, error containing %q",
				i, s.Status, s.Correct, s.Error, c.suiteStatus, c.suiteCorrect, c.suiteErr)
		}
		if c.suiteCorrect && s.Error != "" {
			t.Errorf("q%d: correct test-suite verdict carries error %q", i, s.Error)
		}
	}
	// Each gold ran once per file: the 5 distinct golds on shop.sqlite
	// (plain scoring; test-suite scoring reuses them) and on shop_1.sqlite,
	// where SELECT x FROM extra fails, so only the other 4 run on
	// shop_2.sqlite; plus, on each of the 3 files, the probe of the one
	// gold with ORDER BY ... LIMIT (AnalyzeGold), also cached.
	if _, runs := cache.Stats(); runs != 5+5+4+3 {
		t.Errorf("gold executions = %d; want 17 (each gold and LIMIT probe once per file)", runs)
	}

	// Gold as prediction stays correct on every question whose gold runs
	// on every file.
	gold := scoreWith(t, b, cache, true, GoldPredictions(b))
	sum := SummarizeEX(ModeSpider, gold, nil)
	if sum.Overall.Runnable != 5 || sum.Overall.Correct != 5 || sum.Status[StatusGoldError] != 2 {
		t.Errorf("gold-as-pred with --test-suite: %+v, status %v; want 5 of 5 runnable correct, 2 gold_error", sum.Overall, sum.Status)
	}
}

// TestScoreTestSuiteSingleFile: with one file per database (the original
// Spider release) test-suite verdicts equal plain verdicts.
func TestScoreTestSuiteSingleFile(t *testing.T) {
	dir, dbDir := buildSuite(t)
	for _, f := range []string{"shop_1.sqlite", "shop_2.sqlite"} {
		if err := os.Remove(filepath.Join(dbDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	b := loadSuite(t, dir)
	preds := map[int]string{}
	for i, c := range suiteCases {
		preds[i] = c.pred
	}
	plain := scoreWith(t, b, nil, false, preds)
	suite := scoreWith(t, b, nil, true, preds)
	for i := range plain {
		p, s := plain[i], suite[i]
		p.PredMS, p.GoldMS, s.PredMS, s.GoldMS = 0, 0, 0, 0
		if !reflect.DeepEqual(p, s) {
			t.Errorf("q%d: test-suite verdict %+v; want the plain one %+v", i, s, p)
		}
	}
}

func fileDigests(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		out[e.Name()] = hex.EncodeToString(h[:])
	}
	return out
}

// TestScoreTestSuiteAdversarial: predictions that try to write are
// pred_error ("SELECT 1; DELETE ..." too: a second statement is refused
// before the Spider rewrite, which would keep only the first) and every
// file of the suite stays byte-identical, with no file added to the
// directory.
func TestScoreTestSuiteAdversarial(t *testing.T) {
	dir, dbDir := buildSuite(t)
	before := fileDigests(t, dbDir)
	if len(before) != 3 {
		t.Fatalf("fixture has %d files; want 3", len(before))
	}
	b := loadSuite(t, dir)
	attacks := []string{
		"DROP TABLE singer",
		"DELETE FROM singer",
		"UPDATE singer SET name = 'x'",
		"INSERT INTO singer VALUES (9, 'x', 1, 'y')",
		"CREATE TABLE evil(a)",
		"ATTACH DATABASE '" + filepath.Join(dbDir, "evil.sqlite") + "' AS evil",
		"PRAGMA writable_schema = 1",
		"VACUUM INTO '" + filepath.Join(dbDir, "copy.sqlite") + "'",
		"SELECT 1; DELETE FROM singer",
	}
	for _, a := range attacks {
		vs := scoreWith(t, b, nil, true, map[int]string{3: a})
		if vs[0].Status != StatusPredError || vs[0].Correct {
			t.Errorf("%q: %+v; want %s, not correct", a, vs[0], StatusPredError)
		}
	}
	if after := fileDigests(t, dbDir); !reflect.DeepEqual(after, before) {
		t.Errorf("database directory changed:\nbefore %v\nafter  %v", before, after)
	}
	// The data is intact: count(*) is still right on every file.
	if vs := scoreWith(t, b, nil, true, map[int]string{3: "SELECT count(*) FROM singer"}); !vs[0].Correct {
		t.Errorf("after the attacks: %+v; want correct", vs[0])
	}
}

// fakeSuite is a datasets.VariantEngine over fake databases.
type fakeSuite struct{ dbs []datasets.Database }

func (f *fakeSuite) Open(context.Context, string) (datasets.Database, error) { return f.dbs[0], nil }
func (f *fakeSuite) Dialect() string                                         { return "sqlite" }
func (f *fakeSuite) Close() error                                            { return nil }
func (f *fakeSuite) Variants(context.Context, string) ([]datasets.Database, error) {
	return f.dbs, nil
}

// newFakeSuite returns n fake variants; variant k (1-based) takes 2^(k-1)
// ms per query and answers one row {1}, except {2} when the query contains
// "diff<k>" and an error when it contains "err<k>".
func newFakeSuite(n int) *fakeSuite {
	f := &fakeSuite{}
	for k := 1; k <= n; k++ {
		elapsed := time.Duration(1<<(k-1)) * time.Millisecond
		f.dbs = append(f.dbs, &fakeDB{fp: fmt.Sprintf("variant-%d", k), exec: func(q string) (*datasets.ResultSet, error) {
			switch {
			case strings.Contains(q, fmt.Sprintf("err%d", k)):
				return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "boom", Elapsed: elapsed}
			case strings.Contains(q, fmt.Sprintf("diff%d", k)):
				return &datasets.ResultSet{Columns: []string{"c"}, Rows: [][]any{{int64(2)}}, Elapsed: elapsed}, nil
			}
			return &datasets.ResultSet{Columns: []string{"c"}, Rows: [][]any{{int64(1)}}, Elapsed: elapsed}, nil
		}})
	}
	return f
}

// TestScoreTestSuiteRule checks the decision rule and the summed times on
// fake variants of 1, 2 and 4 ms: the first failing variant decides, later
// ones are not run, a gold failure anywhere wins over the prediction.
func TestScoreTestSuiteRule(t *testing.T) {
	cases := []struct {
		gold, pred     string
		status         Status
		correct        bool
		predMS, goldMS float64
		err            string
	}{
		{"g", "p", StatusOK, true, 7, 7, ""},
		{"g", "p_diff2", StatusOK, false, 3, 7, "variant 2 (2 of 3)"},
		{"g", "p_diff2_err3", StatusOK, false, 3, 7, "variant 2 (2 of 3)"},
		{"g", "p_err2_diff3", StatusPredError, false, 3, 7, "on test-suite database variant 2 (2 of 3): error: boom"},
		{"g", "p_diff1", StatusOK, false, 1, 7, "variant 1 (1 of 3)"},
		{"g_err3", "p_err1", StatusGoldError, false, 0, 7, "on test-suite database variant 3 (3 of 3): error: boom"},
		{"g_err1", "p", StatusGoldError, false, 0, 1, "variant 1 (1 of 3)"},
	}
	for _, c := range cases {
		t.Run(c.gold+"/"+c.pred, func(t *testing.T) {
			b := &datasets.Benchmark{Name: "fake", Mode: "spider", Engine: newFakeSuite(3),
				Examples: []datasets.Example{{ID: "0", DBID: "x", GoldSQL: c.gold}}}
			s, err := NewScorer(b, nil, ScoreOptions{TestSuite: true})
			if err != nil {
				t.Fatal(err)
			}
			v := s.Score(context.Background(), b.Examples[0], c.pred)
			if v.Status != c.status || v.Correct != c.correct || v.PredMS != c.predMS || v.GoldMS != c.goldMS || !strings.Contains(v.Error, c.err) {
				t.Errorf("verdict %+v; want status %s correct %v pred_ms %v gold_ms %v error containing %q",
					v, c.status, c.correct, c.predMS, c.goldMS, c.err)
			}
		})
	}
	// Prediction calls stop at the deciding variant: variant 3 never runs
	// "p_diff2".
	f := newFakeSuite(3)
	b := &datasets.Benchmark{Name: "fake", Mode: "spider", Engine: f, Examples: []datasets.Example{{ID: "0", DBID: "x", GoldSQL: "g"}}}
	s, err := NewScorer(b, nil, ScoreOptions{TestSuite: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Score(context.Background(), b.Examples[0], "p_diff2")
	var calls []int64
	for _, db := range f.dbs {
		calls = append(calls, db.(*fakeDB).calls.Load())
	}
	// The gold once on every variant (SQLite: the cache runs no stability
	// check, see mayDiffer), the prediction on variants 1 and 2.
	if want := []int64{2, 2, 1}; !reflect.DeepEqual(calls, want) {
		t.Errorf("executions per variant = %v; want %v (gold once on all, prediction up to variant 2)", calls, want)
	}
}

func TestScoreTestSuiteOptions(t *testing.T) {
	eng := datasets.NewSQLiteEngine(func(string) (string, bool) { return "", false }, datasets.SQLiteOptions{})
	cases := []struct {
		name string
		b    *datasets.Benchmark
		mode Mode
		ok   bool
	}{
		{"bird mode", &datasets.Benchmark{Name: "f", Mode: "bird", Engine: newFakeSuite(1)}, "", false},
		{"spider mode forced on a bird benchmark", &datasets.Benchmark{Name: "f", Mode: "bird", Engine: newFakeSuite(1)}, ModeSpider, true},
		{"keep-distinct", &datasets.Benchmark{Name: "f", Mode: "spider", Engine: newFakeSuite(1)}, ModeSpiderKeepDistinct, true},
		{"archer mode", &datasets.Benchmark{Name: "f", Mode: "archer", Engine: newFakeSuite(1)}, "", false},
		{"engine without variants", &datasets.Benchmark{Name: "f", Mode: "spider", Engine: eng}, "", false},
		{"no engine", &datasets.Benchmark{Name: "f", Mode: "spider"}, "", true},
	}
	for _, c := range cases {
		_, err := NewScorer(c.b, nil, ScoreOptions{Mode: c.mode, TestSuite: true})
		if (err == nil) != c.ok {
			t.Errorf("%s: NewScorer err = %v; want ok=%v", c.name, err, c.ok)
		}
	}
	for _, m := range Modes {
		if got, want := m.SupportsTestSuite(), m == ModeSpider || m == ModeSpiderKeepDistinct; got != want {
			t.Errorf("%s.SupportsTestSuite() = %v; want %v", m, got, want)
		}
	}
}

// TestTestSuiteShared: the shared Spider dev has one file per database, so
// test-suite scoring must give exactly the plain verdicts: gold as
// prediction 972 of 972 runnable (shared datasets README, "runnable now"),
// and the same status, correctness and error for a set of wrong
// predictions (every third "SELECT 1", every fifth not SQL).
func TestTestSuiteShared(t *testing.T) {
	b := loadShared(t, "spider", "spider")
	_, sum := scoreGoldAsPred(t, b, ScoreOptions{TestSuite: true})
	if sum.Overall.Total != 1034 || sum.Overall.Runnable != 972 || sum.Overall.Correct != 972 {
		t.Fatalf("spider gold-as-pred with test suite: %+v; want 1034 total, 972 runnable, 972 correct", sum.Overall)
	}
	preds := GoldPredictions(b)
	keys := make([]int, 0, len(preds))
	for i := range preds {
		keys = append(keys, i)
	}
	sort.Ints(keys)
	for _, i := range keys {
		switch {
		case i%5 == 0:
			preds[i] = "this is not SQL"
		case i%3 == 0:
			preds[i] = "SELECT 1"
		}
	}
	plain := scoreWith(t, b, sharedGold(), false, preds)
	suite := scoreWith(t, b, sharedGold(), true, preds)
	for i := range plain {
		p, q := plain[i], suite[i]
		if p.Status != q.Status || p.Correct != q.Correct || p.Error != q.Error {
			t.Errorf("question %d: test suite %s/%v/%q; plain %s/%v/%q", p.Index, q.Status, q.Correct, q.Error, p.Status, p.Correct, p.Error)
		}
	}
}
