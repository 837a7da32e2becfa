package metrics

import (
	"errors"
	"math"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// copyRS returns a deep copy of r, so that sameValues compares values and
// not shared memory.
func copyRS(r *datasets.ResultSet) *datasets.ResultSet {
	c := &datasets.ResultSet{Columns: append([]string(nil), r.Columns...)}
	for _, row := range r.Rows {
		cr := make([]any, len(row))
		for j, v := range row {
			if b, ok := v.([]byte); ok {
				v = append([]byte{}, b...)
			}
			cr[j] = v
		}
		c.Rows = append(c.Rows, cr)
	}
	return c
}

// TestSameValuesAgreesWithComparators checks CompareResults' shortcut: a
// result compared with a copy of itself gets, in every mode, with and
// without row order and quick_rej, exactly the verdict (or the error) of
// the full comparison (compareTables).
func TestSameValuesAgreesWithComparators(t *testing.T) {
	bad := string([]byte{'a', 0xff, 'b'})
	results := map[string]*datasets.ResultSet{
		"empty":             rs(2),
		"zero columns":      rs(0, row(), row()),
		"ints":              rs(2, row(int64(1), int64(2)), row(int64(2), int64(1)), row(int64(1), int64(2))),
		"int and float":     rs(2, row(int64(1), 1.0), row(1.0, int64(1))),
		"nulls":             rs(2, row(nil, "a"), row("a", nil)),
		"text and bytes":    rs(2, row("a", []byte("a")), row([]byte{}, "")),
		"floats":            rs(1, row(0.1), row(math.Inf(1)), row(math.Copysign(0, -1))),
		"nan":               rs(1, row(math.NaN())),
		"invalid utf-8":     rs(1, row(bad), row("ab")),
		"mixed unorderable": rs(1, row(int64(1)), row("1"), row(nil)),
		"bool":              rs(1, row(true), row(false)),
		"int":               rs(1, row(1), row(2)),
	}
	modes := []Mode{ModeSpider, ModeSpiderKeepDistinct, ModeBIRD, ModeBIRDMiniDev, ModeArcher, ModeLogicCat, Mode("nosuch")}
	for name, r := range results {
		for _, m := range modes {
			for _, order := range []bool{false, true} {
				for _, q := range []Quirks{{}, {NoQuickReject: true}} {
					got, gerr := CompareResults(m, q, r, copyRS(r), order)
					want, werr := compareTables(m, q, r, copyRS(r), order)
					var gve, wve *ValueError
					if got != want || (gerr == nil) != (werr == nil) || errors.As(gerr, &gve) != errors.As(werr, &wve) ||
						(gve != nil && gve.Side != wve.Side) {
						t.Errorf("%s, %s, order %v, %+v: CompareResults = %v, %v; want %v, %v (compareTables)", name, m, order, q, got, gerr, want, werr)
					}
				}
			}
		}
	}
}

// TestSameValues checks what the shortcut accepts: only the same values of
// the same types in the same order, and no text the mode rejects.
func TestSameValues(t *testing.T) {
	bad := string([]byte{'a', 0xff})
	cases := []struct {
		name       string
		gold, pred *datasets.ResultSet
		pol        textPolicy
		want       bool
	}{
		{"same rows", rs(2, row(int64(1), "a"), row(nil, 2.5)), rs(2, row(int64(1), "a"), row(nil, 2.5)), textStrict, true},
		{"column names ignored", rs(1, row(int64(1))), &datasets.ResultSet{Columns: []string{"x"}, Rows: [][]any{{int64(1)}}}, textStrict, true},
		{"1 vs 1.0 (equal, but quick_rej may differ)", rs(1, row(int64(1))), rs(1, row(1.0)), textStrict, false},
		{"-0.0 vs 0.0", rs(1, row(math.Copysign(0, -1))), rs(1, row(0.0)), textStrict, false},
		{"bytes vs text", rs(1, row([]byte("a"))), rs(1, row("a")), textStrict, false},
		{"nil vs empty text", rs(1, row(nil)), rs(1, row("")), textStrict, false},
		{"row order", rs(1, row(int64(1)), row(int64(2))), rs(1, row(int64(2)), row(int64(1))), textStrict, false},
		{"row count", rs(1, row(int64(1))), rs(1, row(int64(1)), row(int64(1))), textStrict, false},
		{"row length", rs(1, row(int64(1))), rs(2, row(int64(1), int64(1))), textStrict, false},
		{"invalid UTF-8, strict", rs(1, row(bad)), rs(1, row(bad)), textStrict, false},
		{"invalid UTF-8, dropped", rs(1, row(bad)), rs(1, row(bad)), textDropInvalid, true},
		{"bool left to the full comparison", rs(1, row(true)), rs(1, row(true)), textStrict, false},
	}
	for _, c := range cases {
		if got := sameValues(c.gold, c.pred, c.pol); got != c.want {
			t.Errorf("%s: sameValues = %v; want %v", c.name, got, c.want)
		}
	}
}
