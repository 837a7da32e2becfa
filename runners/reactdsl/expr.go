package reactdsl

import (
	"strings"
)

// scope resolves names while an expression is type-checked and compiled.
// Columns of out (a select list of the same block) are tried before base
// (the FROM columns), except inside aggregate arguments where base wins.
type scope struct {
	s      *Session
	out    []Column
	base   []Column
	aggOK  bool
	aggMsg string
	inAgg  bool
}

type exprInfo struct {
	sql  string
	typ  string
	agg  bool
	cplx bool
}

// aggregates are SQLite's aggregate functions (min/max only with one argument).
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "total": true, "min": true, "max": true, "group_concat": true}

func isAggregate(f *Func) bool {
	if !aggregates[f.Name] {
		return false
	}
	if f.Name == "min" || f.Name == "max" {
		return len(f.Args) == 1
	}
	return true
}

func match(cols []Column, ref *ColRef) []Column {
	var out []Column
	for _, c := range cols {
		if !strings.EqualFold(c.Name, ref.Name) {
			continue
		}
		if ref.Qual != "" && !strings.EqualFold(c.Qual, ref.Qual) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// find resolves ref. ambiguous lists the matches when there is more than one.
func (sc *scope) find(ref *ColRef, inAgg bool) (Column, bool, []Column) {
	lists := [][]Column{sc.out, sc.base}
	if inAgg {
		lists = [][]Column{sc.base, sc.out}
	}
	for _, l := range lists {
		m := match(l, ref)
		if len(m) == 1 {
			return m[0], true, nil
		}
		if len(m) > 1 {
			// The same underlying column reachable twice is not ambiguous.
			same := true
			for _, c := range m[1:] {
				if c.sql != m[0].sql {
					same = false
				}
			}
			if same {
				return m[0], true, nil
			}
			return Column{}, false, m
		}
	}
	return Column{}, false, nil
}

func (sc *scope) visibleNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range [][]Column{sc.out, sc.base} {
		for _, c := range l {
			d := c.Display()
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

func (sc *scope) compile(e Expr) (exprInfo, error) {
	var b strings.Builder
	info := exprInfo{}
	typ, err := sc.walk(&b, e, &info, 0)
	if err != nil {
		return exprInfo{}, err
	}
	info.sql, info.typ = b.String(), typ
	switch e.(type) {
	case *Lit, *ColRef, *Func, *Paren, *Subquery, *Cast:
	default:
		info.cplx = true
	}
	return info, nil
}

func (sc *scope) walk(b *strings.Builder, e Expr, info *exprInfo, depth int) (string, error) {
	if depth > maxDepth {
		return "", newErr(SyntaxError, "expression nested too deeply")
	}
	d := sc.s.dialect
	switch x := e.(type) {
	case *Lit:
		switch x.Kind {
		case "str":
			b.WriteString(sqlString(x.Text, d))
			return "TEXT", nil
		case "null":
			b.WriteString("NULL")
			return "", nil
		}
		b.WriteString(x.Text)
		if strings.ContainsAny(x.Text, ".eE") {
			return "REAL", nil
		}
		return "INTEGER", nil
	case *ColRef:
		c, ok, amb := sc.find(x, sc.inAgg)
		if ok {
			if c.cplx {
				b.WriteString("(" + c.sql + ")")
			} else {
				b.WriteString(c.sql)
			}
			return c.Type, nil
		}
		if amb != nil {
			var opts []string
			for _, c := range amb {
				opts = append(opts, c.Display())
			}
			e := newErr(AmbiguousColumn, "%q matches several columns: qualify it as one of %s", x.Name, strings.Join(opts, ", "))
			e.Name, e.Suggestions = x.Name, opts
			return "", e
		}
		if x.Quote == '"' && x.Qual == "" {
			// SQLite reads an unresolvable "double-quoted" name as a string.
			b.WriteString(sqlString(x.Name, d))
			return "TEXT", nil
		}
		name := x.Name
		if x.Qual != "" {
			name = x.Qual + "." + x.Name
		}
		vis := sc.visibleNames()
		err := newErr(UnknownColumn, "no column %s in this relation (columns: %s)", name, strings.Join(vis, ", "))
		err.Name, err.Suggestions = name, sc.suggestCols(x)
		return "", err
	case *Star:
		return "", newErr(BadArgument, "* is only allowed as a select item or in count(*)")
	case *Func:
		// A nested relation's column named like the call (e.g. "count(*)")
		// is that column.
		if c, ok := sc.byText(FormatExpr(x)); ok {
			b.WriteString(c.sql)
			return c.Type, nil
		}
		agg := isAggregate(x)
		if agg {
			if !sc.aggOK {
				msg := sc.aggMsg
				if msg == "" {
					msg = "aggregates are not allowed here"
				}
				e := newErr(MisplacedAggregate, "%s() here: %s", x.Name, msg)
				e.Name = x.Name
				return "", e
			}
			if sc.inAgg {
				e := newErr(MisplacedAggregate, "aggregate %s() inside another aggregate", x.Name)
				e.Name = x.Name
				return "", e
			}
			info.agg = true
			sc.inAgg = true
			defer func() { sc.inAgg = false }()
		}
		b.WriteString(x.Name)
		b.WriteByte('(')
		if x.Star {
			if x.Name != "count" {
				return "", newErr(BadArgument, "%s(*) is not allowed; only count(*)", x.Name)
			}
			b.WriteByte('*')
		}
		if x.Distinct {
			b.WriteString("DISTINCT ")
		}
		var argTypes []string
		for i, a := range x.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			t, err := sc.walk(b, a, info, depth+1)
			if err != nil {
				return "", err
			}
			argTypes = append(argTypes, t)
		}
		b.WriteByte(')')
		if (x.Name == "sum" || x.Name == "avg" || x.Name == "total") && len(x.Args) == 1 {
			if l, ok := x.Args[0].(*Lit); ok && l.Kind == "str" {
				// SQLite would read the literal as 0: almost always a
				// column name written in single quotes.
				e := newErr(TypeMismatch, "%s() over the string literal %s; for a column write its name without single quotes", x.Name, FormatExpr(l))
				e.Name = x.Name
				return "", e
			}
		}
		return funcType(x, argTypes)
	case *Unary:
		if x.Op == "NOT" {
			b.WriteString("NOT ")
		} else {
			b.WriteString(x.Op)
		}
		t, err := sc.walk(b, x.X, info, depth+1)
		if x.Op == "NOT" {
			t = "INTEGER"
		}
		return t, err
	case *Binary:
		if x.Op == "||" && d == "mysql" {
			b.WriteString("CONCAT(")
			if _, err := sc.walk(b, x.L, info, depth+1); err != nil {
				return "", err
			}
			b.WriteString(", ")
			if _, err := sc.walk(b, x.R, info, depth+1); err != nil {
				return "", err
			}
			b.WriteByte(')')
			return "TEXT", nil
		}
		lt, err := sc.walk(b, x.L, info, depth+1)
		if err != nil {
			return "", err
		}
		op := x.Op
		if op == "==" && d == "mysql" {
			op = "="
		}
		b.WriteString(" " + op + " ")
		rt, err := sc.walk(b, x.R, info, depth+1)
		if err != nil {
			return "", err
		}
		switch op {
		case "+", "-", "*", "/", "%":
			if lt == "REAL" || rt == "REAL" {
				return "REAL", nil
			}
			if lt == "INTEGER" && rt == "INTEGER" {
				return "INTEGER", nil
			}
			return "NUMERIC", nil
		case "||":
			return "TEXT", nil
		}
		return "INTEGER", nil
	case *Between:
		if _, err := sc.walk(b, x.X, info, depth+1); err != nil {
			return "", err
		}
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		if _, err := sc.walk(b, x.Lo, info, depth+1); err != nil {
			return "", err
		}
		b.WriteString(" AND ")
		if _, err := sc.walk(b, x.Hi, info, depth+1); err != nil {
			return "", err
		}
		return "INTEGER", nil
	case *In:
		if _, err := sc.walk(b, x.X, info, depth+1); err != nil {
			return "", err
		}
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		switch {
		case x.Rel != "":
			sql, err := sc.relSQL(x.Rel, true)
			if err != nil {
				return "", err
			}
			b.WriteString(sql)
		case x.Sub != nil:
			return "", rawSubqueryErr(-1)
		default:
			for i, a := range x.List {
				if i > 0 {
					b.WriteString(", ")
				}
				if _, err := sc.walk(b, a, info, depth+1); err != nil {
					return "", err
				}
			}
		}
		b.WriteByte(')')
		return "INTEGER", nil
	case *Exists:
		if x.Sub != nil {
			return "", rawSubqueryErr(-1)
		}
		if x.Not {
			b.WriteString("NOT ")
		}
		sql, err := sc.relSQL(x.Rel, false)
		if err != nil {
			return "", err
		}
		b.WriteString("EXISTS (" + sql + ")")
		return "INTEGER", nil
	case *Subquery:
		if x.Sub != nil {
			return "", rawSubqueryErr(-1)
		}
		sql, err := sc.relSQL(x.Rel, true)
		if err != nil {
			return "", err
		}
		b.WriteString("(" + sql + ")")
		r := sc.s.rels[x.Rel]
		return r.Columns()[0].Type, nil
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteByte(' ')
			if _, err := sc.walk(b, x.Operand, info, depth+1); err != nil {
				return "", err
			}
		}
		typ := ""
		for i, w := range x.Whens {
			b.WriteString(" WHEN ")
			if _, err := sc.walk(b, w[0], info, depth+1); err != nil {
				return "", err
			}
			b.WriteString(" THEN ")
			t, err := sc.walk(b, w[1], info, depth+1)
			if err != nil {
				return "", err
			}
			if i == 0 {
				typ = t
			}
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			if _, err := sc.walk(b, x.Else, info, depth+1); err != nil {
				return "", err
			}
		}
		b.WriteString(" END")
		return typ, nil
	case *Cast:
		b.WriteString("CAST(")
		if _, err := sc.walk(b, x.X, info, depth+1); err != nil {
			return "", err
		}
		t := x.Type
		if d == "mysql" {
			t = mysqlCast(t)
		}
		b.WriteString(" AS " + t + ")")
		return affinity(x.Type), nil
	case *Paren:
		b.WriteByte('(')
		t, err := sc.walk(b, x.X, info, depth+1)
		b.WriteByte(')')
		return t, err
	}
	return "", newErr(SyntaxError, "unsupported expression")
}

// byText finds a column whose name is exactly the text of a call, such as a
// nested relation's "count(*)" column.
func (sc *scope) byText(text string) (Column, bool) {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	t := norm(text)
	for _, l := range [][]Column{sc.out, sc.base} {
		for _, c := range l {
			if c.Qual == "" && norm(c.Name) == t && c.sql != "" && !strings.EqualFold(norm(c.sql), t) {
				return c, true
			}
		}
	}
	return Column{}, false
}

func (sc *scope) relSQL(name string, oneCol bool) (string, error) {
	r, err := sc.s.lookup(name)
	if err != nil {
		return "", err
	}
	if oneCol && len(r.Columns()) != 1 {
		e := newErr(ArityMismatch, "{%s} has %d columns; a value or IN list needs a one-column relation", name, len(r.Columns()))
		e.Rel = name
		return "", e
	}
	return sc.s.SQL(r), nil
}

// funcType infers a call's result type. Declared TEXT columns are not
// rejected as arguments of sum/avg: SQLite converts numeric-looking text, and
// Spider's gold queries rely on it (e.g. avg(mpg) in car_1).
func funcType(f *Func, args []string) (string, error) {
	switch f.Name {
	case "count", "length", "instr":
		return "INTEGER", nil
	case "avg":
		return "REAL", nil
	case "sum", "total":
		if len(args) == 1 && args[0] == "INTEGER" && f.Name == "sum" {
			return "INTEGER", nil
		}
		return "REAL", nil
	case "min", "max", "abs", "coalesce", "ifnull", "nullif":
		if len(args) > 0 {
			return args[0], nil
		}
	case "lower", "upper", "substr", "substring", "trim", "ltrim", "rtrim", "replace", "group_concat", "strftime", "date", "datetime", "time", "printf", "format":
		return "TEXT", nil
	case "round":
		return "REAL", nil
	}
	return "", nil
}

func mysqlCast(t string) string {
	switch affinity(t) {
	case "INTEGER":
		return "SIGNED"
	case "REAL":
		return "DOUBLE"
	case "TEXT":
		return "CHAR"
	}
	return t
}

// suggestCols lists visible columns whose name is close to ref's, written
// the way the model should refer to them.
func (sc *scope) suggestCols(ref *ColRef) []string {
	var names []string
	for _, l := range [][]Column{sc.out, sc.base} {
		for _, c := range l {
			names = append(names, c.Name)
		}
	}
	close := suggest(ref.Name, names)
	var out []string
	seen := map[string]bool{}
	for _, n := range close {
		for _, l := range [][]Column{sc.out, sc.base} {
			for _, c := range l {
				if c.Name == n && !seen[c.Display()] && len(out) < 5 {
					seen[c.Display()] = true
					out = append(out, c.Display())
				}
			}
		}
	}
	return out
}
