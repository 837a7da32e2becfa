package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckMySQLReadOnly(t *testing.T) {
	ok := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"  select a from t;  ", "select a from t"},
		{"SELECT 1;;\n-- trailing comment", "SELECT 1"},
		{"WITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH c AS (SELECT 1 AS x) SELECT x FROM c"},
		{"(SELECT 1) UNION (SELECT 2)", "(SELECT 1) UNION (SELECT 2)"},
		{"SELECT 'a;b', \"DROP TABLE x\", `into` FROM t", "SELECT 'a;b', \"DROP TABLE x\", `into` FROM t"},
		{"SELECT REPLACE(a, 'x', 'y'), INSERT(a, 1, 2, 'z'), TRUNCATE(b, 2) FROM t", "SELECT REPLACE(a, 'x', 'y'), INSERT(a, 1, 2, 'z'), TRUNCATE(b, 2) FROM t"},
		{"/* lead */ SELECT 'it''s', 'a\\'b' # c", "SELECT 'it''s', 'a\\'b'"},
		{"SELECT SLEEP(100)", "SELECT SLEEP(100)"},
		{"SELECT IS_FREE_LOCK('x'), IS_USED_LOCK('x')", "SELECT IS_FREE_LOCK('x'), IS_USED_LOCK('x')"},
		{"SELECT get_lock, `GET_LOCK` FROM t", "SELECT get_lock, `GET_LOCK` FROM t"},
	}
	for _, c := range ok {
		got, err := CheckMySQLReadOnly(c.in)
		if err != nil || got != c.want {
			t.Errorf("CheckMySQLReadOnly(%q) = %q, %v; want %q, nil", c.in, got, err, c.want)
		}
	}
	denied := []string{
		"", ";", "-- only a comment",
		"DROP TABLE t", "UPDATE t SET a = 1", "INSERT INTO t VALUES (1)", "DELETE FROM t",
		"CREATE TABLE x (a int)", "ALTER TABLE t ADD b int", "TRUNCATE TABLE t", "REPLACE INTO t VALUES (1)",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "HANDLER t OPEN", "CALL p()", "DO SLEEP(1)",
		"SET GLOBAL max_connections = 1", "SET SESSION max_statement_time = 0",
		"SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(100)",
		"SELECT * FROM t INTO OUTFILE '/tmp/x'", "SELECT * INTO DUMPFILE '/tmp/x' FROM t",
		"SELECT a INTO @v FROM t", "SELECT a FROM t FOR UPDATE", "SELECT a FROM t LOCK IN SHARE MODE",
		"SELECT 1; DROP TABLE t", "SELECT 1; SELECT 2",
		"SELECT 1 /*! INTO OUTFILE '/tmp/x' */", "SELECT 1 /*M! ,2 */",
		"SELECT 'unterminated", "SELECT 1 /* open",
		"WITH c AS (SELECT 1) DELETE FROM t", "SHOW TABLES", "EXPLAIN SELECT 1", "KILL 1",
		"GRANT ALL ON *.* TO x", "(UPDATE t SET a=1)", "VALUES (1)",
		"SELECT GET_LOCK('x', 0)", "SELECT get_lock ('x', 0)", "SELECT `GET_LOCK`('x', 0)", "SELECT 1 FROM t WHERE Get_Lock/* c */('x', 0)",
		"SELECT 1\x00 AND 1=0", "SELECT 1 \x00",
	}
	for _, q := range denied {
		if got, err := CheckMySQLReadOnly(q); err == nil {
			t.Errorf("CheckMySQLReadOnly(%q) = %q, nil; want an error", q, got)
		}
	}
}

