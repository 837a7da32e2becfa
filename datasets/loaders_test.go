package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

const spiderFixture = `[
  {"db_id": "pets", "query": "SELECT count(*) FROM pet", "question": "How many pets?",
   "query_toks": ["SELECT", "count", "(", "*", ")", "FROM", "pet"]},
  {"db_id": "pets", "query": "SELECT name FROM pet WHERE age > (SELECT avg(age) FROM pet) UNION SELECT name FROM owner", "question": "Names?"}
]`

func TestParseSpider(t *testing.T) {
	ex, err := ParseSpider("dev.json", []byte(spiderFixture))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 2 {
		t.Fatalf("got %d examples; want 2", len(ex))
	}
	e := ex[1]
	if e.ID != "1" || e.Index != 1 || e.DBID != "pets" || e.Question != "Names?" || e.Difficulty != HardnessExtra {
		t.Errorf("example 1 = %+v; want ID 1, db pets, difficulty extra", e)
	}
	if ex[0].Difficulty != HardnessEasy {
		t.Errorf("example 0 difficulty = %s; want easy", ex[0].Difficulty)
	}
	if _, ok := ex[0].Extra["query_toks"]; ok {
		t.Errorf("Extra = %v; want query_toks (derived from query) dropped", ex[0].Extra)
	}
	if ex[0].Extra != nil {
		t.Errorf("Extra = %v; want nil (no field of a Spider question is kept beyond the mapped ones)", ex[0].Extra)
	}
	if _, ok := ex[0].Extra["query"]; ok {
		t.Errorf("Extra holds a mapped field: %v", ex[0].Extra)
	}
}

func TestParseBIRD(t *testing.T) {
	data := `[{"question_id": 7, "db_id": "club", "question": "Q?", "evidence": "E", "SQL": "SELECT 1", "difficulty": "moderate", "note": 3},
	{"db_id": "club", "question": "R?", "SQL": "SELECT 2", "reasoning_type": ["arithmetic", "date"]}]`
	ex, err := ParseBIRD("dev.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want0 := Example{ID: "7", Index: 0, DBID: "club", Question: "Q?", Evidence: "E", GoldSQL: "SELECT 1", Difficulty: "moderate", Extra: map[string]any{"note": 3.0}}
	if !reflect.DeepEqual(ex[0], want0) {
		t.Errorf("example 0 = %+v; want %+v", ex[0], want0)
	}
	if ex[1].ID != "1" || !reflect.DeepEqual(ex[1].ReasoningTypes, []string{"arithmetic", "date"}) {
		t.Errorf("example 1 = %+v; want ID 1 (index, no question_id) and reasoning types [arithmetic date]", ex[1])
	}
	_, err = ParseBIRD("dev.json", []byte(`[{"question_id": 1, "db_id": "a", "question": "x", "SQL": "s"},
{"question_id": 1, "db_id": "a", "question": "y", "SQL": "s"}]`))
	if err == nil || !strings.Contains(err.Error(), "dev.json:2:") || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate ids: err = %v; want dev.json:2: ... duplicate", err)
	}
}

func TestParseArcher(t *testing.T) {
	data := `[{"db_id": "concert_singer", "query": "SELECT 1", "question": "q", "reasoning_type": "- + C", "commonsense_knowledge": "ages grow"},
	{"db_id": "world_1", "query": "SELECT 2", "question": "r", "reasoning_type": "* / H", "commonsense_knowledge": ""}]`
	ex, err := ParseArcher("dev.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := ex[0].ReasoningTypes; !reflect.DeepEqual(got, []string{ReasoningArithmetic, ReasoningCommonsense}) {
		t.Errorf("types 0 = %v; want [arithmetic commonsense]", got)
	}
	if got := ex[1].ReasoningTypes; !reflect.DeepEqual(got, []string{ReasoningArithmetic, ReasoningHypothetical}) {
		t.Errorf("types 1 = %v; want [arithmetic hypothetical]", got)
	}
	if ex[0].Evidence != "ages grow" || ex[0].Extra["reasoning_type"] != "- + C" || ex[1].ID != "1" {
		t.Errorf("example 0 = %+v; want evidence from commonsense_knowledge, raw reasoning_type in Extra", ex[0])
	}
	if _, err := ArcherReasoningTypes("+ X"); err == nil {
		t.Error("ArcherReasoningTypes(\"+ X\") = nil error; want unknown tag error")
	}
}

