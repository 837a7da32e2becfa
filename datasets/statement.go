package datasets

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/sqllex"
)

// One statement per Execute: the rules every engine applies to the text it
// is given (gold, prediction or a runner's own query), and the stricter one
// the scorer applies to predictions (CheckPrediction).
//
// A NUL byte is refused anywhere in the text. SQLite reads a statement as
// a C string and stops at the first NUL, so that
// "... WHERE dept = 'CS'\x00 AND 1=0" would run as "... WHERE dept = 'CS'";
// MariaDB reads a NUL inside a literal as a character, one elsewhere as a
// syntax error, and a final one as the end of the text. Python's sqlite3,
// which the Spider and BIRD scorers run, refuses such text with
// "the query contains a null character".
//
// After the first statement's terminating ';' (a ';' outside strings,
// quoted identifiers and comments, found with package sqllex in the
// engine's dialect) an engine accepts only white space, comments and more
// semicolons: those are dropped, so that a gold ending in ";;" or "; --
// note" runs as before. Any other text is a second statement and the
// engine refuses the whole text (ErrMultipleStatements). A prediction
// must also not hold a second ';' (CheckPrediction).

// ErrNULByte marks SQL text holding a NUL byte.
var ErrNULByte = errors.New("the SQL text holds a NUL byte")

// ErrMultipleStatements marks SQL text holding more than one statement.
var ErrMultipleStatements = errors.New("multiple statements: only one statement may run")

// errEmptyStatement is the failure of text with no statement in it.
var errEmptyStatement = errors.New("empty statement")

// sqliteStmtLex are the sqllex options the SQLite engine splits statements
// with: SQLite's quotes ('...', "...", `...`, [...], a doubled quote read as
// one), "--" and /* */ comments; an unterminated quote or comment runs to
// the end, where SQLite itself reports it.
var sqliteStmtLex = sqllex.Options{}

// checkNUL returns an error wrapping ErrNULByte, naming the offset of the
// first NUL byte of q, or nil when q holds none.
func checkNUL(q string) error {
	if i := strings.IndexByte(q, 0); i >= 0 {
		return fmt.Errorf("%w at byte %d (refused: SQLite stops reading a statement at a NUL)", ErrNULByte, i)
	}
	return nil
}

// SingleStatement returns the one SQL statement in s, as the SQLite engine
// runs it: surrounding white space, its terminating ';' and the white
// space, comments and semicolons after it removed (comments inside or
// before the statement stay). String literals, quoted identifiers ("x",
// `x`, [x]) and comments are honoured, so a ';' inside them does not
// split. It fails when s holds a NUL byte (ErrNULByte), holds anything
// else after the first statement (ErrMultipleStatements), or holds no
// statement.
func SingleStatement(s string) (string, error) {
	if err := checkNUL(s); err != nil {
		return "", err
	}
	// Text without a ';' byte lexes to no ';' token: it is one statement
	// when it holds any token, and the first one settles that.
	semis := strings.IndexByte(s, ';') >= 0
	term := -1 // the first ';' token's offset
	found, more := false, false
	sqllex.Scan(s, sqliteStmtLex, func(t sqllex.Token) bool { // never fails without Strict
		semi := t.Kind == sqllex.Punct && t.Text == ";"
		switch {
		case term < 0 && semi:
			term = t.Start
		case term < 0:
			found = true
			return semis
		case !semi:
			more = true
			return false
		}
		return true
	})
	if more {
		return "", ErrMultipleStatements
	}
	if !found {
		return "", errEmptyStatement
	}
	if term >= 0 {
		s = s[:term]
	}
	return strings.TrimSpace(s), nil
}

// CheckPrediction checks predicted SQL as the scorer requires before it
// runs, on every engine and in every mode: no NUL byte (ErrNULByte), and
// after the first statement's terminating ';' nothing but white space and
// comments (ErrMultipleStatements). Unlike an engine it refuses a second
// ';' too ("SELECT 1;;"), which begins an empty statement: Python's sqlite3
// refuses it, with "You can only execute one statement at a time.", as it
// refuses "SELECT 1; SELECT 2". dialect is the engine's ("sqlite",
// "mysql"): its lexer decides what is a string or a comment (MySQL's
// backslash escapes, '#' comments). Text the dialect's lexer rejects (an
// unterminated quote in MySQL) passes here; the engine refuses it.
func CheckPrediction(dialect, q string) error {
	if err := checkNUL(q); err != nil {
		return err
	}
	if strings.IndexByte(q, ';') < 0 {
		return nil // no ';' byte, no terminating ';' token
	}
	o := sqliteStmtLex
	if dialect == "mysql" {
		o = mysqlLex
	}
	// The whole text is lexed, for the dialect's lexer may reject it
	// after the statement.
	terminated, after := false, -1 // after: the offset of the token after the first ';'
	err := sqllex.Scan(q, o, func(t sqllex.Token) bool {
		switch {
		case after >= 0:
		case terminated:
			after = t.Start
		case t.Kind == sqllex.Punct && t.Text == ";":
			terminated = true
		}
		return true
	})
	if err != nil || after < 0 {
		return nil
	}
	return fmt.Errorf("%w: text after the statement's terminating ';' at byte %d: %q", ErrMultipleStatements, after, clip(q[after:], 40))
}

// clip returns s cut to at most n bytes (on a rune boundary), with "..."
// when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
