package datasets

import (
	"strings"
	"unicode/utf8"
)

// DefaultRenderExamples is the number of value examples per column that the
// renderers show when RenderOptions.MaxExamples is 0: METHODS.md "Schema
// text" (up to 3, as XiYan-SQL's M-Schema and Alpha-SQL's DDL).
const DefaultRenderExamples = 3

// RenderOptions selects what a schema renderer shows.
type RenderOptions struct {
	// Tables restricts the output to these tables (keys are table names,
	// matched case-insensitively) and, where the list is non-empty, to
	// these columns of each. Primary-key columns and the foreign-key
	// columns that join two selected tables are always kept, so that the
	// selection can still be joined. Nil shows every table and column.
	Tables map[string][]string
	// MaxExamples is the number of value examples per column: 0 means
	// DefaultRenderExamples, a negative value shows none.
	MaxExamples int
	// Comments overrides Column.Comment, keyed "table.column"; a key with
	// no dot is a table comment. Keys are matched case-insensitively.
	Comments map[string]string
}

// view is the part of a schema a renderer shows, resolved from the options.
type view struct {
	tables   []viewTable
	fks      []ForeignKey
	comments map[string]string // lower-case keys
	examples int
}

type viewTable struct {
	t    *Table
	cols []*Column
}

func (o RenderOptions) resolve(s *Schema) view {
	v := view{comments: map[string]string{}, examples: o.MaxExamples}
	if v.examples == 0 {
		v.examples = DefaultRenderExamples
	}
	if v.examples < 0 {
		v.examples = 0
	}
	for k, c := range o.Comments {
		v.comments[strings.ToLower(k)] = c
	}
	// Which tables, and which columns were asked for (lower-case).
	selected := map[string]map[string]bool{} // table -> columns (nil = all)
	if o.Tables != nil {
		for name, cols := range o.Tables {
			t, ok := s.Table(name)
			if !ok {
				continue
			}
			key := strings.ToLower(t.Name)
			set, seen := selected[key]
			if len(cols) == 0 {
				selected[key] = nil
				continue
			}
			if seen && set == nil {
				continue
			}
			if set == nil {
				set = map[string]bool{}
				selected[key] = set
			}
			for _, c := range cols {
				set[strings.ToLower(c)] = true
			}
		}
	}
	inView := func(table string) bool {
		if o.Tables == nil {
			return true
		}
		_, ok := selected[strings.ToLower(table)]
		return ok
	}
	for _, fk := range s.ForeignKeys {
		if !inView(fk.FromTable) || !inView(fk.ToTable) {
			continue
		}
		v.fks = append(v.fks, fk)
		// Keep both join columns.
		for _, end := range [][2]string{{fk.FromTable, fk.FromColumn}, {fk.ToTable, fk.ToColumn}} {
			if set := selected[strings.ToLower(end[0])]; set != nil {
				set[strings.ToLower(end[1])] = true
			}
		}
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		if !inView(t.Name) {
			continue
		}
		set := selected[strings.ToLower(t.Name)]
		vt := viewTable{t: t}
		for j := range t.Columns {
			c := &t.Columns[j]
			if set == nil || set[strings.ToLower(c.Name)] || c.Primary {
				vt.cols = append(vt.cols, c)
			}
		}
		v.tables = append(v.tables, vt)
	}
	return v
}

// comment returns the column comment: the option override, else
// Column.Comment, with line breaks and repeated spaces collapsed so that it
// stays on one line.
func (v view) comment(table string, c *Column) string {
	if s, ok := v.comments[strings.ToLower(table+"."+c.Name)]; ok {
		return oneLine(s)
	}
	return oneLine(c.Comment)
}

func (v view) tableComment(table string) string {
	return oneLine(v.comments[strings.ToLower(table)])
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// flatValue replaces line breaks in a value example with spaces, so that
// the example cannot break the one-line layout of either format.
func flatValue(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return lineBreaks.Replace(s)
}

// lineBreaks replaces each line break with a space (flatValue); a Replacer
// is safe for concurrent use and costly to build, so it is built once.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// baseType is the declared type without its size, upper-cased
// ("varchar(255)" -> "VARCHAR"), as XiYan-SQL's M-Schema shows it. A column
// declared without a type shows ANY: it accepts every storage class (the
// name SQLite's STRICT tables use for that).
func baseType(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = t[:i]
	}
	t = strings.ToUpper(strings.TrimSpace(t))
	if t == "" {
		return "ANY"
	}
	return t
}

// mschemaExamples applies M-Schema's example rules (XiYan-SQL, METHODS.md):
// at most n values; only the first for DATE/TIME/DATETIME/TIMESTAMP
// columns; when any kept value is over 20 characters, only the first, and
// none when one is over 50.
func mschemaExamples(typ string, ex []string, n int) []string {
	if n <= 0 || len(ex) == 0 {
		return nil
	}
	if len(ex) > n {
		ex = ex[:n]
	}
	switch typ {
	case "DATE", "TIME", "DATETIME", "TIMESTAMP":
		return ex[:1]
	}
	longest := 0
	for _, e := range ex {
		longest = max(longest, utf8.RuneCountInString(e))
	}
	switch {
	case longest > 50:
		return nil
	case longest > 20:
		return ex[:1]
	}
	return ex
}

