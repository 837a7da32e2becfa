package reactdsl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/sqllex"
)

// This file holds a small recursive-descent parser for the SELECT subset the
// DSL covers: select list, FROM with joins, WHERE, GROUP BY, HAVING, ORDER BY,
// LIMIT/OFFSET, DISTINCT, compound operators, and subqueries in expressions.
// The same expression grammar is used for the SQL snippets inside DSL calls,
// where `{rN}` names a relation built earlier.

type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier or keyword
	tQIdent         // quoted identifier: "x", `x` or [x]
	tString         // 'text' (decoded)
	tNumber         // numeric literal, as written
	tOp             // punctuation and operators
	tRel            // {name}: a DSL relation reference
)

type token struct {
	kind  tokKind
	text  string
	quote byte // for tQIdent: the opening quote character
	pos   int  // byte offset in the source
}

// sqlLex and dslLex are the sqllex options lex reads SQL and DSL text
// with: ASCII words and white space, the DSL's operators, any unterminated
// quote or comment an error; DSL text adds {name} relation references.
var (
	sqlLex = sqllex.Options{Bytes: true, Strict: true, Operators: operators}
	dslLex = sqllex.Options{Bytes: true, Strict: true, Operators: operators, Braces: true}
)

// operators are the operators of two characters the grammar knows.
var operators = []string{"||", "==", "!=", "<>", "<=", ">=", "<<", ">>"}

// lex splits src into tokens with sqllex. allowRel enables `{name}`
// relation references.
func lex(src string, allowRel bool) ([]token, error) {
	o := sqlLex
	if allowRel {
		o = dslLex
	}
	lt, err := sqllex.Lex(src, o)
	var le *sqllex.Error
	if errors.As(err, &le) {
		// The text before the unterminated quote or comment may hold an
		// error of its own, which comes first.
		lt, _ = sqllex.Lex(src[:le.Offset], o)
	}
	out := make([]token, 0, len(lt)+1)
	for _, t := range lt {
		raw := src[t.Start:t.End]
		switch t.Kind {
		case sqllex.Word:
			out = append(out, token{kind: tIdent, text: raw, pos: t.Start})
		case sqllex.Number:
			if t.End < len(src) && isIdentStart(src[t.End]) {
				return nil, syntaxErr(t.End, "malformed number %q", src[t.Start:t.End+1])
			}
			out = append(out, token{kind: tNumber, text: raw, pos: t.Start})
		case sqllex.String:
			out = append(out, token{kind: tString, text: unquoteRaw(raw), pos: t.Start})
		case sqllex.Ident:
			out = append(out, token{kind: tQIdent, text: unquoteRaw(raw), quote: raw[0], pos: t.Start})
		case sqllex.Placeholder:
			name := strings.TrimSpace(src[t.Start+1 : t.End-1])
			if !isIdent(name) {
				return nil, syntaxErr(t.Start, "bad relation reference {%s}: want {name}", name)
			}
			out = append(out, token{kind: tRel, text: name, pos: t.Start})
		default:
			if len(raw) == 1 && strings.IndexByte("(),.*+-/%=<>;~&|", raw[0]) < 0 {
				return nil, syntaxErr(t.Start, "unexpected character %q", rune(raw[0]))
			}
			out = append(out, token{kind: tOp, text: raw, pos: t.Start})
		}
	}
	if le != nil {
		switch le.Delim {
		case "/*":
			return nil, syntaxErr(le.Offset, "unterminated /* comment")
		case "[":
			return nil, syntaxErr(le.Offset, "unterminated [identifier]")
		case "{":
			return nil, syntaxErr(le.Offset, "unterminated {relation} reference")
		}
		return nil, syntaxErr(le.Offset, "unterminated %s quote", le.Delim)
	}
	out = append(out, token{kind: tEOF, pos: len(src)})
	return out, nil
}

