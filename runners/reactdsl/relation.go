package reactdsl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// Column is one named, typed column of a Relation. Qual is the table alias
// (or table name) the column is reachable through, kept as a hint after the
// relation is nested, so `T1.name` keeps working. Type is the SQLite type
// affinity: INTEGER, REAL, TEXT, NUMERIC, BLOB, or "" when unknown.
type Column struct {
	Qual, Name, Type string

	sql   string // how the column is referenced inside its block
	alias string // the user's alias in a select list, if any
	cplx  bool   // sql is not atomic: parenthesise when substituted
}

// Display returns Qual.Name or Name.
func (c Column) Display() string {
	if c.Qual != "" {
		return c.Qual + "." + c.Name
	}
	return c.Name
}

// Stages of a query block, in SQL clause order. An operation that needs an
// earlier stage than the block has reached nests the block as a derived
// table first.
const (
	stFrom = iota
	stGrouped
	stProjected
	stDistinct
	stOrdered
	stLimited
	stCompound
)

type block struct {
	from       []string
	base       []Column
	where      []string
	grouped    bool
	aggregated bool
	groupBy    []string
	having     []string
	proj       []Column
	autoProj   bool
	distinct   bool
	order      []string
	limit      string
	offset     string
	compound   string   // the SQL of a compound select
	names      []string // output names of a compound
	stage      int
}

// projectAll makes b's output columns its base columns when it has no
// projection yet.
func (b *block) projectAll() {
	if b.proj == nil {
		b.proj = append([]Column{}, b.base...)
	}
}

func (b block) clone() block {
	c := b
	c.from = append([]string(nil), b.from...)
	c.base = append([]Column(nil), b.base...)
	c.where = append([]string(nil), b.where...)
	c.groupBy = append([]string(nil), b.groupBy...)
	c.having = append([]string(nil), b.having...)
	if b.proj != nil {
		c.proj = append([]Column{}, b.proj...)
	}
	c.order = append([]string(nil), b.order...)
	c.names = append([]string(nil), b.names...)
	return c
}

// Relation is an immutable, typed query value built by DSL operations.
type Relation struct {
	Name string
	b    block
}

// Columns returns the relation's visible columns.
func (r *Relation) Columns() []Column {
	if r.b.proj != nil {
		return r.b.proj
	}
	return r.b.base
}

// Signature renders the relation as `name(col TYPE, ...)`.
func (r *Relation) Signature() string {
	parts := make([]string, 0, len(r.Columns()))
	for _, c := range r.Columns() {
		t := c.Type
		if t == "" {
			t = "ANY"
		}
		parts = append(parts, c.Display()+" "+t)
	}
	return r.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Session holds the relations a conversation has defined against one
// database schema, and compiles them to SQL for one dialect.
type Session struct {
	schema  *datasets.Schema
	dialect string
	rels    map[string]*Relation
	nAlias  int
}

// NewSession starts a session over schema; dialect is "sqlite" or "mysql".
func NewSession(schema *datasets.Schema, dialect string) *Session {
	if dialect != "mysql" {
		dialect = "sqlite"
	}
	return &Session{schema: schema, dialect: dialect, rels: map[string]*Relation{}}
}

// SQL compiles r to one SELECT statement.
func (s *Session) SQL(r *Relation) string { return s.render(r.b, nil) }

// Outcome is what applying one call produced.
type Outcome struct {
	// Kind is "relation", "probe" or "answer".
	Kind string
	Rel  *Relation
	// SQL is the statement a probe or answer runs.
	SQL string
	// Answer lists the relations an answer call names.
	Answer []string
}

// Probes are the read-only operations; Ops lists every operation with its
// parameters, in the order DSL.md documents them.
var ops = map[string][]string{
	"table_ref":       {"source", "as"},
	"select_columns":  {"rel", "columns"},
	"distinct":        {"rel"},
	"filter_expr":     {"rel", "predicate"},
	"join_table":      {"left", "right", "on", "kind", "as"},
	"aggregate":       {"rel", "group_by", "aggs"},
	"having":          {"rel", "predicate"},
	"compute":         {"rel", "columns"},
	"order_by":        {"rel", "keys"},
	"limit":           {"rel", "n", "offset"},
	"set_op":          {"left", "right", "op"},
	"in_relation":     {"rel", "expr", "sub", "negate"},
	"sample_rows":     {"rel", "n"},
	"distinct_values": {"rel", "column", "n"},
	"execute":         {"rel"},
	"answer":          nil, // answer(r1, r2, ...)
}

// BuildingOps are the 12 relation-building operations; ProbeOps the 3
// read-only probes.
var (
	BuildingOps = []string{"table_ref", "select_columns", "distinct", "filter_expr", "join_table", "aggregate",
		"having", "compute", "order_by", "limit", "set_op", "in_relation"}
	ProbeOps = []string{"sample_rows", "distinct_values", "execute"}
)

var required = map[string][]string{
	"table_ref": {"source"}, "select_columns": {"rel", "columns"}, "distinct": {"rel"},
	"filter_expr": {"rel", "predicate"}, "join_table": {"left", "right"}, "aggregate": {"rel"},
	"having": {"rel", "predicate"}, "compute": {"rel", "columns"}, "order_by": {"rel", "keys"},
	"limit": {"rel", "n"}, "set_op": {"left", "right", "op"}, "in_relation": {"rel", "expr", "sub"},
	"sample_rows": {"rel"}, "distinct_values": {"rel", "column"}, "execute": {"rel"},
}

// Apply type-checks and applies one call. Building calls define c.Target;
// probes and answer return the SQL to run. Every failure is an *Error.
func (s *Session) Apply(c Call) (Outcome, error) {
	out, err := s.apply(c)
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = newErr(BadArgument, "%v", err)
		}
		if e.Line == 0 {
			e.Line = c.Line
		}
		if e.Op == "" {
			e.Op = c.Op
		}
		return Outcome{}, e
	}
	return out, nil
}

