package examplerunner_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"

	// The registration lines of the guides: what cmd/t2sbench/runners.go
	// would hold for a runner, and for a benchmark outside package
	// datasets.
	_ "github.com/t2sbench/t2sbench/internal/examplebench"
	_ "github.com/t2sbench/t2sbench/internal/examplerunner"
	"github.com/t2sbench/t2sbench/runstore"
)

// shopSQL builds the example benchmark's one database.
const shopSQL = `
CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL);
INSERT INTO item VALUES (1, 'pen', 'office', 1.5), (2, 'desk', 'furniture', 120), (3, 'lamp', 'furniture', 35),
  (4, 'stapler', 'office', 8), (5, 'chair', 'furniture', 60);`

// questions are the example benchmark's questions.jsonl.
var questions = []string{
	`{"id": "q1", "db_id": "shop", "question": "How many items are there?", "sql": "SELECT count(*) FROM item"}`,
	`{"id": "q2", "db_id": "shop", "question": "List the names of the items in category 'office'.", "sql": "SELECT name FROM item WHERE category = 'office'"}`,
	`{"id": "q3", "db_id": "shop", "question": "What is the highest price of an item?", "sql": "SELECT max(price) FROM item"}`,
	`{"id": "q4", "db_id": "shop", "question": "List the categories of the items priced over 10.", "sql": "SELECT category FROM item WHERE price > 10"}`,
}

// exampleData writes the example benchmark's data directory.
func exampleData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite3", filepath.Join(dir, "shop.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(shopSQL); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(strings.Join(questions, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExampleEndToEnd runs a spec with the example runner on the example
// benchmark through the bench API (plan, scheduler, store, scorer) with
// the sim model, and checks that both were taken from their registrations
// alone: the run scores every question with the benchmark's own rule, and
// the runner's Meter accounting reaches the store.
func TestExampleEndToEnd(t *testing.T) {
	data := exampleData(t)
	spec := fmt.Sprintf(`name: example
benchmarks: [{name: example, data: %q}]
models: {s: {backend: sim, p: 1, seed: 3}}
roles: {reason: s}
runners: [{name: example}]
`, data)
	p := benchkit.Plan(t, benchkit.Spec(t, spec, "example.yaml"))
	dir := t.TempDir()
	sum, err := benchkit.Run(t, dir, p, bench.Options{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != len(questions) || sum.Failed != 0 {
		t.Errorf("done %d, failed %d; want %d done, none failed", sum.Done, sum.Failed, len(questions))
	}
	// sim answers a final-SQL request with the gold with P(right) = p
	// times penalties for schema and values the prompt lacks (sim/doc.go,
	// The behaviour model): 1 here, p being 1, the prompt showing the
	// whole schema and the questions quoting their literals. Every
	// question is then right under any rule that holds a result equal to
	// itself.
	if sum.Correct != len(questions) {
		t.Errorf("correct %d; want %d", sum.Correct, len(questions))
	}
	_, trials, err := runstore.SummarizeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 || trials[0].Attempted != len(questions) || trials[0].EX != 1 {
		t.Errorf("summary %+v; want one trial, EX 1 over %d attempted", trials, len(questions))
	}
	if len(run.Trials) != 1 {
		t.Fatalf("run has %d trials; want 1", len(run.Trials))
	}
	items := run.Trials[0].Items
	if len(items) != len(questions) {
		t.Fatalf("store holds %d items; want %d", len(items), len(questions))
	}
	for _, it := range items {
		if it.Verdict == nil || it.Verdict.Status != metrics.StatusOK || !it.Verdict.Correct {
			t.Errorf("%s: verdict %+v; want ok and correct", it.QuestionID, it.Verdict)
		}
		if it.Result == nil || it.Result.Usage["reason"].Calls != 1 || it.Result.Wall <= 0 {
			t.Errorf("%s: result %+v; want one reason call accounted and a wall time (runners.Metered)", it.QuestionID, it.Result)
		}
	}
}

// TestExampleRule checks that the example benchmark is scored by the rule
// it registered: a prediction that repeats the gold's rows is wrong under
// its bag rule, though right under BIRD's set rule.
func TestExampleRule(t *testing.T) {
	b, err := datasets.Open("example", exampleData(t), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	gc, err := metrics.NewGoldCache("")
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Close()
	ex, _ := b.ByID("q2")
	// The gold's rows (pen, stapler) twice.
	pred := "SELECT name FROM item WHERE category = 'office' UNION ALL SELECT name FROM item WHERE category = 'office'"
	tests := []struct {
		mode metrics.Mode
		pred string
		want bool
	}{
		{"", ex.GoldSQL, true}, // "": the benchmark's own mode, example-bag
		{"", pred, false},
		{"", "SELECT name FROM item WHERE category = 'office' ORDER BY name DESC", true},
		{metrics.ModeBIRD, pred, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+" "+tt.pred, func(t *testing.T) {
			sc, err := metrics.NewScorer(b, gc, metrics.ScoreOptions{Mode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			v := sc.Score(context.Background(), ex, tt.pred)
			if v.Status != metrics.StatusOK || v.Correct != tt.want {
				t.Errorf("got %s correct=%v (%s); want ok correct=%v", v.Status, v.Correct, v.Error, tt.want)
			}
		})
	}
}

// TestExampleListed checks that the registrations alone put the example
// runner and benchmark in every list that reads the registries.
func TestExampleListed(t *testing.T) {
	if !slices.Contains(runners.Names(), "example") {
		t.Errorf("runners.Names() = %v; want it to hold example", runners.Names())
	}
	if !slices.Contains(datasets.Names(), "example") || !slices.Contains(datasets.SpecNames(), "example") {
		t.Errorf("datasets.Names() = %v, SpecNames() = %v; want both to hold example", datasets.Names(), datasets.SpecNames())
	}
	if m, err := metrics.ParseMode("example-bag"); err != nil || m != "example-bag" {
		t.Errorf("metrics.ParseMode(example-bag) = %q, %v; want the example's rule", m, err)
	}
	if d := runners.PaperDefaults()["example"]; d["max_tokens"] != 1024 {
		t.Errorf("PaperDefaults()[example] = %v; want max_tokens 1024 (examplerunner.DefaultMaxTokens)", d)
	}
}

// TestExampleFileCounts checks the guides' counts on the examples: each is
// one file (docs/adding-a-runner.md, docs/adding-a-benchmark.md), its
// registration line being the blank import above.
func TestExampleFileCounts(t *testing.T) {
	for _, dir := range []string{".", "../examplebench"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var code []string
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				code = append(code, filepath.Base(f))
			}
		}
		if len(code) != 1 {
			t.Errorf("%s holds %d files besides tests (%v); want 1, as the guide says", dir, len(code), code)
		}
	}
}
