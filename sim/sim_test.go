package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// concertGold are Spider-style gold queries over testdata/concert.sql
// (questions and SQL modelled on Spider's concert_singer database).
var concertGold = []struct{ q, sql string }{
	{"How many singers do we have?", "SELECT count(*) FROM singer"},
	{"Show name, country, age for all singers ordered by age from the oldest to the youngest.", "SELECT name, country, age FROM singer ORDER BY age DESC"},
	{"What is the average, minimum, and maximum age of all singers from France?", "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"},
	{"Show the name and the release year of the song by the youngest singer.", "SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1"},
	{"What are all distinct countries where singers above age 20 are from?", "SELECT DISTINCT country FROM singer WHERE age > 20"},
	{"Show all countries and the number of singers in each country.", "SELECT country, count(*) FROM singer GROUP BY country"},
	{"List all song names by singers above the average age.", "SELECT song_name FROM singer WHERE age > (SELECT avg(age) FROM singer)"},
	{"Show location and name for all stadiums with a capacity between 5000 and 10000.", "SELECT location, name FROM stadium WHERE capacity BETWEEN 5000 AND 10000"},
	{"What is the maximum capacity and the average of all stadiums?", "SELECT max(capacity), average FROM stadium"},
	{"Show the stadium name and the number of concerts in each stadium.", "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id"},
	{"Show the stadium name and capacity with most number of concerts in year 2014 or after.", "SELECT T2.name, T2.capacity FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year >= 2014 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1"},
	{"Show the name and theme for all concerts and the number of singers in each concert.", "SELECT T2.concert_name, T2.theme, count(*) FROM singer_in_concert AS T1 JOIN concert AS T2 ON T1.concert_id = T2.concert_id GROUP BY T2.concert_id"},
	{"List the names of singers who performed in a concert in 2014.", "SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = 2014"},
	{"What is the name and nation of the singer who have a song having 'Hey' in its name?", "SELECT name, country FROM singer WHERE song_name LIKE '%Hey%'"},
	{"Show names for all stadiums except for stadiums having a concert.", "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"},
	{"Count the number of concerts in 2014 or 2015.", "SELECT count(*) FROM concert WHERE year = 2014 OR year = 2015"},
	{"Which stadiums hold more than 5000 people but average fewer than 2000?", "SELECT name, location FROM stadium WHERE capacity > 5000 AND average < 2000"},
	{"What is the total capacity of stadiums at Raith Rovers?", "SELECT sum(capacity) FROM stadium WHERE location = 'Raith Rovers'"},
	{"Which singers performed in more than one concert?", "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.name HAVING count(*) > 1"},
	{"How many male singers are younger than 40?", "SELECT count(*) FROM singer WHERE is_male = 'T' AND age < 40"},
}

// buildConcertDB creates testdata/concert.sql in a temporary SQLite file.
func buildConcertDB(t testing.TB) string {
	t.Helper()
	return testkit.SQLiteAt(t, filepath.Join(t.TempDir(), "concert_singer.sqlite"), testkit.SQLFile(t, filepath.Join("testdata", "concert.sql")))
}

func concertBenchmark(t testing.TB, withDB bool) *datasets.Benchmark {
	b := &datasets.Benchmark{Name: "test", Split: "dev"}
	for i, g := range concertGold {
		b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprint(i), Index: i, DBID: "concert_singer", Question: g.q, GoldSQL: g.sql})
	}
	if withDB {
		path := buildConcertDB(t)
		eng := datasets.NewSQLiteEngine(func(id string) (string, bool) { return path, id == "concert_singer" }, datasets.SQLiteOptions{})
		t.Cleanup(func() { eng.Close() })
		b.Engine = eng
	}
	return b
}

// concertSchema is the schema part of testdata/concert.sql (its CREATE
// TABLE statements) with a note of is_male's values, as a prompt shows it.
var concertSchema = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "concert.sql"))
	if err != nil {
		panic(err)
	}
	s := string(b)
	return s[:strings.Index(s, "INSERT")] + "-- singer.is_male holds 'T' or 'F'.\n"
}()

// prompt is a direct-style prompt: the concert schema, the question and
// extra text.
func prompt(q string, extra string) []llm.Message {
	return []llm.Message{
		{Role: "system", Content: "You are a careful SQL expert. Answer with one ```sql block."},
		{Role: "user", Content: "Database: concert_singer\nSchema:\n" + concertSchema + "\nQuestion: " + q + "\n" + extra},
	}
}

