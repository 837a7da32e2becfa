package datasets

import (
	"testing"
	"unsafe"
)

// TestSchemaDDL: SchemaDDL renders a schema once and gives back the same
// text for it afterwards; another schema, even one equal but for a
// column, gets its own.
func TestSchemaDDL(t *testing.T) {
	a := &Schema{DBID: "db", Tables: []Table{{Name: "singer", Columns: []Column{{Name: "id", Type: "int"}, {Name: "name", Type: "text", Examples: []string{"Joe"}}}}}}
	b := &Schema{DBID: "db", Tables: []Table{{Name: "singer", Columns: []Column{{Name: "id", Type: "int"}, {Name: "age", Type: "int"}}}}}
	first := SchemaDDL(a)
	for _, tc := range []struct {
		name string
		s    *Schema
	}{{"a", a}, {"a again", a}, {"b", b}, {"b again", b}} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := SchemaDDL(tc.s), RenderDDL(tc.s, RenderOptions{}); got != want {
				t.Errorf("SchemaDDL = %q; want RenderDDL's %q", got, want)
			}
		})
	}
	if again := SchemaDDL(a); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Errorf("SchemaDDL rendered schema a again; want the text of its first rendering")
	}
}
