package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
)

// writeSuiteSpider writes a Spider-layout directory whose database "shop"
// has three test-suite files, and a prediction file (sql-lines) for its two
// questions: the first prediction hard-codes the answer of shop.sqlite
// (right there, wrong on shop_1.sqlite), the second is equivalent to the
// gold on every file.
func writeSuiteSpider(t *testing.T) (dir, pred string) {
	t.Helper()
	dir = t.TempDir()
	dbDir := filepath.Join(dir, "database", "shop")
	for name, rows := range map[string]string{
		"shop":   "(1,'Ann',25),(2,'Bob',35),(3,'Cid',45)",
		"shop_1": "(1,'Ann',40),(2,'Bob',20)",
		"shop_2": "(1,'Eve',33),(2,'Bob',29),(3,'Cid',50),(4,'Fay',22)",
	} {
		testkit.SQLiteAt(t, filepath.Join(dbDir, name+".sqlite"), "CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER); INSERT INTO singer VALUES "+rows)
	}
	dev := `[{"db_id": "shop", "query": "SELECT name FROM singer WHERE age > 30", "question": "Who is over 30?"},
 {"db_id": "shop", "query": "SELECT count(*) FROM singer", "question": "How many singers?"}]`
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte(dev), 0o644); err != nil {
		t.Fatal(err)
	}
	pred = filepath.Join(t.TempDir(), "pred.sql")
	lines := "SELECT name FROM singer WHERE name IN ('Bob', 'Cid')\tshop\nSELECT count(id) FROM singer\tshop\n"
	if err := os.WriteFile(pred, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, pred
}

func TestEvalTestSuite(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, pred := writeSuiteSpider(t)
	for _, c := range []struct {
		args    []string
		correct int
	}{
		{nil, 2},
		{[]string{"--test-suite"}, 1},
		{[]string{"--test-suite", "--mode", "spider-keep-distinct"}, 1},
	} {
		args := append([]string{"--benchmark", "spider", "--data", dir, "--pred", pred, "--json", "--quiet", "--cache-dir", "off"}, c.args...)
		stdout, _, err := runEvalCLI(t, args...)
		if err != nil {
			t.Fatalf("eval %q: %v", c.args, err)
		}
		var rep evalReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Overall.Total != 2 || rep.Overall.Correct != c.correct || rep.TestSuite != (len(c.args) > 0) {
			t.Errorf("eval %q: %+v test_suite %v; want 2 scored, %d correct", c.args, rep.Overall, rep.TestSuite, c.correct)
		}
	}
	stdout, _, err := runEvalCLI(t, "--benchmark", "spider", "--data", dir, "--gold-as-pred", "--test-suite", "--quiet", "--cache-dir", "off")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mode spider (test suite)", "status: ok 2 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("gold-as-pred --test-suite output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, "all               2        2  100.00%") {
		t.Errorf("gold-as-pred --test-suite is not 2 of 2 correct:\n%s", stdout)
	}
}

func TestEvalTestSuiteUsage(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, _ := writeSuiteSpider(t)
	for _, args := range [][]string{
		{"--benchmark", "mini", "--gold-as-pred", "--test-suite"},
		{"--benchmark", "spider", "--data", dir, "--gold-as-pred", "--test-suite", "--mode", "bird"},
	} {
		_, _, err := runEvalCLI(t, append(args, "--quiet", "--cache-dir", "off")...)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--test-suite") {
			t.Errorf("eval %q: error %v; want a usage error naming --test-suite", args, err)
		}
	}
}