// fencedSQL pulls the last ```sql block out of an answer.
func fencedSQL(t testing.TB, s string) string {
	t.Helper()
	i := strings.LastIndex(s, "```sql\n")
	if i < 0 {
		t.Fatalf("no ```sql block in %q", s)
	}
	rest := s[i+len("```sql\n"):]
	j := strings.Index(rest, "\n```")
	if j < 0 {
		t.Fatalf("unterminated ```sql block in %q", s)
	}
	return rest[:j]
}

// TestSimShareCorrect checks the drawn share of correct samples: with P=0.4
// over 1,000 requests of 1 sample, the share equal to the gold is
// 0.4 +- 0.05 (binomial sd = sqrt(0.4*0.6/1000) = 0.0155, so +-0.05 is
// over 3 sd). Samples are independent (rho = 0): TestCorrelatedSamples
// checks the share under a question difficulty.
func TestSimShareCorrect(t *testing.T) {
	b := concertBenchmark(t, false)
	s, err := New(b, Config{P: 0.4, Seed: 1, Rho: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	correct := 0
	const n = 1000
	for r := range n {
		g := concertGold[r%len(concertGold)]
		resp, err := s.Complete(ctx, llm.Request{Messages: prompt(g.q, fmt.Sprintf("(attempt %d)", r)), Answer: llm.AnswerSQL})
		if err != nil {
			t.Fatal(err)
		}
		if fencedSQL(t, resp.Choices[0]) == g.sql {
			correct++
		}
	}
	share := float64(correct) / n
	t.Logf("share correct = %.3f (P = 0.4)", share)
	if share < 0.35 || share > 0.45 {
		t.Errorf("share correct = %.3f; want 0.4 +- 0.05", share)
	}
}

func TestSimDeterministic(t *testing.T) {
	b := concertBenchmark(t, true)
	ctx := context.Background()
	mk := func(seed int64) *Model {
		s, err := New(b, Config{P: 0.5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1, s1b, s2 := mk(1), mk(1), mk(2)
	diffSeed, diffSample := 0, 0
	for i, g := range concertGold {
		req := llm.Request{Messages: prompt(g.q, ""), N: 4, Answer: llm.AnswerSQL}
		a, err := s1.Complete(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		a2, _ := s1b.Complete(ctx, req)
		if fmt.Sprint(a.Choices) != fmt.Sprint(a2.Choices) {
			t.Errorf("question %d: same seed gave different answers:\n%q\n%q", i, a.Choices, a2.Choices)
		}
		c, _ := s2.Complete(ctx, req)
		if fmt.Sprint(a.Choices) != fmt.Sprint(c.Choices) {
			diffSeed++
		}
		for k := 1; k < len(a.Choices); k++ {
			if a.Choices[k] != a.Choices[0] {
				diffSample++
				break
			}
		}
		// Samples 2..3 asked on their own equal samples 2..3 of the full request.
		tail := req
		tail.N = 2
		part, _ := s1.CompleteFrom(ctx, tail, 2)
		if fmt.Sprint(part.Choices) != fmt.Sprint(a.Choices[2:]) {
			t.Errorf("question %d: CompleteFrom(2) = %q; want %q", i, part.Choices, a.Choices[2:])
		}
	}
	if diffSeed < len(concertGold)/2 {
		t.Errorf("seed 2 differed from seed 1 on %d of %d questions; want most", diffSeed, len(concertGold))
	}
	if diffSample < len(concertGold)/2 {
		t.Errorf("samples differed within a request on %d of %d questions; want most", diffSample, len(concertGold))
	}
}

// rowsKey canonicalises a result: rows as text, sorted unless ordered.
func rowsKey(rs *datasets.ResultSet, ordered bool) string {
	var rows []string
	for _, r := range rs.Rows {
		rows = append(rows, fmt.Sprint(r...))
	}
	if !ordered {
		sort.Strings(rows)
	}
	return strings.Join(rows, "\n")
}

// TestCorruptChangesResult runs every gold query of the fixture with 10
// corruption seeds each and reports how often the corruption executes and
// how often it changes the result (ordered comparison when the gold has
// ORDER BY, as Spider's evaluator does).
func TestCorruptChangesResult(t *testing.T) {
	b := concertBenchmark(t, true)
	ctx := context.Background()
	db, err := b.Engine.Open(ctx, "concert_singer")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total, execs, changed := 0, 0, 0
	kinds := map[string]int{}
	for qi, g := range concertGold {
		gold, err := db.Execute(ctx, g.sql)
		if err != nil {
			t.Fatalf("gold %d %q: %v", qi, g.sql, err)
		}
		ordered := strings.Contains(strings.ToUpper(g.sql), "ORDER BY")
		for seed := range 10 {
			rng := rand.New(rand.NewPCG(uint64(qi), uint64(seed)))
			bad, kind := Corrupt(g.sql, schema, rng)
			kinds[kind]++
			total++
			if bad == g.sql {
				t.Errorf("corruption %s left %q unchanged", kind, g.sql)
			}
			rs, err := db.Execute(ctx, bad)
			if err != nil {
				t.Logf("%s: %q does not execute: %v", kind, bad, err)
				continue
			}
			execs++
			if rowsKey(rs, ordered) != rowsKey(gold, ordered) {
				changed++
			} else {
				t.Logf("%s: %q gives the gold result", kind, bad)
			}
		}
	}
	t.Logf("corruptions: %d; execute: %.2f; change the result: %.2f; kinds: %v",
		total, float64(execs)/float64(total), float64(changed)/float64(total), kinds)
	if float64(execs)/float64(total) < 0.9 {
		t.Errorf("only %d of %d corruptions execute; want >= 90%%", execs, total)
	}
	if float64(changed)/float64(total) < 0.7 {
		t.Errorf("only %d of %d corruptions change the result; want >= 70%%", changed, total)
	}
	for _, k := range corruptionKinds {
		if kinds[k] == 0 {
			t.Errorf("corruption kind %s never applied", k)
		}
	}
}

func TestCorruptKinds(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	tests := []struct {
		name string
		fn   func([]token, *rand.Rand) ([]token, bool)
		in   string
		want []string // any of
	}{
		{"limit", limitOffByOne, "SELECT a FROM t ORDER BY b LIMIT 3", []string{"SELECT a FROM t ORDER BY b LIMIT 2", "SELECT a FROM t ORDER BY b LIMIT 4"}},
		{"limit 1", limitOffByOne, "SELECT a FROM t LIMIT 1", []string{"SELECT a FROM t LIMIT 2"}},
		{"order add", func(t []token, _ *rand.Rand) ([]token, bool) { return flipOrder(t) }, "select a from t order by b limit 1", []string{"select a from t order by b desc limit 1"}},
		{"order flip", func(t []token, _ *rand.Rand) ([]token, bool) { return flipOrder(t) }, "SELECT a FROM t ORDER BY count(*) DESC, c", []string{"SELECT a FROM t ORDER BY count(*) ASC, c"}},
		{"aggregate", wrongAggregate, "SELECT max(a) FROM t", []string{"SELECT min(a) FROM t"}},
		{"aggregate skips count(*)", wrongAggregate, "SELECT count(*), AVG(x) FROM t", []string{"SELECT count(*), SUM(x) FROM t"}},
		{"drop only predicate", dropPredicate, "SELECT a FROM t WHERE b = 1 ORDER BY a", []string{"SELECT a FROM t ORDER BY a"}},
		{"drop one of two", dropPredicate, "SELECT a FROM t WHERE b = 1 AND c BETWEEN 2 AND 3", []string{"SELECT a FROM t WHERE c BETWEEN 2 AND 3", "SELECT a FROM t WHERE b = 1"}},
		{"drop join condition", func(t []token, r *rand.Rand) ([]token, bool) { return wrongJoin(t, nil, r) },
			"SELECT a FROM t JOIN u ON t.id = u.tid WHERE x = 1", []string{"SELECT a FROM t JOIN u WHERE x = 1"}},
		{"literal", func(t []token, r *rand.Rand) ([]token, bool) { return changeLiteral(t, nil, r) },
			"SELECT a FROM t WHERE c = 'France' LIMIT 5", []string{"SELECT a FROM t WHERE c = 'france' LIMIT 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := tt.fn(tokenize(tt.in), rng())
			if !ok {
				t.Fatalf("%q: not applied", tt.in)
			}
			got := joinTokens(out)
			for _, w := range tt.want {
				if got == w {
					return
				}
			}
			t.Errorf("got %q; want one of %q", got, tt.want)
		})
	}
	// No pattern at all: the fallback still changes the text.
	got, kind := Corrupt("SELECT name FROM t", nil, rng())
	if got == "SELECT name FROM t" || kind != CorruptFallback {
		t.Errorf("Corrupt(SELECT name FROM t) = %q, %s; want the empty-result fallback", got, kind)
	}
}

func TestSimFind(t *testing.T) {
	b := &datasets.Benchmark{Name: "t", Examples: []datasets.Example{
		{ID: "a", DBID: "db1", Question: "How many singers are there?", GoldSQL: "SELECT 1"},
		{ID: "b", DBID: "db1", Question: "How many singers are there in France?", GoldSQL: "SELECT 2"},
		{ID: "c", DBID: "db2", Question: "How many  singers are THERE?", GoldSQL: "SELECT 3"},
		{ID: "d", DBID: "db3", Question: "List   all items.", GoldSQL: "SELECT 4"},
	}}
	s, err := New(b, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ prompt, want string }{
		{"Q: how many singers are there in france?\nA:", "b"},                     // longest wins
		{"Database db2\nQ: How many singers are there?", "c"},                     // db_id disambiguates
		{"Database db1\nQ: How many singers\n are there?", "a"},                   // whitespace/case normalised
		{"Example: list all items.\nNow: How many singers are there? (db1)", "a"}, // longest wins over a demo
		{"Example: how many singers are there?\nNow: list all items.", "a"},       // longer demo question wins
	}
	for _, tt := range tests {
		e, ok := s.Find(tt.prompt)
		if !ok || e.ID != tt.want {
			t.Errorf("Find(%q) = %q, %v; want %q", tt.prompt, e.ID, ok, tt.want)
		}
	}
	_, err = s.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "unrelated"}}})
	if !errors.Is(err, ErrNoQuestion) {
		t.Errorf("err = %v; want ErrNoQuestion", err)
	}
}

func TestSimFindScales(t *testing.T) {
	// 1,534 questions (the size of BIRD dev) and a 20 KB prompt.
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("what which how many list show the of singer stadium concert name age country average capacity year for in with and by each all total")
	b := &datasets.Benchmark{Name: "big"}
	for i := range 1534 {
		var q []string
		for range 8 + rng.IntN(10) {
			q = append(q, words[rng.IntN(len(words))])
		}
		b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprint(i), DBID: "db", Question: fmt.Sprintf("%s #%d?", strings.Join(q, " "), i), GoldSQL: "SELECT 1"})
	}
	s, err := New(b, Config{})
	if err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("CREATE TABLE singer (singer_id INTEGER, name TEXT, country TEXT); -- the average age of each singer\n", 200)
	for _, k := range []int{0, 777, 1533} {
		p := filler + "\nQuestion: " + b.Examples[k].Question + "\nSQL:"
		start := time.Now()
		e, ok := s.Find(p)
		if el := time.Since(start); el > 200*time.Millisecond {
			t.Errorf("Find on a %d-byte prompt took %v", len(p), el)
		}
		if !ok || e.ID != fmt.Sprint(k) {
			t.Errorf("Find = %q, %v; want %d", e.ID, ok, k)
		}
	}
}