// TestCheckMySQLReadOnlyLexing: the text on which the check's tokens
// differ from sqllex.Tokens (MySQL comments and escapes, words of '@',
// digits and non-ASCII bytes, one-byte punctuation). The wants are the
// output of the check's own lexer before it used sqllex, which every gold
// query of the shared data also matched.
func TestCheckMySQLReadOnlyLexing(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "<> SELECT 1", err: `only a single SELECT/WITH statement may run (statement starts with "<")`},
		{in: "SELECT @update, 1update FROM t", want: "SELECT @update, 1update FROM t"},
		{in: "SELECT 1.update FROM t", err: "keyword UPDATE is not allowed in a read-only query"},
		{in: "SELECT\u00a0update FROM t", err: `only a single SELECT/WITH statement may run (statement starts with "SELECT\u00a0update")`},
		{in: "SELECT 'a\\'; DROP' FROM t", want: "SELECT 'a\\'; DROP' FROM t"},
		{in: "SELECT `a\\` FROM t; DROP TABLE t", err: "multiple statements: only one statement may run"},
		{in: "SELECT [a] FROM t", want: "SELECT [a] FROM t"},
		{in: "SELECT 1 --1 FROM t", want: "SELECT 1 --1 FROM t"},
		{in: "SELECT 1 -- x; DROP TABLE t", want: "SELECT 1"},
		{in: "SELECT 1 # x; DROP TABLE t", want: "SELECT 1"},
		{in: "SELECT 1 /*M! ; DROP TABLE t */", err: "executable comments (/*! ... */) are not allowed"},
		{in: "SELECT 1 /* open", err: "unterminated comment"},
		{in: "SELECT 'open", err: "unterminated ' literal at byte 7"},
		{in: "((SELECT 1));", want: "((SELECT 1))"},
	}
	for _, tt := range tests {
		got, err := CheckMySQLReadOnly(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("CheckMySQLReadOnly(%q): got %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func FuzzCheckMySQLReadOnly(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 'a'';' FROM t;", "WITH x AS (SELECT 1) SELECT * FROM x", "SELECT 1 -- c\n;", "SELECT `a``b` FROM t # x",
		"SELECT 1 WHERE d = 'CS'\x00 AND 1=0", "SELECT 1;;", "SELECT GET_LOCK('x', 0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, err := CheckMySQLReadOnly(q)
		if err != nil {
			return
		}
		// An accepted statement is stable under a second check and
		// starts with SELECT, WITH or '('.
		again, err := CheckMySQLReadOnly(out)
		if err != nil || again != out {
			t.Fatalf("recheck of %q: %q, %v", out, again, err)
		}
		if strings.IndexByte(out, 0) >= 0 {
			t.Fatalf("accepted %q holds a NUL byte", out)
		}
		u := strings.ToUpper(strings.TrimLeft(out, "( \t\r\n\f\v"))
		if !strings.HasPrefix(u, "SELECT") && !strings.HasPrefix(u, "WITH") {
			// A leading comment may precede the keyword only before trimming.
			if !strings.HasPrefix(strings.TrimSpace(out), "(") {
				t.Fatalf("accepted %q starts with neither SELECT nor WITH", out)
			}
		}
	})
}

