package metrics

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
)

// buildFixture builds testdata/<script> into dir/<id>/<id>.sqlite.
func buildFixture(t testing.TB, dir, id, script string) string {
	t.Helper()
	return testkit.SQLiteAt(t, filepath.Join(dir, id, id+".sqlite"), testkit.SQLFile(t, filepath.Join("testdata", script)))
}

const infiniteSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

// fixtureBench is a six-question benchmark over the fixture database.
func fixtureBench(t testing.TB) *datasets.Benchmark {
	t.Helper()
	dir := t.TempDir()
	buildFixture(t, dir, "singers", "ex_fixture.sql")
	locate := func(id string) (string, bool) {
		p := filepath.Join(dir, id, id+".sqlite")
		if _, err := os.Stat(p); err != nil {
			return "", false
		}
		return p, true
	}
	eng := datasets.NewSQLiteEngine(locate, datasets.SQLiteOptions{})
	t.Cleanup(func() { eng.Close() })
	golds := []struct{ db, sql, diff string }{
		{"singers", "SELECT name, age FROM singer WHERE country = 'France'", "easy"},
		{"singers", "SELECT count(*) FROM singer", "easy"},
		{"singers", "SELECT name FROM singer WHERE id < 5 ORDER BY age DESC", "medium"},
		{"singers", "SELECT DISTINCT country FROM singer", "medium"},
		{"absent", "SELECT 1", "hard"},
		{"singers", "SELECT nope FROM singer", "hard"},
		{"singers", "SELECT name FROM singer WHERE id = 5", "extra"},
	}
	b := &datasets.Benchmark{Name: "fixture", Mode: "bird", Engine: eng}
	for i, g := range golds {
		b.Examples = append(b.Examples, datasets.Example{ID: "q" + string(rune('0'+i)), Index: i, DBID: g.db, GoldSQL: g.sql, Difficulty: g.diff})
	}
	return b
}