// RenderMSchema renders s in XiYan-SQL's M-Schema format (METHODS.md
// "Schema text"):
//
//	【DB_ID】 <db_id>
//	【Schema】
//	# Table: <name>[, <table comment>]
//	[
//	(col:TYPE[, comment][, Primary Key][, Examples: [a, b, c]]),
//	...
//	]
//	【Foreign keys】
//	t1.c1=t2.c2
//
// Tables, columns and foreign keys keep the database's order; the
// 【Foreign keys】 section is left out when there are none.
func RenderMSchema(s *Schema, opt RenderOptions) string {
	v := opt.resolve(s)
	var b strings.Builder
	b.WriteString("【DB_ID】 " + s.DBID + "\n")
	b.WriteString("【Schema】\n")
	for _, vt := range v.tables {
		b.WriteString("# Table: " + vt.t.Name)
		if tc := v.tableComment(vt.t.Name); tc != "" {
			b.WriteString(", " + tc)
		}
		b.WriteString("\n[\n")
		for i, c := range vt.cols {
			typ := baseType(c.Type)
			b.WriteString("(" + c.Name + ":" + typ)
			if cm := v.comment(vt.t.Name, c); cm != "" {
				b.WriteString(", " + cm)
			}
			if c.Primary {
				b.WriteString(", Primary Key")
			}
			if ex := mschemaExamples(typ, c.Examples, v.examples); len(ex) > 0 {
				flat := make([]string, len(ex))
				for i, e := range ex {
					flat[i] = flatValue(e)
				}
				b.WriteString(", Examples: [" + strings.Join(flat, ", ") + "]")
			}
			b.WriteString(")")
			if i < len(vt.cols)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("]\n")
	}
	if len(v.fks) > 0 {
		b.WriteString("【Foreign keys】\n")
		for _, fk := range v.fks {
			b.WriteString(fk.FromTable + "." + fk.FromColumn + "=" + fk.ToTable + "." + fk.ToColumn + "\n")
		}
	}
	return b.String()
}

// textAffinity reports whether a declared type has SQLite TEXT affinity
// (it contains CHAR, CLOB or TEXT; https://sqlite.org/datatype3.html 3.1).
func textAffinity(t string) bool {
	u := strings.ToUpper(t)
	if strings.Contains(u, "INT") {
		return false
	}
	return strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT")
}

// quoteBacktick quotes an identifier with backquotes, as Alpha-SQL's DDL
// does.
func quoteBacktick(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// RenderDDL renders s as annotated CREATE TABLE statements in Alpha-SQL's
// style (HKUSTDial/Alpha-SQL, alphasql/database/utils.py
// build_table_ddl_statement): one column per line, a trailing SQL comment
// carrying the column comment and, for text-affinity columns, value
// examples, then the PRIMARY KEY and FOREIGN KEY clauses:
//
//	CREATE TABLE `singer` (
//		`Singer_ID` int,
//		`Name` text, -- Value Examples: `Joe Sharp`, `Timbaland`
//		PRIMARY KEY (`Singer_ID`),
//		FOREIGN KEY (`x`) REFERENCES `t`(`y`)
//	);
//
// Comment parts are joined with " | ". Unlike Alpha-SQL, a table without a
// primary key gets no empty PRIMARY KEY () clause, and the last item carries
// no trailing comma, so the text is valid SQLite DDL. Statements are
// separated by a blank line and keep the database's table order.
func RenderDDL(s *Schema, opt RenderOptions) string {
	v := opt.resolve(s)
	fksOf := map[string][]ForeignKey{}
	for _, fk := range v.fks {
		k := strings.ToLower(fk.FromTable)
		fksOf[k] = append(fksOf[k], fk)
	}
	var b strings.Builder
	for ti, vt := range v.tables {
		if ti > 0 {
			b.WriteString("\n")
		}
		type item struct{ text, comment string }
		var items []item
		for _, c := range vt.cols {
			line := "\t" + quoteBacktick(c.Name)
			if c.Type != "" {
				line += " " + c.Type
			}
			var parts []string
			if cm := v.comment(vt.t.Name, c); cm != "" {
				parts = append(parts, cm)
			}
			if textAffinity(c.Type) && v.examples > 0 && len(c.Examples) > 0 {
				ex := c.Examples
				if len(ex) > v.examples {
					ex = ex[:v.examples]
				}
				q := make([]string, len(ex))
				for i, e := range ex {
					q[i] = "`" + flatValue(e) + "`"
				}
				parts = append(parts, "Value Examples: "+strings.Join(q, ", "))
			}
			items = append(items, item{line, strings.Join(parts, " | ")})
		}
		if len(vt.t.PrimaryKey) > 0 {
			q := make([]string, len(vt.t.PrimaryKey))
			for i, p := range vt.t.PrimaryKey {
				q[i] = quoteBacktick(p)
			}
			items = append(items, item{text: "\tPRIMARY KEY (" + strings.Join(q, ", ") + ")"})
		}
		for _, fk := range fksOf[strings.ToLower(vt.t.Name)] {
			items = append(items, item{text: "\tFOREIGN KEY (" + quoteBacktick(fk.FromColumn) + ") REFERENCES " +
				quoteBacktick(fk.ToTable) + "(" + quoteBacktick(fk.ToColumn) + ")"})
		}
		b.WriteString("CREATE TABLE " + quoteBacktick(vt.t.Name) + " (")
		if tc := v.tableComment(vt.t.Name); tc != "" {
			b.WriteString(" -- " + tc)
		}
		b.WriteString("\n")
		for i, it := range items {
			b.WriteString(it.text)
			if i < len(items)-1 {
				b.WriteString(",")
			}
			if it.comment != "" {
				b.WriteString(" -- " + it.comment)
			}
			b.WriteString("\n")
		}
		b.WriteString(");\n")
	}
	return b.String()
}
