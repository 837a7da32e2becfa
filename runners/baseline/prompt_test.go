package baseline

import (
	"testing"
	"unsafe"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestSchemaDDL renders a schema once and gives back the same text for it
// afterwards; another schema, even one equal but for a column, gets its
// own.
func TestSchemaDDL(t *testing.T) {
	a := &datasets.Schema{DBID: "db", Tables: []datasets.Table{{Name: "singer", Columns: []datasets.Column{{Name: "id", Type: "int"}, {Name: "name", Type: "text", Examples: []string{"Joe"}}}}}}
	b := &datasets.Schema{DBID: "db", Tables: []datasets.Table{{Name: "singer", Columns: []datasets.Column{{Name: "id", Type: "int"}, {Name: "age", Type: "int"}}}}}
	first := schemaDDL(a)
	for _, tc := range []struct {
		name string
		s    *datasets.Schema
	}{{"a", a}, {"a again", a}, {"b", b}, {"b again", b}} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := schemaDDL(tc.s), datasets.RenderDDL(tc.s, datasets.RenderOptions{}); got != want {
				t.Errorf("schemaDDL = %q; want RenderDDL's %q", got, want)
			}
		})
	}
	if again := schemaDDL(a); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Errorf("schemaDDL rendered schema a again; want the text of its first rendering")
	}
}
