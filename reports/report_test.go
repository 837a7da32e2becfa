package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// buildFixture writes the synthetic run and builds its report.
func buildFixture(t *testing.T, backend string) (*Report, string) {
	t.Helper()
	dir := t.TempDir()
	writeFixtureRun(t, dir, backend)
	run, err := bench.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	run.Dir = "runs/fixture" // the golden files do not depend on the temp dir
	r, err := Build([]*bench.RunData{run}, fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// checkGolden compares got with testdata/golden/name, rewriting it under
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update after checking the change):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenTables(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	wantIDs := []string{"main", "difficulty-1", "reasoning-1", "pairwise-1", "ablation-1", "efficiency", "efficiency-roles", "turns-1", "validation"}
	var ids []string
	for _, tb := range r.Tables {
		ids = append(ids, tb.ID)
	}
	if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
		t.Fatalf("tables = %v; want %v", ids, wantIDs)
	}
	for _, tb := range r.Tables {
		for _, f := range []struct {
			ext   string
			write func(*Table, *bytes.Buffer) error
		}{
			{"txt", func(t *Table, b *bytes.Buffer) error { return t.WriteTerminal(b) }},
			{"md", func(t *Table, b *bytes.Buffer) error { return t.WriteMarkdown(b) }},
			{"tex", func(t *Table, b *bytes.Buffer) error { return t.WriteLaTeX(b) }},
			{"csv", func(t *Table, b *bytes.Buffer) error { return t.WriteCSV(b) }},
		} {
			t.Run(tb.ID+"."+f.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := f.write(tb, &b); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, tb.ID+"."+f.ext, b.Bytes())
			})
		}
	}
}
