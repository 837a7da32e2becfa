package reactdsl

import (
	"strings"
)

// FormatExpr prints e in DSL expression syntax (SQLite flavour): column
// references as written, string literals single-quoted, relation
// references as {name}. Raw subqueries print as (SELECT ...).
func FormatExpr(e Expr) string {
	var b strings.Builder
	formatExpr(&b, e)
	return b.String()
}

func formatExpr(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Lit:
		if x.Kind == "str" {
			b.WriteString(sqlString(x.Text, "sqlite"))
		} else {
			b.WriteString(x.Text)
		}
	case *ColRef:
		if x.Qual != "" {
			b.WriteString(formatName(x.Qual, 0))
			b.WriteByte('.')
		}
		b.WriteString(formatName(x.Name, x.Quote))
	case *Star:
		if x.Qual != "" {
			b.WriteString(formatName(x.Qual, 0))
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case *Func:
		b.WriteString(x.Name)
		b.WriteByte('(')
		if x.Star {
			b.WriteByte('*')
		}
		if x.Distinct {
			b.WriteString("DISTINCT ")
		}
		for i, a := range x.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, a)
		}
		b.WriteByte(')')
	case *Unary:
		b.WriteString(x.Op)
		if x.Op == "NOT" {
			b.WriteByte(' ')
		}
		formatExpr(b, x.X)
	case *Binary:
		formatExpr(b, x.L)
		b.WriteByte(' ')
		b.WriteString(x.Op)
		b.WriteByte(' ')
		formatExpr(b, x.R)
	case *Between:
		formatExpr(b, x.X)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		formatExpr(b, x.Lo)
		b.WriteString(" AND ")
		formatExpr(b, x.Hi)
	case *In:
		formatExpr(b, x.X)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN ")
		switch {
		case x.Rel != "":
			b.WriteString("{" + x.Rel + "}")
		case x.Sub != nil:
			b.WriteString("(SELECT ...)")
		default:
			b.WriteByte('(')
			for i, a := range x.List {
				if i > 0 {
					b.WriteString(", ")
				}
				formatExpr(b, a)
			}
			b.WriteByte(')')
		}
	case *Exists:
		if x.Not {
			b.WriteString("NOT ")
		}
		b.WriteString("EXISTS ")
		if x.Rel != "" {
			b.WriteString("{" + x.Rel + "}")
		} else {
			b.WriteString("(SELECT ...)")
		}
	case *Subquery:
		if x.Rel != "" {
			b.WriteString("{" + x.Rel + "}")
		} else {
			b.WriteString("(SELECT ...)")
		}
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteByte(' ')
			formatExpr(b, x.Operand)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			formatExpr(b, w[0])
			b.WriteString(" THEN ")
			formatExpr(b, w[1])
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			formatExpr(b, x.Else)
		}
		b.WriteString(" END")
	case *Cast:
		b.WriteString("CAST(")
		formatExpr(b, x.X)
		b.WriteString(" AS ")
		b.WriteString(x.Type)
		b.WriteByte(')')
	case *Paren:
		b.WriteByte('(')
		formatExpr(b, x.X)
		b.WriteByte(')')
	}
}

// formatName writes an identifier for DSL text, keeping the original quote
// style when it had one and quoting names that would not lex as one.
func formatName(s string, quote byte) string {
	switch quote {
	case '"':
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	case '`':
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	case '[':
		return "[" + s + "]"
	}
	if isIdent(s) && !reserved[strings.ToUpper(s)] {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// sqlString quotes s as a SQL string literal for dialect d.
func sqlString(s, d string) string {
	s = strings.ReplaceAll(s, "'", "''")
	if d == "mysql" {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	return "'" + s + "'"
}

// sqlKeywords are words quoted when used as identifiers in generated SQL.
var sqlKeywords = map[string]bool{
	"ABORT": true, "ACTION": true, "ADD": true, "AFTER": true, "ALL": true, "ALTER": true, "ANALYZE": true,
	"AND": true, "AS": true, "ASC": true, "ATTACH": true, "AUTOINCREMENT": true, "BEFORE": true, "BEGIN": true,
	"BETWEEN": true, "BY": true, "CASCADE": true, "CASE": true, "CAST": true, "CHECK": true, "COLLATE": true,
	"COLUMN": true, "COMMIT": true, "CONFLICT": true, "CONSTRAINT": true, "CREATE": true, "CROSS": true,
	"CURRENT": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true, "DATABASE": true,
	"DEFAULT": true, "DELETE": true, "DESC": true, "DETACH": true, "DISTINCT": true, "DROP": true, "EACH": true,
	"ELSE": true, "END": true, "ESCAPE": true, "EXCEPT": true, "EXISTS": true, "EXPLAIN": true, "FILTER": true,
	"FOR": true, "FOREIGN": true, "FROM": true, "FULL": true, "GLOB": true, "GROUP": true, "GROUPS": true,
	"HAVING": true, "IF": true, "IN": true, "INDEX": true, "INNER": true, "INSERT": true, "INTERSECT": true,
	"INTO": true, "IS": true, "ISNULL": true, "JOIN": true, "KEY": true, "LEFT": true, "LIKE": true, "LIMIT": true,
	"MATCH": true, "NATURAL": true, "NO": true, "NOT": true, "NOTNULL": true, "NULL": true, "OF": true,
	"OFFSET": true, "ON": true, "OR": true, "ORDER": true, "OUTER": true, "OVER": true, "PARTITION": true,
	"PRIMARY": true, "RANGE": true, "RANK": true, "REFERENCES": true, "REGEXP": true, "RENAME": true,
	"REPLACE": true, "RIGHT": true, "ROW": true, "ROWS": true, "SELECT": true, "SET": true, "TABLE": true,
	"THEN": true, "TO": true, "TRANSACTION": true, "TRIGGER": true, "UNION": true, "UNIQUE": true,
	"UPDATE": true, "USING": true, "VALUES": true, "VIEW": true, "WHEN": true, "WHERE": true, "WINDOW": true,
	"WITH": true, "READ": true, "RELEASE": true, "INTERVAL": true, "DIV": true, "MOD": true,
}

// quoteIdent quotes an identifier for dialect d: backticks for MySQL always,
// double quotes for SQLite when the name is not a plain non-keyword.
func quoteIdent(s, d string) string {
	if d == "mysql" {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	if isIdent(s) && !sqlKeywords[strings.ToUpper(s)] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
