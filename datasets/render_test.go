package datasets

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/golden"
)

// checkGolden compares got with testdata/render/<name>, or rewrites the file
// under -update (internal/golden).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.CheckString(t, filepath.Join("testdata", "render", name), got)
}

func TestRenderGolden(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	selected := RenderOptions{
		// singer.Singer_ID (primary key) and the singer_in_concert join
		// columns are kept though not listed; concert is not selected, so
		// its foreign key is dropped.
		Tables: map[string][]string{
			"SINGER":            {"name", "Birthday"},
			"singer_in_concert": nil,
		},
		MaxExamples: 2,
		Comments: map[string]string{
			"singer.name": "full name of the singer,\n  as printed on posters",
			"Singer":      "people who sing",
		},
	}
	tests := []struct {
		name string
		fn   func(*Schema, RenderOptions) string
		opt  RenderOptions
	}{
		{"mschema_full.txt", RenderMSchema, RenderOptions{}},
		{"mschema_selected.txt", RenderMSchema, selected},
		{"mschema_no_examples.txt", RenderMSchema, RenderOptions{MaxExamples: -1}},
		{"ddl_full.sql", RenderDDL, RenderOptions{}},
		{"ddl_selected.sql", RenderDDL, selected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.fn(s, tt.opt)
			checkGolden(t, tt.name, got)
			if again := tt.fn(s, tt.opt); again != got {
				t.Errorf("second render differs; want deterministic output")
			}
		})
	}
}

// TestRenderDDLIsValidSQL loads the rendered DDL into a fresh SQLite
// database: the comments and clauses must form valid statements that
// reproduce the tables, keys and foreign keys.
func TestRenderDDLIsValidSQL(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ddl := RenderDDL(s, RenderOptions{})
	path := filepath.Join(t.TempDir(), "ddl.sqlite")
	w, err := openWritable(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(ddl); err != nil {
		w.Close()
		t.Fatalf("rendered DDL does not execute: %v\n%s", err, ddl)
	}
	w.Close()
	re, err := OpenSQLite(path, "ddl", SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	s2, err := re.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s2.ForeignKeys, s.ForeignKeys) {
		t.Errorf("foreign keys after round trip = %+v; want %+v", s2.ForeignKeys, s.ForeignKeys)
	}
	for i, tb := range s.Tables {
		tb2 := s2.Tables[i]
		if tb2.Name != tb.Name || !reflect.DeepEqual(tb2.PrimaryKey, tb.PrimaryKey) || len(tb2.Columns) != len(tb.Columns) {
			t.Errorf("table %s after round trip = %+v", tb.Name, tb2)
		}
	}
}

// TestMSchemaExamples checks the example rules of XiYan-SQL's M-Schema
// (METHODS.md "Schema text"): up to n values; one for date/time types or
// when a value is over 20 characters; none when one is over 50.
func TestMSchemaExamples(t *testing.T) {
	long21 := strings.Repeat("x", 21)
	long51 := strings.Repeat("y", 51)
	// 21 runes but 42 bytes: the limit counts characters, as Python len().
	wide21 := strings.Repeat("é", 21)
	tests := []struct {
		typ  string
		ex   []string
		n    int
		want []string
	}{
		{"TEXT", []string{"a", "b", "c", "d"}, 3, []string{"a", "b", "c"}},
		{"TEXT", []string{"a", "b"}, 3, []string{"a", "b"}},
		{"DATE", []string{"2020-01-01", "2021-01-01"}, 3, []string{"2020-01-01"}},
		{"DATETIME", []string{"2020-01-01 10:00:00", "x"}, 3, []string{"2020-01-01 10:00:00"}},
		{"TEXT", []string{"a", long21, "c"}, 3, []string{"a"}},
		{"TEXT", []string{"a", long51}, 3, nil},
		{"TEXT", []string{"a", "b", "c", long51}, 3, []string{"a", "b", "c"}}, // beyond n: not considered
		{"TEXT", []string{strings.Repeat("é", 20)}, 3, []string{strings.Repeat("é", 20)}},
		{"TEXT", []string{wide21, "b"}, 3, []string{wide21}},
		{"TEXT", []string{"a"}, 0, nil},
		{"TEXT", nil, 3, nil},
	}
	for _, tt := range tests {
		if got := mschemaExamples(tt.typ, tt.ex, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("mschemaExamples(%q, %q, %d) = %q; want %q", tt.typ, tt.ex, tt.n, got, tt.want)
		}
	}
}

func TestBaseTypeAndAffinity(t *testing.T) {
	for in, want := range map[string]string{"varchar(255)": "VARCHAR", "INTEGER": "INTEGER", " real ": "REAL", "": "ANY", "NUMERIC(10, 2)": "NUMERIC"} {
		if got := baseType(in); got != want {
			t.Errorf("baseType(%q) = %q; want %q", in, got, want)
		}
	}
	// sqlite.org/datatype3.html section 3.1 rules 1-2.
	for in, want := range map[string]bool{"TEXT": true, "varchar(40)": true, "CLOB": true, "CHARINT": false, "INTEGER": false, "DATE": false, "": false} {
		if got := textAffinity(in); got != want {
			t.Errorf("textAffinity(%q) = %v; want %v", in, got, want)
		}
	}
}

func openWritable(path string) (*sql.DB, error) { return sql.Open("sqlite3", path) }
