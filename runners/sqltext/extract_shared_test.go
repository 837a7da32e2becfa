package sqltext

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// goldSQL reads the gold SQL of a tab-separated gold file (SQL first).
func goldSQL(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		sql, _, _ := strings.Cut(sc.Text(), "\t")
		if sql = strings.TrimSpace(sql); sql != "" {
			out = append(out, sql)
		}
	}
	return out
}

// clauseRe finds the clauses a model starts a new line with when it lays
// a query out over several lines.
var clauseRe = regexp.MustCompile(`\s+(FROM|WHERE|INNER JOIN|LEFT JOIN|JOIN|GROUP BY|ORDER BY|HAVING|LIMIT|UNION|AND)\s`)

// TestExtractSharedGold wraps every gold query of Spider dev, BIRD dev and
// mini-dev, Archer (en) and LogicCat in the styles real models answer in,
// on one line and laid out over several lines, and checks that ExtractSQL
// gives the query back (whitespace-normalised): no real query is cut short
// by the prose detector or taken for prose. Skipped without the shared
// data.
func TestExtractSharedGold(t *testing.T) {
	dir := testenv.Datasets(t)
	golds := map[string][]string{
		"spider":       goldSQL(t, filepath.Join(dir, "spider", "dev_gold.sql")),
		"bird-dev":     goldSQL(t, filepath.Join(dir, "bird", "dev_2023-05", "dev_gold.sql")),
		"bird-minidev": goldSQL(t, filepath.Join(dir, "bird", "mini_dev", "mini_dev_sqlite_gold.sql")),
		"logiccat":     goldSQL(t, filepath.Join(dir, "logiccat", "sqlite", "gold2369.sql")),
	}
	if data, err := os.ReadFile(filepath.Join(dir, "archer", "en", "dev.json")); err == nil {
		var qs []struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(data, &qs); err != nil {
			t.Fatalf("archer dev.json: %v", err)
		}
		for _, q := range qs {
			golds["archer"] = append(golds["archer"], q.Query)
		}
	}
	styles := []struct {
		name string
		wrap func(g string) string
	}{
		{"fence", func(g string) string { return "```sql\n" + g + "\n```" }},
		{"prose and untagged fence", func(g string) string {
			return "Here is the SQL query:\n\n```\n" + g + ";\n```\n\nThis query answers the question."
		}},
		{"bare then blank line and prose", func(g string) string { return g + "\n\nThis query returns the requested rows." }},
		{"bare then prose line", func(g string) string { return "SQL:\n" + g + "\nThis query returns the requested rows." }},
		{"json", func(g string) string { b, _ := json.Marshal(map[string]string{"sql": g}); return string(b) }},
		{"think then final", func(g string) string {
			return "<think>A draft: ```sql\nSELECT 1\n```</think>\n**Final SQL**\n```sql\n" + g + "\n```\nTo check: `SELECT count(*) FROM t`"
		}},
		{"chat token", func(g string) string { return g + "<|im_end|>" }},
	}
	for bench, gs := range golds {
		failed := map[string]int{}
		checked := 0
		for _, g := range gs {
			if len(splitStatements(g)) > 1 && strings.TrimSpace(splitStatements(g)[1]) != "" {
				continue // a gold of several statements has no single answer
			}
			if strings.Contains(g, "```") || !LooksLikeSQL(g) || !complete(stripComments(g)) {
				// A gold holding a fence of its own, a write (LogicCat's
				// INSERTs), or one flattened onto one line where a --
				// comment now runs to its end.
				continue
			}
			checked++
			for _, layout := range []string{"one line", "laid out"} {
				q := g
				if layout == "laid out" {
					q = clauseRe.ReplaceAllString(g, "\n$1 ")
				}
				// Comments are stripped.
				want := Normalise(stripComments(q))
				for _, st := range styles {
					got := ExtractSQL(st.wrap(q))
					if Normalise(got.SQL) != want {
						key := st.name + ", " + layout
						if failed[key] < 3 {
							t.Errorf("%s, %s: ExtractSQL(%q) = %q; want %q", bench, key, st.wrap(q), got.SQL, want)
						}
						failed[key]++
					}
				}
			}
		}
		t.Logf("%s: %d gold queries, each in %d styles and 2 layouts", bench, checked, len(styles))
		for k, n := range failed {
			t.Errorf("%s: %d of %d gold queries not recovered in style %s", bench, n, len(gs), k)
		}
	}
}
