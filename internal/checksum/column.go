package checksum

import (
	"context"
	"database/sql"
	"strings"
)

// Column is the column that holds each row's checksum in the stores'
// SQLite tables (an INTEGER, NULL in a row stored before checksums).
const Column = "sum"

// HasColumn reports whether table has the checksum column (Column): a
// file written before checksums, opened read-only, may lack it.
func HasColumn(ctx context.Context, db *sql.DB, table string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, Column).Scan(&n)
	return n > 0, err
}

// AddColumn adds the checksum column to table, made before checksums,
// unless it has it; the rows already there read NULL in it (unverified).
// Another process may add it at the same time: a duplicate column is not
// an error.
func AddColumn(ctx context.Context, db *sql.DB, table string) error {
	ok, err := HasColumn(ctx, db, table)
	if err != nil || ok {
		return err
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE "`+table+`" ADD COLUMN `+Column+` INTEGER`); err != nil && !strings.Contains(err.Error(), "duplicate column") {
		return err
	}
	return nil
}

// Selected is what a query of a table selects as its checksum: Column
// when the table has it (has, from HasColumn), else NULL, so that the
// rows of a file written before checksums read as unverified.
func Selected(has bool) string {
	if has {
		return Column
	}
	return "NULL"
}
