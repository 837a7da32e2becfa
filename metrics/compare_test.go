package metrics

import (
	"errors"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

func rs(cols int, rows ...[]any) *datasets.ResultSet {
	r := &datasets.ResultSet{Rows: rows}
	for i := 0; i < cols; i++ {
		r.Columns = append(r.Columns, "c")
	}
	return r
}

func row(v ...any) []any { return v }

// TestCompareResults is a table of one case per rule. The "rule" column
// cites the official source the expectation comes from (see CompareResults
// and the shared datasets README (shared/datasets/README.md)).
func TestCompareResults(t *testing.T) {
	pointOne, pointTwo := 0.1, 0.2 // variables: constant arithmetic would be exact
	bad := string([]byte{'a', 0xff, 'b'})
	cases := []struct {
		rule       string
		mode       Mode
		q          Quirks
		gold, pred *datasets.ResultSet
		order      bool
		want       bool
		wantErr    Side
	}{
		// Spider: exec_eval.py result_eq.
		{rule: "spider l.78 both empty equal even with different columns", mode: ModeSpider,
			gold: rs(1), pred: rs(3), want: true},
		{rule: "spider l.82 different row counts unequal", mode: ModeSpider,
			gold: rs(1, row(int64(1))), pred: rs(1, row(int64(1)), row(int64(1))), want: false},
		{rule: "spider l.86 different column counts unequal", mode: ModeSpider,
			gold: rs(1, row(int64(1))), pred: rs(2, row(int64(1), int64(1))), want: false},
		{rule: "spider bag semantics: duplicates counted", mode: ModeSpider,
			gold: rs(1, row(int64(1)), row(int64(1)), row(int64(2))), pred: rs(1, row(int64(1)), row(int64(2)), row(int64(2))), want: false},
		{rule: "spider bag semantics: row order ignored without order by", mode: ModeSpider,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(2)), row(int64(1))), want: true},
		{rule: "spider l.197 row order enforced when gold has order by", mode: ModeSpider, order: true,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(2)), row(int64(1))), want: false},
		{rule: "spider column permutation accepted", mode: ModeSpider,
			gold: rs(2, row("a", int64(1)), row("b", int64(2))), pred: rs(2, row(int64(2), "b"), row(int64(1), "a")), want: true},
		{rule: "spider column permutation accepted with order", mode: ModeSpider, order: true,
			gold: rs(2, row("a", int64(1)), row("b", int64(2))), pred: rs(2, row(int64(1), "a"), row(int64(2), "b")), want: true},
		{rule: "spider permutation must be one for all rows", mode: ModeSpider,
			gold: rs(2, row(int64(1), int64(2)), row(int64(3), int64(4))), pred: rs(2, row(int64(1), int64(2)), row(int64(4), int64(3))), want: false},
		{rule: "spider Python 1 == 1.0", mode: ModeSpider,
			gold: rs(1, row(int64(1))), pred: rs(1, row(1.0)), want: true},
		{rule: "spider Python '1' != 1", mode: ModeSpider,
			gold: rs(1, row(int64(1))), pred: rs(1, row("1")), want: false},
		{rule: "spider None == None", mode: ModeSpider,
			gold: rs(2, row(nil, int64(1))), pred: rs(2, row(nil, int64(1))), want: true},
		{rule: "spider no float tolerance", mode: ModeSpider,
			gold: rs(1, row(pointOne+pointTwo)), pred: rs(1, row(0.3)), want: false},
		{rule: "spider bytes != str", mode: ModeSpider,
			gold: rs(1, row([]byte("a"))), pred: rs(1, row("a")), want: false},
		{rule: "spider l.140 invalid UTF-8 bytes dropped (errors=ignore)", mode: ModeSpider,
			gold: rs(1, row(bad)), pred: rs(1, row("ab")), want: true},
		{rule: "spider l.36 quick_rej: 1 vs 1.0 sort differently by str(v)+str(type(v))", mode: ModeSpider,
			gold: rs(2, row(int64(1), "10")), pred: rs(2, row(1.0, "10")), want: false},
		{rule: "spider quick_rej switched off: permutation search alone accepts", mode: ModeSpider, q: Quirks{NoQuickReject: true},
			gold: rs(2, row(int64(1), "10")), pred: rs(2, row(1.0, "10")), want: true},
		{rule: "spider l.36 quick_rej uses sets when order does not matter (then multiset_eq decides)", mode: ModeSpider,
			gold: rs(1, row(int64(1)), row(int64(1)), row(int64(2))), pred: rs(1, row(int64(1)), row(int64(2)), row(int64(1))), want: true},
		{rule: "spider-keep-distinct compares like spider", mode: ModeSpiderKeepDistinct,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(2)), row(int64(1))), want: true},

		// BIRD: evaluation.py:17-28 set(pred) == set(gold).
		{rule: "bird set: duplicates ignored", mode: ModeBIRD,
			gold: rs(1, row(int64(1)), row(int64(1))), pred: rs(1, row(int64(1))), want: true},
		{rule: "bird set: order ignored", mode: ModeBIRD,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(2)), row(int64(1))), want: true},
		{rule: "bird column order matters", mode: ModeBIRD,
			gold: rs(2, row("a", int64(1))), pred: rs(2, row(int64(1), "a")), want: false},
		{rule: "bird both empty equal", mode: ModeBIRD, gold: rs(1), pred: rs(2), want: true},
		{rule: "bird empty vs non-empty unequal", mode: ModeBIRD, gold: rs(1), pred: rs(1, row(nil)), want: false},
		{rule: "bird Python 1 == 1.0 (hash equal)", mode: ModeBIRD,
			gold: rs(1, row(int64(3))), pred: rs(1, row(3.0)), want: true},
		{rule: "bird '1' != 1", mode: ModeBIRD, gold: rs(1, row(int64(1))), pred: rs(1, row("1")), want: false},
		{rule: "bird exact float equality", mode: ModeBIRD, gold: rs(1, row(1.0/3)), pred: rs(1, row(0.3333333333)), want: false},
		{rule: "bird subset is not equal", mode: ModeBIRD,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(1))), want: false},
		{rule: "bird invalid UTF-8 in pred text is a pred error (default text_factory)", mode: ModeBIRD,
			gold: rs(1, row("ab")), pred: rs(1, row(bad)), wantErr: SidePred},
		{rule: "bird invalid UTF-8 in gold text is a gold error", mode: ModeBIRD,
			gold: rs(1, row(bad)), pred: rs(1, row("ab")), wantErr: SideGold},
		{rule: "bird-minidev same set rule", mode: ModeBIRDMiniDev,
			gold: rs(1, row(int64(1)), row(int64(1))), pred: rs(1, row(int64(1))), want: true},
		{rule: "archer uses BIRD set semantics", mode: ModeArcher,
			gold: rs(2, row("x", 2.5)), pred: rs(2, row("x", 2.5), row("x", 2.5)), want: true},
		{rule: "archer column order matters like BIRD", mode: ModeArcher,
			gold: rs(2, row("x", 2.5)), pred: rs(2, row(2.5, "x")), want: false},

		// LogicCat: eval_exec_acc.py:36-43 rows_to_key.
		{rule: "logiccat sorted set: duplicates and order ignored", mode: ModeLogicCat,
			gold: rs(1, row(int64(2)), row(int64(1)), row(int64(1))), pred: rs(1, row(int64(1)), row(int64(2))), want: true},
		{rule: "logiccat orderable rows keep types: 1 != '1'", mode: ModeLogicCat,
			gold: rs(1, row(int64(1))), pred: rs(1, row("1")), want: false},
		{rule: "logiccat unorderable rows on both sides are str()-ed: 1 == '1'", mode: ModeLogicCat,
			gold: rs(1, row(int64(1)), row("x")), pred: rs(1, row("1"), row("x")), want: true},
		{rule: "logiccat None vs value is unorderable: str(None) == 'None'", mode: ModeLogicCat,
			gold: rs(1, row(nil), row(int64(5))), pred: rs(1, row("None"), row("5")), want: true},
		{rule: "logiccat one side orderable, other str()-ed: 1 != '1'", mode: ModeLogicCat,
			gold: rs(1, row(int64(1)), row(int64(2))), pred: rs(1, row(int64(1)), row("2")), want: false},
		{rule: "logiccat str(1.0) is '1.0', not '1'", mode: ModeLogicCat,
			gold: rs(1, row(1.0), row("x")), pred: rs(1, row("1"), row("x")), want: false},
		{rule: "logiccat rows differing first at an orderable column stay typed", mode: ModeLogicCat,
			gold: rs(2, row(int64(1), "a"), row(int64(2), int64(7))), pred: rs(2, row(int64(2), int64(7)), row(int64(1), "a")), want: true},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			got, err := CompareResults(c.mode, c.q, c.gold, c.pred, c.order)
			if c.wantErr != "" {
				var ve *ValueError
				if !errors.As(err, &ve) || ve.Side != c.wantErr {
					t.Fatalf("CompareResults error = %v; want a %s ValueError", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CompareResults: %v", err)
			}
			if got != c.want {
				t.Errorf("CompareResults(%s) = %v; want %v", c.mode, got, c.want)
			}
		})
	}
}