// unquoteRaw returns the text of a quoted token as written in raw, its
// quotes removed and a doubled quote read as one ([x] has none). Unlike
// sqllex's Text it keeps invalid UTF-8 as it is.
func unquoteRaw(raw string) string {
	body := raw[1 : len(raw)-1]
	if q := raw[:1]; q != "[" {
		body = strings.ReplaceAll(body, q+q, q)
	}
	return body
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c >= 0x80
}
func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }

// isIdent reports whether s is a plain identifier.
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

// reserved words that end an expression or clause and cannot be bare aliases.
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "BY": true, "HAVING": true,
	"ORDER": true, "LIMIT": true, "OFFSET": true, "UNION": true, "INTERSECT": true,
	"EXCEPT": true, "JOIN": true, "ON": true, "AS": true, "INNER": true, "LEFT": true,
	"RIGHT": true, "FULL": true, "OUTER": true, "CROSS": true, "NATURAL": true, "AND": true,
	"OR": true, "NOT": true, "IN": true, "IS": true, "LIKE": true, "GLOB": true,
	"BETWEEN": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true,
	"CAST": true, "EXISTS": true, "DISTINCT": true, "ALL": true, "NULL": true, "ASC": true,
	"DESC": true, "USING": true, "ESCAPE": true, "COLLATE": true, "WITH": true, "VALUES": true,
	"WINDOW": true, "OVER": true, "FILTER": true, "REGEXP": true, "MATCH": true,
}

// Expr is a node of the expression AST.
type Expr interface{ exprNode() }

// Lit is a literal: Kind is "num", "str" or "null".
type Lit struct {
	Kind string
	Text string
}

// ColRef is a (possibly qualified) column reference. Quote is the quote
// character of a quoted name ('"', '`', '[') or 0.
type ColRef struct {
	Qual, Name string
	Quote      byte
}

// Star is `*` or `qual.*` in a select list or count(*).
type Star struct{ Qual string }

// Func is a function call; Star marks count(*).
type Func struct {
	Name     string
	Distinct bool
	Star     bool
	Args     []Expr
}

// Unary is a prefix operator: "-", "+", "~", "NOT".
type Unary struct {
	Op string
	X  Expr
}

// Binary is an infix operator (arithmetic, comparison, AND, OR, ||, IS, IS NOT,
// LIKE, NOT LIKE, GLOB, NOT GLOB).
type Binary struct {
	Op   string
	L, R Expr
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	Not       bool
	X, Lo, Hi Expr
}

// In is X [NOT] IN (list), X [NOT] IN (subquery) or X [NOT] IN {rel}.
type In struct {
	Not  bool
	X    Expr
	List []Expr
	Sub  *Select
	Rel  string
}

// Exists is [NOT] EXISTS (subquery) or EXISTS {rel}.
type Exists struct {
	Not bool
	Sub *Select
	Rel string
}

// Subquery is a scalar subquery: (SELECT ...) or {rel}.
type Subquery struct {
	Sub *Select
	Rel string
}

// Case is CASE [operand] WHEN .. THEN .. [ELSE ..] END.
type Case struct {
	Operand Expr
	Whens   [][2]Expr
	Else    Expr
}

// Cast is CAST(X AS Type).
type Cast struct {
	X    Expr
	Type string
}

// Paren is a parenthesised expression, kept so printing preserves grouping.
type Paren struct{ X Expr }

func (*Lit) exprNode()      {}
func (*ColRef) exprNode()   {}
func (*Star) exprNode()     {}
func (*Func) exprNode()     {}
func (*Unary) exprNode()    {}
func (*Binary) exprNode()   {}
func (*Between) exprNode()  {}
func (*In) exprNode()       {}
func (*Exists) exprNode()   {}
func (*Subquery) exprNode() {}
func (*Case) exprNode()     {}
func (*Cast) exprNode()     {}
func (*Paren) exprNode()    {}

// SelItem is one select-list entry.
type SelItem struct {
	Expr  Expr
	Alias string
}

// FromItem is one FROM entry. Join is "" for the first item, else "inner",
// "left" or "cross" (a comma join is "cross").
type FromItem struct {
	Table string
	Sub   *Select
	Alias string
	Join  string
	On    Expr
}

