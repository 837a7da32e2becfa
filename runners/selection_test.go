package runners

import (
	"errors"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestKnownSelection: a schema selection keeps only what the schema has,
// under the schema's spelling; AllTables selects every table whole, and a
// selection naming nothing known is an error.
func TestKnownSelection(t *testing.T) {
	sch := &datasets.Schema{Tables: []datasets.Table{
		{Name: "singer", Columns: []datasets.Column{{Name: "name"}, {Name: "country"}}},
		{Name: "Concert", Columns: []datasets.Column{{Name: "year"}}},
	}}
	tests := []struct {
		name string
		sel  map[string][]string
		want map[string][]string
	}{
		{"spelling and unknowns", map[string][]string{"SINGER": {"Country", "ghost", "country"}, "ghost": {"x"}}, map[string][]string{"singer": {"country"}}},
		{"whole table", map[string][]string{"concert": {}}, map[string][]string{"Concert": {}}},
		{"every table", map[string][]string{AllTables: {}}, map[string][]string{"singer": {}, "Concert": {}}},
		{"every table and columns", map[string][]string{AllTables: {}, "singer": {"name"}}, map[string][]string{"singer": {"name"}, "Concert": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := KnownSelection(sch, tt.sel)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("KnownSelection(%v) = %v, %v; want %v", tt.sel, got, err, tt.want)
			}
		})
	}
	if got, err := KnownSelection(sch, map[string][]string{"ghost": {"x"}}); err == nil {
		t.Errorf("KnownSelection(ghost) = %v; want an error", got)
	}
}

// TestSelectionKey: the key ignores case and order, and tells different
// selections apart.
func TestSelectionKey(t *testing.T) {
	a := SelectionKey(map[string][]string{"singer": {"Name", "age"}, "concert": {}})
	if want := "concert();singer(age,name)"; a != want {
		t.Errorf("SelectionKey = %q; want %q", a, want)
	}
	if b := SelectionKey(map[string][]string{"Concert": {}, "SINGER": {"AGE", "name"}}); b != a {
		t.Errorf("SelectionKey in another case and order = %q; want %q", b, a)
	}
	if c := SelectionKey(map[string][]string{"singer": {"name"}, "concert": {}}); c == a {
		t.Errorf("SelectionKey of a smaller selection = %q; want it to differ from %q", c, a)
	}
}

func TestDecodeSelection(t *testing.T) {
	sel, err := DecodeSelection("reasoning first\n```json\n{\"tables\": {\"singer\": [\"name\"], \"song\": \"*\"}}\n```")
	if err != nil || len(sel) != 2 || len(sel["singer"]) != 1 {
		t.Errorf("object of tables: %v, %v", sel, err)
	}
	if sel, err := DecodeSelection(`{"tables": "*"}`); err != nil || len(sel) != 1 || sel[AllTables] == nil {
		t.Errorf("every table: %v, %v; want the single key AllTables", sel, err)
	}
	if _, err := DecodeSelection(`{"tables": []}`); !errors.Is(err, ErrNoTables) {
		t.Errorf("no tables: err %v, want ErrNoTables", err)
	}
	if _, err := DecodeSelection("no json at all"); err == nil || errors.Is(err, ErrNoTables) {
		t.Errorf("no JSON: err %v, want the decoding's error", err)
	}
}