func (s *Session) apply(c Call) (Outcome, error) {
	params, known := ops[c.Op]
	if !known {
		names := append(append([]string{}, BuildingOps...), ProbeOps...)
		names = append(names, "answer")
		e := newErr(UnknownOperation, "no operation %q", c.Op)
		e.Name, e.Suggestions = c.Op, suggest(c.Op, names)
		return Outcome{}, e
	}
	if c.Op == "answer" {
		return s.answer(c)
	}
	a, err := bindArgs(c, params)
	if err != nil {
		return Outcome{}, err
	}
	isProbe := c.Op == "sample_rows" || c.Op == "distinct_values" || c.Op == "execute"
	if !isProbe && c.Target == "" {
		return Outcome{}, newErr(BadArgument, "assign the result to a name: rN = %s(...)", c.Op)
	}
	var r *Relation
	switch c.Op {
	case "table_ref":
		r, err = s.tableRef(a)
	case "select_columns":
		r, err = s.selectColumns(a)
	case "distinct":
		r, err = s.distinctOp(a)
	case "filter_expr":
		r, err = s.filterExpr(a)
	case "join_table":
		r, err = s.joinTable(a)
	case "aggregate":
		r, err = s.aggregate(a)
	case "having":
		r, err = s.havingOp(a)
	case "compute":
		r, err = s.compute(a)
	case "order_by":
		r, err = s.orderBy(a)
	case "limit":
		r, err = s.limitOp(a)
	case "set_op":
		r, err = s.setOp(a)
	case "in_relation":
		r, err = s.inRelation(a)
	case "sample_rows", "distinct_values", "execute":
		return s.probe(c.Op, a)
	}
	if err != nil {
		return Outcome{}, err
	}
	r.Name = c.Target
	s.rels[c.Target] = r
	return Outcome{Kind: "relation", Rel: r}, nil
}

type args map[string]Value

func bindArgs(c Call, params []string) (args, error) {
	a := args{}
	pos := 0
	for _, arg := range c.Args {
		name := arg.Name
		if name == "" {
			if pos >= len(params) {
				return nil, newErr(BadArgument, "%s takes at most %d arguments (%s)", c.Op, len(params), strings.Join(params, ", "))
			}
			name = params[pos]
			pos++
		} else {
			found := false
			for _, p := range params {
				if p == name {
					found = true
				}
			}
			if !found {
				e := newErr(BadArgument, "%s has no parameter %q (parameters: %s)", c.Op, name, strings.Join(params, ", "))
				e.Name, e.Suggestions = name, suggest(name, params)
				return nil, e
			}
		}
		if _, dup := a[name]; dup {
			return nil, newErr(BadArgument, "parameter %q given twice", name)
		}
		a[name] = arg.Val
	}
	for _, req := range required[c.Op] {
		if _, ok := a[req]; !ok {
			e := newErr(BadArgument, "missing parameter %q (%s(%s))", req, c.Op, strings.Join(params, ", "))
			e.Name = req
			return nil, e
		}
	}
	return a, nil
}

