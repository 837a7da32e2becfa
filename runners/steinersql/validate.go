package steinersql

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// Validation modes (param validation).
const (
	// ValMultilevel is the paper's three-level validation with re-planning.
	ValMultilevel = "multilevel"
	// ValSimpleFeedback regenerates with the execution error only (level 1),
	// without re-planning ("Simple Feedback", Figure 4).
	ValSimpleFeedback = "simple-feedback"
	// ValNone generates once ("Stage 1+2 Only (w/o Validation)").
	ValNone = "none"
)

// Level-2 directions (param l2_direction): which way level 2 compares the
// tables a query reads with the reasoning scaffold.
const (
	// L2ScaffoldInQuery is the paper's check (Section 3.4, Level 2: "the
	// scaffold does not contain joins irrelevant to the query"): every
	// scaffold join is one the query makes, so a scaffold edge with a
	// table the query does not read fails (check CheckIrrelevantJoin).
	// The query may read tables outside the scaffold.
	L2ScaffoldInQuery = "scaffold_in_query"
	// L2QueryInScaffold is the reverse check: the query may not read a
	// table outside the scaffold (check CheckStrayTable); scaffold tables
	// the query leaves out fail only through the other checks.
	L2QueryInScaffold = "query_in_scaffold"
)

// Level-2 checks of the table comparison (Violation.Check).
const (
	// CheckIrrelevantJoin: a scaffold join whose tables the query does
	// not both read (L2ScaffoldInQuery).
	CheckIrrelevantJoin = "irrelevant-join"
	// CheckStrayTable: a table the query reads outside the scaffold
	// (L2QueryInScaffold).
	CheckStrayTable = "stray-table"
)

// Violation is one failed check.
type Violation struct {
	Level  int    `json:"level"`
	Check  string `json:"check"`
	Detail string `json:"detail"`
	// Tables names the tables the check is about (missing terminals, stray
	// tables, the unread tables of irrelevant joins, tables holding an
	// aggregated attribute).
	Tables []string `json:"tables,omitempty"`
}

func (v Violation) String() string { return fmt.Sprintf("L%d %s: %s", v.Level, v.Check, v.Detail) }

