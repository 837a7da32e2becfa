package datasets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/sqllex"
)

// refSingleStatement and refCheckPrediction are SingleStatement and
// CheckPrediction written plainly on sqllex.Lex's token slice: the
// specification the streaming versions are checked against.
func refSingleStatement(s string) (string, error) {
	if err := checkNUL(s); err != nil {
		return "", err
	}
	toks, _ := sqllex.Lex(s, sqliteStmtLex)
	body := s
	if i := refTerminator(toks); i >= 0 {
		for _, t := range toks[i+1:] {
			if t.Text != ";" || t.Kind != sqllex.Punct {
				return "", ErrMultipleStatements
			}
		}
		toks, body = toks[:i], s[:toks[i].Start]
	}
	if len(toks) == 0 {
		return "", errEmptyStatement
	}
	return strings.TrimSpace(body), nil
}

func refCheckPrediction(dialect, q string) error {
	if err := checkNUL(q); err != nil {
		return err
	}
	o := sqliteStmtLex
	if dialect == "mysql" {
		o = mysqlLex
	}
	toks, err := sqllex.Lex(q, o)
	if err != nil {
		return nil
	}
	i := refTerminator(toks)
	if i < 0 || i == len(toks)-1 {
		return nil
	}
	after := toks[i+1]
	return fmt.Errorf("%w: text after the statement's terminating ';' at byte %d: %q", ErrMultipleStatements, after.Start, clip(q[after.Start:], 40))
}

func refTerminator(toks []sqllex.Token) int {
	for i, t := range toks {
		if t.Kind == sqllex.Punct && t.Text == ";" {
			return i
		}
	}
	return -1
}

// statementInputs are predicted SQL and adversarial text: semicolons in
// strings, quoted names and comments, doubled and trailing ones, unclosed
// quotes and comments, MySQL escapes, '#' and executable comments, NULs,
// fences and prose a prediction may still hold.
var statementInputs = append([]string{
	"", " ", ";", " ; ", ";;", " ; -- x", "-- only\n/* c */", "SELECT 1", "  SELECT 1 ;  ", "SELECT 1;;\n-- trailing\n/* block */",
	"SELECT ';' AS x", "SELECT 'it''s;' AS x;", `SELECT "a;b" FROM t`, "SELECT [a;b], `c;d` FROM t", "SELECT 1 -- ; DROP TABLE t",
	"SELECT 1 /* ; */ + 1", "SELECT 1; DROP TABLE t", "SELECT 1; SELECT 2;", "SELECT 'unterminated; DROP", "SELECT 1\x00 AND 1=0",
	"SELECT 1;\x00", "SELECT 1 /* c */ ; /* d */ ;", "SELECT 1; /* c */ SELECT 2", "; SELECT 1", "SELECT 1; ;x",
	`SELECT 'a\';' ; SELECT 2`, `SELECT "a\";"; x`, "SELECT 1; # note", "SELECT 1; #x\nSELECT 2", "SELECT 1; /*! 40101 */",
	"SELECT 1; /*M! x */ SELECT 2", "SELECT 1;-- x", "SELECT 1; --x", "SELECT 1; /* open", "SELECT 1; 'open", "SELECT `a;", "x\xff;\xfey",
	"```sql\nSELECT 1;\n```", "<think>SELECT 1;</think> SELECT 2;", "Here is the query: SELECT 1; it counts", "SELECT 1;" + strings.Repeat(" ", 50) + strings.Repeat("long tail ", 10),
	"SELECT name FROM singer WHERE note = 'a; b' -- c;\n;", "SELECT\u00a01;\u2003", "SELECT 1 ;\n\n;\t;",
}, predictions...)

// checkStatement fails t unless SingleStatement and CheckPrediction (in
// both dialects) give s what their references give it.
func checkStatement(t *testing.T, s string) {
	t.Helper()
	got, err := SingleStatement(s)
	want, wantErr := refSingleStatement(s)
	if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Errorf("SingleStatement(%q) = %q, %v; want %q, %v", s, got, err, want, wantErr)
	}
	for _, d := range []string{"sqlite", "mysql"} {
		err, wantErr := CheckPrediction(d, s), refCheckPrediction(d, s)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("CheckPrediction(%q, %q) = %v; want %v", d, s, err, wantErr)
		}
	}
}

// TestStatementEquivalence: the statement checks agree with their
// references on predicted SQL and adversarial text.
func TestStatementEquivalence(t *testing.T) {
	for _, s := range statementInputs {
		checkStatement(t, s)
	}
}

// FuzzStatementEquivalence: the statement checks agree with their
// references on any text.
func FuzzStatementEquivalence(f *testing.F) {
	for _, s := range statementInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkStatement(t, s) })
}