// OrderItem is one ORDER BY term.
type OrderItem struct {
	Expr Expr
	Desc bool
}

// Select is a SELECT statement: a core query, or a compound (Op set) whose
// Left and Right are selects. OrderBy/Limit of a compound apply to the whole.
type Select struct {
	Op          string // "", "union", "union all", "intersect", "except"
	Left, Right *Select

	Distinct bool
	Items    []SelItem
	From     []FromItem
	Where    Expr
	GroupBy  []Expr
	Having   Expr

	OrderBy []OrderItem
	Limit   Expr
	Offset  Expr
}

type parser struct {
	toks     []token
	i        int
	allowRel bool
	depth    int
}

// maxDepth bounds expression nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// kw reports whether the current token is keyword k (case-insensitive).
func (p *parser) kw(k string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, k)
}

func (p *parser) kwAt(off int, k string) bool {
	if p.i+off >= len(p.toks) {
		return false
	}
	t := p.toks[p.i+off]
	return t.kind == tIdent && strings.EqualFold(t.text, k)
}

func (p *parser) acceptKw(k string) bool {
	if p.kw(k) {
		p.i++
		return true
	}
	return false
}

func (p *parser) op(o string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == o
}

func (p *parser) acceptOp(o string) bool {
	if p.op(o) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(k string) error {
	if !p.acceptKw(k) {
		return p.errHere("expected %s", k)
	}
	return nil
}

func (p *parser) expectOp(o string) error {
	if !p.acceptOp(o) {
		return p.errHere("expected %q", o)
	}
	return nil
}

func (p *parser) errHere(format string, args ...any) error {
	t := p.peek()
	found := t.text
	if t.kind == tEOF {
		found = "end of input"
	}
	return syntaxErr(t.pos, "%s, found %q", fmt.Sprintf(format, args...), found)
}

// ParseSelect parses one SELECT statement (a trailing semicolon is allowed).
func ParseSelect(sql string) (*Select, error) {
	toks, err := lex(sql, false)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	s, err := p.selectStmt()
	if err != nil {
		return nil, err
	}
	p.acceptOp(";")
	if p.peek().kind != tEOF {
		return nil, p.errHere("expected end of statement")
	}
	return s, nil
}

// ParseExpr parses one DSL expression; `{name}` relation references are
// allowed and raw subqueries are not.
func ParseExpr(src string) (Expr, error) {
	return parseWhole(src, "expression", (*parser).expr)
}

// parseItem parses `expr [[AS] alias]` or `*` / `q.*` (DSL select items).
func parseItem(src string) (SelItem, error) {
	return parseWhole(src, "item", (*parser).selItem)
}

// parseOrderItem parses `expr [ASC|DESC]`.
func parseOrderItem(src string) (OrderItem, error) {
	return parseWhole(src, "order term", (*parser).orderItem)
}

// parseWhole parses all of src (DSL text: relation references allowed)
// with one production; text left over is an error naming what was parsed.
func parseWhole[T any](src, what string, production func(*parser) (T, error)) (T, error) {
	var zero T
	toks, err := lex(src, true)
	if err != nil {
		return zero, err
	}
	p := &parser{toks: toks, allowRel: true}
	v, err := production(p)
	if err != nil {
		return zero, err
	}
	if p.peek().kind != tEOF {
		return zero, p.errHere("unexpected text after %s", what)
	}
	return v, nil
}

func (p *parser) selectStmt() (*Select, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errHere("query nested too deeply")
	}
	if p.kw("WITH") {
		return nil, notLiftable("WITH (common table expressions)")
	}
	left, err := p.core()
	if err != nil {
		return nil, err
	}
	for {
		var op string
		switch {
		case p.kw("UNION") && p.kwAt(1, "ALL"):
			p.i += 2
			op = "union all"
		case p.acceptKw("UNION"):
			op = "union"
		case p.acceptKw("INTERSECT"):
			op = "intersect"
		case p.acceptKw("EXCEPT"):
			op = "except"
		}
		if op == "" {
			break
		}
		right, err := p.core()
		if err != nil {
			return nil, err
		}
		left = &Select{Op: op, Left: left, Right: right}
	}
	if err := p.orderLimit(left); err != nil {
		return nil, err
	}
	return left, nil
}