// TestSpiderPermutationSearchLarge checks that the pruned search handles
// many identical-looking columns without trying n! permutations: 10
// columns holding the same multiset of values (10! = 3.6M permutations).
func TestSpiderPermutationSearchLarge(t *testing.T) {
	const n, rows = 10, 30
	g := &datasets.ResultSet{}
	p := &datasets.ResultSet{}
	for i := 0; i < rows; i++ {
		gr := make([]any, n)
		pr := make([]any, n)
		for j := 0; j < n; j++ {
			gr[j] = int64((i + j) % rows)
			pr[n-1-j] = gr[j] // pred columns reversed
		}
		g.Rows = append(g.Rows, gr)
		p.Rows = append(p.Rows, pr)
	}
	ok, err := CompareResults(ModeSpider, Quirks{}, g, p, false)
	if err != nil || !ok {
		t.Fatalf("reversed columns: got %v, %v; want true", ok, err)
	}
	// Break one cell: no permutation matches any more.
	p.Rows[5][0] = int64(999)
	ok, _ = CompareResults(ModeSpider, Quirks{}, g, p, false)
	if ok {
		t.Fatalf("broken cell: got true; want false")
	}
}

// TestPyBytesRepr: expected strings from CPython repr(bytes).
func TestPyBytesRepr(t *testing.T) {
	cases := map[string]string{
		"ab":       `b'ab'`,
		"a'b":      `b"a'b"`,
		"a'\"b":    `b'a\'"b'`,
		"\x00\n\\": `b'\x00\n\\'`,
		"\xff":     `b'\xff'`,
	}
	for in, want := range cases {
		if got := pyBytesRepr([]byte(in)); got != want {
			t.Errorf("pyBytesRepr(%q) = %s; want %s", in, got, want)
		}
	}
}

