package sim

import (
	"errors"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// lift translates one SQL SELECT statement into DSL calls that build the
// same result, naming relations prefix+"r0", prefix+"r1", .... The program
// is type-checked against schema before it is returned, so it always
// applies cleanly to a fresh reactdsl.Session. SQL outside the covered
// subset (and SQL the checker rejects, e.g. correlated subqueries) gives a
// *reactdsl.Error with Code NotLiftableCode; its Cause holds the checker's
// error when there is one.
//
// It is the simulated model's way of writing the DSL the ReAct-DSL prompt
// documents (reactTurn); the Spider round-trip test also uses it to check
// the DSL compiler (SQL -> lift -> DSL -> compile -> same result).
func lift(sql string, schema *datasets.Schema, prefix string) (calls []reactdsl.Call, final string, err error) {
	sel, err := reactdsl.ParseSelect(sql)
	if err != nil {
		var e *reactdsl.Error
		isDSL := errors.As(err, &e)
		if isDSL && e.Code == reactdsl.NotLiftableCode {
			return nil, "", e
		}
		ne := notLiftable("SQL that does not parse")
		ne.Msg = "cannot parse the SQL: " + err.Error()
		if isDSL {
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
	text := formatProgram(l.calls)
	parsed, perrs := reactdsl.ParseCalls(text)
	if len(perrs) > 0 || len(parsed) != len(l.calls) {
		ne := notLiftable("the lifted program")
		ne.Msg = "the lifted program does not reparse"
		if len(perrs) > 0 {
			ne.Cause = perrs[0]
			ne.Msg += ": " + perrs[0].Error()
		}
		return nil, "", ne
	}
	s := reactdsl.NewSession(schema, "sqlite")
	for i := range parsed {
		if _, err := s.Apply(parsed[i]); err != nil {
			var e *reactdsl.Error
			if !errors.As(err, &e) {
				ne := notLiftable("the lifted program")
				ne.Msg = "the lifted program fails the DSL check: " + err.Error()
				return nil, "", ne
			}
			ne := notLiftable("the lifted program")
			ne.Msg = "the lifted program fails the DSL check (" + string(e.Code) + "): " + e.Error()
			ne.Cause = e
			return nil, "", ne
		}
	}
	return parsed, final, nil
}

// notLiftable is the error for SQL outside the DSL subset, worded as the
// reactdsl SQL parser words its own.
func notLiftable(what string) *reactdsl.Error {
	return &reactdsl.Error{Code: reactdsl.NotLiftableCode, Pos: -1, Msg: what + " is outside the DSL subset"}
}

type lifter struct {
	prefix string
	n      int
	calls  []reactdsl.Call
}

func (l *lifter) emit(op string, args ...reactdsl.Arg) string {
	name := l.prefix + "r" + strconv.Itoa(l.n)
	l.n++
	l.calls = append(l.calls, reactdsl.Call{Target: name, Op: op, Args: args})
	return name
}

func posArg(v reactdsl.Value) reactdsl.Arg          { return reactdsl.Arg{Val: v} }
func kwArg(k string, v reactdsl.Value) reactdsl.Arg { return reactdsl.Arg{Name: k, Val: v} }
func relName(name string) reactdsl.Value            { return reactdsl.Name(name) }

// numVal is a numeric call argument.
func numVal(n int) reactdsl.Value {
	return reactdsl.Value{Kind: "num", Str: strconv.Itoa(n)}
}

// strsVal is a list-of-strings call argument.
func strsVal(ss ...string) reactdsl.Value {
	v := reactdsl.Value{Kind: "list", List: []reactdsl.Value{}}
	for _, s := range ss {
		v.List = append(v.List, reactdsl.Str(s))
	}
	return v
}

// formatProgram writes calls one per line, as a model writes them in a
// ```dsl block.
func formatProgram(calls []reactdsl.Call) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(c.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// itemText writes a select item as DSL expression text; the alias is
// written as an unqualified, unquoted column reference would be (quoted
// only when it would not lex as a name).
func itemText(it reactdsl.SelItem) string {
	s := reactdsl.FormatExpr(it.Expr)
	if it.Alias != "" {
		s += " AS " + reactdsl.FormatExpr(&reactdsl.ColRef{Name: it.Alias})
	}
	return s
}

func (l *lifter) selectStmt(s *reactdsl.Select) (string, error) {
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
		cur = l.emit("set_op", posArg(relName(left)), posArg(relName(right)), kwArg("op", reactdsl.Str(op)))
	} else if cur, err = l.core(s); err != nil {
		return "", err
	}
	if len(s.OrderBy) > 0 {
		var keys []string
		for _, o := range s.OrderBy {
			if err := l.rewrite(o.Expr); err != nil {
				return "", err
			}
			k := reactdsl.FormatExpr(o.Expr)
			if o.Desc {
				k += " DESC"
			}
			keys = append(keys, k)
		}
		cur = l.emit("order_by", posArg(relName(cur)), posArg(strsVal(keys...)))
	}
	if s.Limit != nil {
		n, ok := intLit(s.Limit)
		if !ok {
			return "", notLiftable("a non-literal LIMIT")
		}
		args := []reactdsl.Arg{posArg(relName(cur)), posArg(numVal(n))}
		if s.Offset != nil {
			off, ok := intLit(s.Offset)
			if !ok {
				return "", notLiftable("a non-literal OFFSET")
			}
			if off != 0 {
				args = append(args, kwArg("offset", numVal(off)))
			}
		}
		cur = l.emit("limit", args...)
	}
	return cur, nil
}

func intLit(e reactdsl.Expr) (int, bool) {
	lit, ok := e.(*reactdsl.Lit)
	if !ok || lit.Kind != "num" {
		return 0, false
	}
	n, err := strconv.Atoi(lit.Text)
	return n, err == nil && n >= 0
}

func (l *lifter) core(s *reactdsl.Select) (string, error) {
	if len(s.From) == 0 {
		return "", notLiftable("SELECT without FROM")
	}
	var cur string
	for i, f := range s.From {
		var src reactdsl.Value
		if f.Sub != nil {
			sub, err := l.selectStmt(f.Sub)
			if err != nil {
				return "", err
			}
			src = relName(sub)
		} else {
			src = reactdsl.Str(f.Table)
		}
		var args []reactdsl.Arg
		if f.Alias != "" {
			args = append(args, kwArg("as", reactdsl.Str(f.Alias)))
		}
		if i == 0 {
			if f.Sub != nil && f.Alias == "" {
				cur = src.Str
				continue
			}
			cur = l.emit("table_ref", append([]reactdsl.Arg{posArg(src)}, args...)...)
			continue
		}
		jargs := []reactdsl.Arg{posArg(relName(cur)), posArg(src)}
		if f.On != nil {
			if err := l.rewrite(f.On); err != nil {
				return "", err
			}
			jargs = append(jargs, kwArg("on", reactdsl.Str(reactdsl.FormatExpr(f.On))))
		}
		if f.Join != "inner" {
			jargs = append(jargs, kwArg("kind", reactdsl.Str(f.Join)))
		}
		cur = l.emit("join_table", append(jargs, args...)...)
	}
	if s.Where != nil {
		var plain []reactdsl.Expr
		flush := func() {
			if len(plain) == 0 {
				return
			}
			parts := make([]string, len(plain))
			for i, p := range plain {
				parts[i] = reactdsl.FormatExpr(p)
				if b, ok := p.(*reactdsl.Binary); ok && b.Op == "OR" && len(plain) > 1 {
					parts[i] = "(" + parts[i] + ")"
				}
			}
			cur = l.emit("filter_expr", posArg(relName(cur)), posArg(reactdsl.Str(strings.Join(parts, " AND "))))
			plain = nil
		}
		for _, c := range splitAnd(s.Where) {
			if in, ok := c.(*reactdsl.In); ok && in.Sub != nil && !hasSub(in.X) {
				flush()
				sub, err := l.selectStmt(in.Sub)
				if err != nil {
					return "", err
				}
				args := []reactdsl.Arg{posArg(relName(cur)), posArg(reactdsl.Str(reactdsl.FormatExpr(in.X))), posArg(relName(sub))}
				if in.Not {
					args = append(args, kwArg("negate", reactdsl.Name("true")))
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
		st, ok := s.Items[0].Expr.(*reactdsl.Star)
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
			keys = append(keys, reactdsl.FormatExpr(g))
		}
		cur = l.emit("aggregate", posArg(relName(cur)), kwArg("group_by", strsVal(keys...)))
	}
	if s.Having != nil {
		if len(s.GroupBy) == 0 {
			return "", notLiftable("HAVING without GROUP BY")
		}
		if err := l.rewrite(s.Having); err != nil {
			return "", err
		}
		cur = l.emit("having", posArg(relName(cur)), posArg(reactdsl.Str(reactdsl.FormatExpr(s.Having))))
	}
	if !star || len(s.GroupBy) > 0 {
		var items []string
		for _, it := range s.Items {
			if err := l.rewrite(it.Expr); err != nil {
				return "", err
			}
			items = append(items, itemText(it))
		}
		cur = l.emit("select_columns", posArg(relName(cur)), posArg(strsVal(items...)))
	}
	if s.Distinct {
		cur = l.emit("distinct", posArg(relName(cur)))
	}
	return cur, nil
}

func splitAnd(e reactdsl.Expr) []reactdsl.Expr {
	if b, ok := e.(*reactdsl.Binary); ok && b.Op == "AND" {
		return append(splitAnd(b.L), splitAnd(b.R)...)
	}
	return []reactdsl.Expr{e}
}

func hasSub(e reactdsl.Expr) bool {
	found := false
	walkExpr(e, func(x reactdsl.Expr) {
		switch y := x.(type) {
		case *reactdsl.Subquery:
			found = found || y.Sub != nil
		case *reactdsl.In:
			found = found || y.Sub != nil
		case *reactdsl.Exists:
			found = found || y.Sub != nil
		}
	})
	return found
}

// rewrite lifts every subquery inside e into its own relation and replaces
// it with a {name} reference.
func (l *lifter) rewrite(e reactdsl.Expr) error {
	var err error
	walkExpr(e, func(x reactdsl.Expr) {
		if err != nil {
			return
		}
		switch y := x.(type) {
		case *reactdsl.Subquery:
			if y.Sub != nil {
				y.Rel, err = l.selectStmt(y.Sub)
				y.Sub = nil
			}
		case *reactdsl.In:
			if y.Sub != nil {
				y.Rel, err = l.selectStmt(y.Sub)
				y.Sub = nil
			}
		case *reactdsl.Exists:
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
func walkExpr(e reactdsl.Expr, f func(reactdsl.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *reactdsl.Func:
		for _, a := range x.Args {
			walkExpr(a, f)
		}
	case *reactdsl.Unary:
		walkExpr(x.X, f)
	case *reactdsl.Binary:
		walkExpr(x.L, f)
		walkExpr(x.R, f)
	case *reactdsl.Between:
		walkExpr(x.X, f)
		walkExpr(x.Lo, f)
		walkExpr(x.Hi, f)
	case *reactdsl.In:
		walkExpr(x.X, f)
		for _, a := range x.List {
			walkExpr(a, f)
		}
	case *reactdsl.Case:
		walkExpr(x.Operand, f)
		for _, w := range x.Whens {
			walkExpr(w[0], f)
			walkExpr(w[1], f)
		}
		walkExpr(x.Else, f)
	case *reactdsl.Cast:
		walkExpr(x.X, f)
	case *reactdsl.Paren:
		walkExpr(x.X, f)
	}
}