func TestSimAnswerKinds(t *testing.T) {
	b := concertBenchmark(t, false)
	s, err := New(b, Config{P: 1, RoleP: map[string]float64{"bad": 0}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g := concertGold[2]
	_, err = s.Complete(ctx, llm.Request{Messages: prompt(g.q, ""), Answer: llm.AnswerJSON, SchemaName: "decomposition", Schema: json.RawMessage(`{}`)})
	if err == nil || !strings.Contains(err.Error(), `"decomposition"`) {
		t.Errorf("JSON without responder: err = %v; want an error naming the schema", err)
	}
	_, err = s.Complete(ctx, llm.Request{Messages: prompt(g.q, ""), Responder: "simtest/nope"})
	if err == nil || !strings.Contains(err.Error(), "simtest/nope") {
		t.Errorf("unknown responder: err = %v; want an error naming it", err)
	}
	resp, err := s.Complete(ctx, llm.Request{Messages: prompt(g.q, ""), Responder: "simtest/json", Answer: llm.AnswerJSON, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SQL    string `json:"sql"`
		Sample int    `json:"sample"`
	}
	if err := json.Unmarshal([]byte(resp.Choices[1]), &got); err != nil || got.SQL != g.sql || got.Sample != 1 {
		t.Errorf("responder answer = %q (%v); want the gold SQL, sample 1", resp.Choices[1], err)
	}
	// Role p: "bad" is never right, the default role always.
	good, _ := s.Complete(ctx, llm.Request{Messages: prompt(g.q, ""), N: 5})
	bad, _ := s.Complete(ctx, llm.Request{Role: "bad", Messages: prompt(g.q, ""), N: 5})
	for i := range 5 {
		if fencedSQL(t, good.Choices[i]) != g.sql {
			t.Errorf("p=1 sample %d = %q; want gold", i, good.Choices[i])
		}
		if fencedSQL(t, bad.Choices[i]) == g.sql {
			t.Errorf("role p=0 sample %d is the gold", i)
		}
	}
	wantPrompt := 0
	for _, m := range prompt(g.q, "") {
		wantPrompt += len(m.Content) + 1
	}
	if resp.Usage.PromptTokens != (wantPrompt+3)/4 || resp.Usage.CompletionTokens <= 0 {
		t.Errorf("usage = %+v; want prompt tokens ceil(%d/4)", resp.Usage, wantPrompt)
	}
}

func init() {
	responders["simtest/json"] = func(c *Sample) (string, error) {
		b, err := json.Marshal(map[string]any{"sql": c.SQL(), "sample": c.Index})
		return string(b), err
	}
}

func TestSimLatencyAndCancel(t *testing.T) {
	b := concertBenchmark(t, false)
	s, err := New(b, Config{Latency: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Messages: prompt(concertGold[0].q, "")}
	resp, err := s.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// Latency*(1 +- 0.2) = [32ms, 48ms].
	if resp.Latency < 32*time.Millisecond || resp.Latency > 500*time.Millisecond {
		t.Errorf("latency = %v; want about 40ms +- 20%%", resp.Latency)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if _, err := s.Complete(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want DeadlineExceeded", err)
	}
}

// TestSimCachedLargerN: sim behind the cache answers n=5 after n=2 with the
// same five samples as an uncached n=5 request.
func TestSimCachedLargerN(t *testing.T) {
	b := concertBenchmark(t, false)
	s, err := New(b, Config{P: 0.5, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	cache, _ := openTestCache(t)
	cc := llm.Cached(s, cache, s.Ident())
	ctx := context.Background()
	req := llm.Request{Messages: prompt(concertGold[5].q, ""), N: 2, Temperature: 0.8}
	cc.Complete(ctx, req)
	req.N = 5
	got, err := cc.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.Complete(ctx, req)
	if fmt.Sprint(got.Choices) != fmt.Sprint(want.Choices) {
		t.Errorf("cached n=5 = %q; want %q", got.Choices, want.Choices)
	}
}

// openTestCache opens a response cache in a temporary directory.
func openTestCache(t *testing.T) (*llm.Cache, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache.db")
	c, err := llm.OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

// TestCorruptDeterministic checks that a corruption depends on its seed
// only. A column two joined tables share (stuid) was once resolved to the
// first table of a map iteration, so the replacement column, and with it
// the simulated answer, differed between runs of the same request.
func TestCorruptDeterministic(t *testing.T) {
	schema := &datasets.Schema{DBID: "pets", Tables: []datasets.Table{
		{Name: "student", Columns: []datasets.Column{{Name: "stuid", Type: "INTEGER"}, {Name: "lname", Type: "TEXT"}, {Name: "age", Type: "INTEGER"}, {Name: "advisor", Type: "INTEGER"}}},
		{Name: "has_pet", Columns: []datasets.Column{{Name: "stuid", Type: "INTEGER"}, {Name: "petid", Type: "INTEGER"}}},
		{Name: "pets", Columns: []datasets.Column{{Name: "petid", Type: "INTEGER"}, {Name: "pettype", Type: "TEXT"}, {Name: "weight", Type: "REAL"}}},
	}}
	const sql = "SELECT stuid FROM student JOIN has_pet USING (stuid) JOIN pets USING (petid) WHERE pettype = 'cat'"
	for seed := range uint64(20) {
		first, _ := Corrupt(sql, schema, rand.New(rand.NewPCG(seed, 1)))
		// Go randomises map order on every iteration, so 50 repeats of
		// an order-dependent choice differ with near certainty.
		for range 50 {
			if got, _ := Corrupt(sql, schema, rand.New(rand.NewPCG(seed, 1))); got != first {
				t.Fatalf("seed %d: Corrupt gave %q, then %q", seed, first, got)
			}
		}
	}
}
