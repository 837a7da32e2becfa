// Package datasets loads Text-to-SQL benchmarks in their official formats and
// gives sandboxed, read-only access to their databases.
//
// A Benchmark is a list of Examples plus a way to open each example's
// database. Databases are reached through the Engine interface; the embedded
// default is SQLite (engine_sqlite.go). Every Database executes SQL read-only,
// with a per-query timeout that interrupts the running statement and a cap on
// the rows kept, so that predicted SQL (untrusted input) can never change a
// benchmark database. Every engine runs one statement per call and refuses
// text holding a NUL byte or a second statement (statement.go); the MySQL
// engine runs each call on a session of its own (MySQLEngine).
package datasets