func TestGrantBeyondSelect(t *testing.T) {
	cases := []struct{ grant, want string }{
		{"GRANT USAGE ON *.* TO `ro`@`localhost` IDENTIFIED BY PASSWORD '*AB'", ""},
		{"GRANT SELECT ON `bike`.* TO `ro`@`localhost`", ""},
		{"GRANT SELECT (a, b) ON `bike`.`t` TO `ro`@`localhost`", ""},
		{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION", "GRANT OPTION"},
		{"GRANT SELECT, INSERT ON `bike`.* TO `x`@`%`", "INSERT"},
		{"GRANT PROXY ON ''@'%' TO 'root'@'localhost'", "PROXY"},
		{"GRANT `admin_role` TO `x`@`%`", "a role"},
	}
	for _, c := range cases {
		if got := grantBeyondSelect(c.grant); got != c.want {
			t.Errorf("grantBeyondSelect(%q) = %q; want %q", c.grant, got, c.want)
		}
	}
}

func TestMySQLValue(t *testing.T) {
	cases := []struct {
		typ  string
		in   []byte
		want any
	}{
		{"INT", nil, nil},
		{"INT", []byte("-42"), int64(-42)},
		{"UNSIGNED BIGINT", []byte("18446744073709551615"), float64(18446744073709551615)},
		{"DECIMAL", []byte("15"), int64(15)},
		{"DECIMAL", []byte("3.50"), 3.5},
		{"DECIMAL", []byte("-0.125"), -0.125},
		{"DOUBLE", []byte("1e-05"), 1e-05},
		{"FLOAT", []byte("46.2"), 46.2},
		{"DATETIME", []byte("2023-01-01 00:00:00"), "2023-01-01 00:00:00"},
		{"TIME", []byte("-01:00:00"), "-01:00:00"},
		{"VARCHAR", []byte("BK H?cken"), "BK H?cken"},
		{"TEXT", []byte{0xff, 'a'}, string([]byte{0xff, 'a'})},
		{"BLOB", []byte{0, 1}, []byte{0, 1}},
		{"ENUM", []byte("x"), "x"},
	}
	for _, c := range cases {
		got := mysqlValue(c.typ, c.in)
		if b, ok := c.want.([]byte); ok {
			if gb, ok := got.([]byte); !ok || string(gb) != string(b) {
				t.Errorf("mysqlValue(%s, %q) = %#v; want %#v", c.typ, c.in, got, c.want)
			}
			continue
		}
		if got != c.want {
			t.Errorf("mysqlValue(%s, %q) = %#v (%T); want %#v (%T)", c.typ, c.in, got, got, c.want, c.want)
		}
	}
}

func TestParseMySQLDump(t *testing.T) {
	dump := "/*\n Navicat Premium Data Transfer\n Source Schema         : Shop\n*/\n" +
		"SET NAMES utf8mb4;\n-- ----\n-- comment; with semicolon\n" +
		"CREATE TABLE `item` (\n `id` int NOT NULL,\n `name` varchar(20) COLLATE utf8mb4_0900_ai_ci COMMENT 'a;b',\n PRIMARY KEY (`id`)\n) ENGINE=InnoDB COLLATE=utf8mb4_0900_ai_ci;\n" +
		"INSERT INTO `item` VALUES (1, 'x (y'), (2, 'it''s');\n" +
		"INSERT INTO `item` VALUES (3, 'a\\');b');\n" +
		"CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`%` SQL SECURITY DEFINER VIEW `v` AS select 1;\n"
	p := filepath.Join(t.TempDir(), "shop.sql")
	if err := os.WriteFile(p, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ParseMySQLDump(p, "utf8mb4_unicode_ci")
	if err != nil {
		t.Fatal(err)
	}
	if d.Schema != "Shop" {
		t.Errorf("schema = %q; want Shop (from the header)", d.Schema)
	}
	if len(d.Statements) != 5 {
		t.Fatalf("got %d statements; want 5: %q", len(d.Statements), d.Statements)
	}
	if got := d.Rows["item"]; got != 3 {
		t.Errorf("rows(item) = %d; want 3", got)
	}
	if len(d.Tables) != 1 || d.Tables[0] != "item" {
		t.Errorf("tables = %v; want [item]", d.Tables)
	}
	all := strings.Join(d.Statements, "\n")
	if strings.Contains(all, "0900") || !strings.Contains(all, "utf8mb4_unicode_ci") {
		t.Errorf("collation not rewritten: %s", all)
	}
	if strings.Contains(all, "DEFINER=") {
		t.Errorf("DEFINER not stripped: %s", d.Statements[4])
	}

	bad := filepath.Join(t.TempDir(), "bad.sql")
	os.WriteFile(bad, []byte("SELECT 1;\n\nINSERT INTO `t` VALUES (1, 'open\n"), 0o644)
	if _, err := ParseMySQLDump(bad, ""); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unterminated literal: err = %v; want one naming line 3", err)
	}
}