func (p *parser) orderLimit(s *Select) error {
	if p.kw("ORDER") {
		p.next()
		if err := p.expectKw("BY"); err != nil {
			return err
		}
		items, err := commaList(p, p.orderItem)
		if err != nil {
			return err
		}
		s.OrderBy = append(s.OrderBy, items...)
	}
	if p.acceptKw("LIMIT") {
		e, err := p.expr()
		if err != nil {
			return err
		}
		s.Limit = e
		if p.acceptKw("OFFSET") {
			if s.Offset, err = p.expr(); err != nil {
				return err
			}
		} else if p.acceptOp(",") {
			// LIMIT offset, count
			cnt, err := p.expr()
			if err != nil {
				return err
			}
			s.Offset, s.Limit = s.Limit, cnt
		}
	}
	return nil
}

func (p *parser) orderItem() (OrderItem, error) {
	e, err := p.expr()
	if err != nil {
		return OrderItem{}, err
	}
	if p.kw("COLLATE") {
		return OrderItem{}, notLiftable("COLLATE")
	}
	it := OrderItem{Expr: e}
	if p.acceptKw("DESC") {
		it.Desc = true
	} else {
		p.acceptKw("ASC")
	}
	if p.kw("NULLS") {
		return OrderItem{}, notLiftable("NULLS FIRST/LAST")
	}
	return it, nil
}

func (p *parser) core() (*Select, error) {
	if p.op("(") {
		return nil, notLiftable("parenthesised compound operand")
	}
	if p.kw("VALUES") {
		return nil, notLiftable("VALUES")
	}
	if err := p.expectKw("SELECT"); err != nil {
		return nil, err
	}
	s := &Select{}
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	items, err := commaList(p, p.selItem)
	if err != nil {
		return nil, err
	}
	s.Items = items
	if p.acceptKw("FROM") {
		if err := p.from(s); err != nil {
			return nil, err
		}
	}
	if s.Where, err = p.exprAfter("WHERE"); err != nil {
		return nil, err
	}
	if p.kw("GROUP") {
		p.next()
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		group, err := commaList(p, p.expr)
		if err != nil {
			return nil, err
		}
		s.GroupBy = group
	}
	if s.Having, err = p.exprAfter("HAVING"); err != nil {
		return nil, err
	}
	if p.kw("WINDOW") {
		return nil, notLiftable("WINDOW")
	}
	return s, nil
}

func (p *parser) selItem() (SelItem, error) {
	if p.acceptOp("*") {
		return SelItem{Expr: &Star{}}, nil
	}
	t := p.peek()
	if (t.kind == tIdent || t.kind == tQIdent) && p.i+2 < len(p.toks) &&
		p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "." &&
		p.toks[p.i+2].kind == tOp && p.toks[p.i+2].text == "*" {
		p.i += 3
		return SelItem{Expr: &Star{Qual: t.text}}, nil
	}
	e, err := p.expr()
	if err != nil {
		return SelItem{}, err
	}
	it := SelItem{Expr: e}
	if p.acceptKw("AS") {
		a := p.next()
		if a.kind != tIdent && a.kind != tQIdent && a.kind != tString {
			p.i--
			return SelItem{}, p.errHere("expected an alias after AS")
		}
		it.Alias = a.text
	} else if a := p.peek(); (a.kind == tIdent && !reserved[strings.ToUpper(a.text)]) || a.kind == tQIdent {
		p.next()
		it.Alias = a.text
	}
	return it, nil
}

