// Package testkit holds the fixtures that tests of several packages share,
// so that each is written once:
//
//   - SQLite databases built from SQL scripts in t.TempDir() (SQLite,
//     SQLiteAt, SQLFile);
//   - a fake model client, Model, that answers from a script and records
//     what it was asked: replies in order (Replies, Turns, Looping), by
//     role (ByRole), by sample (PerSample, Text, Fixed), a sensible model
//     with one step fed garbage (Sabotage); Reject refuses requests, Usage
//     and TokensPerSample report token counts;
//   - Recorder, which counts what another client was asked.
//
// It imports only the standard library, the SQLite driver and runners/llm,
// so that the tests of any package but runners/llm itself may use it
// (package datasets' and package runners' own tests included). Fixtures
// that need datasets or runners (databases opened as datasets.Database,
// the mini benchmark, the runners' shared checks) live in the
// sub-package runkit; running a whole spec through the bench API (plan,
// store, bench.DefaultEnv) in the sub-package benchkit.
//
// A typical test:
//
//	path := testkit.SQLite(t, "CREATE TABLE t (x INT); INSERT INTO t VALUES (1);")
//	m := &testkit.Model{Reply: testkit.Replies("```sql\nSELECT x FROM t\n```")}
//	// ... run the code under test with m as its llm.Client ...
//	if got := m.Calls(""); got != 1 {
//		t.Errorf("calls = %d; want 1", got)
//	}
package testkit
