package retrieval

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners/llm"
)

const fixtureSQL = `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country VARCHAR(20), age INT);
CREATE TABLE code (code TEXT PRIMARY KEY, label TEXT);
INSERT INTO singer VALUES (1,'Joe Sharp','Netherlands',52),(2,'Timbaland','United States',32),
 (3,'Justin Brown','France',29),(4,'Rose White','France',41),(5,'John Nizinik','United Kingdom',43),(6,NULL,'  ',20);
INSERT INTO code VALUES ('FRA-PARIS','Capital city of France'),('NLD','Netherlands main');
`

// fixtureDB builds the fixture in t.TempDir() and opens it read-only.
func fixtureDB(t testing.TB, opt datasets.SQLiteOptions) datasets.Database {
	t.Helper()
	return runkit.DBWith(t, "f", opt, fixtureSQL)
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		// Levenshtein(kitten, sitting) = 3 (textbook), max len 7.
		{"edit kitten/sitting", EditSimilarity("kitten", "sitting"), 1 - 3.0/7},
		{"edit case-insensitive", EditSimilarity("France", "FRANCE"), 1},
		{"edit empty", EditSimilarity("", ""), 1},
		{"edit disjoint", EditSimilarity("abc", "xyz"), 0},
		// {singer, id} vs {singer, name}: 1 shared of 3.
		{"token jaccard", TokenJaccard("Singer_ID", "singer name"), 1.0 / 3},
		{"jaccard empty", Jaccard(nil, nil), 0},
		{"jaccard dup tokens", Jaccard([]string{"a", "a", "b"}, []string{"b"}), 0.5},
		{"cosine parallel", Cosine([]float32{1, 2}, []float32{2, 4}), 1},
		{"cosine orthogonal", Cosine([]float32{1, 0}, []float32{0, 3}), 0},
		{"cosine length mismatch", Cosine([]float32{1}, []float32{1, 0}), 0},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %v; want %v", tt.name, tt.got, tt.want)
		}
	}
	if got := CharNGrams("abcab", 3); !reflect.DeepEqual(got, []string{"abc", "bca", "cab"}) {
		t.Errorf("CharNGrams = %v", got)
	}
	if got := CharNGrams("ab", 3); !reflect.DeepEqual(got, []string{"ab"}) {
		t.Errorf("short CharNGrams = %v; want [ab]", got)
	}
}

func TestOptimalBands(t *testing.T) {
	// datasketch MinHashLSH(threshold=0.5, num_perm=128) picks b=25, r=5
	// (its _optimal_param; recomputed here with Simpson's rule in Python).
	if b, r := OptimalBands(0.5, 128); b != 25 || r != 5 {
		t.Errorf("OptimalBands(0.5, 128) = %d, %d; want 25, 5", b, r)
	}
}

func TestMinHashEstimate(t *testing.T) {
	// A = 0..149, B = 100..249: |A∩B| = 50, |A∪B| = 250, J = 0.2. The
	// estimate's standard error with 128 permutations is
	// sqrt(0.2*0.8/128) = 0.035; we allow 3 standard errors.
	var a, b []string
	for i := 0; i < 150; i++ {
		a = append(a, fmt.Sprint(i))
		b = append(b, fmt.Sprint(i+100))
	}
	m := NewMinHasher(128, 1)
	if got := EstimateJaccard(m.Signature(a), m.Signature(b)); math.Abs(got-0.2) > 0.106 {
		t.Errorf("estimate = %v; want 0.2 ± 0.106", got)
	}
	if got := EstimateJaccard(m.Signature(a), m.Signature(a)); got != 1 {
		t.Errorf("self estimate = %v; want 1", got)
	}
	// mulmod61 against big-number arithmetic done by hand:
	// (2^60) * 4 = 2^62 = 2 mod (2^61-1).
	if got := mulmod61(1<<60, 4); got != 2 {
		t.Errorf("mulmod61(2^60, 4) = %d; want 2", got)
	}
}

