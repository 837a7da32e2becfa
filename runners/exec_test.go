package runners

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

func TestExecFeedback(t *testing.T) {
	rs := func(rows ...[]any) *datasets.ResultSet {
		return &datasets.ResultSet{Columns: []string{"a", "b"}, Rows: rows}
	}
	long := strings.Repeat("x", 70)
	tests := []struct {
		name  string
		rs    *datasets.ResultSet
		err   error
		valid bool
		want  string
	}{
		{"error", nil, errors.New("no such column: c"), false, "Execution error: no such column: c"},
		{"empty", rs(), nil, false, "returned no rows"},
		{"all NULL", rs([]any{nil, nil}), nil, false, "every returned value is NULL"},
		{"rows", rs([]any{int64(1), nil}, []any{2.5, long}), nil, true, "2 row(s) with columns a, b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasValue(tc.rs); got != tc.valid {
				t.Errorf("HasValue = %v; want %v", got, tc.valid)
			}
			got := ExecFeedback(tc.rs, tc.err)
			if !strings.Contains(got, tc.want) {
				t.Errorf("ExecFeedback = %q; want it to contain %q", got, tc.want)
			}
		})
	}
	got := ExecFeedback(rs([]any{int64(1), nil}, []any{2.5, long}), nil)
	if !strings.Contains(got, "(1, NULL)") || !strings.Contains(got, strings.Repeat("x", 60)+"...") || strings.Contains(got, strings.Repeat("x", 61)) {
		t.Errorf("rows not rendered with NULL and 60-byte cut:\n%s", got)
	}
}

// countingDB answers every query with one row and counts executions.
type countingDB struct {
	datasets.Database
	calls int
}

func (d *countingDB) Execute(ctx context.Context, sql string) (*datasets.ResultSet, error) {
	d.calls++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{{int64(1)}}}, nil
}

func TestExecutionsMemo(t *testing.T) {
	db := &countingDB{}
	x := NewExecutions(db)
	ctx := context.Background()
	a, b := x.Run(ctx, "SELECT 1"), x.Run(ctx, "SELECT 1")
	if a != b || db.calls != 1 {
		t.Errorf("same SQL twice: %d executions, same result %v; want 1 and true", db.calls, a == b)
	}
	if !a.Valid || a.Err != nil || a.Key != a.Result.SetKey() {
		t.Errorf("execution %+v; want valid with the result's set key", a)
	}
	if e := x.Run(ctx, "  "); e.Err == nil || db.calls != 1 {
		t.Errorf("blank SQL: err %v after %d executions; want an error and no execution", e.Err, db.calls)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	x.Run(canceled, "SELECT 2")
	x.Run(ctx, "SELECT 2")
	if db.calls != 3 {
		t.Errorf("an execution cut short by ctx was remembered: %d executions; want 3", db.calls)
	}
}

func TestTaskDialect(t *testing.T) {
	if got := (Task{}).Dialect(); got != "sqlite" {
		t.Errorf("Dialect without a database = %q; want sqlite", got)
	}
	if got := (Task{DB: mysqlDB{}}).Dialect(); got != "mysql" {
		t.Errorf("Dialect = %q; want the database's (mysql)", got)
	}
}

type mysqlDB struct{ datasets.Database }

func (mysqlDB) Dialect() string { return "mysql" }

func TestModelRejected(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"context length 400", fmt.Errorf("alphasql/sql_generation: %w", &llm.StatusError{StatusCode: 400, Message: "This model's maximum context length is 32768 tokens"}), true},
		{"payload too large", &llm.StatusError{StatusCode: 413}, true},
		{"unprocessable", &llm.StatusError{StatusCode: 422}, true},
		{"unauthorized", &llm.StatusError{StatusCode: 401}, false},
		{"forbidden", &llm.StatusError{StatusCode: 403}, false},
		{"unknown model", &llm.StatusError{StatusCode: 404}, false},
		{"rate limited after retries", &llm.StatusError{StatusCode: 429}, false},
		{"request timeout", &llm.StatusError{StatusCode: 408}, false},
		{"server error after retries", &llm.StatusError{StatusCode: 503}, false},
		{"network", errors.New("dial tcp: connection refused"), false},
		{"canceled", context.Canceled, false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := ModelRejected(tc.err); got != tc.want {
			t.Errorf("%s: got %v; want %v", tc.name, got, tc.want)
		}
	}
}
