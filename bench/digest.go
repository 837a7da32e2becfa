package bench

import (
	"encoding/json"

	"github.com/t2sbench/t2sbench/runners"
)

// resultDigest is the part of an item's result that reports aggregate: its
// usage by role and its trace counters. Commit stores it beside the
// compressed result (items.digest), so that a report reads a few hundred
// bytes per item instead of inflating and decoding its whole trace. Rows
// written before the digest existed have items.digest NULL; readers then
// decode these two fields from the result itself (digestFromResult).
type resultDigest struct {
	Usage    map[string]runners.RoleUsage `json:"usage,omitempty"`
	Counters map[string]float64           `json:"counters,omitempty"`
}

func digestOf(r *runners.Result) resultDigest {
	return resultDigest{Usage: r.Usage, Counters: r.Trace.Counters}
}

// result returns the digest as a result holding only its usage and trace
// counters: what ReadReport gives each item.
func (d resultDigest) result() *runners.Result {
	return &runners.Result{Usage: d.Usage, Trace: runners.Trace{Counters: d.Counters}}
}

// digestFromResult decodes the usage and trace counters of a stored result
// (compressed or not), skipping everything else.
func digestFromResult(b []byte) (resultDigest, error) {
	raw, err := storedJSON(b)
	if err != nil {
		return resultDigest{}, err
	}
	var partial struct {
		Usage map[string]runners.RoleUsage `json:"usage"`
		Trace struct {
			Counters map[string]float64 `json:"counters"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(raw, &partial); err != nil {
		return resultDigest{}, err
	}
	return resultDigest{Usage: partial.Usage, Counters: partial.Trace.Counters}, nil
}