func (a args) str(key string) (string, error) {
	v := a[key]
	if v.Kind != "str" {
		return "", newErr(BadArgument, "parameter %q wants a quoted string, got %s", key, v.String())
	}
	return v.Str, nil
}

func (a args) strList(key string) ([]string, error) {
	v, ok := a[key]
	if !ok {
		return nil, nil
	}
	if v.Kind == "str" {
		return []string{v.Str}, nil
	}
	if v.Kind != "list" {
		return nil, newErr(BadArgument, "parameter %q wants a list of strings like [\"a\", \"b\"], got %s", key, v.String())
	}
	out := make([]string, 0, len(v.List))
	for _, e := range v.List {
		if e.Kind != "str" {
			return nil, newErr(BadArgument, "parameter %q wants a list of strings, got element %s", key, e.String())
		}
		out = append(out, e.Str)
	}
	return out, nil
}

func (a args) intArg(key string, def, lo, hi int) (int, error) {
	v, ok := a[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v.Str)
	if v.Kind != "num" || err != nil {
		e := newErr(TypeMismatch, "parameter %q wants an integer, got %s", key, v.String())
		e.Name = key
		return 0, e
	}
	if n < lo || n > hi {
		e := newErr(BadArgument, "parameter %q = %d is out of range [%d, %d]", key, n, lo, hi)
		e.Name = key
		return 0, e
	}
	return n, nil
}

func (a args) boolArg(key string) (bool, error) {
	v, ok := a[key]
	if !ok {
		return false, nil
	}
	if v.Kind == "name" && (v.Str == "true" || v.Str == "false") {
		return v.Str == "true", nil
	}
	return false, newErr(TypeMismatch, "parameter %q wants true or false, got %s", key, v.String())
}

func (s *Session) relArg(a args, key string) (*Relation, error) {
	v := a[key]
	if v.Kind != "name" {
		return nil, newErr(BadArgument, "parameter %q wants a relation name like r1, got %s", key, v.String())
	}
	return s.lookup(v.Str)
}

// relList returns argument rel's relation and the string list of
// argument key, which must not be empty (empty: the error's text).
func (s *Session) relList(a args, key, empty string) (*Relation, []string, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, nil, err
	}
	list, err := a.strList(key)
	if err != nil {
		return nil, nil, err
	}
	if len(list) == 0 {
		return nil, nil, newErr(BadArgument, "%s", empty)
	}
	return r, list, nil
}

// relPredicate returns argument rel's relation and argument predicate.
func (s *Session) relPredicate(a args) (*Relation, string, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, "", err
	}
	src, err := a.str("predicate")
	if err != nil {
		return nil, "", err
	}
	return r, src, nil
}

// outScope is the scope of expressions over n's output columns: aggregates
// are allowed once n is grouped or aggregated, else refused with aggMsg.
func (s *Session) outScope(n *Relation, aggMsg string) *scope {
	sc := &scope{s: s, out: n.b.proj, base: n.b.base, aggOK: n.b.grouped || n.b.aggregated}
	if !sc.aggOK {
		sc.aggMsg = aggMsg
	}
	return sc
}

func (s *Session) lookup(name string) (*Relation, error) {
	r, ok := s.rels[name]
	if !ok {
		names := make([]string, 0, len(s.rels))
		for n := range s.rels {
			names = append(names, n)
		}
		e := newErr(UndefinedRelation, "relation %s is not defined (define it first, e.g. %s = table_ref(\"table\"))", name, name)
		e.Rel, e.Suggestions = name, suggest(name, sortedStrings(names))
		return nil, e
	}
	return r, nil
}

func sortedStrings(ss []string) []string {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j] < ss[j-1]; j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
	return ss
}

// need returns a copy of r whose block is at most at stage max, nesting r as
// a derived table when it is further along.
func (s *Session) need(r *Relation, max int) *Relation {
	if r.b.stage > max {
		return s.wrap(r, "", false)
	}
	return &Relation{b: r.b.clone()}
}

// wrap nests r as a derived table. When requal is set every column gets qual
// as its qualifier.
func (s *Session) wrap(r *Relation, qual string, requal bool) *Relation {
	cols := r.Columns()
	var names []string
	var inner string
	if r.b.compound != "" {
		names = r.b.names
		inner = r.b.compound
	} else {
		names = uniqueNames(cols)
		inner = s.render(r.b, names)
	}
	s.nAlias++
	alias := qual
	if alias == "" {
		alias = "d" + strconv.Itoa(s.nAlias)
	}
	qa := quoteIdent(alias, s.dialect)
	nb := block{from: []string{"(" + inner + ") AS " + qa}}
	for i, c := range cols {
		q := c.Qual
		if requal {
			q = qual
		}
		nb.base = append(nb.base, Column{Qual: q, Name: c.Name, Type: c.Type, sql: qa + "." + quoteIdent(names[i], s.dialect)})
	}
	return &Relation{b: nb}
}