// Report is the outcome of validating one query.
type Report struct {
	// ExecErr is the level-1 failure (empty when the query executed).
	ExecErr    string      `json:"exec_error,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
	Read       ReadSet     `json:"read"`
	// Outside lists the tables the query reads outside a graph scaffold,
	// whichever the level-2 direction (re-planning adds them to T_req).
	Outside []string `json:"outside,omitempty"`
}

// Pass reports whether every check passed.
func (r Report) Pass() bool { return r.ExecErr == "" && len(r.Violations) == 0 }

// Levels returns which levels failed (index 1..3).
func (r Report) Levels() [4]bool {
	var l [4]bool
	if r.ExecErr != "" {
		l[1] = true
	}
	for _, v := range r.Violations {
		l[v.Level] = true
	}
	return l
}

// Validator checks queries against one database, its scaffold and the
// decomposition.
type Validator struct {
	DB     datasets.Database
	Schema *datasets.Schema
	// Attributes turns on level 2's attribute check (CheckAttributes; on
	// by default, as in the paper).
	Attributes bool
	// L2Direction is L2ScaffoldInQuery (the paper's; also the empty
	// string) or L2QueryInScaffold.
	L2Direction string
	// cat is the SQLite root-page catalog (nil for other engines).
	cat *catalog
}

// NewValidator prepares a validator (reading SQLite's catalog once).
func NewValidator(ctx context.Context, db datasets.Database, s *datasets.Schema) (*Validator, error) {
	v := &Validator{DB: db, Schema: s, Attributes: true}
	if db.Dialect() == "sqlite" {
		cat, err := loadCatalog(ctx, db, s)
		if err != nil {
			return nil, err
		}
		v.cat = cat
	}
	return v, nil
}

// ReadSet returns what sql reads (bytecode for SQLite, else lexical).
func (v *Validator) ReadSet(ctx context.Context, sql string) (ReadSet, error) {
	if v.cat != nil {
		return readSetSQLite(ctx, v.DB, v.Schema, v.cat, sql)
	}
	return readSetLexical(v.Schema, sql), nil
}

// Scaffold is the join plan handed to the generator: its tables and edges
// (nil edges when navigation is off).
type Scaffold struct {
	Tables    []string `json:"tables"`
	Edges     []Edge   `json:"edges,omitempty"`
	Terminals []string `json:"terminals"`
	Cost      float64  `json:"cost"`
	Algorithm string   `json:"algorithm"`
	// Navigated is false when there is no graph scaffold (w/o navigation):
	// level 2 then checks terminal coverage only.
	Navigated    bool     `json:"navigated"`
	Disconnected []string `json:"disconnected,omitempty"`
}

// Level1 executes sql; it returns the execution error text, or "".
func (v *Validator) Level1(ctx context.Context, sql string) string {
	if strings.TrimSpace(sql) == "" {
		return "no SQL in the answer"
	}
	if _, err := v.DB.Execute(ctx, sql); err != nil {
		return err.Error()
	}
	return ""
}

// Validate runs the levels up to maxLevel (1 or 3) on sql. Level 2 and 3
// run only when level 1 passes.
func (v *Validator) Validate(ctx context.Context, sql string, q Question, sc *Scaffold, dec *Decomposition, maxLevel int) Report {
	var rep Report
	if rep.ExecErr = v.Level1(ctx, sql); rep.ExecErr != "" || maxLevel < 2 {
		return rep
	}
	read, err := v.ReadSet(ctx, sql)
	if err != nil {
		read = readSetLexical(v.Schema, sql)
	}
	rep.Read = read
	viol, outside := v.level2(read, sc)
	rep.Violations, rep.Outside = append(rep.Violations, viol...), outside
	if v.Attributes {
		rep.Violations = append(rep.Violations, v.attributes(sql, q, dec)...)
	}
	rep.Violations = append(rep.Violations, v.level3(sql, q.Text, dec)...)
	return rep
}

// level2 is semantic consistency: every terminal is read; with a graph
// scaffold, the scaffold and the query's tables are compared in the
// direction of v.L2Direction (L2ScaffoldInQuery: every scaffold join has
// both its tables read; L2QueryInScaffold: no table outside the scaffold
// is read), the read scaffold tables are connected by scaffold edges, and
// each scaffold edge between two read tables has its key columns read
// (bytecode read sets only). It also returns the tables read outside the
// scaffold. Level 2's attribute check is attributes (attributes.go).
func (v *Validator) level2(read ReadSet, sc *Scaffold) ([]Violation, []string) {
	if sc == nil {
		return nil, nil
	}
	var out []Violation
	var missing []string
	for _, t := range sc.Terminals {
		if !read.HasTable(t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		out = append(out, Violation{Level: 2, Check: "terminal-missing", Tables: missing,
			Detail: fmt.Sprintf("terminal table(s) %s required by the decomposition are not used by the query", strings.Join(missing, ", "))})
	}
	if !sc.Navigated {
		return out, nil
	}
	inScaffold := func(t string) bool {
		return slices.ContainsFunc(sc.Tables, func(x string) bool { return strings.EqualFold(x, t) })
	}
	var stray []string
	for _, t := range read.Tables {
		if !inScaffold(t) {
			stray = append(stray, t)
		}
	}
	if v.L2Direction == L2QueryInScaffold {
		if len(stray) > 0 {
			out = append(out, Violation{Level: 2, Check: CheckStrayTable, Tables: stray,
				Detail: fmt.Sprintf("table(s) %s are read but are not in the reasoning scaffold %s", strings.Join(stray, ", "), strings.Join(sc.Tables, ", "))})
		}
	} else {
		var idle []string
		var unread []string
		for _, e := range sc.Edges {
			if read.HasTable(e.A) && read.HasTable(e.B) {
				continue
			}
			idle = append(idle, e.A+" -- "+e.B)
			for _, t := range []string{e.A, e.B} {
				if !read.HasTable(t) && !slices.Contains(unread, t) {
					unread = append(unread, t)
				}
			}
		}
		if len(idle) > 0 {
			out = append(out, Violation{Level: 2, Check: CheckIrrelevantJoin, Tables: unread,
				Detail: fmt.Sprintf("the scaffold's join(s) %s are irrelevant to the query, which does not read %s", strings.Join(idle, ", "), strings.Join(unread, ", "))})
		}
	}
	// Connectivity of the read scaffold tables over scaffold edges.
	var used []string
	for _, t := range read.Tables {
		if inScaffold(t) {
			used = append(used, strings.ToLower(t))
		}
	}
	if len(used) > 1 {
		parent := map[string]string{}
		for _, u := range used {
			parent[u] = u
		}
		find := func(x string) string {
			for parent[x] != x {
				x = parent[x]
			}
			return x
		}
		for _, e := range sc.Edges {
			a, b := strings.ToLower(e.A), strings.ToLower(e.B)
			if _, ok := parent[a]; !ok {
				continue
			}
			if _, ok := parent[b]; !ok {
				continue
			}
			parent[find(a)] = find(b)
			if read.Method == "bytecode" && !(read.HasColumn(e.A, e.ColA) && read.HasColumn(e.B, e.ColB)) {
				out = append(out, Violation{Level: 2, Check: "join-off-scaffold",
					Detail: fmt.Sprintf("the join of %s and %s does not use the scaffold key %s", e.A, e.B, e.On())})
			}
		}
		roots := map[string]bool{}
		for _, u := range used {
			roots[find(u)] = true
		}
		if len(roots) > 1 {
			out = append(out, Violation{Level: 2, Check: "join-off-scaffold",
				Detail: fmt.Sprintf("tables %s are not joined along the scaffold's edges (an intermediate table of the scaffold is skipped)", strings.Join(used, ", "))})
		}
	}
	return out, stray
}

// digitsRe matches a number as questions write it: digits with thousands
// separators and an optional fraction ("60", "1,000", "2.5").
var digitsRe = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// percentRe matches a percent sign or word right after a number ("20%",
// "20 %", "20 percent", "20 per cent").
var percentRe = regexp.MustCompile(`^\s*(?:%|(?i:percent|per\s+cent)\b)`)

// questionNumber is a standalone number of a question.
type questionNumber struct {
	Text    string  // as written, without thousands separators: "1000"
	Value   float64 // its value
	Percent bool    // written as a percentage: "20%", "20 percent"
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// questionNumbers returns the standalone numbers of a question in order of
// appearance, each once: "at least 60", "order 1013", "1,000" (1000),
// "20%" (20, a percentage); not digits inside words ("bq004", "1kg").
func questionNumbers(q string) []questionNumber {
	var out []questionNumber
	for _, l := range digitsRe.FindAllStringIndex(q, -1) {
		i := l[0]
		if i > 0 && (isWordByte(q[i-1]) || q[i-1] == '.') {
			continue
		}
		txt := strings.TrimRight(q[i:l[1]], ",")
		j := i + len(txt)
		pct := false
		if m := percentRe.FindString(q[j:]); m != "" {
			pct = true
			j += len(m)
		}
		if !pct && j < len(q) && isWordByte(q[j]) {
			continue
		}
		n := questionNumber{Text: strings.ReplaceAll(txt, ",", ""), Percent: pct}
		v, err := strconv.ParseFloat(n.Text, 64)
		if err != nil {
			continue
		}
		n.Value = v
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// QuestionNumbers returns the standalone numbers of a question as written
// (without thousands separators or a percent sign): "at least 60", "order
// 1013", "1,000" -> 1000, "20%" -> 20; not digits inside words ("bq004",
// "1kg").
func QuestionNumbers(q string) []string {
	var out []string
	for _, n := range questionNumbers(q) {
		if !slices.Contains(out, n.Text) {
			out = append(out, n.Text)
		}
	}
	return out
}

// numberPresent reports whether the query's literals carry the question's
// number n: a numeric literal of equal value (60, 60.0; 1000 for "1,000"),
// or its text inside a string literal ('2015-03-01' carries 2015; strs
// holds the string literals). A percentage p may also be written as a
// fraction or a factor: p/100, 1 + p/100 or 1 - p/100 ("20%" as 0.2,
// * 1.2 or * 0.8), or, beside a literal 100, as 100 + p or 100 - p
// ("* 120 / 100"); "x * 20 / 100" carries 20 itself.
func numberPresent(n questionNumber, strs string, nums []float64) bool {
	if hasValue(nums, n.Value) || strings.Contains(strs, n.Text) {
		return true
	}
	if !n.Percent {
		return false
	}
	p := n.Value / 100
	if hasValue(nums, p) || hasValue(nums, 1+p) || p < 1 && hasValue(nums, 1-p) {
		return true
	}
	return hasValue(nums, 100) && (hasValue(nums, 100+n.Value) || n.Value < 100 && hasValue(nums, 100-n.Value))
}

// hasValue reports whether nums holds v, to a relative tolerance of 1e-9
// (0.1 + 0.2 is not 0.3 in binary floating point).
func hasValue(nums []float64, v float64) bool {
	for _, x := range nums {
		if math.Abs(x-v) <= 1e-9*math.Max(1, math.Abs(v)) {
			return true
		}
	}
	return false
}

// numericLiterals returns the values of the query's numeric literals.
func numericLiterals(toks []token) []float64 {
	var out []float64
	for _, t := range toks {
		if t.Kind != tNumber {
			continue
		}
		if v, err := strconv.ParseFloat(t.Text, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// aggregateSatisfied reports whether the query computes fn: the function
// itself, or an equivalent form (AVG as SUM/COUNT, MAX/MIN as ORDER BY ...
// LIMIT, SUM as TOTAL).
func aggregateSatisfied(fn string, aggs []string, cs []selectCore) bool {
	if slices.Contains(aggs, fn) {
		return true
	}
	orderLimit := func(desc bool) bool {
		for _, c := range cs {
			if !c.limit {
				continue
			}
			for _, o := range c.orderBy {
				isDesc := len(o) > 0 && o[len(o)-1].Is("DESC")
				if isDesc == desc {
					return true
				}
			}
		}
		return false
	}
	switch fn {
	case "AVG":
		return slices.Contains(aggs, "SUM") && slices.Contains(aggs, "COUNT")
	case "SUM":
		return slices.Contains(aggs, "TOTAL")
	case "MAX":
		return orderLimit(true)
	case "MIN":
		return orderLimit(false)
	}
	return false
}

// level3 is mathematical logic: non-aggregated SELECT columns are grouped
// (or functionally determined by a grouped primary key), the aggregate
// operations of the decomposition appear, and the question's numbers
// appear among the query's literals (numberPresent: a percentage may be
// written as a fraction or factor).
func (v *Validator) level3(sql, question string, dec *Decomposition) []Violation {
	toks := scanTokens(sql)
	cs := cores(toks)
	var out []Violation
	for _, c := range cs {
		hasAgg := len(c.groupBy) > 0
		for _, it := range c.items {
			if !isSubquery(it) && len(aggregates(it)) > 0 {
				hasAgg = true
			}
		}
		if !hasAgg {
			continue
		}
		grouped := map[string]bool{}
		groupedCols := map[colRef]bool{}
		for _, g := range c.groupBy {
			grouped[exprKey(g)] = true
			for _, r := range columnRefs(g) {
				groupedCols[r] = true
				groupedCols[colRef{name: r.name}] = true
			}
		}
		for _, it := range c.items {
			if isSubquery(it) || len(aggregates(it)) > 0 {
				continue
			}
			expr, alias := stripAlias(it)
			if grouped[exprKey(expr)] || alias != "" && grouped[alias+" "] {
				continue
			}
			var bad []string
			for _, r := range columnRefs(expr) {
				if groupedCols[r] || r.qual == "" && groupedColsByName(groupedCols, r.name) {
					continue
				}
				if v.determined(r, c, groupedCols) {
					continue
				}
				bad = append(bad, strings.TrimPrefix(r.qual+"."+r.name, "."))
			}
			if len(bad) > 0 {
				out = append(out, Violation{Level: 3, Check: "ungrouped-column",
					Detail: fmt.Sprintf("SELECT item %q uses %s, which is neither aggregated nor in GROUP BY", strings.TrimSpace(exprText(expr)), strings.Join(bad, ", "))})
			}
		}
	}
	if dec != nil {
		aggs := aggregates(toks)
		for _, op := range dec.Operations {
			fn := strings.ToUpper(strings.TrimSpace(op.Function))
			if !aggregateFuncs[fn] {
				continue
			}
			if !aggregateSatisfied(fn, aggs, cs) {
				var tabs []string
				if t, _, ok := strings.Cut(op.Target, "."); ok {
					if tb, found := v.Schema.Table(t); found {
						tabs = []string{tb.Name}
					}
				}
				out = append(out, Violation{Level: 3, Check: "aggregate-mismatch", Tables: tabs,
					Detail: fmt.Sprintf("the decomposition requires %s(%s) but the query does not compute it", fn, op.Target)})
			}
		}
	}
	strs, nums := stringLiterals(toks), numericLiterals(toks)
	var absent []string
	for _, n := range questionNumbers(question) {
		if numberPresent(n, strs, nums) {
			continue
		}
		if n.Percent {
			absent = append(absent, n.Text+"%")
		} else {
			absent = append(absent, n.Text)
		}
	}
	if len(absent) > 0 {
		out = append(out, Violation{Level: 3, Check: "numeric-constraint",
			Detail: fmt.Sprintf("the question's number(s) %s do not appear in the query's constraints", strings.Join(absent, ", "))})
	}
	return out
}

func groupedColsByName(g map[colRef]bool, name string) bool {
	for r := range g {
		if r.name == name {
			return true
		}
	}
	return false
}

// determined reports whether column r is functionally determined by a
// grouped primary key of its table (SELECT s.name ... GROUP BY
// s.student_id).
func (v *Validator) determined(r colRef, c selectCore, grouped map[colRef]bool) bool {
	table := c.aliases[r.qual]
	if r.qual == "" && len(c.aliases) > 0 {
		// Unqualified: the single FROM table.
		names := map[string]bool{}
		for _, t := range c.aliases {
			names[t] = true
		}
		if len(names) != 1 {
			return false
		}
		for t := range names {
			table = t
		}
	}
	t, ok := v.Schema.Table(table)
	if !ok {
		return false
	}
	for g := range grouped {
		if g.qual != "" && c.aliases[g.qual] != strings.ToLower(t.Name) {
			continue
		}
		if g.qual == "" && r.qual != "" {
			continue
		}
		if isKey(t, g.name) && singleKey(t) {
			return true
		}
	}
	return false
}

func singleKey(t *datasets.Table) bool {
	n := 0
	for _, c := range t.Columns {
		if c.Primary {
			n++
		}
	}
	if n == 0 {
		n = len(t.PrimaryKey)
	}
	return n == 1
}

func exprText(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.Text != "." && t.Text != ")" && t.Text != "," && toks[i-1].Text != "." && toks[i-1].Text != "(" {
			b.WriteByte(' ')
		}
		switch t.Kind {
		case tString:
			b.WriteString("'" + t.Text + "'")
		default:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
