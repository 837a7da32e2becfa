package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// spiderItem is one element of Spider's dev.json.
type spiderItem struct {
	DBID     string          `json:"db_id"`
	Query    string          `json:"query"`
	Question string          `json:"question"`
	SQL      json.RawMessage `json:"sql"`
}

// LoadSpider loads Spider 1.0 dev from dir (the official layout: dev.json,
// database/<db>/<db>.sqlite). Example.ID is the 0-based index in dev.json
// (the line of dev_gold.sql, minus one). Difficulty is the official hardness
// level (see SpiderLevel). Fields other than db_id, query and question
// (query_toks, sql, ...) are kept in Extra.
//
// The engine is a VariantEngine: in the test-suite release database/<db>/
// holds distilled variants beside <db>.sqlite, and Variants returns them
// all (TestSuiteFiles). Open still returns <db>.sqlite alone, and no
// variant is opened until Variants is called, so the loader always
// exposes the suite and the scorer decides whether to use it
// (metrics.ScoreOptions.TestSuite); with the original release, one file
// per database, both give the same single database.
func LoadSpider(dir string, opt LoadOptions) (*Benchmark, error) {
	file := filepath.Join(dir, "dev.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("datasets: spider: %w", err)
	}
	ex, err := ParseSpider(file, data)
	if err != nil {
		return nil, fmt.Errorf("datasets: spider: %w", err)
	}
	return &Benchmark{
		Name:     "spider",
		Split:    "dev",
		Dir:      dir,
		Mode:     "spider",
		Examples: applyLimit(ex, opt.Limit),
		Engine:   newSuiteEngine(dirLocator(filepath.Join(dir, "database")), opt.SQLite),
	}, nil
}

// ParseSpider parses a Spider question file (dev.json or train_*.json
// layout); file names the source in errors ("file:line:col: ...").
func ParseSpider(file string, data []byte) ([]Example, error) {
	items, err := splitJSONArray(file, data)
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(items))
	for i, it := range items {
		var s spiderItem
		extra, err := decodeItem(file, data, it, &s, "db_id", "query", "question")
		if err != nil {
			return nil, err
		}
		if err := requireFields(file, data, it, [2]string{"db_id", s.DBID}, [2]string{"query", s.Query}, [2]string{"question", s.Question}); err != nil {
			return nil, err
		}
		level, err := SpiderLevel(s.Query, s.SQL)
		if err != nil {
			return nil, posError(file, data, it.start, fmt.Errorf("hardness of example %d: %w", i, err))
		}
		out = append(out, Example{
			ID:         strconv.Itoa(i),
			Index:      i,
			DBID:       s.DBID,
			Question:   s.Question,
			GoldSQL:    s.Query,
			Difficulty: level,
			Extra:      extra,
		})
	}
	return out, nil
}

// SpiderLevel returns the official hardness of a Spider gold query. When the
// parsed tree that Spider's files carry ("sql", the output of the official
// process_sql) is given, the counts come from it exactly as evaluation.py
// computes them; otherwise they come from the SQL text (CountHardness).
func SpiderLevel(query string, parsed json.RawMessage) (string, error) {
	if len(parsed) > 0 && string(parsed) != "null" {
		h, err := parsedHardness(parsed)
		if err == nil {
			return h.Level(), nil
		}
	}
	return SpiderHardness(query)
}