func (p *parser) from(s *Select) error {
	first, err := p.fromItem()
	if err != nil {
		return err
	}
	s.From = append(s.From, first)
	for {
		kind := ""
		switch {
		case p.acceptOp(","):
			kind = "cross"
		case p.kw("NATURAL") || p.kw("RIGHT") || p.kw("FULL"):
			return notLiftable(strings.ToUpper(p.peek().text) + " JOIN")
		case p.kw("LEFT"):
			p.next()
			p.acceptKw("OUTER")
			if err := p.expectKw("JOIN"); err != nil {
				return err
			}
			kind = "left"
		case p.kw("INNER"):
			p.next()
			if err := p.expectKw("JOIN"); err != nil {
				return err
			}
			kind = "inner"
		case p.kw("CROSS"):
			p.next()
			if err := p.expectKw("JOIN"); err != nil {
				return err
			}
			kind = "cross"
		case p.acceptKw("JOIN"):
			kind = "inner"
		}
		if kind == "" {
			return nil
		}
		it, err := p.fromItem()
		if err != nil {
			return err
		}
		it.Join = kind
		if p.acceptKw("ON") {
			if it.On, err = p.expr(); err != nil {
				return err
			}
		} else if p.kw("USING") {
			return notLiftable("JOIN ... USING")
		}
		if it.On == nil && kind == "inner" {
			it.Join = "cross"
		}
		if it.On != nil && kind == "cross" {
			it.Join = "inner"
		}
		s.From = append(s.From, it)
	}
}

func (p *parser) fromItem() (FromItem, error) {
	var it FromItem
	if p.acceptOp("(") {
		if !p.kw("SELECT") {
			return it, notLiftable("parenthesised join")
		}
		sub, err := p.selectStmt()
		if err != nil {
			return it, err
		}
		if err := p.expectOp(")"); err != nil {
			return it, err
		}
		it.Sub = sub
	} else {
		t := p.next()
		if t.kind != tIdent && t.kind != tQIdent {
			p.i--
			return it, p.errHere("expected a table name")
		}
		if t.kind == tIdent && reserved[strings.ToUpper(t.text)] {
			p.i--
			return it, p.errHere("expected a table name")
		}
		if p.op(".") {
			return it, notLiftable("schema-qualified table")
		}
		it.Table = t.text
	}
	if p.acceptKw("AS") {
		a := p.next()
		if a.kind != tIdent && a.kind != tQIdent {
			p.i--
			return it, p.errHere("expected an alias after AS")
		}
		it.Alias = a.text
	} else if a := p.peek(); (a.kind == tIdent && !reserved[strings.ToUpper(a.text)]) || a.kind == tQIdent {
		p.next()
		it.Alias = a.text
	}
	return it, nil
}

// Expression grammar, loosest first:
// OR < AND < NOT < comparison/IS/IN/LIKE/BETWEEN < bitwise < + - < * / % < || < unary < primary.

func (p *parser) expr() (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errHere("expression nested too deeply")
	}
	return p.orExpr()
}

// exprAfter parses the expression after keyword kw when kw is next; it
// returns nil when it is not.
func (p *parser) exprAfter(kw string) (Expr, error) {
	if !p.acceptKw(kw) {
		return nil, nil
	}
	return p.expr()
}

// commaList parses item (, item)*.
func commaList[T any](p *parser, item func() (T, error)) ([]T, error) {
	var list []T
	for {
		x, err := item()
		if err != nil {
			return nil, err
		}
		list = append(list, x)
		if !p.acceptOp(",") {
			return list, nil
		}
	}
}

