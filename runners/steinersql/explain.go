package steinersql

import (
	"context"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/readset"
)

// ReadSet is what a query reads (runners/readset, which IESR's Table 4
// analysis shares).
type ReadSet = readset.ReadSet

// catalog is SQLite's root-page catalog.
type catalog = readset.Catalog

func loadCatalog(ctx context.Context, db datasets.Database, s *datasets.Schema) (*catalog, error) {
	return readset.LoadCatalog(ctx, db, s)
}

func readSetSQLite(ctx context.Context, db datasets.Database, s *datasets.Schema, cat *catalog, sql string) (ReadSet, error) {
	return readset.SQLite(ctx, db, s, cat, sql)
}

func readSetLexical(s *datasets.Schema, sql string) ReadSet { return readset.Lexical(s, sql) }