func TestBuildAndQuery(t *testing.T) {
	ctx := context.Background()
	// A row cap of 2 forces paging through distinct values.
	db := fixtureDB(t, datasets.SQLiteOptions{MaxRows: 2})
	ix, err := Build(ctx, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, v := range ix.Values {
		got[v.Table+"."+v.Column]++
	}
	// singer.name: 5 non-null; singer.country: 4 distinct non-blank;
	// code.label: 2; code.code is the primary key (excluded); ints excluded.
	want := map[string]int{"singer.name": 5, "singer.country": 4, "code.label": 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("indexed values per column = %v; want %v", got, want)
	}
	// "Netherland" shares 8 of the 9 3-grams of "Netherlands" (J = 8/9),
	// and 3 of the 14 of "Netherlands main" (J = 3/14, under 0.5).
	ms := ix.Query("Netherland", 0)
	if len(ms) == 0 || ms[0].Value.Value != "Netherlands" || ms[0].Column != "country" {
		t.Fatalf("Query(Netherland) = %+v; want Netherlands first", ms)
	}
	if ms[0].Edit != 1-1.0/11 {
		t.Errorf("edit similarity = %v; want 10/11", ms[0].Edit)
	}
	if len(ix.Query("zzzzqqq", 0)) != 0 {
		t.Error("an unrelated keyword should find no candidate")
	}
}

func TestOpenCaches(t *testing.T) {
	ctx := context.Background()
	db := fixtureDB(t, datasets.SQLiteOptions{})
	dir := t.TempDir()
	a, built, err := Open(ctx, db, dir, Options{})
	if err != nil || !built {
		t.Fatalf("first Open: built=%v err=%v; want a fresh build", built, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gob"))
	if len(files) != 1 {
		t.Fatalf("cache files = %v; want one", files)
	}
	b, built, err := Open(ctx, db, dir, Options{})
	if err != nil || built {
		t.Fatalf("second Open: built=%v err=%v; want a cache hit", built, err)
	}
	if !reflect.DeepEqual(a.Query("Netherland", 5), b.Query("Netherland", 5)) {
		t.Error("cached index answers differently")
	}
	// A corrupt cache file is rebuilt, not trusted.
	if err := os.WriteFile(files[0], []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, built, err := Open(ctx, db, dir, Options{}); err != nil || !built {
		t.Errorf("corrupt cache: built=%v err=%v; want a rebuild", built, err)
	}
}

type fakeEmbedder struct{ calls int }

// Embed maps a text to a vector by its first letter, so that texts with
// the same first letter have cosine 1 and others 0.
func (f *fakeEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, llm.Usage, error) {
	f.calls++
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 26)
		if len(s) > 0 && s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z' {
			v[s[0]|0x20-'a'] = 1
		}
		out[i] = v
	}
	return out, llm.Usage{PromptTokens: len(texts)}, nil
}

func TestRetrieve(t *testing.T) {
	ctx := context.Background()
	ix, err := Build(ctx, fixtureDB(t, datasets.SQLiteOptions{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Retriever{Index: ix}
	res, err := r.Retrieve(ctx, []string{"France", "Rose Whit", ""})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "lexical" {
		t.Errorf("mode = %q; want lexical", res.Mode)
	}
	if got := res.ByColumn["singer.country"]; len(got) == 0 || got[0] != "France" {
		t.Errorf("singer.country = %v; want France first", got)
	}
	if got := res.ByColumn["singer.name"]; len(got) == 0 || got[0] != "Rose White" {
		t.Errorf("singer.name = %v; want Rose White", got)
	}
	for _, m := range res.Matches {
		if m.Edit < DefaultEditMin {
			t.Errorf("kept %+v below the edit threshold", m)
		}
	}
	// With an embedder, "Rose Whit" (r) keeps "Rose White" (r) and
	// "Xfrance" (x) loses "France" (f).
	f := &fakeEmbedder{}
	r = &Retriever{Index: ix, Embedder: f}
	res, err = r.Retrieve(ctx, []string{"Rose Whit", "Xfrance"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "lexical+embedding" || f.calls != 1 {
		t.Errorf("mode = %q, embed calls = %d; want lexical+embedding, 1", res.Mode, f.calls)
	}
	if _, ok := res.ByColumn["singer.country"]; ok {
		t.Errorf("France (f) should fail the embedding filter for 'Xfrance' (x): %v", res.ByColumn)
	}
	if got := res.ByColumn["singer.name"]; len(got) != 1 || got[0] != "Rose White" {
		t.Errorf("singer.name = %v; want [Rose White]", got)
	}
}