// uniqueNames gives each column a distinct plain SQL name for use as a
// derived-table column.
func uniqueNames(cols []Column) []string {
	used := map[string]bool{}
	out := make([]string, len(cols))
	for i, c := range cols {
		base := sanitize(c.Name)
		if base == "" {
			base = "c" + strconv.Itoa(i+1)
		}
		n := base
		for k := 2; used[strings.ToLower(n)]; k++ {
			n = base + "_" + strconv.Itoa(k)
		}
		used[strings.ToLower(n)] = true
		out[i] = n
	}
	return out
}

func sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isIdentPart(c) && c < 0x80 && c != '$':
			b.WriteByte(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out != "" && isDigit(out[0]) {
		out = "c" + out
	}
	if sqlKeywords[strings.ToUpper(out)] {
		out += "_"
	}
	return out
}

func (s *Session) render(b block, names []string) string {
	if b.compound != "" {
		return b.compound
	}
	var q strings.Builder
	q.WriteString("SELECT ")
	if b.distinct {
		q.WriteString("DISTINCT ")
	}
	var items []string
	switch {
	case b.proj != nil:
		for i, c := range b.proj {
			it := c.sql
			if names != nil {
				it += " AS " + quoteIdent(names[i], s.dialect)
			} else if c.alias != "" {
				it += " AS " + quoteIdent(c.alias, s.dialect)
			}
			items = append(items, it)
		}
	case names != nil:
		for i, c := range b.base {
			items = append(items, c.sql+" AS "+quoteIdent(names[i], s.dialect))
		}
	default:
		items = []string{"*"}
	}
	q.WriteString(strings.Join(items, ", "))
	for _, c := range []struct {
		kw    string
		parts []string
		sep   string
	}{
		{" FROM ", b.from, " "},
		{" WHERE ", b.where, " AND "},
		{" GROUP BY ", b.groupBy, ", "},
		{" HAVING ", b.having, " AND "},
		{" ORDER BY ", b.order, ", "},
	} {
		if len(c.parts) > 0 {
			q.WriteString(c.kw)
			q.WriteString(strings.Join(c.parts, c.sep))
		}
	}
	if b.limit != "" {
		q.WriteString(" LIMIT ")
		q.WriteString(b.limit)
		if b.offset != "" && b.offset != "0" {
			q.WriteString(" OFFSET ")
			q.WriteString(b.offset)
		}
	}
	return q.String()
}

