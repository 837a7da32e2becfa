package bench

import (
	"context"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
)

// execRecorderCells bounds the cells (rows times columns) of the results
// one item's execRecorder keeps.
const execRecorderCells = 1 << 16

// execRecorder is the database a runner is given for one item: it keeps
// the result of each statement the runner executed successfully, by text,
// so that scoring the item judges those texts on them
// (metrics.WithExecuted) instead of executing them again. Results past
// execRecorderCells in all are not kept.
type execRecorder struct {
	datasets.Database

	mu      sync.Mutex
	results map[string]*datasets.ResultSet
	cells   int
}

// Execute executes sql on the item's database and keeps its result.
func (r *execRecorder) Execute(ctx context.Context, sql string) (*datasets.ResultSet, error) {
	rs, err := r.Database.Execute(ctx, sql)
	if err != nil || rs == nil {
		return rs, err
	}
	n := resultCells(rs)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.results[sql]; ok {
		r.cells -= resultCells(old)
	} else if r.results == nil {
		r.results = map[string]*datasets.ResultSet{}
	}
	if r.cells+n > execRecorderCells {
		delete(r.results, sql)
		return rs, nil
	}
	r.results[sql] = rs
	r.cells += n
	return rs, nil
}

// resultCells is the size of rs that execRecorderCells bounds: its rows
// times its columns (at least one).
func resultCells(rs *datasets.ResultSet) int {
	return len(rs.Rows) * max(len(rs.Columns), 1)
}

// lookup is the recorder's metrics.ExecutedFunc: the kept result of sql
// when db is the handle the runner's statements ran on.
func (r *execRecorder) lookup(db datasets.Database, sql string) (*datasets.ResultSet, bool) {
	if !metrics.SameDatabase(db, r.Database) {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rs, ok := r.results[sql]
	return rs, ok
}
