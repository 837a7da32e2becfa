package runners

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// ModelRejected reports whether err is a model server's permanent refusal
// of one request: a failure whose class (llm.ErrorClass) has the outcome
// llm.OutcomeRefused, such as a 400 for a prompt too long for the context
// window, 413 or 422, which retrying cannot fix and which concerns this
// request only. A search method prunes the branch whose request was
// refused and goes on. Everything else is a failure that a runner returns,
// so that the run decides by the same class: network errors, 408/429/5xx
// after the client's retries and context cancellation leave the item
// pending; 401/403 (credentials) and 404 (unknown model or endpoint) stop
// the run.
func ModelRejected(err error) bool {
	return err != nil && llm.HandlingOf(llm.ErrorClass(err)).Outcome == llm.OutcomeRefused
}

// HasValue reports whether rs holds at least one non-NULL value: with
// "executes", Alpha-SQL's validity of a result (empty and all-NULL results
// are invalid), which IESR's Exec term reuses.
func HasValue(rs *datasets.ResultSet) bool {
	if rs == nil {
		return false
	}
	for _, r := range rs.Rows {
		for _, v := range r {
			if v != nil {
				return true
			}
		}
	}
	return false
}

// ExecFeedback describes an execution for a revision prompt: the error, an
// empty or all-NULL result, or the row count, columns and first five rows
// (values cut at 60 bytes).
func ExecFeedback(rs *datasets.ResultSet, err error) string {
	switch {
	case err != nil:
		return "Execution error: " + err.Error()
	case rs == nil || len(rs.Rows) == 0:
		return "The query executed but returned no rows."
	case !HasValue(rs):
		return "The query executed but every returned value is NULL."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The query returned %d row(s) with columns %s. First rows:\n", len(rs.Rows), strings.Join(rs.Columns, ", "))
	for i, r := range rs.Rows {
		if i == 5 {
			break
		}
		parts := make([]string, len(r))
		for j, v := range r {
			s := fmt.Sprint(v)
			if v == nil {
				s = "NULL"
			}
			if len(s) > 60 {
				s = s[:60] + "..."
			}
			parts[j] = s
		}
		b.WriteString("(" + strings.Join(parts, ", ") + ")\n")
	}
	return b.String()
}

// Execution is one SQL's execution on a task's database.
type Execution struct {
	Result *datasets.ResultSet
	Err    error
	// Valid: executed and holds at least one non-NULL value (HasValue).
	Valid bool
	// Key groups equal results: the result as a set of rows
	// (datasets.ResultSet.SetKey), set when Err is nil.
	Key string
}

// Feedback describes the execution for a revision prompt (ExecFeedback).
func (e *Execution) Feedback() string { return ExecFeedback(e.Result, e.Err) }

// Executions runs each SQL of one task at most once and remembers the
// outcome (search methods execute the same candidate many times). An
// execution cut short by ctx is not remembered. Not safe for concurrent use.
type Executions struct {
	db   datasets.Database
	done map[string]*Execution
}

// NewExecutions returns an empty memo over db.
func NewExecutions(db datasets.Database) *Executions {
	return &Executions{db: db, done: map[string]*Execution{}}
}

// Run executes sql, or returns its remembered execution. Blank SQL is an
// execution error ("no SQL").
func (x *Executions) Run(ctx context.Context, sql string) *Execution {
	if e, ok := x.done[sql]; ok {
		return e
	}
	e := &Execution{}
	switch {
	case strings.TrimSpace(sql) == "":
		e.Err = errors.New("no SQL")
	case x.db == nil:
		e.Err = errors.New("no database")
	default:
		e.Result, e.Err = x.db.Execute(ctx, sql)
	}
	if e.Err == nil {
		e.Key = e.Result.SetKey()
		e.Valid = HasValue(e.Result)
	}
	if ctx.Err() == nil {
		x.done[sql] = e
	}
	return e
}
