package viewer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestMissingDatabase opens a run of direct on a copy of the mini
// benchmark without its weather database (12 of its 42 questions,
// testdata/mini/questions.json): the overview counts those questions as
// excluded (missing_db), their rows say so (outcome X), a question's page
// says why it shows no result previews, and the static copy holds every
// question.
func TestMissingDatabase(t *testing.T) {
	t.Parallel()
	src := filepath.Join(testenv.RepoRoot(), "testdata", "mini")
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "databases"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"questions.json", "databases/shop.sql", "databases/university.sql"} {
		raw, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	spec := fmt.Sprintf(`
name: viewer-missing
benchmarks: [{name: mini, data: %q}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners: [{name: direct}]
`, data)
	if err := runSpec(t, spec, dir); err != nil {
		t.Fatal(err)
	}
	v := openViewer(t, dir)
	idx := v.Index()
	if len(idx.Trials) != 1 || idx.Trials[0].Excluded["missing_db"] != 12 || idx.Trials[0].Attempted != 30 {
		t.Fatalf("trials %+v; want one trial with 12 missing_db questions excluded and 30 attempted", idx.Trials)
	}
	weather := -1
	for n, r := range idx.Questions {
		if got, want := r.Outcome == "X", r.DB == "weather"; got != want {
			t.Errorf("question %s on %s: outcome %q; want X exactly on the missing weather database", r.ID, r.DB, r.Outcome)
		}
		if r.DB == "weather" && weather < 0 {
			weather = n
		}
	}
	if weather < 0 {
		t.Fatal("no question on the weather database")
	}
	q, err := v.Question(context.Background(), weather, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Gold == nil || q.Gold.Preview == nil || !strings.Contains(q.Gold.Preview.Error, "database weather unavailable") {
		t.Errorf("question %d gold %+v; want a preview saying the weather database is unavailable", weather, q.Gold)
	}
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(site, "data", "q", "*.js")); len(files) != 42 {
		t.Errorf("static copy holds %d question files; want 42", len(files))
	}
}
