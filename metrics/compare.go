package metrics

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/datasets"
)

// Mode names an execution-accuracy comparator: the rule one benchmark's
// official evaluator uses to decide whether a predicted result equals the
// gold result.
type Mode string

// The comparator modes. Each is documented, with the official source it
// mirrors, on CompareResults and in the shared datasets README (shared/datasets/README.md).
const (
	// ModeSpider is the Spider test-suite rule (taoyds/test-suite-sql-eval
	// @e97acc5 exec_eval.py result_eq): bag equality up to a column
	// permutation, row order enforced only when the gold says "order by",
	// DISTINCT stripped from both queries.
	ModeSpider Mode = "spider"
	// ModeSpiderKeepDistinct is ModeSpider run with --keep_distinct.
	ModeSpiderKeepDistinct Mode = "spider-keep-distinct"
	// ModeBIRD is BIRD dev's rule (DAMO-ConvAI@483554e
	// bird/llm/src/evaluation.py:17-28): set(pred) == set(gold).
	ModeBIRD Mode = "bird"
	// ModeBIRDMiniDev is BIRD mini-dev's rule (bird-bench/mini_dev@4d970a9
	// evaluation/evaluation_ex.py:18-22): the same set equality.
	ModeBIRDMiniDev Mode = "bird-minidev"
	// ModeArcher has no official script (the leaderboard reports EX only);
	// it uses BIRD's set semantics.
	ModeArcher Mode = "archer"
	// ModeLogicCat is the LogicCat authors' rule
	// (Ffunkytao/IESR-SLM@a4134c4 alphasql_rstar/scripts/eval_exec_acc.py:36-43):
	// sorted set of row tuples, every value str()-ed when the rows cannot
	// be ordered.
	ModeLogicCat Mode = "logiccat"
)

// Modes lists every comparator mode.
var Modes = []Mode{ModeSpider, ModeSpiderKeepDistinct, ModeBIRD, ModeBIRDMiniDev, ModeArcher, ModeLogicCat}

// AllModes lists Modes, then the modes of the scoring rules benchmarks
// register (datasets.Rule), sorted.
func AllModes() []Mode {
	out := slices.Clone(Modes)
	for _, r := range datasets.Rules() {
		out = append(out, Mode(r.Mode))
	}
	return out
}

// ParseMode returns the mode named s: one of Modes or a benchmark's own
// rule (datasets.Rule).
func ParseMode(s string) (Mode, error) {
	all := AllModes()
	for _, m := range all {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = string(m)
	}
	return "", fmt.Errorf("metrics: unknown EX mode %q (want one of %s)", s, strings.Join(names, ", "))
}

func (m Mode) spiderFamily() bool { return m == ModeSpider || m == ModeSpiderKeepDistinct }

// Side names which query a value error came from.
type Side string

// The two sides of a comparison.
const (
	SideGold Side = "gold"
	SidePred Side = "pred"
)

// ValueError reports a result value the mode cannot compare (text that is
// not valid UTF-8 under BIRD's default sqlite3 text_factory, an unknown Go
// type). Scorers turn it into a gold_error or pred_error verdict.
type ValueError struct {
	Side     Side
	Row, Col int
	Msg      string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s result row %d column %d: %s", e.Side, e.Row, e.Col, e.Msg)
}