// leftAssoc parses operand (op operand)*, grouping to the left; opAt
// consumes the operator at the cursor and returns it, or returns "" when
// none is there.
func (p *parser) leftAssoc(operand func() (Expr, error), opAt func() string) (Expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for op := opAt(); op != ""; op = opAt() {
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

// kwOp is leftAssoc's operator keyword k, named in upper case.
func (p *parser) kwOp(k string) func() string {
	return func() string {
		if p.acceptKw(k) {
			return k
		}
		return ""
	}
}

// symOp is leftAssoc's operator: one of the symbols ops.
func (p *parser) symOp(ops ...string) func() string {
	return func() string {
		for _, o := range ops {
			if p.acceptOp(o) {
				return o
			}
		}
		return ""
	}
}

func (p *parser) orExpr() (Expr, error) {
	return p.leftAssoc(p.andExpr, p.kwOp("OR"))
}

func (p *parser) andExpr() (Expr, error) {
	return p.leftAssoc(p.notExpr, p.kwOp("AND"))
}

func (p *parser) notExpr() (Expr, error) {
	if p.kw("NOT") && !p.kwAt(1, "EXISTS") {
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errHere("expression nested too deeply")
		}
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: "NOT", X: x}, nil
	}
	return p.cmpExpr()
}

var cmpOps = map[string]bool{"=": true, "==": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) cmpExpr() (Expr, error) {
	l, err := p.bitExpr()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tOp && cmpOps[t.text] {
			p.next()
			r, err := p.bitExpr()
			if err != nil {
				return nil, err
			}
			l = &Binary{Op: t.text, L: l, R: r}
			continue
		}
		if p.kw("IS") {
			p.next()
			op := "IS"
			if p.acceptKw("NOT") {
				op = "IS NOT"
			}
			r, err := p.bitExpr()
			if err != nil {
				return nil, err
			}
			l = &Binary{Op: op, L: l, R: r}
			continue
		}
		not := false
		if p.kw("NOT") && (p.kwAt(1, "IN") || p.kwAt(1, "LIKE") || p.kwAt(1, "GLOB") || p.kwAt(1, "BETWEEN")) {
			p.next()
			not = true
		}
		switch {
		case p.acceptKw("IN"):
			in, err := p.inRest(l, not)
			if err != nil {
				return nil, err
			}
			l = in
		case p.kw("LIKE") || p.kw("GLOB"):
			op := strings.ToUpper(p.next().text)
			r, err := p.bitExpr()
			if err != nil {
				return nil, err
			}
			if p.kw("ESCAPE") {
				return nil, notLiftable("LIKE ... ESCAPE")
			}
			if not {
				op = "NOT " + op
			}
			l = &Binary{Op: op, L: l, R: r}
		case p.acceptKw("BETWEEN"):
			lo, err := p.bitExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			hi, err := p.bitExpr()
			if err != nil {
				return nil, err
			}
			l = &Between{Not: not, X: l, Lo: lo, Hi: hi}
		default:
			if not {
				return nil, p.errHere("expected IN, LIKE, GLOB or BETWEEN after NOT")
			}
			if p.kw("REGEXP") || p.kw("MATCH") || p.kw("COLLATE") || p.kw("ISNULL") || p.kw("NOTNULL") {
				return nil, notLiftable(strings.ToUpper(p.peek().text))
			}
			return l, nil
		}
	}
}

