package metrics

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
)

func TestStaticFlags(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT name FROM t ORDER BY RAND() LIMIT 1", []string{"static:RAND()"}},
		{"SELECT * FROM t ORDER BY random ( ) LIMIT 3", []string{"static:RANDOM()"}},
		{"SELECT strftime('%Y', 'now') - birth FROM p", []string{"static:'now'"}},
		{"SELECT date( 'NOW ' ) , NOW() , now()", []string{"static:'now'", "static:NOW()"}},
		{"SELECT CURRENT_TIMESTAMP, YEAR(CURDATE())", []string{"static:CURRENT_TIMESTAMP", "static:CURDATE()"}},
		{"SELECT UNIX_TIMESTAMP(), UNIX_TIMESTAMP(d) FROM t", []string{"static:UNIX_TIMESTAMP()"}},
		// Not flagged: deterministic calls, names inside literals, quoted
		// identifiers, comments, or columns.
		{"SELECT UNIX_TIMESTAMP(d) FROM t", nil},
		{"SELECT 'RAND()', `now`, t.now FROM t -- NOW()\n/* RAND() */", nil},
		{"SELECT name FROM t WHERE note = 'now and then'", nil},
		{"SELECT randomness, nowhere FROM t", nil},
	}
	for _, c := range cases {
		if got := StaticFlags(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("StaticFlags(%q) = %q; want %q", c.sql, got, c.want)
		}
	}
}

func TestRowOrderFlags(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT *, NTILE(2) OVER (ORDER BY r DESC) AS p FROM c", []string{"row_order:NTILE()"}},
		{"SELECT MIN(x) OVER (ORDER BY m ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t", []string{"row_order:ROWS frame"}},
		{"SELECT AVG(x) OVER (ORDER BY m ROWS 2 PRECEDING) FROM t", []string{"row_order:AVG() OVER", "row_order:ROWS frame"}},
		{"SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b), lag (x, 1) OVER w FROM t", []string{"row_order:ROW_NUMBER()", "row_order:LAG()"}},
		{"SELECT GROUP_CONCAT(name) FROM t GROUP BY a", []string{"row_order:GROUP_CONCAT()"}},
		{"SELECT a / SUM(1 - (b + c)) OVER () FROM t", []string{"row_order:SUM() OVER"}},
		// Not flagged: an ordered GROUP_CONCAT, RANK (ties share a rank), a
		// RANGE frame, a column named rows, the words in a literal.
		{"SELECT GROUP_CONCAT(name ORDER BY name SEPARATOR ',') FROM t", nil},
		{"SELECT RANK() OVER (ORDER BY s), MAX(x) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", nil},
		{"SELECT SUM(x) FROM t GROUP BY a", nil},
		{"SELECT t.rows, rows FROM t WHERE n = 'ROW_NUMBER() OVER ()'", nil},
	}
	for _, c := range cases {
		if got := RowOrderFlags(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RowOrderFlags(%q) = %q; want %q", c.sql, got, c.want)
		}
	}
}

