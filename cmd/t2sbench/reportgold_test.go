package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestReportTwoGold reports a small mini run under the mini benchmark's
// gold and the hand-made overlay of testdata/overlays: the two-gold table
// has a row per system, each system's EX under A is the EX the report's
// main table prints, and only the overlay's questions flip.
func TestReportTwoGold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, `name: twogold
benchmarks: [{name: mini, limit: 10}]
models: {sim: {backend: sim, p: 0.5, seed: 7}}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
`)
	out := filepath.Join(dir, "rep")
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"report", runDir, "--quiet", "--no-view", "--format", "csv", "--out", out,
		"--gold-overlay", "../../testdata/overlays/mini-corrections.jsonl"}); err != nil {
		t.Fatalf("report: %v\n%s", err, e.String())
	}
	rows := readCSV(t, filepath.Join(out, "tables", "two-gold.csv"))
	main := readCSV(t, filepath.Join(out, "tables", "ex-by-system.csv"))
	if len(rows) != 3 {
		t.Fatalf("got %d rows in two-gold.csv; want a header and 2 systems:\n%v", len(rows), rows)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		found := false
		for _, m := range main[1:] {
			if strings.HasPrefix(r[0], m[0]) && len(m) > 1 && m[1] == r[1] {
				found = true
			}
		}
		if !found {
			t.Errorf("got EX under A %q for %q; want the main table's EX (%v)", r[1], r[0], main)
		}
	}
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "Flipped, ") {
			continue
		}
		_, list, _ := strings.Cut(line, ": ")
		for _, f := range strings.Split(strings.TrimSuffix(list, "."), ", ") {
			if id, _, _ := strings.Cut(f, " "); id != "3" && id != "5" && id != "7" && id != "8" {
				t.Errorf("got a flip of question %q (%s); want only the overlay's questions 3, 5, 7, 8", id, line)
			}
		}
	}
	if !strings.Contains(string(md), "under two golds: A = mini (dev), B = overlay ../../testdata/overlays/mini-corrections.jsonl") {
		t.Errorf("report.md lacks the two-gold table's caption:\n%s", md)
	}
}

// TestReportTwoGoldReadError checks that a store the second gold cannot
// read gives an error that names the command and the second gold, as its
// other errors do: an item's stored verdict is made unreadable before
// reportTwoGold reads the items.
func TestReportTwoGoldReadError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, `name: twogold-unreadable
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.5, seed: 7}}
roles: {reason: sim}
runners:
  - name: direct
`)
	db, err := sql.Open("sqlite3", filepath.Join(runDir, runstore.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE items SET verdict = '{'`)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := runstore.ReadRunStream(runDir, runstore.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	version, overlay := "", "../../testdata/overlays/mini-corrections.jsonl"
	_, err = reportTwoGold(context.Background(), []*runstore.RunData{r}, &secondGoldFlags{version: &version, overlay: &overlay})
	if want := "report: second gold: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got error %v; want one starting %q", err, want)
	}
}