func (p *parser) inRest(x Expr, not bool) (Expr, error) {
	if t := p.peek(); t.kind == tRel {
		p.next()
		return &In{Not: not, X: x, Rel: t.text}, nil
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	in := &In{Not: not, X: x}
	if p.kw("SELECT") {
		if p.allowRel {
			return nil, rawSubqueryErr(p.peek().pos)
		}
		sub, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		in.Sub = sub
	} else if !p.op(")") {
		list, err := commaList(p, p.expr)
		if err != nil {
			return nil, err
		}
		in.List = list
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return in, nil
}

func (p *parser) bitExpr() (Expr, error) {
	return p.leftAssoc(p.addExpr, p.symOp("&", "|", "<<", ">>"))
}

func (p *parser) addExpr() (Expr, error) {
	return p.leftAssoc(p.mulExpr, p.symOp("+", "-"))
}

func (p *parser) mulExpr() (Expr, error) {
	return p.leftAssoc(p.concatExpr, p.symOp("*", "/", "%"))
}

func (p *parser) concatExpr() (Expr, error) {
	return p.leftAssoc(p.unary, p.symOp("||"))
}

func (p *parser) unary() (Expr, error) {
	if p.op("-") || p.op("+") || p.op("~") {
		op := p.next().text
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errHere("expression nested too deeply")
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: op, X: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return &Lit{Kind: "num", Text: t.text}, nil
	case tString:
		p.next()
		return &Lit{Kind: "str", Text: t.text}, nil
	case tRel:
		p.next()
		return &Subquery{Rel: t.text}, nil
	case tQIdent:
		p.next()
		return p.colRest(t)
	case tOp:
		if t.text == "(" {
			p.next()
			if p.kw("SELECT") {
				if p.allowRel {
					return nil, rawSubqueryErr(p.peek().pos)
				}
				sub, err := p.selectStmt()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				return &Subquery{Sub: sub}, nil
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.op(",") {
				return nil, notLiftable("row values")
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &Paren{X: e}, nil
		}
		return nil, p.errHere("expected an expression")
	case tIdent:
		u := strings.ToUpper(t.text)
		switch u {
		case "NULL":
			p.next()
			return &Lit{Kind: "null", Text: "NULL"}, nil
		case "CASE":
			p.next()
			return p.caseRest()
		case "CAST":
			p.next()
			return p.castRest()
		case "EXISTS", "NOT":
			not := false
			if u == "NOT" {
				p.next()
				not = true
			}
			if err := p.expectKw("EXISTS"); err != nil {
				return nil, err
			}
			if r := p.peek(); r.kind == tRel {
				p.next()
				return &Exists{Not: not, Rel: r.text}, nil
			}
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if p.allowRel {
				return nil, rawSubqueryErr(p.peek().pos)
			}
			sub, err := p.selectStmt()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &Exists{Not: not, Sub: sub}, nil
		}
		if reserved[u] {
			return nil, p.errHere("expected an expression")
		}
		p.next()
		if p.op("(") {
			return p.funcRest(t.text)
		}
		return p.colRest(t)
	}
	return nil, p.errHere("expected an expression")
}

func (p *parser) colRest(t token) (Expr, error) {
	if p.acceptOp(".") {
		n := p.next()
		if n.kind != tIdent && n.kind != tQIdent {
			p.i--
			return nil, p.errHere("expected a column name after %q.", t.text)
		}
		if p.op(".") {
			return nil, notLiftable("schema-qualified column")
		}
		return &ColRef{Qual: t.text, Name: n.text, Quote: n.quote}, nil
	}
	return &ColRef{Name: t.text, Quote: t.quote}, nil
}

func (p *parser) funcRest(name string) (Expr, error) {
	p.next() // (
	f := &Func{Name: strings.ToLower(name)}
	if p.acceptOp("*") {
		f.Star = true
	} else if !p.op(")") {
		if p.acceptKw("DISTINCT") {
			f.Distinct = true
		}
		args, err := commaList(p, p.expr)
		if err != nil {
			return nil, err
		}
		f.Args = args
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.kw("OVER") || p.kw("FILTER") {
		return nil, notLiftable("window functions")
	}
	return f, nil
}

func (p *parser) caseRest() (Expr, error) {
	c := &Case{}
	if !p.kw("WHEN") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Operand = e
	}
	for p.acceptKw("WHEN") {
		w, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		th, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, [2]Expr{w, th})
	}
	if len(c.Whens) == 0 {
		return nil, p.errHere("expected WHEN")
	}
	els, err := p.exprAfter("ELSE")
	if err != nil {
		return nil, err
	}
	c.Else = els
	if err := p.expectKw("END"); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) castRest() (Expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	var parts []string
	for p.peek().kind == tIdent {
		parts = append(parts, strings.ToUpper(p.next().text))
	}
	if len(parts) == 0 {
		return nil, p.errHere("expected a type name")
	}
	typ := strings.Join(parts, " ")
	if p.acceptOp("(") {
		for !p.op(")") && p.peek().kind != tEOF {
			p.next()
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return &Cast{X: x, Type: typ}, nil
}
