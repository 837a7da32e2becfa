package reactdsl

import (
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// Lift translates one SQL SELECT statement into DSL calls that build the
// same result, naming relations prefix+"r0", prefix+"r1", .... The program
// is type-checked against schema before it is returned, so it always
// applies cleanly to a fresh Session. SQL outside the covered subset (and
// SQL the checker rejects, e.g. correlated subqueries) gives an *Error with
// Code NotLiftable; its Cause holds the checker's error when there is one.
func Lift(sql string, schema *datasets.Schema, prefix string) (calls []Call, final string, err error) {
	sel, err := ParseSelect(sql)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code == NotLiftableCode {
			return nil, "", e
		}
		ne := notLiftable("SQL that does not parse")
		ne.Msg = "cannot parse the SQL: " + err.Error()
		if e, ok := err.(*Error); ok {
			ne.Cause = e
		}
		return nil, "", ne
	}
	l := &lifter{prefix: prefix}
	final, err = l.selectStmt(sel)
	if err != nil {
		return nil, "", err
	}
	// Check the program in the text form a model would read and write.
	text := FormatProgram(l.calls)
	parsed, perrs := ParseCalls(text)
	if len(perrs) > 0 || len(parsed) != len(l.calls) {
		ne := notLiftable("the lifted program")
		ne.Msg = "the lifted program does not reparse"
		if len(perrs) > 0 {
			ne.Cause = perrs[0]
			ne.Msg += ": " + perrs[0].Error()
		}
		return nil, "", ne
	}
	s := NewSession(schema, "sqlite")
	for i := range parsed {
		if _, err := s.Apply(parsed[i]); err != nil {
			e, _ := err.(*Error)
			ne := notLiftable("the lifted program")
			ne.Msg = "the lifted program fails the DSL check (" + string(e.Code) + "): " + e.Error()
			ne.Cause = e
			return nil, "", ne
		}
	}
	return parsed, final, nil
}

type lifter struct {
	prefix string
	n      int
	calls  []Call
}

func (l *lifter) emit(op string, args ...Arg) string {
	name := l.prefix + "r" + strconv.Itoa(l.n)
	l.n++
	l.calls = append(l.calls, Call{Target: name, Op: op, Args: args})
	return name
}

func pos(v Value) Arg            { return Arg{Val: v} }
func kw(k string, v Value) Arg   { return Arg{Name: k, Val: v} }
func relName(name string) Value  { return Name(name) }
func itemText(it SelItem) string { return itemString(it.Expr, it.Alias) }

func itemString(e Expr, alias string) string {
	s := FormatExpr(e)
	if alias != "" {
		s += " AS " + formatName(alias, 0)
	}
	return s
}

func (l *lifter) selectStmt(s *Select) (string, error) {
	var cur string
	var err error
	if s.Op != "" {
		left, err := l.selectStmt(s.Left)
		if err != nil {
			return "", err
		}
		right, err := l.selectStmt(s.Right)
		if err != nil {
			return "", err
		}
		op := strings.ReplaceAll(s.Op, " ", "_")
		cur = l.emit("set_op", pos(relName(left)), pos(relName(right)), kw("op", Str(op)))
	} else if cur, err = l.core(s); err != nil {
		return "", err
	}
	if len(s.OrderBy) > 0 {
		var keys []string
		for _, o := range s.OrderBy {
			if err := l.rewrite(o.Expr); err != nil {
				return "", err
			}
			k := FormatExpr(o.Expr)
			if o.Desc {
				k += " DESC"
			}
			keys = append(keys, k)
		}
		cur = l.emit("order_by", pos(relName(cur)), pos(Strs(keys...)))
	}
	if s.Limit != nil {
		n, ok := intLit(s.Limit)
		if !ok {
			return "", notLiftable("a non-literal LIMIT")
		}
		args := []Arg{pos(relName(cur)), pos(Num(n))}
		if s.Offset != nil {
			off, ok := intLit(s.Offset)
			if !ok {
				return "", notLiftable("a non-literal OFFSET")
			}
			if off != 0 {
				args = append(args, kw("offset", Num(off)))
			}
		}
		cur = l.emit("limit", args...)
	}
	return cur, nil
}

func intLit(e Expr) (int, bool) {
	lit, ok := e.(*Lit)
	if !ok || lit.Kind != "num" {
		return 0, false
	}
	n, err := strconv.Atoi(lit.Text)
	return n, err == nil && n >= 0
}