// affinity maps a declared column type to its SQLite type affinity
// (SQLite docs, "Datatypes In SQLite", section 3.1).
func affinity(decl string) string {
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return "INTEGER"
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return "TEXT"
	case u == "" || strings.Contains(u, "BLOB"):
		return ""
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

func (s *Session) tableCols(table, qual string) ([]Column, string, error) {
	if s.schema == nil {
		return nil, "", newErr(UnknownTable, "no schema loaded")
	}
	t, ok := s.schema.Table(table)
	if !ok {
		names := make([]string, 0, len(s.schema.Tables))
		for _, t := range s.schema.Tables {
			names = append(names, t.Name)
		}
		e := newErr(UnknownTable, "no table %q in database %s (tables: %s)", table, s.schema.DBID, strings.Join(names, ", "))
		e.Name, e.Suggestions = table, suggest(table, names)
		return nil, "", e
	}
	if qual == "" {
		qual = t.Name
	}
	qq := quoteIdent(qual, s.dialect)
	cols := make([]Column, 0, len(t.Columns))
	for _, c := range t.Columns {
		cols = append(cols, Column{Qual: qual, Name: c.Name, Type: affinity(c.Type), sql: qq + "." + quoteIdent(c.Name, s.dialect)})
	}
	return cols, t.Name, nil
}

func (s *Session) tableRef(a args) (*Relation, error) {
	as := ""
	if _, ok := a["as"]; ok {
		v, err := a.str("as")
		if err != nil {
			return nil, err
		}
		if !isIdent(v) {
			return nil, newErr(BadArgument, "alias %q must be a plain name", v)
		}
		as = v
	}
	src := a["source"]
	switch src.Kind {
	case "str":
		cols, name, err := s.tableCols(src.Str, as)
		if err != nil {
			return nil, err
		}
		from := quoteIdent(name, s.dialect)
		if as != "" {
			from += " AS " + quoteIdent(as, s.dialect)
		}
		return &Relation{b: block{from: []string{from}, base: cols}}, nil
	case "name":
		r, err := s.lookup(src.Str)
		if err != nil {
			return nil, err
		}
		return s.wrap(r, as, as != ""), nil
	}
	return nil, newErr(BadArgument, "table_ref wants a table name in quotes or a relation name, got %s", src.String())
}

func (s *Session) filterExpr(a args) (*Relation, error) {
	r, src, err := s.relPredicate(a)
	if err != nil {
		return nil, err
	}
	n := s.need(r, stFrom)
	sql, err := s.predicate(src, &scope{s: s, base: n.b.base, aggMsg: "filter_expr filters rows before grouping: use aggregate(...) then having(...)"})
	if err != nil {
		return nil, err
	}
	n.b.where = append(n.b.where, sql)
	return n, nil
}

// predicate compiles a boolean expression, parenthesising top-level ORs so
// that it can be AND-ed with others.
func (s *Session) predicate(src string, sc *scope) (string, error) {
	e, err := ParseExpr(src)
	if err != nil {
		return "", err
	}
	if l, ok := e.(*Lit); ok {
		return "", newErr(TypeMismatch, "the predicate is a bare %s literal %s, not a condition (did you mean column = value?)", l.Kind, FormatExpr(l))
	}
	if c, ok := e.(*ColRef); ok && c.Quote == '"' && c.Qual == "" {
		if _, found, _ := sc.find(c, false); !found {
			return "", newErr(TypeMismatch, "the predicate is the string %q, not a condition (did you mean column = value?)", c.Name)
		}
	}
	info, err := sc.compile(e)
	if err != nil {
		return "", err
	}
	if b, ok := e.(*Binary); ok && b.Op == "OR" {
		return "(" + info.sql + ")", nil
	}
	return info.sql, nil
}

func (s *Session) joinTable(a args) (*Relation, error) {
	left, err := s.relArg(a, "left")
	if err != nil {
		return nil, err
	}
	kind := "inner"
	if _, ok := a["kind"]; ok {
		if kind, err = a.str("kind"); err != nil {
			return nil, err
		}
		kind = strings.ToLower(kind)
	}
	if kind != "inner" && kind != "left" && kind != "cross" {
		return nil, newErr(BadArgument, "kind %q is not one of inner, left, cross", kind)
	}
	as := ""
	if _, ok := a["as"]; ok {
		if as, err = a.str("as"); err != nil {
			return nil, err
		}
		if !isIdent(as) {
			return nil, newErr(BadArgument, "alias %q must be a plain name", as)
		}
	}
	n := s.need(left, stFrom)
	var rcols []Column
	var item string
	switch rv := a["right"]; rv.Kind {
	case "str":
		cols, name, err := s.tableCols(rv.Str, as)
		if err != nil {
			return nil, err
		}
		rcols = cols
		item = quoteIdent(name, s.dialect)
		if as != "" {
			item += " AS " + quoteIdent(as, s.dialect)
		}
	case "name":
		rr, err := s.lookup(rv.Str)
		if err != nil {
			return nil, err
		}
		w := s.wrap(rr, as, as != "")
		rcols = w.b.base
		item = w.b.from[0]
	default:
		return nil, newErr(BadArgument, "join_table right wants a table name in quotes or a relation name, got %s", rv.String())
	}
	lq := map[string]bool{}
	for _, c := range n.b.base {
		if c.Qual != "" {
			lq[strings.ToLower(c.Qual)] = true
		}
	}
	for _, c := range rcols {
		if c.Qual != "" && lq[strings.ToLower(c.Qual)] {
			return nil, newErr(BadArgument, "qualifier %q is already used on the left side: give the right side a different alias with as=\"...\"", c.Qual)
		}
	}
	on := ""
	if _, ok := a["on"]; ok {
		src, err := a.str("on")
		if err != nil {
			return nil, err
		}
		all := append(append([]Column{}, n.b.base...), rcols...)
		if on, err = s.predicate(src, &scope{s: s, base: all, aggMsg: "join conditions cannot hold aggregates"}); err != nil {
			return nil, err
		}
	}
	switch {
	case kind == "cross" && on == "":
		item = "CROSS JOIN " + item
	case on == "":
		return nil, newErr(BadArgument, "%s join needs on=\"left.col = right.col\" (or kind=\"cross\")", kind)
	case kind == "left":
		item = "LEFT JOIN " + item + " ON " + on
	default:
		item = "JOIN " + item + " ON " + on
	}
	n.b.from = append(n.b.from, item)
	n.b.base = append(n.b.base, rcols...)
	return n, nil
}

// colFromExpr builds the output column of a select-list expression.
func colFromExpr(e Expr, info exprInfo, alias string, sc *scope) Column {
	c := Column{Type: info.typ, sql: info.sql, alias: alias, cplx: info.cplx}
	if ref, ok := e.(*ColRef); ok {
		if rc, found, _ := sc.find(ref, false); found {
			c.Qual, c.Name = rc.Qual, rc.Name
		}
	}
	if c.Name == "" {
		c.Name = FormatExpr(e)
	}
	if alias != "" {
		c.Name, c.Qual = alias, ""
	}
	return c
}

func (s *Session) aggregate(a args) (*Relation, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, err
	}
	keys, err := a.strList("group_by")
	if err != nil {
		return nil, err
	}
	aggs, err := a.strList("aggs")
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 && len(aggs) == 0 {
		return nil, newErr(BadArgument, "aggregate needs group_by=[...] and/or aggs=[\"count(*) AS n\", ...]")
	}
	n := s.need(r, stFrom)
	ksc := &scope{s: s, base: n.b.base, aggMsg: "group_by keys cannot hold aggregates"}
	proj := []Column{}
	for _, k := range keys {
		e, err := ParseExpr(k)
		if err != nil {
			return nil, err
		}
		info, err := ksc.compile(e)
		if err != nil {
			return nil, err
		}
		n.b.groupBy = append(n.b.groupBy, info.sql)
		proj = append(proj, colFromExpr(e, info, "", ksc))
	}
	asc := &scope{s: s, base: n.b.base, aggOK: true}
	for _, item := range aggs {
		it, err := parseItem(item)
		if err != nil {
			return nil, err
		}
		if _, star := it.Expr.(*Star); star {
			return nil, newErr(BadArgument, "aggs items are aggregate expressions like \"count(*) AS n\", not *")
		}
		info, err := asc.compile(it.Expr)
		if err != nil {
			return nil, err
		}
		proj = append(proj, colFromExpr(it.Expr, info, it.Alias, asc))
	}
	n.b.grouped, n.b.proj, n.b.autoProj, n.b.stage = true, proj, true, stGrouped
	return n, nil
}

