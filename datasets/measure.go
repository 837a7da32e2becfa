package datasets

import (
	"context"
	"errors"
	"sort"
)

// DataStatus is what a data folder holds for one benchmark, measured by
// loading it.
type DataStatus struct {
	// Questions is the number of questions loaded.
	Questions int
	// PresentDBs counts the databases the questions use that open;
	// MissingDBs names those that do not (sorted).
	PresentDBs int
	MissingDBs []string
	// Err is the loader's error when the questions do not load at all.
	Err error
}

// MeasureData loads benchmark name (an Open name) from dir and opens every
// database its questions use.
func MeasureData(ctx context.Context, name, dir string) DataStatus {
	b, err := Open(name, dir, LoadOptions{})
	if err != nil {
		return DataStatus{Err: err}
	}
	st := DataStatus{Questions: len(b.Examples)}
	seen := map[string]bool{}
	for _, ex := range b.Examples {
		if seen[ex.DBID] {
			continue
		}
		seen[ex.DBID] = true
		if b.Engine == nil {
			st.MissingDBs = append(st.MissingDBs, ex.DBID)
			continue
		}
		db, err := b.Engine.Open(ctx, ex.DBID)
		switch {
		case err == nil:
			st.PresentDBs++
			db.Close()
		case errors.Is(err, ErrMissingDB):
			st.MissingDBs = append(st.MissingDBs, ex.DBID)
		default:
			st.MissingDBs = append(st.MissingDBs, ex.DBID+" ("+err.Error()+")")
		}
	}
	if b.Engine != nil {
		b.Engine.Close()
	}
	sort.Strings(st.MissingDBs)
	return st
}
