package datasets

// PooledExecute returns a handle on the same schema whose Execute runs on
// d's pooled connections, reused from one statement to the next, as every
// Execute ran before each got a session of its own: the baseline of
// BenchmarkMySQLSessionIsolation and of the isolation test's check that
// the pooled path leaks session state. It shares d's pools; close d, not
// the handle.
func (d *MySQLDatabase) PooledExecute() *MySQLDatabase {
	return &MySQLDatabase{id: d.id, schemaName: d.schemaName, db: d.db, exec: d.db, reuse: true, admin: d.admin,
		timeout: d.timeout, maxRows: d.maxRows, maxBytes: d.maxBytes, fp: d.fp}
}
