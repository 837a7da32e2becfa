package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestDatasetsListMeasures: datasets list reports what the folder holds,
// measured, and how to fetch what is missing; a folder with no benchmark
// is an error naming it and the fetch command.
func TestDatasetsListMeasures(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	var out bytes.Buffer
	err := run(&out, &out, []string{"datasets", "list", "--data", empty})
	if exitCode(err) != exitRuntime || !strings.Contains(err.Error(), empty+" holds no benchmark") || !strings.Contains(err.Error(), "scripts/fetch-datasets.sh "+empty) {
		t.Errorf("list of an empty folder: %v; want an error naming it and the fetch command", err)
	}
	missing := filepath.Join(empty, "nope")
	if err := run(&out, &out, []string{"datasets", "list", "--data", missing}); err == nil || !strings.Contains(err.Error(), missing+" is not a folder") {
		t.Errorf("list of a missing folder: %v; want an error naming it", err)
	}

	// A Spider folder without its databases: the questions count, every
	// database missing, and the command that fetches them.
	dir := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(filepath.Join(dir, "spider"), 0o755)
	os.WriteFile(filepath.Join(dir, "spider", "dev.json"), []byte(`[{"db_id": "concert_singer", "question": "How many singers?", "query": "SELECT count(*) FROM singer"},
{"db_id": "pets_1", "question": "How many pets?", "query": "SELECT count(*) FROM pets"}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "spider", "tables.json"), []byte(`[]`), 0o644)
	out.Reset()
	if err := run(&out, &out, []string{"datasets", "list", "--data", dir}); err != nil {
		t.Fatalf("list: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"spider           " + filepath.Join(dir, "spider") + ": 2 questions, databases 0 present, 2 missing (concert_singer, pets_1)",
		"fetch: scripts/fetch-datasets.sh " + dir + " spider",
		"none of its databases opens",
		"bird             " + filepath.Join(dir, "bird") + ": not loadable",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list output lacks %q:\n%s", want, out.String())
		}
	}

	// The shared data, when present: measured counts (a figure that
	// would be fixed text if the command did not load the folder).
	shared := testenv.SharedDir()
	if shared == "" {
		t.Skip("shared data absent (../shared); skipping the measured check on real data")
	}
	out.Reset()
	if err := run(&out, &out, []string{"datasets", "list", "--data", filepath.Join(shared, "datasets", "bird")}); err != nil {
		t.Fatalf("list bird: %v", err)
	}
	// 500 mini-dev questions (bird-bench/mini_dev mini_dev_sqlite.json).
	if !strings.Contains(out.String(), "bird-minidev") || !strings.Contains(out.String(), ": 500 questions") {
		t.Errorf("list --data .../bird lacks mini-dev's 500 questions:\n%s", out.String())
	}
}
