package reports

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestTable4Spec runs experiments/iesr-table4.yaml offline (sim, mini,
// first 6 questions) through the real bench environment and checks that
// the report prints IESR's Table 4 layout: a Model column, then P and R
// under table, column, unit_num and operator, and for each understanding
// backbone a row without and a row with keyword verification.
func TestTable4Spec(t *testing.T) {
	spec := benchkit.SpecFile(t, filepath.Join(testenv.RepoRoot(), "experiments", "iesr-table4.yaml"))
	spec.Cache = ""
	plan := benchkit.Plan(t, spec)
	dir := t.TempDir()
	sum, err := benchkit.Run(t, dir, plan, bench.Options{Limit: 6, Workers: 4, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Done != 4*6 {
		t.Fatalf("done %d, failed %d; want 24 done, none failed", sum.Done, sum.Failed)
	}
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build([]*runstore.RunData{run}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab := tableByID(t, rep, "keyword-precision-recall-mini")
	var head []string
	for _, c := range tab.Columns {
		head = append(head, c.header())
	}
	want := "Model|table P|table R|column P|column R|unit_num P|unit_num R|operator P|operator R"
	if got := strings.Join(head, "|"); got != want {
		t.Errorf("columns %s; want %s", got, want)
	}
	var rows []string
	for _, r := range tab.Rows {
		rows = append(rows, r[0].Text)
		for i, c := range r[1:] {
			if c.HasValue && (c.Value < 0 || c.Value > 100) {
				t.Errorf("row %s column %s: %v; want a percentage", r[0].Text, head[i+1], c.Value)
			}
		}
	}
	wantRows := "sim-u45|sim-u45+Ve|sim-u60|sim-u60+Ve|sim-u75|sim-u75+Ve|sim-u90|sim-u90+Ve"
	if got := strings.Join(rows, "|"); got != wantRows {
		t.Errorf("rows %s; want %s", got, wantRows)
	}
}
