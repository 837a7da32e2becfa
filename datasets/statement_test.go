package datasets

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestExecuteOneStatement: the SQLite engine refuses text holding a NUL
// byte or a second statement (ExecDenied) and runs a statement followed by
// semicolons or comments. The fixture's singer table has 5 rows, Singer_ID
// 1 to 5, so "WHERE Singer_ID = 2" gives one row and "... AND 1=0" none:
// before the NUL check SQLite stopped at the NUL and returned the row.
func TestExecuteOneStatement(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	tests := []struct {
		name   string
		sql    string
		want   [][]any // nil: refused
		errHas string
	}{
		{"NUL byte", "SELECT Name FROM singer WHERE Singer_ID = 2\x00 AND 1=0", nil, "NUL byte at byte 43"},
		{"NUL byte in a literal", "SELECT Name FROM singer WHERE Name = 'Timbaland\x00'", nil, "NUL byte"},
		{"second SELECT", "SELECT 1; SELECT 2", nil, "multiple statements"},
		{"DROP after the SELECT", "SELECT count(*) FROM singer; DROP TABLE singer", nil, "multiple statements"},
		{"second statement after a comment", "SELECT 1; /* c */ SELECT 2", nil, "multiple statements"},
		{"doubled semicolon", "SELECT count(*) FROM singer;;", [][]any{{int64(5)}}, ""},
		{"line comment after the semicolon", "SELECT count(*) FROM singer; -- note", [][]any{{int64(5)}}, ""},
		{"semicolon in a string", "SELECT Name FROM singer WHERE Name <> 'a; DROP TABLE singer' AND Singer_ID = 2", [][]any{{"Timbaland"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := db.Execute(context.Background(), tt.sql)
			if tt.want == nil {
				var ee *ExecError
				if !errors.As(err, &ee) || ee.Kind != ExecDenied || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("Execute(%q) = %v, %v; want an ExecDenied error containing %q", tt.sql, rs, err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute(%q): %v", tt.sql, err)
			}
			if !reflect.DeepEqual(rs.Rows, tt.want) {
				t.Errorf("Execute(%q) rows = %v; want %v", tt.sql, rs.Rows, tt.want)
			}
		})
	}
}

// TestCheckPrediction: the scorer's rule for predictions, in both
// dialects. A ';' inside a string, quoted identifier or comment does not
// end the statement; MySQL's backslash escapes and '#' comments count only
// in the mysql dialect.
func TestCheckPrediction(t *testing.T) {
	tests := []struct {
		dialect, sql string
		err          string // "" when accepted
	}{
		{"sqlite", "SELECT 1", ""},
		{"sqlite", "SELECT 1;", ""},
		{"sqlite", "SELECT 1;\n", ""},
		{"sqlite", "SELECT 1; -- note", ""},
		{"sqlite", "SELECT 1; /* note */", ""},
		{"sqlite", "SELECT ';' FROM t -- ; x", ""},
		{"sqlite", "SELECT [a;b], \"c;d\", `e;f` FROM t;", ""},
		{"sqlite", "SELECT 'open; SELECT 2", ""},
		{"sqlite", "SELECT 1 WHERE d = 'CS'\x00 AND 1=0", "the SQL text holds a NUL byte at byte 23 (refused: SQLite stops reading a statement at a NUL)"},
		{"sqlite", "SELECT 1; SELECT 2", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 10: "SELECT 2"`},
		{"sqlite", "SELECT x FROM t; DROP TABLE x", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 17: "DROP TABLE x"`},
		{"sqlite", "SELECT 1;;", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 9: ";"`},
		{"sqlite", "SELECT 1; -- a\n;", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 15: ";"`},
		{"sqlite", "SELECT 'a\\'; SELECT 2 --'", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 13: "SELECT 2 --'"`},
		{"mysql", "SELECT 'a\\'; SELECT 2 --'", ""},
		{"mysql", "SELECT 1; # note", ""},
		{"mysql", "SELECT 1; SELECT 2", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 10: "SELECT 2"`},
		{"mysql", "SELECT 1;;", `multiple statements: only one statement may run: text after the statement's terminating ';' at byte 9: ";"`},
		{"mysql", "SELECT 1 \x00", "the SQL text holds a NUL byte at byte 9 (refused: SQLite stops reading a statement at a NUL)"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect+" "+tt.sql, func(t *testing.T) {
			err := CheckPrediction(tt.dialect, tt.sql)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Errorf("CheckPrediction(%q, %q) = %q; want %q", tt.dialect, tt.sql, got, tt.err)
			}
		})
	}
}

// FuzzCheckPrediction: what the scorer accepts as a prediction the SQLite
// engine runs as one statement (it may still find it empty), and a text
// the engine refuses as several statements or for a NUL byte the scorer
// refuses too.
func FuzzCheckPrediction(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 1;", "SELECT 1;;", "SELECT 1; -- note", "SELECT 1; SELECT 2",
		"SELECT ';' FROM t -- ;", "SELECT 1 WHERE d = 'CS'\x00 AND 1=0", "SELECT [a;b];/* c */"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_, engErr := SingleStatement(q)
		refused := errors.Is(engErr, ErrMultipleStatements) || errors.Is(engErr, ErrNULByte)
		if err := CheckPrediction("sqlite", q); err == nil && refused {
			t.Errorf("CheckPrediction(%q) accepts what SingleStatement refuses: %v", q, engErr)
		}
	})
}