// FuzzCompareReflexive checks that every mode accepts a result against
// itself, never panics, and that Spider accepts a column-rotated copy.
func FuzzCompareReflexive(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6}, uint8(2))
	f.Add([]byte{0, 0, 255, 7, 9, 1, 3}, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, ncols uint8) {
		n := int(ncols%4) + 1
		res := &datasets.ResultSet{}
		for i := 0; i+n <= len(data) && len(res.Rows) < 50; i += n {
			r := make([]any, n)
			for j := 0; j < n; j++ {
				b := data[i+j]
				switch b % 5 {
				case 0:
					r[j] = nil
				case 1:
					r[j] = int64(b / 5)
				case 2:
					r[j] = float64(b/5) / 2
				case 3:
					r[j] = string([]byte{'a' + b%7, b})
				default:
					r[j] = []byte{b}
				}
			}
			res.Rows = append(res.Rows, r)
		}
		for _, m := range Modes {
			ok, err := CompareResults(m, Quirks{}, res, res, true)
			var ve *ValueError
			if err != nil && !errors.As(err, &ve) {
				t.Fatalf("%s: unexpected error %v", m, err)
			}
			if err == nil && !ok {
				t.Fatalf("%s: result not equal to itself: %v", m, res.Rows)
			}
		}
		rot := &datasets.ResultSet{}
		for _, r := range res.Rows {
			rot.Rows = append(rot.Rows, append(append([]any{}, r[1:]...), r[0]))
		}
		if ok, err := CompareResults(ModeSpider, Quirks{NoQuickReject: true}, res, rot, false); err == nil && !ok {
			t.Fatalf("spider: rotated columns not accepted: %v vs %v", res.Rows, rot.Rows)
		}
	})
}