func (s *Session) havingOp(a args) (*Relation, error) {
	r, src, err := s.relPredicate(a)
	if err != nil {
		return nil, err
	}
	if !r.b.grouped || r.b.stage > stProjected {
		e := newErr(NotGrouped, "having filters the groups of an aggregate(...) relation; %s is not freshly aggregated: use filter_expr for row filters", r.Name)
		e.Rel = r.Name
		return nil, e
	}
	n := s.need(r, stProjected)
	sql, err := s.predicate(src, &scope{s: s, out: n.b.proj, base: n.b.base, aggOK: true})
	if err != nil {
		return nil, err
	}
	n.b.having = append(n.b.having, sql)
	return n, nil
}

// items compiles select-list items against sc, expanding stars.
func (s *Session) items(srcs []string, sc *scope, visible []Column, needAlias bool) ([]Column, bool, error) {
	var out []Column
	anyAgg := false
	for _, src := range srcs {
		it, err := parseItem(src)
		if err != nil {
			return nil, false, err
		}
		if st, ok := it.Expr.(*Star); ok {
			if needAlias {
				return nil, false, newErr(BadArgument, "compute adds named columns: write \"expr AS name\", not *")
			}
			matched := false
			for _, c := range visible {
				if st.Qual == "" || strings.EqualFold(c.Qual, st.Qual) {
					c.alias = ""
					out = append(out, c)
					matched = true
				}
			}
			if !matched {
				e := newErr(UnknownTable, "no columns qualified %q in this relation", st.Qual)
				e.Name, e.Suggestions = st.Qual, suggest(st.Qual, quals(visible))
				return nil, false, e
			}
			continue
		}
		if needAlias && it.Alias == "" {
			return nil, false, newErr(BadArgument, "compute needs a name for %q: write \"expr AS name\"", src)
		}
		info, err := sc.compile(it.Expr)
		if err != nil {
			return nil, false, err
		}
		anyAgg = anyAgg || info.agg
		out = append(out, colFromExpr(it.Expr, info, it.Alias, sc))
	}
	return out, anyAgg, nil
}

