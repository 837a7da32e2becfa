package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// rowsDB executes "SELECT <n>" as n rows of one column, each a distinct
// result set. It has a size, so that two of them are two pointers.
type rowsDB struct {
	fakeDB
	name string
}

func (*rowsDB) Execute(_ context.Context, sql string) (*datasets.ResultSet, error) {
	var n int
	if _, err := fmt.Sscanf(sql, "SELECT %d", &n); err != nil {
		return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "syntax error"}
	}
	rs := &datasets.ResultSet{Columns: []string{"n"}}
	for i := range n {
		rs.Rows = append(rs.Rows, []any{int64(i)})
	}
	return rs, nil
}

// TestExecRecorder keeps the result of each statement a runner executed
// successfully, on its own handle only, within execRecorderCells cells in
// all (a statement executed again counts once).
func TestExecRecorder(t *testing.T) {
	t.Parallel()
	db, other := &rowsDB{name: "db"}, &rowsDB{name: "other"}
	half := execRecorderCells / 2
	for _, tc := range []struct {
		name     string
		executed []string
		on       *rowsDB
		look     string
		want     bool
	}{
		{name: "executed", executed: []string{"SELECT 3"}, on: db, look: "SELECT 3", want: true},
		{name: "another handle", executed: []string{"SELECT 3"}, on: other, look: "SELECT 3"},
		{name: "another text", executed: []string{"SELECT 3"}, on: db, look: "SELECT 3 "},
		{name: "failed", executed: []string{"SELEC 3"}, on: db, look: "SELEC 3"},
		{name: "at the bound", executed: []string{fmt.Sprintf("SELECT %d", half), fmt.Sprintf("SELECT %d", half)}, on: db,
			look: fmt.Sprintf("SELECT %d", half), want: true},
		{name: "the same twice within the bound", executed: []string{fmt.Sprintf("SELECT %d", half+1), fmt.Sprintf("SELECT %d", half+1), "SELECT 5"}, on: db,
			look: "SELECT 5", want: true},
		{name: "past the bound", executed: []string{fmt.Sprintf("SELECT %d", half+1), fmt.Sprintf("SELECT %d", half)}, on: db,
			look: fmt.Sprintf("SELECT %d", half)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &execRecorder{Database: db}
			for _, q := range tc.executed {
				r.Execute(context.Background(), q)
			}
			rs, ok := r.lookup(tc.on, tc.look)
			if ok != tc.want {
				t.Fatalf("lookup(%q) kept %v; want %v", tc.look, ok, tc.want)
			}
			if ok && rs == nil {
				t.Errorf("lookup(%q) kept a nil result; want the result", tc.look)
			}
			if r.cells > execRecorderCells {
				t.Errorf("kept %d cells; want at most %d", r.cells, execRecorderCells)
			}
		})
	}
}
