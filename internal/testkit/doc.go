// Package testkit holds the fixtures that tests of several packages share,
// so that each is written once: SQLite databases built from SQL scripts in
// t.TempDir() (SQLite, SQLiteAt, Script) and a fake model client that
// answers from a script and records what it was asked (Model, Counter).
//
// It imports only the standard library, the SQLite driver and runners/llm,
// so that the tests of any package but runners/llm itself may use it
// (package datasets' own tests included). Helpers that need datasets or
// runners live in the sub-package runkit.
//
// A typical test:
//
//	path := testkit.SQLite(t, "CREATE TABLE t (x INT); INSERT INTO t VALUES (1);")
//	m := &testkit.Model{Reply: testkit.Text("```sql\nSELECT x FROM t\n```")}
//	... run the code under test with m as its llm.Client ...
//	if got := m.Calls(""); got != 1 { t.Errorf("calls = %d; want 1", got) }
package testkit
