// Package readset says which tables and columns a query reads, asking the
// database engine itself where it can: SQLite's EXPLAIN bytecode (SQLite),
// else a name scan (Lexical). SteinerSQL's level-2 validation and IESR's
// Table 4 analysis (the schema items a gold query uses) share it.
package readset

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// ReadSet is what a query reads: tables and "table.column" names (original
// schema spelling), sorted. Method is "bytecode" (SQLite's own plan) or
// "lexical" (a name scan, for engines without the bytecode view).
type ReadSet struct {
	Tables  []string `json:"tables"`
	Columns []string `json:"columns"`
	Method  string   `json:"method"`
}

// HasTable reports whether the set reads table name (case-insensitive).
func (r ReadSet) HasTable(name string) bool {
	return slices.ContainsFunc(r.Tables, func(t string) bool { return strings.EqualFold(t, name) })
}

// HasColumn reports whether the set reads table.col (case-insensitive).
func (r ReadSet) HasColumn(table, col string) bool {
	k := table + "." + col
	return slices.ContainsFunc(r.Columns, func(c string) bool { return strings.EqualFold(c, k) })
}

// Catalog maps SQLite b-tree root pages to tables and indexes.
type Catalog struct {
	tableByRoot map[int64]*datasets.Table
	// indexByRoot gives an index's table and its key columns (nil entries
	// for expression columns); the column after the keys is the rowid.
	indexByRoot map[int64]indexInfo
}

type indexInfo struct {
	table *datasets.Table
	cols  []string
}

// LoadCatalog reads sqlite_master and PRAGMA index_info through the
// sandboxed handle.
func LoadCatalog(ctx context.Context, db datasets.Database, s *datasets.Schema) (*Catalog, error) {
	rs, err := db.Execute(ctx, "SELECT type, name, tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0")
	if err != nil {
		return nil, fmt.Errorf("read sqlite_master: %w", err)
	}
	c := &Catalog{tableByRoot: map[int64]*datasets.Table{}, indexByRoot: map[int64]indexInfo{}}
	for _, r := range rs.Rows {
		typ, _ := r[0].(string)
		name, _ := r[1].(string)
		tbl, _ := r[2].(string)
		root, _ := r[3].(int64)
		t, ok := s.Table(tbl)
		if !ok {
			continue
		}
		switch typ {
		case "table":
			c.tableByRoot[root] = t
		case "index":
			ii := indexInfo{table: t}
			info, err := db.Execute(ctx, "PRAGMA index_info("+`"`+strings.ReplaceAll(name, `"`, `""`)+`"`+")")
			if err == nil {
				for _, row := range info.Rows {
					col, _ := row[2].(string)
					ii.cols = append(ii.cols, col)
				}
			}
			c.indexByRoot[root] = ii
		}
	}
	return c, nil
}

// rowidColumn returns t's INTEGER PRIMARY KEY column (the rowid alias), or
// "".
func rowidColumn(t *datasets.Table) string {
	var pk []string
	for _, c := range t.Columns {
		if c.Primary {
			pk = append(pk, c.Name)
		}
	}
	if len(pk) == 0 {
		pk = t.PrimaryKey
	}
	if len(pk) != 1 {
		return ""
	}
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, pk[0]) && strings.EqualFold(strings.TrimSpace(c.Type), "INTEGER") {
			return c.Name
		}
	}
	return ""
}

