package steinersql

import (
	"github.com/t2sbench/t2sbench/datasets"
)

// mustSchema is a two-table schema for tests that need no database.
func mustSchema() *datasets.Schema {
	return &datasets.Schema{Tables: []datasets.Table{
		{Name: "a", Columns: []datasets.Column{{Name: "id", Type: "INTEGER", Primary: true}, {Name: "b", Type: "REAL"}}},
		{Name: "t", Columns: []datasets.Column{{Name: "a_id", Type: "INTEGER"}}},
	}}
}
