package jsontext

import (
	"reflect"
	"testing"
)

func TestTablesShapes(t *testing.T) {
	// Each answer is a shape models give a schema selection in when asked
	// for {"tables": {"<table>": ["<column>", ...]}} or a list of tables.
	tests := []struct {
		name string
		text string
		want Tables
	}{
		{"object of tables", `{"tables": {"singer": ["name", "age"], "concert": ["year"]}}`,
			Tables{Columns: map[string][]string{"singer": {"name", "age"}, "concert": {"year"}}, Order: []string{"concert", "singer"}}},
		{"object with star and null column lists", `{"tables": {"singer": "*", "concert": null, "stadium": []}}`,
			Tables{Columns: map[string][]string{"singer": {}, "concert": {}, "stadium": {}}, Order: []string{"concert", "singer", "stadium"}}},
		{"list of table names", "```json\n{\"tables\": [\"singer\", \"concert\"]}\n```",
			Tables{Columns: map[string][]string{"singer": {}, "concert": {}}, Order: []string{"singer", "concert"}}},
		{"list of table.column names", `{"tables": ["singer.name", "singer.age", "concert.year"]}`,
			Tables{Columns: map[string][]string{"singer": {"name", "age"}, "concert": {"year"}}, Order: []string{"singer", "concert"}}},
		{"list of objects (strict-mode shape)", `{"tables": [{"table": "singer", "columns": ["name"]}, {"table_name": "concert", "cols": "year, stadium_id"}]}`,
			Tables{Columns: map[string][]string{"singer": {"name"}, "concert": {"year", "stadium_id"}}, Order: []string{"singer", "concert"}}},
		{"qualified column names under their table", `{"tables": {"singer": ["singer.name", "` + "`age`" + `"]}}`,
			Tables{Columns: map[string][]string{"singer": {"name", "age"}}, Order: []string{"singer"}}},
		{"star", `{"tables": "*"}`, Tables{All: true}},
		{"all in a list", `{"tables": ["ALL"]}`, Tables{All: true}},
		{"comma-separated string", `{"tables": "singer, concert"}`,
			Tables{Columns: map[string][]string{"singer": {}, "concert": {}}, Order: []string{"singer", "concert"}}},
		{"whole table wins over columns", `{"tables": ["singer.name", "singer"]}`,
			Tables{Columns: map[string][]string{"singer": {}}, Order: []string{"singer"}}},
		{"null", `{"tables": null}`, Tables{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v struct {
				Tables Tables `json:"tables"`
			}
			if err := Decode(tc.text, &v); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(v.Tables, tc.want) {
				t.Errorf("got %+v; want %+v", v.Tables, tc.want)
			}
		})
	}
}

func TestTablesErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"tables": 3}`, `field tables: want a table selection (an object of tables, a list or "*"), got a number`},
		{`{"tables": [["singer"]]}`, "field tables: want table names, table.column names or {table, columns} objects, got a list holding a list"},
		{`{"tables": {"singer": {"name": 1}}}`, "field tables.singer: want a list of column names, got an object"},
		{`{"tables": [{"columns": ["name"]}]}`, "field tables: want a {table, columns} object naming its table, got an object without a table name"},
	}
	for _, tc := range tests {
		var v struct {
			Tables Tables `json:"tables"`
		}
		err := Decode(tc.text, &v)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Decode(%s): got %v; want %q", tc.text, err, tc.want)
		}
	}
}
