package datasets

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// birdItem is one element of BIRD's dev.json / mini_dev_sqlite.json.
type birdItem struct {
	QuestionID *int   `json:"question_id"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
	Difficulty string `json:"difficulty"`
}

// LoadBIRD loads a BIRD split from dir, the BIRD root:
//
//	split "dev":         dev/dev.json (or dir/dev.json)
//	split "minidev":     mini_dev/mini_dev_sqlite.json (or dir/mini_dev_sqlite.json)
//	split "dev-2023-05": dev_2023-05/dev.json (the first release, no ids)
//
// Databases are <root>/<db>/<db>.sqlite for the first root among
// dir/dev_databases, dir/dev/dev_databases and dir/mini_dev/dev_databases.
// Example.ID is question_id (the index when the file has none); evidence and
// difficulty are kept. Benchmark.Name is "bird" or "bird-minidev".
func LoadBIRD(dir, split string, opt LoadOptions) (*Benchmark, error) {
	name := "bird"
	var cands []string
	switch split {
	case "dev", "":
		split = "dev"
		cands = []string{filepath.Join(dir, "dev", "dev.json"), filepath.Join(dir, "dev.json")}
	case "minidev", "mini_dev", "mini-dev":
		split, name = "minidev", "bird-minidev"
		cands = []string{filepath.Join(dir, "mini_dev", "mini_dev_sqlite.json"), filepath.Join(dir, "mini_dev_sqlite.json")}
	case "dev-2023-05", "dev_2023-05":
		split = "dev-2023-05"
		cands = []string{filepath.Join(dir, "dev_2023-05", "dev.json")}
	default:
		return nil, fmt.Errorf("datasets: bird: unknown split %q (want dev, minidev or dev-2023-05)", split)
	}
	file, err := firstFile(cands...)
	if err != nil {
		return nil, fmt.Errorf("datasets: bird %s: %w", split, err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("datasets: bird %s: %w", split, err)
	}
	ex, err := ParseBIRD(file, data)
	if err != nil {
		return nil, fmt.Errorf("datasets: bird %s: %w", split, err)
	}
	return &Benchmark{
		Name:     name,
		Split:    split,
		Dir:      dir,
		Mode:     name,
		Examples: applyLimit(ex, opt.Limit),
		Engine: newFileEngine(dirLocator(
			filepath.Join(dir, "dev_databases"),
			filepath.Join(dir, "dev", "dev_databases"),
			filepath.Join(dir, "mini_dev", "dev_databases"),
		), opt.SQLite),
	}, nil
}

// ParseBIRD parses a BIRD question file (dev.json, mini_dev_sqlite.json or
// the bundled mini benchmark's questions.json). ID is question_id when
// present, else the index. A "reasoning_type" field (the mini benchmark's)
// holding a string or a list of strings fills ReasoningTypes.
func ParseBIRD(file string, data []byte) ([]Example, error) {
	items, err := splitJSONArray(file, data)
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(items))
	seen := map[string]int{}
	for i, it := range items {
		var b birdItem
		extra, err := decodeItem(file, data, it, &b, "question_id", "db_id", "question", "evidence", "SQL", "difficulty")
		if err != nil {
			return nil, err
		}
		if err := requireFields(file, data, it, [2]string{"db_id", b.DBID}, [2]string{"question", b.Question}, [2]string{"SQL", b.SQL}); err != nil {
			return nil, err
		}
		id := strconv.Itoa(i)
		if b.QuestionID != nil {
			id = strconv.Itoa(*b.QuestionID)
		}
		if j, dup := seen[id]; dup {
			return nil, posError(file, data, it.start, fmt.Errorf("duplicate question_id %s (also example %d)", id, j))
		}
		seen[id] = i
		e := Example{
			ID:         id,
			Index:      i,
			DBID:       b.DBID,
			Question:   b.Question,
			Evidence:   b.Evidence,
			GoldSQL:    b.SQL,
			Difficulty: b.Difficulty,
			Extra:      extra,
		}
		if rt, ok := extra["reasoning_type"]; ok {
			tags, err := reasoningTags(rt)
			if err != nil {
				return nil, posError(file, data, it.start, err)
			}
			e.ReasoningTypes = tags
		}
		out = append(out, e)
	}
	return out, nil
}

func reasoningTags(v any) ([]string, error) {
	switch t := v.(type) {
	case string:
		return strings.Fields(t), nil
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("field \"reasoning_type\": want strings, got %T", x)
			}
			out = append(out, s)
		}
		return out, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("field \"reasoning_type\": want a string or a list of strings, got %T", v)
}

// BIRDColumnDescriptions reads the database_description/<table>.csv files
// of one BIRD database directory (dev_databases/<db>) and returns
// table -> column -> description: column_description, with
// value_description appended after " | " when present. Table and column
// names are lower-cased (BIRD's CSV names do not always match the schema's
// case). Files that are not valid UTF-8 are read as Latin-1, as several
// official CSVs are.
func BIRDColumnDescriptions(dbDir string) (map[string]map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dbDir, "database_description", "*.csv"))
	if err != nil {
		return nil, fmt.Errorf("datasets: bird descriptions: %w", err)
	}
	sort.Strings(files)
	out := map[string]map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("datasets: bird descriptions: %w", err)
		}
		cols, err := parseDescriptionCSV(f, raw)
		if err != nil {
			return nil, err
		}
		table := strings.ToLower(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)))
		out[table] = cols
	}
	return out, nil
}

func parseDescriptionCSV(file string, raw []byte) (map[string]string, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(raw) {
		rs := make([]rune, len(raw))
		for i, b := range raw {
			rs[i] = rune(b)
		}
		raw = []byte(string(rs))
	}
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("datasets: bird descriptions: %s: header: %w", file, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		idx[strings.ToLower(strings.TrimSpace(h))] = i
	}
	orig, ok := idx["original_column_name"]
	if !ok {
		return nil, fmt.Errorf("datasets: bird descriptions: %s:1: no original_column_name column", file)
	}
	get := func(rec []string, key string) string {
		if i, ok := idx[key]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	cols := map[string]string{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("datasets: bird descriptions: %s: %w", file, err)
		}
		if orig >= len(rec) || strings.TrimSpace(rec[orig]) == "" {
			continue
		}
		desc := get(rec, "column_description")
		if v := get(rec, "value_description"); v != "" {
			if desc != "" {
				desc += " | "
			}
			desc += v
		}
		cols[strings.ToLower(strings.TrimSpace(rec[orig]))] = strings.Join(strings.Fields(desc), " ")
	}
	return cols, nil
}

// birdSplits maps the Open names of BIRD to LoadBIRD's split.
var birdSplits = map[string]string{"bird": "dev", "bird-dev": "dev", "bird-minidev": "minidev", "bird-dev-2023-05": "dev-2023-05"}

func init() {
	Register(Kind{
		Names: []string{"bird", "bird-dev", "bird-minidev", "bird-dev-2023-05"},
		Load: func(name, dir string, opt LoadOptions) (*Benchmark, error) {
			return LoadBIRD(dir, birdSplits[name], opt)
		},
		Order: 20,
		ChecksumFamily: func(name string) string {
			if name == "bird-dev" {
				return "bird"
			}
			return name
		},
		Previous: birdPrevious,
		Data: []DataEntry{
			{"bird", "bird", "bird", "https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip", "BIRD dev, current gold revision (dev/)"},
			{"bird-dev-2023-05", "bird", "", "BIRD dev's initial release (scripts/DATASETS.md)", "BIRD dev, gold of the initial release, May 2023 (dev_2023-05/; datasets check compares with it)"},
			{"bird-minidev", "bird", "bird-minidev", "https://bird-bench.oss-cn-beijing.aliyuncs.com/minidev.zip", "BIRD mini-dev (mini_dev/)"},
		},
	})
}

// birdPrevious is BIRD's earlier releases (see PreviousVersion): dev's
// current revision against the initial release of May 2023, and mini-dev
// against the BIRD dev it was drawn from (question_id is the dev id).
func birdPrevious(name string) (prev, what string) {
	switch name {
	case "bird", "bird-dev":
		return "bird-dev-2023-05", "BIRD dev 2023-05 (initial release)"
	case "bird-minidev":
		return "bird", "BIRD dev (the file in dev/, whose question_id mini-dev's refer to)"
	}
	return "", ""
}
