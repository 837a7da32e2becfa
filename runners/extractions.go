package runners

import (
	"sync"

	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Extractions remembers how each SQL a runner read from the model's
// responses was found (sqltext.Extraction.Reason), by the statement's
// normalised text (sqltext.Normalise), so that a runner choosing among
// many responses (a vote, a search) can record the reason of the response
// its final SQL came from: the first response that gave that SQL. It is
// safe for concurrent use; the zero value is ready.
type Extractions struct {
	mu sync.Mutex
	m  map[string]sqltext.Reason
}

// Note records the reason of e, when e found SQL and no earlier response
// gave the same statement.
func (x *Extractions) Note(e sqltext.Extraction) {
	if !e.Found() {
		return
	}
	k := sqltext.Normalise(e.SQL)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[string]sqltext.Reason{}
	}
	if _, ok := x.m[k]; !ok {
		x.m[k] = e.Reason
	}
}

// Extract reads the SQL of a model response as sqltext.Extract does and
// notes how it was found (Note).
func (x *Extractions) Extract(out string) (string, bool) {
	e := sqltext.ExtractSQL(out)
	x.Note(e)
	return e.SQL, e.Found()
}

// Of returns the reason recorded for sql: sqltext.ReasonNone when sql is
// empty (no answer), "" when no noted response gave it.
func (x *Extractions) Of(sql string) sqltext.Reason {
	if sql == "" {
		return sqltext.ReasonNone
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.m[sqltext.Normalise(sql)]
}
