package jsontext

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Tables is a schema selection: the tables an answer chose and, for each,
// the columns it chose. An empty column list means the whole table; All
// means every table ("*" or "all"). Tables decodes every shape models give
// a selection in:
//
//	{"singer": ["name", "age"], "concert": "*"}         an object of tables
//	["singer", "concert"]                                whole tables
//	["singer.name", "concert.year"]                      table.column names
//	[{"table": "singer", "columns": ["name"]}]           a list of objects
//	                                                     (table, table_name or name;
//	                                                     columns, cols or fields)
//	"*", "all", ["*"]                                    every table
//	"singer, concert"                                    a comma-separated string
//
// A column list may itself be "*", "all", null or [] (the whole table), a
// list or a comma-separated string. A table named twice gets the union of
// its columns, and a whole-table mention wins over a column list. Order
// lists the tables in the order the answer first named them.
type Tables struct {
	All     bool
	Columns map[string][]string
	Order   []string
}

// Empty reports whether the selection chose nothing.
func (t *Tables) Empty() bool { return !t.All && len(t.Columns) == 0 }

// UnmarshalJSON implements json.Unmarshaler leniently (see Tables).
func (t *Tables) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	*t = Tables{}
	s := selBuilder{whole: map[string]bool{}, cols: map[string][]string{}}
	switch x := v.(type) {
	case nil:
	case string:
		for _, p := range strings.Split(x, ",") {
			s.name(p)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // JSON objects are unordered; keep Order stable
		for _, k := range keys {
			if err := s.table(k, x[k]); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case string:
				s.name(y)
			case map[string]any:
				if err := s.object(y); err != nil {
					return err
				}
			default:
				return &FieldError{Want: "table names, table.column names or {table, columns} objects", Got: "a list holding " + describe(e)}
			}
		}
	default:
		return &FieldError{Want: "a table selection (an object of tables, a list or \"*\")", Got: describe(v)}
	}
	*t = s.result()
	return nil
}

type selBuilder struct {
	all   bool
	order []string
	whole map[string]bool
	cols  map[string][]string
}

func (s *selBuilder) see(table string) {
	if _, ok := s.cols[table]; !ok {
		s.cols[table] = nil
		s.order = append(s.order, table)
	}
}

// name adds a "table", "table.column" or "*" mention.
func (s *selBuilder) name(n string) {
	n = strings.Trim(strings.TrimSpace(n), "`\"'")
	switch {
	case n == "":
	case allWords[strings.ToLower(n)]:
		s.all = true
	case strings.Contains(n, "."):
		tb, col, _ := strings.Cut(n, ".")
		s.add(strings.TrimSpace(tb), []string{col})
	default:
		s.see(n)
		s.whole[n] = true
	}
}

// add adds columns of a table ("*" among them: the whole table).
func (s *selBuilder) add(table string, cols []string) {
	if table == "" {
		return
	}
	if allWords[strings.ToLower(table)] {
		s.all = true
		return
	}
	s.see(table)
	if len(cols) == 0 {
		s.whole[table] = true
	}
	for _, c := range cols {
		c = strings.Trim(strings.TrimSpace(c), "`\"'")
		if i := strings.LastIndex(c, "."); i >= 0 { // "singer.name" under singer
			c = c[i+1:]
		}
		switch {
		case c == "":
		case allWords[strings.ToLower(c)]:
			s.whole[table] = true
		default:
			if !containsFold(s.cols[table], c) {
				s.cols[table] = append(s.cols[table], c)
			}
		}
	}
}

// table adds one entry of an object of tables.
func (s *selBuilder) table(name string, v any) error {
	cols, err := columnList(v)
	if err != nil {
		err.Path = name
		return err
	}
	s.add(strings.TrimSpace(name), cols)
	return nil
}

// object adds one {table, columns} object.
func (s *selBuilder) object(o map[string]any) error {
	var table string
	var colsV any
	for k, v := range o {
		switch normKey(k) {
		case "table", "tablename", "name":
			table, _ = asString(v)
		case "columns", "cols", "fields", "columnnames":
			colsV = v
		}
	}
	if table == "" {
		return &FieldError{Want: "a {table, columns} object naming its table", Got: "an object without a table name"}
	}
	cols, err := columnList(colsV)
	if err != nil {
		err.Path = table
		return err
	}
	s.add(strings.TrimSpace(table), cols)
	return nil
}

// columnList reads a column list: null, "*", a list, or a comma-separated
// string.
func columnList(v any) ([]string, *FieldError) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.Split(x, ","), nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			c, ok := asString(e)
			if _, isList := e.([]any); isList || !ok {
				return nil, &FieldError{Want: "a list of column names", Got: "a list holding " + describe(e)}
			}
			out = append(out, c)
		}
		return out, nil
	}
	return nil, &FieldError{Want: "a list of column names", Got: describe(v)}
}

func (s *selBuilder) result() Tables {
	t := Tables{All: s.all}
	if len(s.order) == 0 {
		return t
	}
	t.Columns, t.Order = map[string][]string{}, s.order
	for _, tb := range s.order {
		if s.whole[tb] {
			t.Columns[tb] = []string{}
		} else {
			t.Columns[tb] = s.cols[tb]
		}
	}
	return t
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
