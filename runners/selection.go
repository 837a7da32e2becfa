package runners

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/jsontext"
)

// AllTables is the key of a schema selection that selects every table,
// whole: what a method's selection parser returns alone when the answer
// chose every table ("*", "all").
const AllTables = "*"

// ErrNoTables is DecodeSelection's error for an answer whose selection
// names no table.
var ErrNoTables = errors.New("the selection names no table")

// DecodeSelection reads the schema selection of a model's answer, the
// "tables" of the JSON object it carries (jsontext.Decode): table ->
// columns, an empty column list meaning the whole table. It accepts every
// shape of jsontext.Tables (an object of tables, a list of table or
// table.column names, {table, columns} objects); an answer selecting every
// table gives the single key AllTables. The error is the decoding's, or
// ErrNoTables.
func DecodeSelection(out string) (map[string][]string, error) {
	var v struct {
		Tables jsontext.Tables `json:"tables"`
	}
	if err := jsontext.Decode(out, &v); err != nil {
		return nil, err
	}
	switch {
	case v.Tables.All:
		return map[string][]string{AllTables: {}}, nil
	case v.Tables.Empty():
		return nil, ErrNoTables
	}
	return v.Tables.Columns, nil
}

// KnownSelection keeps the tables and columns of sel (table -> columns, as
// a model's schema-selection answer gives them) that exist in the schema,
// under their schema spelling; a column list left empty keeps the whole
// table, and the key AllTables selects every table, whole. A selection
// naming no table of the schema is an error, so that a hallucinated
// selection never empties the prompt: the caller keeps the schema it had.
func KnownSelection(s *datasets.Schema, sel map[string][]string) (map[string][]string, error) {
	out := map[string][]string{}
	if _, all := sel[AllTables]; all {
		for _, tb := range s.Tables {
			out[tb.Name] = []string{}
		}
	}
	for name, cols := range sel {
		for _, tb := range s.Tables {
			if !strings.EqualFold(tb.Name, name) {
				continue
			}
			kept := out[tb.Name]
			if kept == nil {
				kept = []string{}
			}
			for _, c := range cols {
				for _, col := range tb.Columns {
					if strings.EqualFold(col.Name, c) && !slices.Contains(kept, col.Name) {
						kept = append(kept, col.Name)
					}
				}
			}
			out[tb.Name] = kept
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the selection names no table of the schema")
	}
	return out, nil
}

// SelectionKey is a canonical key of a selection: its tables and, within
// each, its columns, lower-cased and sorted ("singer(age,name);song()"),
// so that answers choosing the same schema in another order or case
// collapse into one search node.
func SelectionKey(sel map[string][]string) string {
	var parts []string
	for t, cols := range sel {
		cs := make([]string, len(cols))
		for i, c := range cols {
			cs[i] = strings.ToLower(c)
		}
		sort.Strings(cs)
		parts = append(parts, strings.ToLower(t)+"("+strings.Join(cs, ",")+")")
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}