// Quirks switches off, one by one, the official evaluators' rewrites and
// comparison quirks. The zero value reproduces the official behaviour; each
// field documents the quirk it disables and the source line it comes from.
type Quirks struct {
	// KeepTabSuffix keeps text after a TAB in a Spider prediction
	// (evaluation.py:568 keeps only split('\t')[0]).
	KeepTabSuffix bool `json:"keep_tab_suffix,omitempty"`
	// KeepValueWord disables Spider's p_str.replace("value", "1")
	// (evaluation.py:569), a literal, case-sensitive substring rewrite of
	// the prediction only.
	KeepValueWord bool `json:"keep_value_word,omitempty"`
	// NoOperatorFix disables Spider's postprocess, which rewrites "> =",
	// "< =" and "! =" to ">=", "<=", "!=" in both queries (exec_eval.py:172).
	NoOperatorFix bool `json:"no_operator_fix,omitempty"`
	// NoCurYear disables Spider's YEAR(CURDATE()) -> 2020 rewrite of both
	// queries before execution (exec_eval.py:125).
	NoCurYear bool `json:"no_cur_year,omitempty"`
	// KeepDistinct disables Spider's DISTINCT stripping
	// (exec_eval.py:188-190, parse.py:139); ModeSpiderKeepDistinct sets it.
	KeepDistinct bool `json:"keep_distinct,omitempty"`
	// AllStatements disables a side effect of Spider's DISTINCT stripping:
	// sqlparse.parse(s)[0] keeps only the first statement, so text after
	// the first top-level ';' is dropped. A prediction with a second
	// statement is refused before (pred_error; see Scorer.Score), so for
	// predictions the cut only drops comments after the ';'.
	AllStatements bool `json:"all_statements,omitempty"`
	// NoQuickReject disables Spider's quick_rej pre-check (exec_eval.py:36),
	// which compares rows with their values sorted by str(v)+str(type(v));
	// because 1 and 1.0 sort differently there, it can reject results the
	// permutation search would accept.
	NoQuickReject bool `json:"no_quick_reject,omitempty"`
}

// pyValue is a result value with Python's equality semantics: key is equal
// for two values exactly when Python's == (and hash) says they are equal.
type pyValue struct {
	key   string // canonical equality key (tag byte + payload)
	class byte   // ordering class: 'n' None, 'd' number, 's' str, 'b' bytes
	num   float64
	ival  int64
	isInt bool // number held exactly as int64 (ints and integral floats)
	str   string
	raw   any // the normalised Go value
}

// Key tags. Integral floats share the int tag so that 1 == 1.0.
const (
	tagNone  = 'N'
	tagInt   = 'I'
	tagFloat = 'F'
	tagStr   = 'S'
	tagBytes = 'B'
)

// textPolicy says what to do with text that is not valid UTF-8.
type textPolicy int

const (
	textDropInvalid textPolicy = iota // Spider: bytes.decode(errors="ignore")
	textStrict                        // BIRD: sqlite3 default text_factory raises
)

func (m Mode) textPolicy() textPolicy {
	if m.spiderFamily() {
		return textDropInvalid
	}
	return textStrict
}

// toPy converts one normalised Go value to its Python form.
func toPy(v any, pol textPolicy) (pyValue, error) {
	switch x := v.(type) {
	case nil:
		return pyValue{key: string(rune(tagNone)), class: 'n', raw: nil}, nil
	case int64:
		return pyInt(x), nil
	case int:
		return pyInt(int64(x)), nil
	case float64:
		return pyFloat(x), nil
	case string:
		if !utf8.ValidString(x) {
			if pol == textStrict {
				return pyValue{}, fmt.Errorf("text is not valid UTF-8 (%q)", truncate(x, 40))
			}
			x = strings.ToValidUTF8(x, "")
		}
		return pyValue{key: "S" + x, class: 's', str: x, raw: x}, nil
	case []byte:
		return pyValue{key: "B" + string(x), class: 'b', str: string(x), raw: x}, nil
	case bool:
		// sqlite3 has no boolean type; MySQL drivers may give one. Python's
		// True == 1.
		if x {
			return pyInt(1), nil
		}
		return pyInt(0), nil
	default:
		return pyValue{}, fmt.Errorf("unsupported value type %T", v)
	}
}

func pyInt(i int64) pyValue {
	var b [9]byte
	b[0] = tagInt
	binary.BigEndian.PutUint64(b[1:], uint64(i))
	return pyValue{key: string(b[:]), class: 'd', num: float64(i), ival: i, isInt: true, raw: i}
}