func TestLimitProbes(t *testing.T) {
	cases := []struct {
		sql       string
		want      []string // probe SQL
		keys      [][]int
		unchecked int
	}{
		{"SELECT name FROM t ORDER BY x LIMIT 1", []string{"SELECT name, (x) AS t2s_order_key_1 FROM t ORDER BY x"}, [][]int{{3}}, 0},
		{"SELECT name, x FROM t ORDER BY x DESC, 1 LIMIT 2 OFFSET 3;", []string{"SELECT name, x FROM t ORDER BY x DESC, 1"}, [][]int{{1, 0}}, 0},
		{"SELECT count(*) AS c, a FROM t GROUP BY a ORDER BY c DESC LIMIT 1", []string{"SELECT count(*) AS c, a FROM t GROUP BY a ORDER BY c DESC"}, [][]int{{0}}, 0},
		{"SELECT a FROM t LIMIT 3, 2", []string{"SELECT a FROM t"}, [][]int{{}}, 0},
		{"SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c LIMIT 1)",
			[]string{"SELECT b, (c) AS t2s_order_key_1 FROM u ORDER BY c"}, [][]int{{3}}, 0},
		// A star: an alias is found by name in the result, an expression is
		// appended.
		{"SELECT y.*, a * 2 AS c FROM y ORDER BY c DESC LIMIT 5", []string{"SELECT y.*, a * 2 AS c FROM y ORDER BY c DESC"}, [][]int{{0}}, 0},
		{"SELECT * FROM t ORDER BY a + b DESC LIMIT 3", []string{"SELECT *, (a + b) AS t2s_order_key_1 FROM t ORDER BY a + b DESC"}, [][]int{{3}}, 0},
		{"SELECT DISTINCT a FROM t ORDER BY b LIMIT 1", nil, nil, 1},
		{"SELECT a FROM t UNION SELECT a FROM u ORDER BY a LIMIT 1", []string{"SELECT a FROM t UNION SELECT a FROM u ORDER BY a"}, [][]int{{0}}, 0},
		{"SELECT a FROM t ORDER BY a LIMIT ?", nil, nil, 1},
		{"SELECT a FROM t ORDER BY a", nil, nil, 0},
	}
	for _, c := range cases {
		ps, un := limitProbes(c.sql)
		var got []string
		var keys [][]int
		for _, p := range ps {
			got = append(got, p.sql)
			// Resolve against result columns c1..cn (n = 3 visible + the
			// appended keys) with c1 named after alias "c".
			cols := []string{"c", "x2", "x3"}
			for i := 0; i < p.injected; i++ {
				cols = append(cols, "k")
			}
			kc, err := p.resolve(cols)
			if err != nil {
				t.Errorf("%q: resolve: %v", c.sql, err)
			}
			keys = append(keys, kc)
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(keys, c.keys) || len(un) != c.unchecked {
			t.Errorf("limitProbes(%q) = %q keys %v unchecked %q; want %q keys %v, %d unchecked", c.sql, got, keys, un, c.want, c.keys, c.unchecked)
		}
	}
}

// tieBench is a benchmark over one SQLite table whose golds cut ties:
// t(x, name) holds (1,'a'), (1,'b'), (2,'c'), so "ORDER BY x LIMIT 1" may
// return 'a' or 'b'.
func tieBench(t *testing.T) *datasets.Benchmark {
	t.Helper()
	dir := t.TempDir()
	p := testkit.SQLiteAt(t, filepath.Join(dir, "ties", "ties.sqlite"), `CREATE TABLE t (x INTEGER, name TEXT);
		INSERT INTO t VALUES (1, 'a'), (1, 'b'), (2, 'c'), (3, 'd'), (3, 'd');`)
	eng := datasets.NewSQLiteEngine(func(id string) (string, bool) { return p, id == "ties" }, datasets.SQLiteOptions{})
	t.Cleanup(func() { eng.Close() })
	golds := []string{
		"SELECT name FROM t ORDER BY x LIMIT 1",          // tie at the boundary: 'a' or 'b'
		"SELECT name FROM t ORDER BY x DESC LIMIT 1",     // tie, but both rows are 'd'
		"SELECT name FROM t ORDER BY x LIMIT 2",          // the tie group fits the window
		"SELECT name FROM t ORDER BY x LIMIT 2 OFFSET 1", // tie at the lower boundary
		"SELECT name FROM t ORDER BY RANDOM() LIMIT 1",
	}
	b := &datasets.Benchmark{Name: "ties", Mode: "spider", Engine: eng}
	for i, g := range golds {
		b.Examples = append(b.Examples, datasets.Example{ID: string(rune('0' + i)), Index: i, DBID: "ties", GoldSQL: g})
	}
	return b
}

func TestGoldFlagsOnTies(t *testing.T) {
	b := tieBench(t)
	s, err := NewScorer(b, nil, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{FlagLimitTie}, nil, nil, {FlagLimitTie}, {"static:RANDOM()"}}
	for i, ex := range b.Examples {
		v := s.Score(context.Background(), ex, ex.GoldSQL)
		if !reflect.DeepEqual(v.GoldFlags, want[i]) {
			t.Errorf("gold %q: flags %q; want %q", ex.GoldSQL, v.GoldFlags, want[i])
		}
	}
}

// TestTieAware checks a gold "ORDER BY x LIMIT 1" whose boundary rows tie:
// by default the verdict is the official one (the prediction compared with
// the gold as the server runs it now), with --tie-aware either tied row is
// accepted and a row outside the tie is not, and in both modes the gold is
// never answered from the cache.
func TestTieAware(t *testing.T) {
	b := tieBench(t)
	ctx := context.Background()
	ex := b.Examples[0]
	db, err := b.Engine.Open(ctx, "ties")
	if err != nil {
		t.Fatal(err)
	}
	// The official verdict: run the gold beside the prediction and compare.
	official := func(pred string) bool {
		g, err := db.Execute(ctx, ex.GoldSQL)
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.Execute(ctx, pred)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := CompareResults(ModeSpider, Quirks{}, g, p, true)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	preds := []struct {
		sql       string
		tieAware  bool
		wantFlags []string
	}{
		{"SELECT 'a'", true, []string{FlagLimitTie}},
		{"SELECT 'b'", true, []string{FlagLimitTie}},
		{"SELECT name FROM t WHERE x = 1 ORDER BY name DESC LIMIT 1", true, []string{FlagLimitTie}},
		{"SELECT 'c'", false, []string{FlagLimitTie}},
		{"SELECT name FROM t WHERE x = 1", false, []string{FlagLimitTie}}, // both tied rows: not a top-1
	}
	cache, err := NewGoldCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	for _, tieAware := range []bool{false, true} {
		s, err := NewScorer(b, cache, ScoreOptions{TieAware: tieAware})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range preds {
			for run := 0; run < 2; run++ {
				v := s.Score(ctx, ex, p.sql)
				want := official(p.sql)
				if tieAware {
					want = p.tieAware
				}
				if v.Status != StatusOK || v.Correct != want || !reflect.DeepEqual(v.GoldFlags, p.wantFlags) {
					t.Errorf("tie-aware %v, run %d, %q: %+v; want ok, correct %v, flags %q", tieAware, run, p.sql, v, want, p.wantFlags)
				}
			}
		}
	}
	// The cache never holds (so never serves) the gold itself; it holds
	// only its LIMIT probe.
	if err := cache.Flush(); err != nil {
		t.Fatal(err)
	}
	key, _ := goldKey(db, PrepareGold(ModeSpider, Quirks{}, ex.GoldSQL))
	cache.mu.Lock()
	_, inMem := cache.mem[key]
	cache.mu.Unlock()
	var n int
	if err := cache.db.QueryRow(`SELECT count(*) FROM entries WHERE key = ?`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if inMem || n != 0 {
		t.Errorf("gold with tied LIMIT in the cache: memory %v, disk %d; want neither", inMem, n)
	}
	// The probe ran once; the second scorer read it from the cache.
	if hits, runs := cache.Stats(); runs != 1 || hits != 1 {
		t.Errorf("cache hits %d runs %d; want 1 and 1 (the probe once, then one hit)", hits, runs)
	}
}

// TestTieAwareOffset checks the lower boundary: "ORDER BY x LIMIT 2 OFFSET
// 1" over x = 1, 1, 2, 3, 3 may return (b, c) or (a, c).
func TestTieAwareOffset(t *testing.T) {
	b := tieBench(t)
	s, err := NewScorer(b, nil, ScoreOptions{TieAware: true, Mode: ModeBIRD})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pred string
		want bool
	}{
		{"SELECT 'a' UNION ALL SELECT 'c'", true},
		{"SELECT 'b' UNION ALL SELECT 'c'", true},
		{"SELECT 'a' UNION ALL SELECT 'b'", false},
		{"SELECT 'c' UNION ALL SELECT 'd'", false},
	} {
		v := s.Score(context.Background(), b.Examples[3], c.pred)
		if v.Correct != c.want {
			t.Errorf("%q: %+v; want correct %v", c.pred, v, c.want)
		}
	}
}

func TestDeterministicEX(t *testing.T) {
	vs := []Verdict{
		{Status: StatusOK, Correct: true},
		{Status: StatusOK, Correct: false, GoldFlags: []string{FlagLimitTie}},
		{Status: StatusOK, Correct: true, GoldFlags: []string{"static:RAND()"}},
		{Status: StatusPredError},
		{Status: StatusGoldError},
	}
	g := DeterministicEX(vs)
	// 3 verdicts with deterministic golds, 2 of them runnable, 1 correct.
	if g.Total != 3 || g.Runnable != 2 || g.Correct != 1 {
		t.Errorf("DeterministicEX = %+v; want total 3, runnable 2, correct 1", g)
	}
	if n := NondeterministicCount(vs); n != 2 {
		t.Errorf("NondeterministicCount = %d; want 2", n)
	}
}

func FuzzGoldFlags(f *testing.F) {
	for _, s := range []string{
		"SELECT name FROM t ORDER BY x LIMIT 1",
		"SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c DESC LIMIT 2 OFFSET 1)",
		"SELECT y.*, a AS c FROM y ORDER BY c LIMIT 5, 3;",
		"WITH w AS (SELECT 1) SELECT GROUP_CONCAT(x) , NTILE(2) OVER (ROWS 2 PRECEDING) FROM w LIMIT",
		"SELECT date('now'), RAND() FROM (SELECT ((",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		StaticFlags(sql)
		RowOrderFlags(sql)
		probes, _ := limitProbes(sql)
		if n := strings.Count(strings.ToUpper(sql), "LIMIT"); len(probes) > n {
			t.Fatalf("%d probes for %d LIMIT words in %q", len(probes), n, sql)
		}
		for _, p := range probes {
			// Keys appended by the probe always resolve to its last columns.
			cols := make([]string, p.injected+8)
			if _, err := p.resolve(cols); err != nil && len(p.keys) == p.injected {
				t.Fatalf("probe %+v: appended keys do not resolve: %v", p, err)
			}
		}
	})
}

// TestFlagWordLists guards the shortcuts of StaticFlags and RowOrderFlags:
// every name their maps hold must contain one of the words whose absence
// skips tokenizing, or a query using it would go unflagged.
func TestFlagWordLists(t *testing.T) {
	check := func(list string, words []string, names map[string]bool) {
		for name := range names {
			if !containsAnyFoldASCII(name, words) {
				t.Errorf("%s: %s holds none of %v", list, name, words)
			}
		}
	}
	check("volatileFuncs", staticWords, volatileFuncs)
	check("'now'", staticWords, map[string]bool{"'now'": true})
	check("rowOrderFuncs", rowOrderWords, rowOrderFuncs)
	check("concatAggs", rowOrderWords, concatAggs)
	check("ROWS and OVER", rowOrderWords, map[string]bool{"ROWS": true, "OVER": true})
	// Queries the shortcuts skip give what the full scan gives: nothing.
	for _, q := range []string{"SELECT a FROM t", "SELECT max(x) FROM t GROUP BY y", ""} {
		if f := append(StaticFlags(q), RowOrderFlags(q)...); len(f) != 0 {
			t.Errorf("flags of %q = %v; want none", q, f)
		}
		if p, u := limitProbes(q); len(p)+len(u) != 0 {
			t.Errorf("limitProbes(%q) = %v, %v; want none", q, p, u)
		}
	}
	// Non-ASCII text is always scanned: ſ upper-cases to S.
	if got := StaticFlags("SELECT RANDOM() FROM t WHERE x = 'ſ'"); len(got) != 1 {
		t.Errorf("StaticFlags with non-ASCII text = %v; want [static:RANDOM()]", got)
	}
}

// FuzzTokenDepths: the depth sqlTokens reads from sqllex is the one a
// count of the "(" and ")" tokens gives (never below zero), on every token,
// white space and comments included.
func FuzzTokenDepths(f *testing.F) {
	for _, s := range []string{
		"SELECT (a) FROM (SELECT ( b ) /* ( */ FROM t -- (\n) x",
		"))(( '(' \"(\" [(] `(` (",
		"SELECT COUNT(*) FROM t WHERE x IN (1, (2), 3) ORDER BY (y)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		toks := sqlTokens(sql)
		depth := 0
		for i, k := range toks {
			if k.kind == tokPunct && k.text == ")" && depth > 0 {
				depth--
			}
			if k.depth != depth {
				t.Fatalf("%q: token %d %+v: depth %d; want %d", sql, i, k, k.depth, depth)
			}
			if k.kind == tokPunct && k.text == "(" {
				depth++
			}
		}
	})
}