// TestMalformedErrorsNameFileLine checks that every parser places errors at
// file:line:col.
func TestMalformedErrorsNameFileLine(t *testing.T) {
	parsers := map[string]func(string, []byte) ([]Example, error){
		"spider": ParseSpider, "bird": ParseBIRD, "archer": ParseArcher,
	}
	tests := []struct {
		name, data string
		wantPos    string // "file:line:" prefix expected in the error
		wantText   string
	}{
		{"syntax error on line 3", "[\n{\"db_id\": \"a\"},\n{\"db_id\": \"b\",,}\n]", "in.json:3:", "invalid character"},
		{"wrong type on line 2", "[\n{\"db_id\": 5, \"question\": \"q\"}\n]", "in.json:2:", "db_id"},
		{"missing field on line 4", "[\n{\"db_id\": \"a\", \"query\": \"SELECT 1\", \"SQL\": \"SELECT 1\", \"question\": \"q\"},\n\n  {\"db_id\": \"a\"}\n]", "in.json:4:", "missing"},
		{"not an array", "{\"db_id\": \"a\"}", "in.json:1:", "array"},
		{"element not an object", "[\n\"x\"\n]", "in.json:2:", "object"},
		{"truncated", "[\n{\"db_id\": \"a\",\n", "in.json:", "unexpected end"},
		{"trailing garbage", "[]\n]", "in.json:2:", "trailing"},
	}
	for pname, parse := range parsers {
		for _, tt := range tests {
			t.Run(pname+"/"+tt.name, func(t *testing.T) {
				_, err := parse("in.json", []byte(tt.data))
				if err == nil {
					t.Fatal("err = nil; want an error")
				}
				if !strings.HasPrefix(err.Error(), tt.wantPos) || !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("err = %q; want prefix %q containing %q", err, tt.wantPos, tt.wantText)
				}
			})
		}
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {7, 4, 1}, {8, 4, 2}, {100, 4, 3}} {
		if l, c := lineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineCol(%d) = %d:%d; want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

// writeFixtureDB builds <root>/<id>/<id>.sqlite from a SQL script.
func writeFixtureDB(t *testing.T, root, id, script string) {
	t.Helper()
	if err := buildSQLite(filepath.Join(root, id, id+".sqlite"), id+".sql", []byte(script)); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSpiderMissingDBKept(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dev.json"), `[
 {"db_id": "here", "query": "SELECT count(*) FROM t", "question": "How many rows?"},
 {"db_id": "gone", "query": "SELECT 1", "question": "Gone?"},
 {"db_id": "here", "query": "SELECT max(a) FROM t", "question": "Max?"}]`)
	writeFixtureDB(t, filepath.Join(dir, "database"), "here", "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1),(2);")
	b, err := Open("spider", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	if b.Name != "spider" || b.Mode != "spider" || len(b.Examples) != 3 {
		t.Fatalf("benchmark %s/%s with %d examples; want spider/spider with 3", b.Name, b.Mode, len(b.Examples))
	}
	if got := b.MissingDBs(); !reflect.DeepEqual(got, []string{"gone"}) {
		t.Errorf("MissingDBs = %v; want [gone]", got)
	}
	ctx := context.Background()
	if _, err := b.Engine.Open(ctx, "gone"); !errors.Is(err, ErrMissingDB) {
		t.Errorf("Open(gone) err = %v; want ErrMissingDB", err)
	}
	db, err := b.Engine.Open(ctx, "here")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := db.Execute(ctx, b.Examples[0].GoldSQL)
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(2) {
		t.Errorf("gold 0 = %v, %v; want [[2]]", rs, err)
	}
	lim, err := Open("spider", dir, LoadOptions{Limit: 2})
	if err != nil || len(lim.Examples) != 2 {
		t.Errorf("Limit 2: %v examples, err %v; want 2", len(lim.Examples), err)
	}
}

func TestOpenDispatch(t *testing.T) {
	dir := t.TempDir()
	item := `{"db_id": "d", "query": "SELECT 1", "question": "q", "reasoning_type": "+", "commonsense_knowledge": ""}`
	for _, p := range []string{"archer/en/dev.json", "archer/zh/dev.json", "archer/en/train.json"} {
		writeFile(t, filepath.Join(dir, p), "["+item+"]")
	}
	bird := `[{"question_id": 3, "db_id": "d", "question": "q", "evidence": "", "SQL": "SELECT 1", "difficulty": "simple"}]`
	writeFile(t, filepath.Join(dir, "bird/dev/dev.json"), bird)
	writeFile(t, filepath.Join(dir, "bird/mini_dev/mini_dev_sqlite.json"), bird)
	writeFixtureDB(t, filepath.Join(dir, "spider", "database"), "d", "CREATE TABLE t(a);")
	tests := []struct {
		name, sub           string
		wantName, wantSplit string
		wantMode            string
		wantMissing         int
	}{
		{"archer", "archer", "archer", "dev", "archer", 0},
		{"archer-zh", "archer", "archer", "zh-dev", "archer", 0},
		{"archer-train", "archer", "archer", "train", "archer", 0},
		{"bird", "bird", "bird", "dev", "bird", 1},
		{"bird-minidev", "bird", "bird-minidev", "minidev", "bird-minidev", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Open(tt.name, filepath.Join(dir, tt.sub), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Engine.Close()
			if b.Name != tt.wantName || b.Split != tt.wantSplit || b.Mode != tt.wantMode {
				t.Errorf("got %s/%s mode %s; want %s/%s mode %s", b.Name, b.Split, b.Mode, tt.wantName, tt.wantSplit, tt.wantMode)
			}
			if n := len(b.MissingDBs()); n != tt.wantMissing {
				t.Errorf("MissingDBs = %v; want %d missing", b.MissingDBs(), tt.wantMissing)
			}
		})
	}
	for _, bad := range []string{"nope", "archer-fr", "archer-test"} {
		if _, err := Open(bad, dir, LoadOptions{}); err == nil {
			t.Errorf("Open(%q) = nil error; want error", bad)
		}
	}
	if _, err := LoadBIRD(dir, "test", LoadOptions{}); err == nil {
		t.Error("LoadBIRD split test = nil error; want unknown split")
	}
}

func TestBIRDColumnDescriptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "database_description", "Member.csv"),
		"\xef\xbb\xbforiginal_column_name,column_name,column_description,data_format,value_description\n"+
			"member_id,member id,unique id of member,text,\n"+
			"t_shirt_size,t-shirt size,\"The size of tee shirt, if any\",text,\"Small, Medium\"\n")
	writeFile(t, filepath.Join(dir, "database_description", "event.csv"),
		"original_column_name,column_name,column_description\nloc,location,caf\xe9 name\n")
	got, err := BIRDColumnDescriptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"member": {"member_id": "unique id of member", "t_shirt_size": "The size of tee shirt, if any | Small, Medium"},
		"event":  {"loc": "café name"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("descriptions = %v; want %v", got, want)
	}
}

// TestMini checks the bundled mini benchmark: every gold executes and
// returns a non-empty result with a non-NULL value, questions are distinct,
// the cache is reused and testdata is never written.
func TestMini(t *testing.T) {
	cache := t.TempDir()
	b, err := Open("mini", "", LoadOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	if b.Name != "mini" || b.Mode != "bird" || len(b.Examples) < 40 {
		t.Fatalf("mini: %s mode %s, %d examples; want mini, bird, >= 40", b.Name, b.Mode, len(b.Examples))
	}
	if m := b.MissingDBs(); len(m) != 0 {
		t.Errorf("MissingDBs = %v; want none", m)
	}
	seen := map[string]bool{}
	diffs := map[string]int{}
	ctx := context.Background()
	for _, e := range b.Examples {
		q := strings.ToLower(e.Question)
		if seen[q] {
			t.Errorf("question %s duplicated: %q", e.ID, e.Question)
		}
		seen[q] = true
		diffs[e.Difficulty]++
		if len(e.ReasoningTypes) == 0 {
			t.Errorf("question %s has no reasoning_type", e.ID)
		}
		db, err := b.Engine.Open(ctx, e.DBID)
		if err != nil {
			t.Fatalf("question %s: %v", e.ID, err)
		}
		rs, err := db.Execute(ctx, e.GoldSQL)
		if err != nil {
			t.Errorf("question %s gold fails: %v", e.ID, err)
			continue
		}
		nonNull := false
		for _, r := range rs.Rows {
			for _, v := range r {
				nonNull = nonNull || v != nil
			}
		}
		if len(rs.Rows) == 0 || !nonNull {
			t.Errorf("question %s gold returns %d rows, non-null %v; want a non-empty, non-all-NULL result", e.ID, len(rs.Rows), nonNull)
		}
	}
	// The sim model finds a question by searching the prompt for its text,
	// so no question may occur inside another.
	for _, a := range b.Examples {
		for _, c := range b.Examples {
			if a.ID != c.ID && strings.Contains(strings.ToLower(c.Question), strings.ToLower(a.Question)) {
				t.Errorf("question %s occurs inside question %s", a.ID, c.ID)
			}
		}
	}
	for _, d := range []string{"simple", "moderate", "challenging"} {
		if diffs[d] == 0 {
			t.Errorf("no %s question; difficulties %v", d, diffs)
		}
	}
	// A second load reuses the built files.
	built, _ := filepath.Glob(filepath.Join(cache, "*", "*", "*.sqlite"))
	if len(built) != 3 {
		t.Fatalf("built files = %v; want 3", built)
	}
	st0, _ := os.Stat(built[0])
	b2, err := LoadMini("", LoadOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	b2.Engine.Close()
	st1, _ := os.Stat(built[0])
	if !st0.ModTime().Equal(st1.ModTime()) {
		t.Error("second LoadMini rebuilt an unchanged database")
	}
	// Nothing was written into testdata.
	dir, err := BundledMiniDir()
	if err != nil {
		t.Fatal(err)
	}
	var stray []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".sql") && !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".md") {
			stray = append(stray, p)
		}
		return nil
	})
	if len(stray) > 0 {
		t.Errorf("files written into testdata/mini: %v", stray)
	}
}

func TestMiniRebuildsOnScriptChange(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "questions.json"), `[{"question_id": 0, "db_id": "tiny", "question": "How many tiny rows?", "evidence": "", "SQL": "SELECT count(*) FROM t", "difficulty": "simple"}]`)
	script := filepath.Join(dir, "databases", "tiny.sql")
	writeFile(t, script, "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
	cache := t.TempDir()
	count := func() int64 {
		t.Helper()
		b, err := LoadMini(dir, LoadOptions{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Engine.Close()
		db, err := b.Engine.Open(context.Background(), "tiny")
		if err != nil {
			t.Fatal(err)
		}
		rs, err := db.Execute(context.Background(), b.Examples[0].GoldSQL)
		if err != nil {
			t.Fatal(err)
		}
		return rs.Rows[0][0].(int64)
	}
	if n := count(); n != 1 {
		t.Fatalf("count = %d; want 1", n)
	}
	writeFile(t, script, "CREATE TABLE t(a); INSERT INTO t VALUES (1),(2),(3);")
	if n := count(); n != 3 {
		t.Errorf("after editing the script count = %d; want 3 (rebuilt)", n)
	}
	writeFile(t, script, "CREATE TABLE t(a); INSERT INTO nowhere VALUES (1);")
	_, err := LoadMini(dir, LoadOptions{CacheDir: cache})
	if err == nil || !strings.Contains(err.Error(), "tiny.sql") {
		t.Errorf("broken script: err = %v; want an error naming tiny.sql", err)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "*", "tiny", "*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestMiniQuestionsReloadOnChange loads a mini directory twice, edits its
// questions.json (the same size) and loads it again: the loads give their
// own examples, equal while the file is, and the edited question after it.
func TestMiniQuestionsReloadOnChange(t *testing.T) {
	dir := t.TempDir()
	questions := func(q string) string {
		return `[{"question_id": 0, "db_id": "tiny", "question": "` + q + `", "evidence": "", "SQL": "SELECT count(*) FROM t", "difficulty": "simple", "reasoning_type": "count"}]`
	}
	writeFile(t, filepath.Join(dir, "questions.json"), questions("How many tiny rows?"))
	writeFile(t, filepath.Join(dir, "databases", "tiny.sql"), "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
	cache := t.TempDir()
	load := func() []Example {
		t.Helper()
		b, err := LoadMini(dir, LoadOptions{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		b.Engine.Close()
		return b.Examples
	}
	first, second := load(), load()
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("second load of the same file: %+v; want %+v", second, first)
	}
	first[0].Question = "changed by the first load's caller"
	if second[0].Question != "How many tiny rows?" {
		t.Errorf("a change to the first load's examples reached the second's: %q", second[0].Question)
	}
	writeFile(t, filepath.Join(dir, "questions.json"), questions("How many small rows?"))
	if got := load()[0].Question; got != "How many small rows?" {
		t.Errorf("after editing questions.json the question is %q; want the edited one", got)
	}
}

// Integration tests over the shared benchmark data (skipped when absent).

func checkCounts(t *testing.T, b *Benchmark, total, withDB int) {
	t.Helper()
	defer b.Engine.Close()
	if len(b.Examples) != total {
		t.Errorf("%s: %d examples; want %d", b.Name, len(b.Examples), total)
	}
	missing := map[string]bool{}
	for _, id := range b.MissingDBs() {
		missing[id] = true
	}
	n := 0
	for _, e := range b.Examples {
		if !missing[e.DBID] {
			n++
		}
	}
	if n != withDB {
		t.Errorf("%s: %d examples with a database; want %d (missing %v)", b.Name, n, withDB, b.MissingDBs())
	}
}

func TestSharedSpider(t *testing.T) {
	dir := testenv.Datasets(t, "spider")
	b, err := LoadSpider(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, b, 1034, 972)
	if got := b.MissingDBs(); !reflect.DeepEqual(got, []string{"wta_1"}) {
		t.Errorf("MissingDBs = %v; want [wta_1]", got)
	}
	// Official distribution (test-suite-sql-eval on Spider dev): easy 248,
	// medium 446, hard 174, extra 166; exact, no tolerance.
	// The loader counts hardness from the SQL text; the parse trees of
	// dev.json (process_sql's, as evaluation.py counts) must agree.
	raw, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var trees []struct {
		SQL json.RawMessage `json:"sql"`
	}
	if err := json.Unmarshal(raw, &trees); err != nil || len(trees) != len(b.Examples) {
		t.Fatalf("dev.json parse trees: %d, %v; want %d", len(trees), err, len(b.Examples))
	}
	dist := map[string]int{}
	textAgree := 0
	for i, e := range b.Examples {
		dist[e.Difficulty]++
		if l, err := SpiderLevel(e.GoldSQL, trees[i].SQL); err == nil && l == e.Difficulty {
			textAgree++
		}
	}
	want := map[string]int{"easy": 248, "medium": 446, "hard": 174, "extra": 166}
	if !reflect.DeepEqual(dist, want) {
		t.Errorf("hardness distribution = %v; want %v", dist, want)
	}
	// The text scanner (the loader's levels) must agree with the parse
	// trees on every question.
	if textAgree != len(b.Examples) {
		t.Errorf("text hardness agrees on %d/%d; want all", textAgree, len(b.Examples))
	}
	t.Logf("spider dev hardness %v; text scanner agrees on %d/%d", dist, textAgree, len(b.Examples))
	if _, ok := b.Examples[0].Extra["sql"]; ok {
		t.Error("Extra holds the parse tree; want it dropped (scoring does not use it)")
	}
	ctx := context.Background()
	db, err := b.Engine.Open(ctx, b.Examples[0].DBID)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := db.Execute(ctx, b.Examples[0].GoldSQL); err != nil || len(rs.Rows) != 1 {
		t.Errorf("gold 0: %v, %v; want one row", rs, err)
	}
}

func TestSharedBIRD(t *testing.T) {
	dir := testenv.Datasets(t, "bird")
	b, err := LoadBIRD(dir, "dev", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, b, 1534, 432)
	if b.Examples[1533].ID != "1533" || b.Examples[0].Evidence == "" || b.Examples[0].Difficulty != "simple" {
		t.Errorf("bird dev: last id %s, first evidence %q difficulty %q", b.Examples[1533].ID, b.Examples[0].Evidence, b.Examples[0].Difficulty)
	}
	m, err := LoadBIRD(dir, "minidev", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "bird-minidev" || m.Examples[0].ID != "1471" {
		t.Errorf("minidev: name %s, first id %s; want bird-minidev, 1471", m.Name, m.Examples[0].ID)
	}
	checkCounts(t, m, 500, 140)
	old, err := LoadBIRD(dir, "dev-2023-05", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, old, 1534, 432)
	desc, err := BIRDColumnDescriptions(filepath.Join(dir, "dev_databases", "student_club"))
	if err != nil {
		t.Fatal(err)
	}
	if len(desc) == 0 || len(desc["member"]) == 0 {
		t.Errorf("student_club descriptions: %d tables, member %v", len(desc), desc["member"])
	}
}

func TestSharedArcher(t *testing.T) {
	dir := testenv.Datasets(t, "archer")
	for _, lang := range []string{"en", "zh"} {
		b, err := LoadArcher(dir, lang, "dev", LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCounts(t, b, 104, 104)
	}
	tr, err := LoadArcher(dir, "en", "train", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Examples) != 414 {
		t.Errorf("archer train: %d examples; want 414", len(tr.Examples))
	}
	tr.Engine.Close()
	types := map[string]int{}
	b, _ := Open("archer", dir, LoadOptions{})
	defer b.Engine.Close()
	for _, e := range b.Examples {
		for _, r := range e.ReasoningTypes {
			types[r]++
		}
	}
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{ReasoningArithmetic, ReasoningCommonsense, ReasoningHypothetical}) {
		t.Errorf("reasoning types = %v; want all three classes", types)
	}
	t.Logf("archer dev reasoning types: %v", types)
}

var posRE = regexp.MustCompile(`^[^:]+:\d+:\d+: `)

// checkParseError is shared by the fuzz targets: a parse either succeeds
// or names file:line:col.
func checkParseError(t *testing.T, err error) {
	t.Helper()
	if err != nil && !posRE.MatchString(err.Error()) {
		t.Fatalf("error without file:line:col: %v", err)
	}
}

// TestLoadSpiderStreamAgreesWithParse checks LoadSpider's streaming path
// against ParseSpider on the same files: equal examples for a good file,
// ParseSpider's positioned error for a bad one, and the parse tree's
// hardness for a query the text scanner cannot read.
func TestLoadSpiderStreamAgreesWithParse(t *testing.T) {
	tests := []struct {
		name, data string
		wantErr    string
		wantLevels []string
	}{
		{"good", spiderFixture, "", []string{HardnessEasy, HardnessExtra}},
		{"syntax error on line 3", "[\n{\"db_id\": \"a\", \"query\": \"SELECT 1\", \"question\": \"q\"},\n{\"db_id\": \"b\",,}\n]", "dev.json:3:", nil},
		{"missing field on line 2", "[\n{\"db_id\": \"a\", \"query\": \"SELECT 1\"}\n]", "dev.json:2:", nil},
		// Unbalanced parentheses: the text scanner fails, the parse tree
		// (one table, no clause) says easy.
		{"parse tree fallback", `[{"db_id": "a", "query": "SELECT count(* FROM t", "question": "q", "sql": {"from": {"table_units": [["table_unit", 0]], "conds": []}, "select": [false, [[3, [0, [0, 0, false], null]]]], "where": [], "groupBy": [], "having": [], "orderBy": [], "limit": null, "intersect": null, "union": null, "except": null}}]`, "", []string{HardnessEasy}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "dev.json")
			writeFile(t, file, tt.data)
			b, err := LoadSpider(dir, LoadOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want one placed at %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Engine.Close()
			want, err := ParseSpider(file, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b.Examples, want) {
				t.Errorf("LoadSpider examples = %+v; want ParseSpider's %+v", b.Examples, want)
			}
			var levels []string
			for _, e := range b.Examples {
				levels = append(levels, e.Difficulty)
			}
			if !reflect.DeepEqual(levels, tt.wantLevels) {
				t.Errorf("levels = %v; want %v", levels, tt.wantLevels)
			}
		})
	}
}
