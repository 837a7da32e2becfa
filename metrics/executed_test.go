package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestScoreWithExecuted judges a prediction on the result a lookup holds
// for its text on the scorer's own database handle, and executes it when
// the lookup holds none for it, names another handle or a result as slow
// as the timeout. The planted result (one row, 99) differs from what the
// prediction gives on the fixture (count(*) of its 5 singers, the gold's
// own result), so the verdict shows which was judged.
func TestScoreWithExecuted(t *testing.T) {
	b := fixtureBench(t)
	ex := b.Examples[1] // gold: SELECT count(*) FROM singer
	const pred = "SELECT count(*) FROM singer"
	ctx := context.Background()
	db, err := b.Engine.Open(ctx, ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	other := &otherHandle{db} // the same file through another handle
	const timeout = time.Second
	planted := func(elapsed time.Duration) *datasets.ResultSet {
		return &datasets.ResultSet{Columns: []string{"count(*)"}, Rows: [][]any{{int64(99)}}, Elapsed: elapsed}
	}
	for _, tc := range []struct {
		name     string
		on       datasets.Database
		text     string
		rs       *datasets.ResultSet
		wantUsed bool
	}{
		{name: "same handle and text", on: db, text: pred, rs: planted(time.Millisecond), wantUsed: true},
		{name: "another handle", on: other, text: pred, rs: planted(time.Millisecond)},
		{name: "another text", on: db, text: pred + " ", rs: planted(time.Millisecond)},
		{name: "as slow as the timeout", on: db, text: pred, rs: planted(timeout)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScorer(b, nil, ScoreOptions{Mode: ModeBIRD, Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			lookup := func(d datasets.Database, sql string) (*datasets.ResultSet, bool) {
				if SameDatabase(d, tc.on) && sql == tc.text {
					return tc.rs, true
				}
				return nil, false
			}
			v := s.Score(WithExecuted(ctx, lookup), ex, pred)
			if v.Status != StatusOK {
				t.Fatalf("status %s (%s); want ok", v.Status, v.Error)
			}
			// Judged on the planted result the prediction is wrong.
			if used := !v.Correct; used != tc.wantUsed {
				t.Errorf("judged on the looked-up result: %v; want %v", used, tc.wantUsed)
			}
		})
	}
}

// otherHandle is a database handle other than the one it wraps.
type otherHandle struct{ datasets.Database }

// mapHandle is a handle of a type that cannot be compared.
type mapHandle struct {
	datasets.Database
	m map[string]int
}

// TestSameDatabase tells handles apart by identity, and never panics on
// a handle of a type that cannot be compared.
func TestSameDatabase(t *testing.T) {
	a, b := &otherHandle{}, &otherHandle{}
	m := mapHandle{m: map[string]int{}}
	for _, tc := range []struct {
		name string
		x, y datasets.Database
		want bool
	}{
		{"same pointer", a, a, true},
		{"two pointers", a, b, false},
		{"nil", a, nil, false},
		{"both nil", nil, nil, false},
		{"types differ", a, m, false},
		{"not comparable", m, m, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameDatabase(tc.x, tc.y); got != tc.want {
				t.Errorf("SameDatabase = %v; want %v", got, tc.want)
			}
		})
	}
}