func quals(cols []Column) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cols {
		if c.Qual != "" && !seen[c.Qual] {
			seen[c.Qual] = true
			out = append(out, c.Qual)
		}
	}
	return out
}

func (s *Session) selectColumns(a args) (*Relation, error) {
	r, srcs, err := s.relList(a, "columns", "select_columns needs at least one column")
	if err != nil {
		return nil, err
	}
	n := s.need(r, stGrouped)
	sc := &scope{s: s, base: n.b.base, aggOK: true}
	if n.b.autoProj {
		sc.out = n.b.proj
	}
	cols, anyAgg, err := s.items(srcs, sc, n.Columns(), false)
	if err != nil {
		return nil, err
	}
	n.b.proj, n.b.autoProj, n.b.stage = cols, false, stProjected
	n.b.aggregated = n.b.aggregated || anyAgg
	return n, nil
}

func (s *Session) compute(a args) (*Relation, error) {
	r, srcs, err := s.relList(a, "columns", "compute needs at least one \"expr AS name\" item")
	if err != nil {
		return nil, err
	}
	n := s.need(r, stProjected)
	n.b.projectAll()
	sc := s.outScope(n, "compute adds per-row columns: use aggregate(...) for aggregates")
	cols, _, err := s.items(srcs, sc, nil, true)
	if err != nil {
		return nil, err
	}
	n.b.proj = append(n.b.proj, cols...)
	n.b.autoProj, n.b.stage = false, stProjected
	return n, nil
}

func (s *Session) distinctOp(a args) (*Relation, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, err
	}
	n := s.need(r, stDistinct)
	n.b.projectAll()
	n.b.distinct, n.b.autoProj, n.b.stage = true, false, stDistinct
	return n, nil
}

func (s *Session) orderBy(a args) (*Relation, error) {
	r, keys, err := s.relList(a, "keys", "order_by needs at least one key like \"col DESC\"")
	if err != nil {
		return nil, err
	}
	n := s.need(r, stDistinct)
	sc := s.outScope(n, "order_by on an ungrouped relation cannot use aggregates: aggregate(...) first")
	for _, k := range keys {
		it, err := parseOrderItem(k)
		if err != nil {
			return nil, err
		}
		info, err := sc.compile(it.Expr)
		if err != nil {
			return nil, err
		}
		sql := info.sql
		if it.Desc {
			sql += " DESC"
		}
		n.b.order = append(n.b.order, sql)
	}
	n.b.stage = stOrdered
	return n, nil
}

func (s *Session) limitOp(a args) (*Relation, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, err
	}
	lim, err := a.intArg("n", 0, 0, 1<<30)
	if err != nil {
		return nil, err
	}
	off, err := a.intArg("offset", 0, 0, 1<<30)
	if err != nil {
		return nil, err
	}
	n := s.need(r, stOrdered)
	n.b.limit, n.b.offset, n.b.stage = strconv.Itoa(lim), strconv.Itoa(off), stLimited
	return n, nil
}

var setOps = map[string]string{"union": "UNION", "union_all": "UNION ALL", "union all": "UNION ALL", "intersect": "INTERSECT", "except": "EXCEPT"}

func (s *Session) setOp(a args) (*Relation, error) {
	l, err := s.relArg(a, "left")
	if err != nil {
		return nil, err
	}
	r, err := s.relArg(a, "right")
	if err != nil {
		return nil, err
	}
	opName, err := a.str("op")
	if err != nil {
		return nil, err
	}
	op, ok := setOps[strings.ToLower(opName)]
	if !ok {
		return nil, newErr(BadArgument, "op %q is not one of union, union_all, intersect, except", opName)
	}
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		e := newErr(ArityMismatch, "%s has %d columns but %s has %d: both sides of %s need the same number", l.Name, len(lc), r.Name, len(rc), opName)
		e.Rel = r.Name
		return nil, e
	}
	var left string
	var names []string
	switch {
	case l.b.compound != "":
		left, names = l.b.compound, l.b.names
	case l.b.stage >= stOrdered:
		w := s.wrap(l, "", false)
		names = uniqueNames(lc)
		left = s.render(w.b, names)
	default:
		names = uniqueNames(lc)
		left = s.render(l.b, names)
	}
	right := s.render(r.b, nil)
	if r.b.compound != "" || r.b.stage >= stOrdered {
		right = s.render(s.wrap(r, "", false).b, nil)
	}
	cols := make([]Column, len(lc))
	for i, c := range lc {
		cols[i] = Column{Qual: c.Qual, Name: c.Name, Type: c.Type}
	}
	return &Relation{b: block{compound: left + " " + op + " " + right, names: names, base: cols, stage: stCompound}}, nil
}

