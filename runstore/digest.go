package runstore

import (
	"database/sql"
	"encoding/json"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// resultDigest is the part of an item's result that reports aggregate and
// exports write: its final SQL, how it was found in the model's response
// (runners.Result.Extraction), usage by role and trace counters. Commit stores it beside the
// compressed result (items.digest), so that a report reads a few hundred
// bytes per item instead of inflating and decoding its whole trace. Rows
// written before the digest existed have items.digest NULL; readers then
// decode these fields from the result itself (digestFromResult). Results
// and digests stored before runners recorded extraction reasons have none
// (Extraction reads "", which counts as sqltext.ReasonUnrecorded).
type resultDigest struct {
	SQL        string                       `json:"sql,omitempty"`
	Extraction sqltext.Reason               `json:"extraction,omitempty"`
	Usage      map[string]runners.RoleUsage `json:"usage,omitempty"`
	Counters   map[string]float64           `json:"counters,omitempty"`
}

func digestOf(r *runners.Result) resultDigest {
	return resultDigest{SQL: r.SQL, Extraction: r.Extraction, Usage: r.Usage, Counters: r.Trace.Counters}
}

// result returns the digest as a result holding only its SQL, extraction
// reason, usage and trace counters: what ReadReport gives each item.
func (d resultDigest) result() *runners.Result {
	return &runners.Result{SQL: d.SQL, Extraction: d.Extraction, Usage: d.Usage, Trace: runners.Trace{Counters: d.Counters}}
}

// digestFromResult decodes the usage and trace counters of a stored result
// (compressed or not), skipping everything else.
func digestFromResult(b []byte) (resultDigest, error) {
	raw, err := storedJSON(b)
	if err != nil {
		return resultDigest{}, err
	}
	var partial struct {
		SQL        string                       `json:"sql"`
		Extraction sqltext.Reason               `json:"extraction"`
		Usage      map[string]runners.RoleUsage `json:"usage"`
		Trace      struct {
			Counters map[string]float64 `json:"counters"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(raw, &partial); err != nil {
		return resultDigest{}, err
	}
	return resultDigest{SQL: partial.SQL, Extraction: partial.Extraction, Usage: partial.Usage, Counters: partial.Trace.Counters}, nil
}

// itemCountersSQL is the SQL expression, over the items row named alias,
// of the item's trace counters as a JSON object (NULL when it has none),
// for queries that aggregate counters in SQLite (json_each) without
// decoding any result: the digest's counters, or, in a row written before
// digests existed, the counters of the result's JSON text in
// items.result. Stores without the digest column have only the latter.
func itemCountersSQL(db *sql.DB, alias string) (string, error) {
	legacy := `json_extract(` + alias + `.result, '$.trace.counters')`
	ok, err := hasColumn(db, "items", "digest")
	if err != nil || !ok {
		return legacy, err
	}
	return `(CASE WHEN ` + alias + `.digest IS NOT NULL THEN json_extract(` + alias + `.digest, '$.counters') WHEN ` + alias + `.result IS NOT NULL THEN ` + legacy + ` END)`, nil
}
