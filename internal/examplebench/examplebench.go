// Package examplebench is the example benchmark of
// docs/adding-a-benchmark.md, added by following that guide: this one file
// holds its loader and its registration, scoring rule included. Only tests
// import it (internal/examplerunner's end-to-end test), so the t2sbench
// binary does not offer it.
//
// Its data directory holds questions.jsonl, one JSON object a line with
// the fields id, db_id, question and sql (the gold), and one SQLite file
// <db_id>.sqlite per database.
package examplebench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/jsonl"
)

// Name is the benchmark's name in a spec (benchmarks[].name).
const Name = "example"

// Mode names the benchmark's scoring rule (Bag).
const Mode = "example-bag"

// QuestionsFile is the question file in the data directory.
const QuestionsFile = "questions.jsonl"

func init() {
	datasets.Register(datasets.Kind{
		Names: []string{Name},
		Load:  func(_, dir string, opt datasets.LoadOptions) (*datasets.Benchmark, error) { return Load(dir, opt) },
		Order: 1000,
		Rule: &datasets.Rule{Mode: Mode, Equal: Bag,
			Doc: "bag equality of rows: row order ignored, duplicates and column order count, values equal only with the same Go type"},
	})
}

// question is one line of QuestionsFile.
type question struct {
	ID       string `json:"id"`
	DBID     string `json:"db_id"`
	Question string `json:"question"`
	SQL      string `json:"sql"`
}

// Load reads dir/questions.jsonl and attaches the SQLite engine over
// dir/<db_id>.sqlite. Errors name the file and line.
func Load(dir string, opt datasets.LoadOptions) (*datasets.Benchmark, error) {
	file := filepath.Join(dir, QuestionsFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	var ex []datasets.Example
	err = jsonl.Each(bytes.NewReader(data), file, jsonl.Options{Strict: true}, func(_ int, _ []byte, q *question) error {
		for _, f := range [][2]string{{"id", q.ID}, {"db_id", q.DBID}, {"question", q.Question}, {"sql", q.SQL}} {
			if f[1] == "" {
				return fmt.Errorf("missing or empty field %q", f[0])
			}
		}
		ex = append(ex, datasets.Example{ID: q.ID, Index: len(ex), DBID: q.DBID, Question: q.Question, GoldSQL: q.SQL})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	if opt.Limit > 0 && opt.Limit < len(ex) {
		ex = ex[:opt.Limit]
	}
	locate := func(id string) (string, bool) {
		if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
			return "", false
		}
		p := filepath.Join(dir, id+".sqlite")
		st, err := os.Stat(p)
		return p, err == nil && st.Mode().IsRegular()
	}
	return &datasets.Benchmark{Name: Name, Dir: dir, Mode: Mode, Examples: ex,
		Engine: datasets.NewSQLiteEngine(locate, opt.SQLite)}, nil
}

// Bag is the benchmark's scoring rule: pred equals gold when both hold the
// same rows the same number of times, in any order, each row's values in
// the same column order, each value equal to the other's with the same Go
// type (1 and 1.0 differ). Unlike BIRD's set rule, a prediction that
// repeats a row is wrong.
func Bag(gold, pred *datasets.ResultSet) (bool, error) {
	if len(gold.Rows) != len(pred.Rows) {
		return false, nil
	}
	keys := func(rows [][]any) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			var b strings.Builder
			for _, v := range r {
				fmt.Fprintf(&b, "%T:%v\x00", v, v)
			}
			out[i] = b.String()
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(keys(gold.Rows), keys(pred.Rows)), nil
}
