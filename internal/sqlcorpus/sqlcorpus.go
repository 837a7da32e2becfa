// Package sqlcorpus collects the gold SQL queries of the shared benchmark
// data (../shared/datasets: Spider, BIRD, Archer, LogicCat), for tests
// that compare two implementations on every real query.
package sqlcorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// Datasets returns the distinct gold queries of each dataset of the
// shared data, keyed by dataset name, sorted; it skips t when the data is
// absent. Queries come from the "query" and "SQL" fields of the question
// files and from the gold .sql files (the text before the first TAB).
func Datasets(t testing.TB) map[string][]string {
	t.Helper()
	ds, err := collect(testenv.Datasets(t))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func collect(root string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, name := range []string{"spider", "bird", "archer", "logiccat"} {
		seen := map[string]bool{}
		err := filepath.WalkDir(filepath.Join(root, name), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, "database") {
				return err
			}
			var qs []string
			switch filepath.Ext(path) {
			case ".json":
				if strings.HasSuffix(path, "tables.json") || strings.HasSuffix(path, "table.json") || strings.HasSuffix(path, "leaderboard.json") {
					return nil
				}
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				var items []map[string]any
				if err := json.Unmarshal(data, &items); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				for _, it := range items {
					for _, k := range []string{"query", "SQL"} {
						if s, ok := it[k].(string); ok {
							qs = append(qs, s)
						}
					}
				}
			case ".sql":
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for _, line := range strings.Split(string(data), "\n") {
					q, _, _ := strings.Cut(line, "\t")
					if strings.TrimSpace(q) != "" {
						qs = append(qs, q)
					}
				}
			}
			for _, q := range qs {
				seen[q] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for q := range seen {
			out[name] = append(out[name], q)
		}
		sort.Strings(out[name])
	}
	return out, nil
}