func (s *Session) inRelation(a args) (*Relation, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return nil, err
	}
	src, err := a.str("expr")
	if err != nil {
		return nil, err
	}
	sub, err := s.relArg(a, "sub")
	if err != nil {
		return nil, err
	}
	neg, err := a.boolArg("negate")
	if err != nil {
		return nil, err
	}
	if len(sub.Columns()) != 1 {
		e := newErr(ArityMismatch, "%s has %d columns; in_relation needs a one-column relation (select_columns first)", sub.Name, len(sub.Columns()))
		e.Rel = sub.Name
		return nil, e
	}
	n := s.need(r, stFrom)
	e, err := ParseExpr(src)
	if err != nil {
		return nil, err
	}
	info, err := (&scope{s: s, base: n.b.base, aggMsg: "in_relation tests rows: no aggregates"}).compile(e)
	if err != nil {
		return nil, err
	}
	x := info.sql
	if info.cplx {
		x = "(" + x + ")"
	}
	op := " IN "
	if neg {
		op = " NOT IN "
	}
	n.b.where = append(n.b.where, x+op+"("+s.SQL(sub)+")")
	return n, nil
}

func (s *Session) probe(op string, a args) (Outcome, error) {
	r, err := s.relArg(a, "rel")
	if err != nil {
		return Outcome{}, err
	}
	switch op {
	case "execute":
		return Outcome{Kind: "probe", Rel: r, SQL: s.SQL(r)}, nil
	case "sample_rows":
		n, err := a.intArg("n", 5, 1, 50)
		if err != nil {
			return Outcome{}, err
		}
		w := s.wrap(r, "", false)
		w.b.limit, w.b.stage = strconv.Itoa(n), stLimited
		return Outcome{Kind: "probe", Rel: r, SQL: s.SQL(w)}, nil
	default: // distinct_values
		n, err := a.intArg("n", 20, 1, 200)
		if err != nil {
			return Outcome{}, err
		}
		col, err := a.str("column")
		if err != nil {
			return Outcome{}, err
		}
		w := s.wrap(r, "", false)
		e, err := ParseExpr(col)
		if err != nil {
			return Outcome{}, err
		}
		sc := &scope{s: s, base: w.b.base, aggMsg: "distinct_values lists values of a column"}
		info, err := sc.compile(e)
		if err != nil {
			return Outcome{}, err
		}
		w.b.proj = []Column{{Name: col, sql: info.sql, Type: info.typ}}
		w.b.distinct = true
		w.b.limit, w.b.stage = strconv.Itoa(n), stLimited
		return Outcome{Kind: "probe", Rel: r, SQL: s.SQL(w)}, nil
	}
}

func (s *Session) answer(c Call) (Outcome, error) {
	if len(c.Args) == 0 {
		return Outcome{}, newErr(BadArgument, "answer needs a relation: answer(rN)")
	}
	var rels []*Relation
	var names []string
	for _, arg := range c.Args {
		if arg.Name != "" || arg.Val.Kind != "name" {
			return Outcome{}, newErr(BadArgument, "answer takes relation names: answer(r5) or answer(r2, r3)")
		}
		r, err := s.lookup(arg.Val.Str)
		if err != nil {
			return Outcome{}, err
		}
		rels = append(rels, r)
		names = append(names, arg.Val.Str)
	}
	if len(rels) == 1 {
		return Outcome{Kind: "answer", Rel: rels[0], SQL: s.SQL(rels[0]), Answer: names}, nil
	}
	// A combined answer: the listed relations side by side (a cross join,
	// which is exact when each is a one-row metric).
	var from []string
	var cols []Column
	for i, r := range rels {
		w := s.wrap(r, "", false)
		it := w.b.from[0]
		if i > 0 {
			it = "CROSS JOIN " + it
		}
		from = append(from, it)
		cols = append(cols, w.b.base...)
	}
	combined := &Relation{Name: strings.Join(names, "+"), b: block{from: from, base: cols}}
	combined.b.proj = cols
	return Outcome{Kind: "answer", Rel: combined, SQL: s.SQL(combined), Answer: names}, nil
}

// String summarises an outcome for an observation.
func (o Outcome) String() string {
	if o.Rel != nil {
		return fmt.Sprintf("%s: %s", o.Kind, o.Rel.Signature())
	}
	return o.Kind
}
