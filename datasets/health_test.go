package datasets_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

func TestDuplicateQuestions(t *testing.T) {
	b := &datasets.Benchmark{Examples: []datasets.Example{
		{ID: "0", DBID: "a", Question: "How many singers?", GoldSQL: "SELECT count(*) FROM singer"},
		{ID: "1", DBID: "b", Question: "How many singers?", GoldSQL: "SELECT count(*) FROM singer"},    // another db
		{ID: "2", DBID: "a", Question: "how  many singers? ", GoldSQL: "SELECT count(*)  FROM singer"}, // same
		{ID: "3", DBID: "a", Question: "How many singers?", GoldSQL: "SELECT count(id) FROM singer"},   // other gold
	}}
	got := datasets.DuplicateQuestions(b)
	want := []datasets.Duplicate{{ID: "2", FirstID: "0", SameGold: true}, {ID: "3", FirstID: "0", SameGold: false}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("DuplicateQuestions = %+v; want %+v", got, want)
	}
}

func TestGoldChanges(t *testing.T) {
	old := &datasets.Benchmark{Examples: []datasets.Example{
		{ID: "0", Question: "q0", GoldSQL: "SELECT a FROM t"},
		{ID: "1", Question: "q1", GoldSQL: "SELECT b FROM t"},
		{ID: "2", Question: "q2", GoldSQL: "SELECT c FROM t"},
	}}
	cur := &datasets.Benchmark{Examples: []datasets.Example{
		{ID: "0", Question: "q0", GoldSQL: "SELECT a\n  FROM t"}, // white space only
		{ID: "1", Question: "q1 reworded", GoldSQL: "SELECT b FROM u"},
		{ID: "9", Question: "new", GoldSQL: "SELECT 1"},
	}}
	changes, matched := datasets.GoldChanges(old, cur)
	if matched != 2 || len(changes) != 1 || changes[0].ID != "1" || !changes[0].QuestionChanged || changes[0].Old != "SELECT b FROM t" {
		t.Errorf("GoldChanges = %+v, %d matched; want question 1 changed (question too), 2 matched", changes, matched)
	}
}

func TestVerifyChecksums(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	fam, files, err := datasets.VerifyChecksums("spider", dir)
	if err != nil || fam != "spider" || datasets.Release[fam] == "" {
		t.Fatalf("VerifyChecksums = %q, %v; want family spider with a release", fam, err)
	}
	n := map[string]int{}
	for _, f := range files {
		n[f.Status]++
		if f.Path == "dev.json" && (f.Status != "mismatch" || f.Got != "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945") {
			// sha256("[]"), from `printf '[]' | sha256sum`.
			t.Errorf("dev.json check = %+v; want a mismatch with the sum of \"[]\"", f)
		}
	}
	if n["mismatch"] != 1 || n["absent"] != len(files)-1 {
		t.Errorf("statuses %v over %d files; want 1 mismatch, the rest absent", n, len(files))
	}
	if fam, files, err := datasets.VerifyChecksums("mini", dir); fam != "" || len(files) != 0 || err != nil {
		t.Errorf("mini: %q %v %v; want no family", fam, files, err)
	}
	for name, want := range map[string]string{"bird-dev": "bird", "archer-zh-train": "archer", "logiccat-mini500": "logiccat", "logiccat-sqlite-full-gold": "logiccat-sqlite"} {
		if got := datasets.ChecksumFamily(name); got != want {
			t.Errorf("ChecksumFamily(%q) = %q; want %q", name, got, want)
		}
	}
}

// TestVerifyChecksumsShared checks the recorded sums against the shared
// data: every file matches except Spider's wta_1.sqlite, which is absent
// there (shared/datasets/spider/SOURCE.md).
func TestVerifyChecksumsShared(t *testing.T) {
	for _, c := range []struct{ name, sub string }{
		{"spider", "spider"}, {"bird", "bird"}, {"bird-minidev", "bird"}, {"bird-dev-2023-05", "bird"},
		{"archer", "archer"}, {"logiccat", "logiccat"}, {"logiccat-sqlite", "logiccat"},
	} {
		dir := testenv.Datasets(t, c.sub)
		_, files, err := datasets.VerifyChecksums(c.name, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			want := "ok"
			if f.Path == "database/wta_1/wta_1.sqlite" {
				want = "absent"
			}
			if f.Status != want {
				t.Errorf("%s: %s is %s; want %s", c.name, f.Path, f.Status, want)
			}
		}
	}
}

func TestPicksFromGroup(t *testing.T) {
	f := setupMySQL(t)
	eng, err := datasets.NewMySQLEngine(f.ro)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	h, err := eng.Open(ctx, "printer")
	if err != nil {
		t.Fatal(err)
	}
	g, ok := h.(datasets.GroupByChecker)
	if !ok {
		t.Fatal("MySQL database is not a GroupByChecker")
	}
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT Name, count(*) FROM manufacturers GROUP BY Founded_Year", true},
		{"SELECT Name, count(*) FROM manufacturers", true}, // error 1140: aggregate beside a plain column
		{"SELECT Founded_Year, count(*) FROM manufacturers GROUP BY Founded_Year", false},
	} {
		got, err := g.PicksFromGroup(ctx, c.sql)
		if err != nil || got != c.want {
			t.Errorf("PicksFromGroup(%q) = %v, %v; want %v", c.sql, got, err, c.want)
		}
	}
	// The check leaves the session's sql_mode alone: the same query still
	// runs through Execute.
	if _, err := h.Execute(ctx, "SELECT Name, count(*) FROM manufacturers GROUP BY Founded_Year"); err != nil {
		t.Errorf("Execute after the check: %v", err)
	}
}