// SQLite asks SQLite what sql reads: it runs EXPLAIN sql and follows
// the bytecode. OpenRead/ReopenIdx open a cursor on a root page (mapped to
// a table, or to an index and its table, through sqlite_master.rootpage);
// Column reads column p2 of cursor p1 (a table column by position, or an
// index key column); Rowid, SeekRowid, NotExists and IdxRowid read the rowid
// (the table's INTEGER PRIMARY KEY column); a Seek*/IdxGT-family op on an
// index cursor reads the index's key columns. No SQL parsing is involved.
func SQLite(ctx context.Context, db datasets.Database, s *datasets.Schema, cat *Catalog, sql string) (ReadSet, error) {
	stmt, err := datasets.SingleStatement(sql)
	if err != nil {
		return ReadSet{}, err
	}
	rs, err := db.Execute(ctx, "EXPLAIN "+stmt)
	if err != nil {
		return ReadSet{}, err
	}
	type cursor struct {
		table *datasets.Table
		index *indexInfo
	}
	cursors := map[int64]cursor{}
	tables := map[string]bool{}
	cols := map[string]bool{}
	addCol := func(t *datasets.Table, col string) {
		if col != "" {
			cols[t.Name+"."+col] = true
		}
	}
	for _, r := range rs.Rows {
		if len(r) < 5 {
			continue
		}
		op, _ := r[1].(string)
		p1, _ := r[2].(int64)
		p2, _ := r[3].(int64)
		switch op {
		case "OpenRead", "ReopenIdx":
			if t, ok := cat.tableByRoot[p2]; ok {
				cursors[p1] = cursor{table: t}
				tables[t.Name] = true
			} else if ii, ok := cat.indexByRoot[p2]; ok {
				ii := ii
				cursors[p1] = cursor{table: ii.table, index: &ii}
				tables[ii.table.Name] = true
			}
		case "Column":
			c, ok := cursors[p1]
			if !ok {
				continue
			}
			if c.index != nil {
				switch {
				case int(p2) < len(c.index.cols):
					addCol(c.table, c.index.cols[p2])
				case int(p2) == len(c.index.cols):
					addCol(c.table, rowidColumn(c.table))
				}
			} else if int(p2) < len(c.table.Columns) {
				addCol(c.table, c.table.Columns[p2].Name)
			}
		case "Rowid", "SeekRowid", "NotExists", "IdxRowid", "DeferredSeek":
			if c, ok := cursors[p1]; ok && op != "DeferredSeek" {
				addCol(c.table, rowidColumn(c.table))
			}
		case "SeekGE", "SeekGT", "SeekLE", "SeekLT", "IdxGE", "IdxGT", "IdxLE", "IdxLT", "Found", "NotFound", "NoConflict":
			if c, ok := cursors[p1]; ok && c.index != nil {
				// P4 holds the number of key fields compared.
				n := len(c.index.cols)
				k := int64(-1)
				switch v := r[5].(type) {
				case int64:
					k = v
				case string:
					fmt.Sscanf(v, "%d", &k)
				}
				if k > 0 && int(k) < n {
					n = int(k)
				}
				for _, col := range c.index.cols[:n] {
					addCol(c.table, col)
				}
			}
		}
	}
	out := ReadSet{Method: "bytecode"}
	for t := range tables {
		out.Tables = append(out.Tables, t)
	}
	for c := range cols {
		out.Columns = append(out.Columns, c)
	}
	slices.Sort(out.Tables)
	slices.Sort(out.Columns)
	return out, nil
}

// Lexical approximates the read set by name: schema tables whose
// name occurs as a word of sql, and their columns that occur as words. It
// is used for engines without SQLite's bytecode (MySQL) and says so in
// Method.
func Lexical(s *datasets.Schema, sql string) ReadSet {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(sql), func(r rune) bool {
		return !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127)
	}) {
		words[w] = true
	}
	out := ReadSet{Method: "lexical"}
	for _, t := range s.Tables {
		if !words[strings.ToLower(t.Name)] {
			continue
		}
		out.Tables = append(out.Tables, t.Name)
		for _, c := range t.Columns {
			if words[strings.ToLower(c.Name)] {
				out.Columns = append(out.Columns, t.Name+"."+c.Name)
			}
		}
	}
	slices.Sort(out.Tables)
	slices.Sort(out.Columns)
	return out
}

// Reader reads the read sets of queries on one database: SQLite's
// bytecode where the engine is SQLite (its catalog read once), the
// lexical scan elsewhere.
type Reader struct {
	db     datasets.Database
	schema *datasets.Schema
	cat    *Catalog
}

// NewReader prepares a Reader for db with schema s.
func NewReader(ctx context.Context, db datasets.Database, s *datasets.Schema) (*Reader, error) {
	r := &Reader{db: db, schema: s}
	if db.Dialect() == "sqlite" {
		cat, err := LoadCatalog(ctx, db, s)
		if err != nil {
			return nil, err
		}
		r.cat = cat
	}
	return r, nil
}

// Read returns what sql reads.
func (r *Reader) Read(ctx context.Context, sql string) (ReadSet, error) {
	if r.cat != nil {
		return SQLite(ctx, r.db, r.schema, r.cat, sql)
	}
	return Lexical(r.schema, sql), nil
}
