package datasets

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Sampling bounds for Schema introspection.
const (
	// SchemaExamples is the number of distinct sample values kept per
	// column: METHODS.md "Schema text" renders at most 3.
	SchemaExamples = 3
	// MaxExampleLen is the longest sample value kept, in bytes (METHODS.md:
	// no examples over 50 characters).
	MaxExampleLen = 50
	// sampleScanRows bounds the rows scanned per column when sampling, so
	// that introspecting a multi-million-row table stays fast; samples come
	// from the first rows in storage order, which is deterministic.
	sampleScanRows = 100000
)

// quoteIdent quotes an SQLite identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// introspectSQLite reads tables (in creation order, skipping sqlite_*
// internal tables), columns, keys, row counts and sample values.
func introspectSQLite(ctx context.Context, pool *sql.DB, dbID string, timeout time.Duration) (*Schema, error) {
	ctx, cancel := context.WithTimeout(ctx, 4*timeout)
	defer cancel()
	names, err := queryStrings(ctx, pool,
		`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	s := &Schema{DBID: dbID, Tables: []Table{}, ForeignKeys: []ForeignKey{}}
	for _, name := range names {
		t, err := introspectTable(ctx, pool, name)
		if err != nil {
			return nil, err
		}
		s.Tables = append(s.Tables, t)
	}
	for _, t := range s.Tables {
		fks, err := foreignKeys(ctx, pool, s, t.Name)
		if err != nil {
			return nil, err
		}
		s.ForeignKeys = append(s.ForeignKeys, fks...)
	}
	return s, nil
}

func introspectTable(ctx context.Context, pool *sql.DB, name string) (Table, error) {
	t := Table{Name: name}
	rows, err := pool.QueryContext(ctx, "PRAGMA table_info("+quoteIdent(name)+")")
	if err != nil {
		return t, fmt.Errorf("table_info(%s): %w", name, err)
	}
	type pkCol struct {
		pos  int64
		name string
	}
	var pks []pkCol
	for rows.Next() {
		var (
			cid, notNull, pk int64
			col              string
			typ              sql.NullString
			dflt             any
		)
		if err := rows.Scan(&cid, &col, &typ, &notNull, &dflt, &pk); err != nil {
			rows.Close()
			return t, fmt.Errorf("table_info(%s): %w", name, err)
		}
		t.Columns = append(t.Columns, Column{Name: col, Type: typ.String, NotNull: notNull != 0, Primary: pk > 0})
		if pk > 0 {
			pks = append(pks, pkCol{pk, col})
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return t, fmt.Errorf("table_info(%s): %w", name, err)
	}
	rows.Close()
	sort.Slice(pks, func(i, j int) bool { return pks[i].pos < pks[j].pos })
	for _, p := range pks {
		t.PrimaryKey = append(t.PrimaryKey, p.name)
	}
	if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(name)).Scan(&t.RowCount); err != nil {
		return t, fmt.Errorf("count rows of %s: %w", name, err)
	}
	for i := range t.Columns {
		ex, err := sampleValues(ctx, pool, name, t.Columns[i].Name, SchemaExamples)
		if err != nil {
			return t, err
		}
		t.Columns[i].Examples = ex
	}
	return t, nil
}

// sampleValues returns up to n distinct non-null, non-empty, non-BLOB values
// of table.column, each at most MaxExampleLen bytes, from the first
// sampleScanRows rows. Integers print in decimal, reals as Python's repr
// prints them (the form the reference implementations show), text as
// stored.
func sampleValues(ctx context.Context, pool *sql.DB, table, column string, n int) ([]string, error) {
	// Unary + drops the declared type, which the driver would otherwise
	// use to turn DATE and BOOLEAN values into time.Time and bool.
	q := fmt.Sprintf(`SELECT DISTINCT +v FROM (SELECT %s AS v FROM %s LIMIT %d)
WHERE v IS NOT NULL AND typeof(v) <> 'blob' AND length(CAST(v AS BLOB)) BETWEEN 1 AND %d LIMIT %d`,
		quoteIdent(column), quoteIdent(table), sampleScanRows, MaxExampleLen, n)
	rows, err := pool.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("sample %s.%s: %w", table, column, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v any
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("sample %s.%s: %w", table, column, err)
		}
		var s string
		switch x := v.(type) {
		case int64:
			s = strconv.FormatInt(x, 10)
		case float64:
			s = PythonFloat(x)
		case string:
			s = x
		default:
			continue
		}
		if len(s) <= MaxExampleLen {
			out = append(out, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sample %s.%s: %w", table, column, err)
	}
	return out, nil
}

// PythonFloat formats f as Python's repr(float) does: the shortest string
// that round-trips, positional with at least one decimal for 1e-4 <= |f| <
// 1e16, else exponent form ("1e+16", "1.5e-07"); "nan", "inf", "-inf".
// Sample values in schemas and the Python evaluators' cell reprs
// (metrics) both print floats with it.
func PythonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// foreignKeys reads PRAGMA foreign_key_list for table, in declaration
// order. A reference without a column (REFERENCES parent) resolves to the
// parent's primary key; names are given the spelling of the schema when
// the parent exists.
func foreignKeys(ctx context.Context, pool *sql.DB, s *Schema, table string) ([]ForeignKey, error) {
	rows, err := pool.QueryContext(ctx, "PRAGMA foreign_key_list("+quoteIdent(table)+")")
	if err != nil {
		return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
	}
	defer rows.Close()
	type fk struct {
		id, seq int64
		ForeignKey
	}
	var fks []fk
	for rows.Next() {
		var (
			id, seq         int64
			parent, from    string
			to              sql.NullString
			upd, del, match any
		)
		if err := rows.Scan(&id, &seq, &parent, &from, &to, &upd, &del, &match); err != nil {
			return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
		}
		f := ForeignKey{FromTable: table, FromColumn: from, ToTable: parent, ToColumn: to.String}
		if pt, ok := s.Table(parent); ok {
			f.ToTable = pt.Name
			if !to.Valid || to.String == "" {
				if int(seq) < len(pt.PrimaryKey) {
					f.ToColumn = pt.PrimaryKey[seq]
				}
			} else if c, ok := columnFold(pt, to.String); ok {
				f.ToColumn = c
			}
		}
		if ft, ok := s.Table(table); ok {
			if c, ok := columnFold(ft, from); ok {
				f.FromColumn = c
			}
		}
		fks = append(fks, fk{id, seq, f})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
	}
	// SQLite numbers foreign keys from the last declared (id 0) to the
	// first; declaration order is descending id.
	sort.SliceStable(fks, func(i, j int) bool {
		if fks[i].id != fks[j].id {
			return fks[i].id > fks[j].id
		}
		return fks[i].seq < fks[j].seq
	})
	out := make([]ForeignKey, len(fks))
	for i, f := range fks {
		out[i] = f.ForeignKey
	}
	return out, nil
}

// columnFold returns the spelling in t of the column named name
// (case-insensitive).
func columnFold(t *Table, name string) (string, bool) {
	for _, c := range t.Columns {
		if equalFold(c.Name, name) {
			return c.Name, true
		}
	}
	return "", false
}

func queryStrings(ctx context.Context, pool *sql.DB, q string) ([]string, error) {
	rows, err := pool.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if v.Valid {
			out = append(out, v.String)
		}
	}
	return out, rows.Err()
}

// SpacedName turns a snake_case, kebab-case or camelCase identifier into
// lower-case words separated by spaces ("Singer_ID" -> "singer id",
// "songName" -> "song name"), for matching schema names against a
// question's words.
func SpacedName(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z' && prevLower:
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prevLower = r >= 'a' && r <= 'z'
	}
	return strings.ToLower(b.String())
}