func TestScoreStatuses(t *testing.T) {
	b := fixtureBench(t)
	cases := []struct {
		name    string
		mode    Mode
		ex      int
		pred    string
		status  Status
		correct bool
		errHas  string
	}{
		{"bird: column order matters", ModeBIRD, 0, "SELECT age, name FROM singer WHERE country = 'France'", StatusOK, false, ""},
		{"spider: column permutation accepted", ModeSpider, 0, "SELECT age, name FROM singer WHERE country = 'France'", StatusOK, true, ""},
		{"spider: gold ORDER BY enforces row order", ModeSpider, 2, "SELECT name FROM singer WHERE id < 5 ORDER BY age ASC", StatusOK, false, ""},
		{"bird: set semantics ignore order", ModeBIRD, 2, "SELECT name FROM singer WHERE id < 5 ORDER BY age ASC", StatusOK, true, ""},
		{"spider: DISTINCT stripped from gold, bag of 5 countries", ModeSpider, 3, "SELECT country FROM singer", StatusOK, true, ""},
		{"spider-keep-distinct: 4 distinct vs 5 rows", ModeSpiderKeepDistinct, 3, "SELECT country FROM singer", StatusOK, false, ""},
		{"bird: set of countries equal", ModeBIRD, 3, "SELECT country FROM singer", StatusOK, true, ""},
		{"syntax error", ModeBIRD, 1, "SELEC count(*) FROM singer", StatusPredError, false, "syntax"},
		{"empty prediction", ModeSpider, 1, "  ", StatusPredError, false, "empty prediction"},
		{"write denied", ModeBIRD, 1, "DELETE FROM singer", StatusPredError, false, ""},
		{"timeout interrupts", ModeBIRD, 1, infiniteSQL, StatusPredTimeout, false, ""},
		{"missing database", ModeBIRD, 4, "SELECT 1", StatusMissingDB, false, "absent"},
		{"failing gold is gold_error, not an abort", ModeBIRD, 5, "SELECT 1", StatusGoldError, false, "nope"},
		{"bird: invalid UTF-8 in gold text", ModeBIRD, 6, "SELECT name FROM singer WHERE id = 5", StatusGoldError, false, "UTF-8"},
		{"spider: invalid UTF-8 bytes dropped", ModeSpider, 6, "SELECT 'Bad'", StatusOK, true, ""},
		{"spider: a second statement is refused", ModeSpider, 1, "SELECT count(*) FROM singer; DROP TABLE singer", StatusPredError, false, "multiple statements"},
		{"bird: multiple statements refused", ModeBIRD, 1, "SELECT count(*) FROM singer; SELECT 1", StatusPredError, false, ""},
		{"spider: 'value' rewritten to 1", ModeSpider, 1, "SELECT count(*) * value FROM singer", StatusOK, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewScorer(b, nil, ScoreOptions{Mode: c.mode, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			v := s.Score(context.Background(), b.Examples[c.ex], c.pred)
			if v.Status != c.status || v.Correct != c.correct {
				t.Fatalf("Score = %+v; want status %s correct %v", v, c.status, c.correct)
			}
			if !strings.Contains(v.Error, c.errHas) {
				t.Errorf("error %q; want it to contain %q", v.Error, c.errHas)
			}
			if v.QuestionID != b.Examples[c.ex].ID || v.Index != c.ex || v.Difficulty != b.Examples[c.ex].Difficulty {
				t.Errorf("verdict identity %+v does not match example %d", v, c.ex)
			}
		})
	}
}

// TestScoreOneStatement: a prediction holding a NUL byte, or anything but
// white space and comments after its first statement's ';', is pred_error
// in every mode; white space and comments after the ';' are fine. Gold 0
// returns France's singers and gold 1 the singer count, so each
// prediction below would be correct if only its first statement (up to
// the NUL) ran, as SQLite and Spider's evaluator run it.
func TestScoreOneStatement(t *testing.T) {
	b := fixtureBench(t)
	tests := []struct {
		name    string
		ex      int
		pred    string
		status  Status
		correct bool
		errHas  string
	}{
		{"NUL byte", 0, "SELECT name, age FROM singer WHERE country = 'France'\x00 AND 1=0", StatusPredError, false, "NUL byte at byte 53"},
		{"second SELECT", 1, "SELECT count(*) FROM singer; SELECT 2", StatusPredError, false, `at byte 29: "SELECT 2"`},
		{"DROP after the SELECT", 1, "SELECT count(*) FROM singer; DROP TABLE x", StatusPredError, false, `at byte 29: "DROP TABLE x"`},
		{"doubled semicolon", 1, "SELECT count(*) FROM singer;;", StatusPredError, false, `at byte 28: ";"`},
		{"line comment after the semicolon", 1, "SELECT count(*) FROM singer; -- note", StatusOK, true, ""},
		{"block comment after the semicolon", 1, "SELECT count(*) FROM singer;\n/* note */\n", StatusOK, true, ""},
		{"semicolon in a string", 1, "SELECT count(*) FROM singer WHERE ';' <> 'a; DROP TABLE x'", StatusOK, true, ""},
	}
	for _, m := range []Mode{ModeSpider, ModeSpiderKeepDistinct, ModeBIRD, ModeLogicCat} {
		s, err := NewScorer(b, nil, ScoreOptions{Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			t.Run(string(m)+"/"+tt.name, func(t *testing.T) {
				v := s.Score(context.Background(), b.Examples[tt.ex], tt.pred)
				if v.Status != tt.status || v.Correct != tt.correct || !strings.Contains(v.Error, tt.errHas) {
					t.Errorf("Score(%q) = status %s, correct %v, error %q; want %s, %v, error containing %q",
						tt.pred, v.Status, v.Correct, v.Error, tt.status, tt.correct, tt.errHas)
				}
			})
		}
	}
}

func TestScoreAllGoldAsPred(t *testing.T) {
	b := fixtureBench(t)
	for _, m := range []Mode{ModeSpider, ModeBIRD, ModeLogicCat} {
		s, err := NewScorer(b, nil, ScoreOptions{Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		var calls []int
		vs, err := s.ScoreAll(context.Background(), GoldPredictions(b), 3, func(done, total int) {
			calls = append(calls, done)
			if total != len(b.Examples) {
				t.Errorf("progress total = %d; want %d", total, len(b.Examples))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != len(b.Examples) || calls[len(calls)-1] != len(b.Examples) {
			t.Errorf("%s: progress calls %v; want 1..%d", m, calls, len(b.Examples))
		}
		for i, v := range vs {
			if v.Index != i {
				t.Fatalf("%s: verdict %d has index %d; want benchmark order", m, i, v.Index)
			}
		}
		sum := SummarizeEX(m, vs, nil)
		wantRunnable := 5 // 7 minus missing_db (q4) minus gold_error (q5)
		if m != ModeSpider {
			wantRunnable = 4 // q6's invalid UTF-8 is a gold error outside Spider
		}
		if sum.Overall.Runnable != wantRunnable || sum.Overall.Correct != wantRunnable || sum.Overall.EX != 1 {
			t.Errorf("%s: summary %+v; want %d runnable, all correct", m, sum.Overall, wantRunnable)
		}
		if sum.Status[StatusMissingDB] != 1 {
			t.Errorf("%s: missing_db = %d; want 1", m, sum.Status[StatusMissingDB])
		}
		// One denominator: the 7 questions minus those whose gold does
		// not run, so gold-as-prediction scores exactly 1.
		if sum.Overall.Total != 7 || sum.Overall.EX != float64(wantRunnable)/float64(sum.Overall.Runnable) {
			t.Errorf("%s: total %d EX %v; want 7, %d/%d", m, sum.Overall.Total, sum.Overall.EX, wantRunnable, sum.Overall.Runnable)
		}
		if got := strings.Join(sum.Difficulties, ","); got != "easy,medium,hard,extra" {
			t.Errorf("difficulty order %q; want easy,medium,hard,extra", got)
		}
	}
}

func TestScoreAllCanceled(t *testing.T) {
	b := fixtureBench(t)
	s, _ := NewScorer(b, nil, ScoreOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.ScoreAll(ctx, GoldPredictions(b), 2, nil); err == nil {
		t.Fatal("ScoreAll on a canceled context: got nil error")
	}
}

func TestGoldCachePersistsAndKeysByContent(t *testing.T) {
	b := fixtureBench(t)
	dir := t.TempDir()
	c1, err := NewGoldCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := NewScorer(b, c1, ScoreOptions{Mode: ModeBIRD})
	v1, err := s1.ScoreAll(context.Background(), GoldPredictions(b), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hits, runs := c1.Stats(); runs != 6 || hits != 0 {
		t.Fatalf("cold cache: hits %d runs %d; want 0 and 6 (7 golds, one missing db)", hits, runs)
	}
	if err := c1.Flush(); err != nil { // the background writer commits the entries
		t.Fatal(err)
	}
	c2, _ := NewGoldCache(dir)
	s2, _ := NewScorer(b, c2, ScoreOptions{Mode: ModeBIRD})
	v2, err := s2.ScoreAll(context.Background(), GoldPredictions(b), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hits, runs := c2.Stats(); runs != 0 || hits != 6 {
		t.Fatalf("warm cache: hits %d runs %d; want 6 and 0", hits, runs)
	}
	for i := range v1 {
		a, b := v1[i], v2[i]
		a.PredMS, b.PredMS = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("verdict %d differs between cold and warm cache: %+v vs %+v", i, a, b)
		}
	}
	// Same id, different content: a different fingerprint, so a miss.
	other := t.TempDir()
	p := buildFixture(t, other, "singers", "ex_fixture.sql")
	w, _ := sql.Open("sqlite3", p)
	if _, err := w.Exec("INSERT INTO singer VALUES (6, 'New', 20, 'Peru', 0.5)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := datasets.OpenSQLite(p, "singers", datasets.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := c2.Get(context.Background(), db, "SELECT count(*) FROM singer", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Cached || r.Result.Rows[0][0] != int64(6) {
		t.Fatalf("changed database: got cached=%v rows=%v; want a fresh run giving 6", r.Cached, r.Result.Rows)
	}
}

func TestGoldCacheConcurrentSingleRun(t *testing.T) {
	b := fixtureBench(t)
	db, err := b.Engine.Open(context.Background(), "singers")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewGoldCache(t.TempDir())
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Go(func() {
			r, err := c.Get(context.Background(), db, "SELECT name FROM singer ORDER BY id", 0)
			if err != nil || r.Status != ExecOK || len(r.Result.Rows) != 5 {
				t.Errorf("Get = %+v, %v", r, err)
			}
		})
	}
	wg.Wait()
	if hits, runs := c.Stats(); runs != 1 || hits+runs != 16 {
		t.Fatalf("16 concurrent lookups: hits %d runs %d; want 1 run", hits, runs)
	}
}

func TestGoldCacheTimeoutEntries(t *testing.T) {
	b := fixtureBench(t)
	db, _ := b.Engine.Open(context.Background(), "singers")
	dir := t.TempDir()
	c, _ := NewGoldCache(dir)
	r, err := c.Get(context.Background(), db, infiniteSQL, 100*time.Millisecond)
	if err != nil || r.Status != ExecTimeout {
		t.Fatalf("Get = %+v, %v; want a timeout", r, err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	c2, _ := NewGoldCache(dir)
	if r, _ := c2.Get(context.Background(), db, infiniteSQL, 50*time.Millisecond); !r.Cached || r.Status != ExecTimeout {
		t.Fatalf("shorter timeout: %+v; want the cached timeout", r)
	}
	if r, _ := c2.Get(context.Background(), db, infiniteSQL, 200*time.Millisecond); r.Cached {
		t.Fatalf("longer timeout reused a cached timeout: %+v", r)
	}
}

func TestEncodeValueRoundTrip(t *testing.T) {
	vals := []any{nil, int64(0), int64(math.MinInt64), int64(math.MaxInt64), 0.1, math.Copysign(0, -1), 1e308,
		math.Inf(-1), "", "héllo", string([]byte{0xff, 'a', 0xc3}), []byte{}, []byte{0, 1, 255}, "i123", "n"}
	for _, v := range vals {
		s, err := EncodeValue(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeValue(s)
		if err != nil {
			t.Fatalf("DecodeValue(%q): %v", s, err)
		}
		if !sameValue(got, v) {
			t.Errorf("round trip %#v -> %q -> %#v", v, s, got)
		}
	}
	if _, err := EncodeValue(true); err == nil {
		t.Error("EncodeValue(bool): want an error")
	}
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	}
	return a == b
}

func FuzzEncodeValue(f *testing.F) {
	f.Add("abc", int64(1), 2.5)
	f.Fuzz(func(t *testing.T, s string, i int64, fl float64) {
		for _, v := range []any{s, []byte(s), i, fl} {
			enc, err := EncodeValue(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeValue(enc)
			if err != nil || !sameValue(got, v) {
				t.Fatalf("round trip %#v -> %q -> %#v, %v", v, enc, got, err)
			}
		}
		_, _ = DecodeValue(s) // arbitrary input: error or value, never a panic
	})
}

func TestSameGoldUnits(t *testing.T) {
	exs := []datasets.Example{
		{DBID: "a", GoldSQL: "SELECT 1"}, // 0
		{DBID: "a", GoldSQL: "SELECT 1"}, // 1: paraphrase of 0
		{DBID: "b", GoldSQL: "SELECT 1"}, // 2: same gold, other database
		{DBID: "a", GoldSQL: "SELECT 2"}, // 3
		{DBID: "a", GoldSQL: "SELECT 1"}, // 4: later paraphrase of 0
		{DBID: "b", GoldSQL: "SELECT 2"}, // 5
	}
	tests := []struct {
		name string
		todo []int
		want [][]int // positions in todo
	}{
		{"all", []int{0, 1, 2, 3, 4, 5}, [][]int{{0, 1, 4}, {2}, {3}, {5}}},
		{"subset", []int{1, 3, 4}, [][]int{{0, 2}, {1}}},
		{"none", nil, [][]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sameGoldUnits(exs, tc.todo)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("sameGoldUnits(%v) = %v; want %v", tc.todo, got, tc.want)
			}
		})
	}
}

// countingEngine counts the Open calls per database id.
type countingEngine struct {
	datasets.Engine
	mu    sync.Mutex
	opens map[string]int
}

func (e *countingEngine) Open(ctx context.Context, id string) (datasets.Database, error) {
	e.mu.Lock()
	e.opens[id]++
	e.mu.Unlock()
	return e.Engine.Open(ctx, id)
}

func TestScorerOpenOncePerDatabase(t *testing.T) {
	b := fixtureBench(t)
	eng := &countingEngine{Engine: b.Engine, opens: map[string]int{}}
	b.Engine = eng
	s, err := NewScorer(b, nil, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A canceled opening is not kept: the next call opens again.
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.open(canceled, "singers"); err == nil {
		t.Fatalf("open with a canceled context: got no error; want context.Canceled")
	}
	const n = 8
	dbs := make([]datasets.Database, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = s.open(context.Background(), "singers")
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || dbs[i] == nil || dbs[i] != dbs[0] {
			t.Fatalf("open %d: got (%v, %v); want the one handle %v", i, dbs[i], errs[i], dbs[0])
		}
	}
	// One failed opening (canceled) and one kept, shared by the n callers.
	if got := eng.opens["singers"]; got != 2 {
		t.Errorf("Engine.Open calls for singers: got %d; want 2 (the canceled one, then one for %d callers)", got, n)
	}
	if _, err := s.open(context.Background(), "absent"); err == nil {
		t.Errorf("open absent: got no error; want ErrMissingDB")
	}
	if _, err := s.open(context.Background(), "absent"); err == nil || eng.opens["absent"] != 1 {
		t.Errorf("open absent again: got %v after %d Engine.Open calls; want the kept error after 1", err, eng.opens["absent"])
	}
}