func pyFloat(f float64) pyValue {
	// Python compares int and float exactly: an integral float equals the
	// int of the same value. Floats in [-2^63, 2^63) convert exactly.
	if f == math.Trunc(f) && f >= -9.223372036854775808e18 && f < 9.223372036854775808e18 {
		p := pyInt(int64(f))
		p.num = f
		p.isInt = false
		p.raw = f
		return p
	}
	var b [9]byte
	b[0] = tagFloat
	if f == 0 { // unreachable (0 is integral) but keeps -0 canonical
		f = 0
	}
	binary.BigEndian.PutUint64(b[1:], math.Float64bits(f))
	return pyValue{key: string(b[:]), class: 'd', num: f, raw: f}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// pyStr is Python's str(v) for the value types sqlite3 returns.
func pyStr(p pyValue) string {
	switch x := p.raw.(type) {
	case nil:
		return "None"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return datasets.PythonFloat(x)
	case string:
		return p.str
	case []byte:
		return pyBytesRepr(x)
	}
	return fmt.Sprint(p.raw)
}

func pyTypeStr(p pyValue) string {
	switch p.raw.(type) {
	case nil:
		return "<class 'NoneType'>"
	case int64:
		return "<class 'int'>"
	case float64:
		return "<class 'float'>"
	case string:
		return "<class 'str'>"
	case []byte:
		return "<class 'bytes'>"
	}
	return fmt.Sprintf("<class '%T'>", p.raw)
}

// pyBytesRepr is Python's repr(bytes).
func pyBytesRepr(b []byte) string {
	quote := byte('\'')
	if slices.Contains(b, '\'') && !slices.Contains(b, '"') {
		quote = '"'
	}
	var sb strings.Builder
	sb.WriteString("b")
	sb.WriteByte(quote)
	for _, c := range b {
		switch {
		case c == quote || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, c)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte(quote)
	return sb.String()
}

// table is a result converted to Python values.
type table struct {
	cols int
	rows [][]pyValue
}

func toTable(rs *datasets.ResultSet, pol textPolicy, side Side) (table, error) {
	t := table{cols: len(rs.Columns)}
	t.rows = make([][]pyValue, len(rs.Rows))
	n := 0
	for _, r := range rs.Rows {
		n += len(r)
	}
	// One backing array for every row: a result of many short rows would
	// otherwise cost an allocation per row.
	all := make([]pyValue, n)
	for i, r := range rs.Rows {
		row := all[:len(r):len(r)]
		all = all[len(r):]
		for j, v := range r {
			p, err := toPy(v, pol)
			if err != nil {
				return table{}, &ValueError{Side: side, Row: i, Col: j, Msg: err.Error()}
			}
			row[j] = p
		}
		t.rows[i] = row
		if len(r) > t.cols {
			t.cols = len(r)
		}
	}
	return t, nil
}

// rowKey is the equality key of a row tuple (values in the order given by
// perm, or as stored when perm is nil).
func rowKey(row []pyValue, perm []int) string {
	n := 0
	for _, v := range row {
		n += len(v.key) + 4
	}
	b := make([]byte, 0, n)
	add := func(k string) {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	if perm == nil {
		for _, v := range row {
			add(v.key)
		}
	} else {
		for _, j := range perm {
			add(row[j].key)
		}
	}
	return string(b)
}

// CompareResults reports whether pred matches gold under mode m.
// orderMatters is only used by the Spider modes (see OrderMatters). A value
// the mode cannot compare is reported as a *ValueError naming its side.
// A mode that a benchmark registered with its own rule (datasets.Rule) is
// decided by that rule's Equal.
//
// The rules, and the official code each mirrors:
//
//	spider, spider-keep-distinct (exec_eval.py:77-122 result_eq):
//	  both empty -> equal; different row counts or column counts -> unequal;
//	  quick_rej: rows with values sorted by str(v)+str(type(v)) must match
//	  (as lists when order matters, as sets otherwise); then equal if some
//	  column permutation p gives gold == p(pred) row by row (order matters)
//	  or as multisets of rows (otherwise). Text drops invalid UTF-8 bytes
//	  (text_factory decode(errors="ignore"), l.140).
//	bird, bird-minidev, archer (evaluation.py:17-28):
//	  set(pred rows) == set(gold rows); duplicates and row order ignored,
//	  column order matters; text that is not valid UTF-8 is an error.
//	logiccat (eval_exec_acc.py:36-43 rows_to_key):
//	  sorted(set(rows)) equal on both sides; when a side's rows cannot be
//	  ordered by Python (two rows whose first differing values are None vs
//	  a value, a number vs text, text vs bytes) every value of that side
//	  becomes str(v), so 1 and '1' are then equal.
//
// Values compare with Python ==: 1 == 1.0, '1' != 1, None == None, bytes !=
// str, and no float tolerance.
func CompareResults(m Mode, q Quirks, gold, pred *datasets.ResultSet, orderMatters bool) (bool, error) {
	if !slices.Contains(Modes, m) {
		if r, ok := datasets.RuleOf(string(m)); ok {
			return r.Equal(gold, pred)
		}
	}
	pol := m.textPolicy()
	if sameValues(gold, pred, pol) {
		// Equal under every mode, whatever the quirks: see sameValues.
		switch m {
		case ModeSpider, ModeSpiderKeepDistinct, ModeLogicCat, ModeBIRD, ModeBIRDMiniDev, ModeArcher:
			return true, nil
		}
	}
	return compareTables(m, q, gold, pred, orderMatters)
}

// sameValues reports whether pred holds exactly gold's rows, in the same
// order, each value of the same Go type and equal (floats bit for bit,
// text and bytes byte for byte), every value of a type toPy converts
// without error under pol. Such results are equal in every mode: Spider's
// quick_rej compares each row with itself (the same values sort the same
// way, 1 against 1 and never 1 against 1.0) and the identity permutation
// matches every column; BIRD's and LogicCat's row sets are the same set.
// It is the common case of a correct prediction, and deciding it here
// skips converting both results to Python values.
func sameValues(gold, pred *datasets.ResultSet, pol textPolicy) bool {
	if len(gold.Rows) != len(pred.Rows) {
		return false
	}
	for i, gr := range gold.Rows {
		pr := pred.Rows[i]
		if len(gr) != len(pr) {
			return false
		}
		for j, gv := range gr {
			switch g := gv.(type) {
			case nil:
				if pr[j] != nil {
					return false
				}
			case int64:
				if p, ok := pr[j].(int64); !ok || p != g {
					return false
				}
			case float64:
				if p, ok := pr[j].(float64); !ok || math.Float64bits(p) != math.Float64bits(g) {
					return false
				}
			case string:
				if p, ok := pr[j].(string); !ok || p != g || (pol == textStrict && !utf8.ValidString(g)) {
					return false
				}
			case []byte:
				if p, ok := pr[j].([]byte); !ok || !bytes.Equal(p, g) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// compareTables is CompareResults without the sameValues shortcut.
func compareTables(m Mode, q Quirks, gold, pred *datasets.ResultSet, orderMatters bool) (bool, error) {
	pol := m.textPolicy()
	g, err := toTable(gold, pol, SideGold)
	if err != nil {
		return false, err
	}
	p, err := toTable(pred, pol, SidePred)
	if err != nil {
		return false, err
	}
	switch {
	case m.spiderFamily():
		return spiderEqual(g, p, orderMatters, !q.NoQuickReject), nil
	case m == ModeLogicCat:
		return logicCatEqual(g, p), nil
	case m == ModeBIRD || m == ModeBIRDMiniDev || m == ModeArcher:
		return setEqual(g, p), nil
	}
	return false, fmt.Errorf("metrics: unknown EX mode %q", m)
}

// setEqual is Python's set(pred) == set(gold) over row tuples.
func setEqual(g, p table) bool {
	gs := make(map[string]struct{}, len(g.rows))
	for _, r := range g.rows {
		gs[rowKey(r, nil)] = struct{}{}
	}
	ps := make(map[string]struct{}, len(p.rows))
	for _, r := range p.rows {
		k := rowKey(r, nil)
		if _, ok := gs[k]; !ok {
			return false
		}
		ps[k] = struct{}{}
	}
	return len(ps) == len(gs)
}

// spiderEqual is result_eq(gold, pred, order_matters).
func spiderEqual(g, p table, orderMatters, quickReject bool) bool {
	if len(g.rows) == 0 && len(p.rows) == 0 {
		return true
	}
	if len(g.rows) != len(p.rows) {
		return false
	}
	n := len(g.rows[0])
	if len(p.rows[0]) != n {
		return false
	}
	for _, r := range p.rows {
		if len(r) != n { // ragged rows cannot come from one query
			return false
		}
	}
	for _, r := range g.rows {
		if len(r) != n {
			return false
		}
	}
	if quickReject && !quickRej(g, p, orderMatters) {
		return false
	}
	return permSearch(g, p, n, orderMatters)
}

// unorderRow sorts a row's values by str(v)+str(type(v)), as
// exec_eval.py's unorder_row, and returns the key of the resulting tuple.
func unorderRow(row []pyValue) string {
	if len(row) == 1 {
		return rowKey(row, nil) // nothing to sort
	}
	type kv struct {
		sortKey string
		v       pyValue
	}
	s := make([]kv, len(row))
	for i, v := range row {
		s[i] = kv{pyStr(v) + pyTypeStr(v), v}
	}
	slices.SortStableFunc(s, func(a, b kv) int { return strings.Compare(a.sortKey, b.sortKey) })
	vs := make([]pyValue, len(s))
	for i := range s {
		vs[i] = s[i].v
	}
	return rowKey(vs, nil)
}

// quickRej mirrors exec_eval.py:36 quick_rej (true means "may be equal").
func quickRej(g, p table, orderMatters bool) bool {
	if orderMatters {
		for i := range g.rows {
			if unorderRow(g.rows[i]) != unorderRow(p.rows[i]) {
				return false
			}
		}
		return true
	}
	gs := map[string]struct{}{}
	for _, r := range g.rows {
		gs[unorderRow(r)] = struct{}{}
	}
	ps := map[string]struct{}{}
	for _, r := range p.rows {
		k := unorderRow(r)
		if _, ok := gs[k]; !ok {
			return false
		}
		ps[k] = struct{}{}
	}
	return len(gs) == len(ps)
}

// columnSignature is a hash of the multiset of a column's values.
func columnSignature(t table, j int) uint64 {
	keys := make([]string, len(t.rows))
	for i, r := range t.rows {
		keys[i] = r[j].key
	}
	slices.Sort(keys)
	h := fnv.New64a()
	var lb [binary.MaxVarintLen64]byte
	for _, k := range keys {
		h.Write(lb[:binary.PutUvarint(lb[:], uint64(len(k)))])
		h.Write([]byte(k))
	}
	return h.Sum64()
}

// permSearch looks for a column permutation perm (gold column i is pred
// column perm[i]) under which the results are equal. Candidates for gold
// column i are the pred columns with the same multiset of values (a
// necessary condition for both ordered and bag equality); every partial
// assignment is checked on the projection of the assigned columns, so the
// search prunes early instead of trying all n! permutations.
func permSearch(g, p table, n int, orderMatters bool) bool {
	gsig := make([]uint64, n)
	psig := make([]uint64, n)
	for j := 0; j < n; j++ {
		gsig[j] = columnSignature(g, j)
		psig[j] = columnSignature(p, j)
	}
	cand := make([][]int, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if gsig[i] == psig[j] {
				cand[i] = append(cand[i], j)
			}
		}
		if len(cand[i]) == 0 {
			return false
		}
	}
	perm := make([]int, 0, n)
	used := make([]bool, n)
	gcols := make([]int, 0, n)
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == n {
			return true
		}
		for _, j := range cand[i] {
			if used[j] {
				continue
			}
			used[j] = true
			perm = append(perm, j)
			gcols = append(gcols, i)
			if projEqual(g, p, gcols, perm, orderMatters) && rec(i+1) {
				return true
			}
			perm = perm[:len(perm)-1]
			gcols = gcols[:len(gcols)-1]
			used[j] = false
		}
		return false
	}
	return rec(0)
}

// projEqual compares gold projected on gcols with pred projected on pcols,
// row by row when order matters and as multisets otherwise.
func projEqual(g, p table, gcols, pcols []int, orderMatters bool) bool {
	if len(gcols) == 1 && !orderMatters {
		return true // the column multisets already match
	}
	if orderMatters {
		for i := range g.rows {
			for k := range gcols {
				if g.rows[i][gcols[k]].key != p.rows[i][pcols[k]].key {
					return false
				}
			}
		}
		return true
	}
	counts := make(map[string]int, len(g.rows))
	for _, r := range g.rows {
		counts[rowKey(r, gcols)]++
	}
	for _, r := range p.rows {
		k := rowKey(r, pcols)
		c := counts[k]
		if c == 0 {
			return false
		}
		counts[k] = c - 1
	}
	return true
}

// logicCatEqual mirrors rows_to_key(pred) == rows_to_key(gold).
func logicCatEqual(g, p table) bool {
	return slices.Equal(logicCatKeys(g), logicCatKeys(p))
}

// logicCatKeys is rows_to_key: the sorted distinct row keys, with every
// value str()-ed when Python could not sort the rows.
func logicCatKeys(t table) []string {
	rows := dedupRows(t.rows)
	slices.SortFunc(rows, pyRowCompare)
	sortable := true
	for i := 1; i < len(rows); i++ {
		if !pyRowsOrderable(rows[i-1], rows[i]) {
			sortable = false
			break
		}
	}
	if !sortable {
		strRows := make([][]pyValue, len(rows))
		for i, r := range rows {
			sr := make([]pyValue, len(r))
			for j, v := range r {
				s := pyStr(v)
				sr[j] = pyValue{key: "S" + s, class: 's', str: s, raw: s}
			}
			strRows[i] = sr
		}
		rows = dedupRows(strRows)
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = rowKey(r, nil)
	}
	slices.Sort(keys) // any fixed order works: equality of sorted sets
	return keys
}

// dedupRows drops repeated rows, keeping each first occurrence in its
// place (Python's list(dict.fromkeys(rows))).
func dedupRows(rows [][]pyValue) [][]pyValue {
	seen := make(map[string]struct{}, len(rows))
	out := make([][]pyValue, 0, len(rows))
	for _, r := range rows {
		k := rowKey(r, nil)
		if _, ok := seen[k]; ok {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, r)
	}
	return out
}

// classRank orders Python value classes for a total order used only to
// detect unorderable sets: None < numbers < str < bytes.
func classRank(c byte) int {
	return strings.IndexByte("ndsb", c)
}

// pyRowCompare is a total order on rows that agrees with Python's tuple
// order wherever Python's is defined.
func pyRowCompare(a, b []pyValue) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].key == b[i].key {
			continue
		}
		if c := classRank(a[i].class) - classRank(b[i].class); c != 0 {
			return c
		}
		switch a[i].class {
		case 'd':
			if a[i].isInt && b[i].isInt {
				if a[i].ival < b[i].ival {
					return -1
				}
				return 1
			}
			if a[i].num < b[i].num {
				return -1
			}
			if a[i].num > b[i].num {
				return 1
			}
			// Equal as float64 but different Python values (a large int
			// against a float that rounds to it): order by the int.
			if a[i].isInt {
				return -1
			}
			return 1
		default:
			return strings.Compare(a[i].str, b[i].str)
		}
	}
	return len(a) - len(b)
}

// pyRowsOrderable reports whether Python can compare the two (distinct)
// tuples: their first differing values must be of orderable classes.
// Over a list sorted by pyRowCompare, an unorderable pair exists exactly
// when some adjacent pair is unorderable.
func pyRowsOrderable(a, b []pyValue) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].key == b[i].key {
			continue
		}
		return a[i].class == b[i].class && a[i].class != 'n'
	}
	return true
}