func (l *lifter) core(s *Select) (string, error) {
	if len(s.From) == 0 {
		return "", notLiftable("SELECT without FROM")
	}
	var cur string
	for i, f := range s.From {
		var src Value
		if f.Sub != nil {
			sub, err := l.selectStmt(f.Sub)
			if err != nil {
				return "", err
			}
			src = relName(sub)
		} else {
			src = Str(f.Table)
		}
		var args []Arg
		if f.Alias != "" {
			args = append(args, kw("as", Str(f.Alias)))
		}
		if i == 0 {
			if f.Sub != nil && f.Alias == "" {
				cur = src.Str
				continue
			}
			cur = l.emit("table_ref", append([]Arg{pos(src)}, args...)...)
			continue
		}
		jargs := []Arg{pos(relName(cur)), pos(src)}
		if f.On != nil {
			if err := l.rewrite(f.On); err != nil {
				return "", err
			}
			jargs = append(jargs, kw("on", Str(FormatExpr(f.On))))
		}
		if f.Join != "inner" {
			jargs = append(jargs, kw("kind", Str(f.Join)))
		}
		cur = l.emit("join_table", append(jargs, args...)...)
	}
	if s.Where != nil {
		var plain []Expr
		flush := func() {
			if len(plain) == 0 {
				return
			}
			parts := make([]string, len(plain))
			for i, p := range plain {
				parts[i] = FormatExpr(p)
				if b, ok := p.(*Binary); ok && b.Op == "OR" && len(plain) > 1 {
					parts[i] = "(" + parts[i] + ")"
				}
			}
			cur = l.emit("filter_expr", pos(relName(cur)), pos(Str(strings.Join(parts, " AND "))))
			plain = nil
		}
		for _, c := range splitAnd(s.Where) {
			if in, ok := c.(*In); ok && in.Sub != nil && !hasSub(in.X) {
				flush()
				sub, err := l.selectStmt(in.Sub)
				if err != nil {
					return "", err
				}
				args := []Arg{pos(relName(cur)), pos(Str(FormatExpr(in.X))), pos(relName(sub))}
				if in.Not {
					args = append(args, kw("negate", Name("true")))
				}
				cur = l.emit("in_relation", args...)
				continue
			}
			if err := l.rewrite(c); err != nil {
				return "", err
			}
			plain = append(plain, c)
		}
		flush()
	}
	star := len(s.Items) == 1
	if star {
		st, ok := s.Items[0].Expr.(*Star)
		star = ok && st.Qual == ""
	}
	if len(s.GroupBy) > 0 {
		if star {
			return "", notLiftable("SELECT * with GROUP BY")
		}
		var keys []string
		for _, g := range s.GroupBy {
			if err := l.rewrite(g); err != nil {
				return "", err
			}
			keys = append(keys, FormatExpr(g))
		}
		cur = l.emit("aggregate", pos(relName(cur)), kw("group_by", Strs(keys...)))
	}
	if s.Having != nil {
		if len(s.GroupBy) == 0 {
			return "", notLiftable("HAVING without GROUP BY")
		}
		if err := l.rewrite(s.Having); err != nil {
			return "", err
		}
		cur = l.emit("having", pos(relName(cur)), pos(Str(FormatExpr(s.Having))))
	}
	if !star || len(s.GroupBy) > 0 {
		var items []string
		for _, it := range s.Items {
			if err := l.rewrite(it.Expr); err != nil {
				return "", err
			}
			items = append(items, itemText(it))
		}
		cur = l.emit("select_columns", pos(relName(cur)), pos(Strs(items...)))
	}
	if s.Distinct {
		cur = l.emit("distinct", pos(relName(cur)))
	}
	return cur, nil
}

func splitAnd(e Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == "AND" {
		return append(splitAnd(b.L), splitAnd(b.R)...)
	}
	return []Expr{e}
}

func hasSub(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) {
		switch y := x.(type) {
		case *Subquery:
			found = found || y.Sub != nil
		case *In:
			found = found || y.Sub != nil
		case *Exists:
			found = found || y.Sub != nil
		}
	})
	return found
}

// rewrite lifts every subquery inside e into its own relation and replaces
// it with a {name} reference.
func (l *lifter) rewrite(e Expr) error {
	var err error
	walkExpr(e, func(x Expr) {
		if err != nil {
			return
		}
		switch y := x.(type) {
		case *Subquery:
			if y.Sub != nil {
				y.Rel, err = l.selectStmt(y.Sub)
				y.Sub = nil
			}
		case *In:
			if y.Sub != nil {
				y.Rel, err = l.selectStmt(y.Sub)
				y.Sub = nil
			}
		case *Exists:
			if y.Sub != nil {
				y.Rel, err = l.selectStmt(y.Sub)
				y.Sub = nil
			}
		}
	})
	return err
}

// walkExpr calls f on every node of e, parents first; it does not descend
// into subqueries.
func walkExpr(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *Func:
		for _, a := range x.Args {
			walkExpr(a, f)
		}
	case *Unary:
		walkExpr(x.X, f)
	case *Binary:
		walkExpr(x.L, f)
		walkExpr(x.R, f)
	case *Between:
		walkExpr(x.X, f)
		walkExpr(x.Lo, f)
		walkExpr(x.Hi, f)
	case *In:
		walkExpr(x.X, f)
		for _, a := range x.List {
			walkExpr(a, f)
		}
	case *Case:
		walkExpr(x.Operand, f)
		for _, w := range x.Whens {
			walkExpr(w[0], f)
			walkExpr(w[1], f)
		}
		walkExpr(x.Else, f)
	case *Cast:
		walkExpr(x.X, f)
	case *Paren:
		walkExpr(x.X, f)
	}
}
