package metrics

import (
	"context"
	"reflect"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// ExecutedFunc looks up the result of a statement already executed on db
// while the prediction being scored was made: the result Database.Execute
// gave for sql on that very handle, false when it holds none.
type ExecutedFunc func(db datasets.Database, sql string) (*datasets.ResultSet, bool)

type executedKey struct{}

// WithExecuted returns ctx carrying lookup, which the Scorer consults
// before it executes a prediction or candidate (judge): a statement the
// runner of the item executed on the same database handle, with the same
// text, succeeded and within the scorer's timeout is judged on that
// result rather than run again. It is the one execution of that text the
// official scorers make; a failed or missing execution runs as usual.
func WithExecuted(ctx context.Context, lookup ExecutedFunc) context.Context {
	return context.WithValue(ctx, executedKey{}, lookup)
}

// SameDatabase reports whether a and b are the same handle: values of one
// comparable dynamic type (a pointer for the engines' databases) that are
// equal. Handles of a type that cannot be compared are never the same.
func SameDatabase(a, b datasets.Database) bool {
	if a == nil || b == nil {
		return false
	}
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) || !ta.Comparable() {
		return false
	}
	return a == b
}

// executePred is execute for a prediction or candidate sql on db: the
// result ctx's ExecutedFunc holds for it when it may stand for an
// execution (executed), else sql executed on db under s's timeout.
func (s *Scorer) executePred(ctx context.Context, db datasets.Database, sql string) (*datasets.ResultSet, ExecStatus, string, time.Duration, error) {
	if rs, ok := s.executed(ctx, db, sql); ok {
		return rs, ExecOK, "", rs.Elapsed, nil
	}
	return execute(ctx, db, sql, s.opt.Timeout)
}

// executed returns the result ctx's ExecutedFunc holds for sql on db when
// it may stand for an execution under s's options: ctx not canceled, and
// the result's time within s's timeout (a slower one would have timed out
// here).
func (s *Scorer) executed(ctx context.Context, db datasets.Database, sql string) (*datasets.ResultSet, bool) {
	lookup, _ := ctx.Value(executedKey{}).(ExecutedFunc)
	if lookup == nil || ctx.Err() != nil {
		return nil, false
	}
	rs, ok := lookup(db, sql)
	if !ok || rs == nil || (s.opt.Timeout > 0 && rs.Elapsed >= s.opt.Timeout) {
		return nil, false
	}
	return rs, true
}
