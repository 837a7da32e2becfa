// Package textable renders the plain-text tables the CLI prints to a
// terminal (the run summary, compare, eval, the dry run): columns aligned
// left or right, widths computed from the widest cell, one line per row.
// It is the one renderer of such tables; reports render their own
// Markdown, LaTeX and CSV tables.
//
// A column is as wide as its widest cell or header, and at least
// MinWidth. Columns are separated by Gap spaces (the table's Gap unless
// the column sets its own) and every line starts with Indent spaces.
// Widths count Unicode code points, as fmt's %-10s does. Trailing spaces
// are trimmed, so a left-aligned last column is not padded, and a line
// ends where its last non-empty cell ends.
package textable

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Align says on which side of its column a cell is placed.
type Align int

const (
	// Left aligns cells to the left (text).
	Left Align = iota
	// Right aligns cells to the right (numbers).
	Right
)

// Column is one column of a Table.
type Column struct {
	// Name is the header cell.
	Name  string
	Align Align
	// MinWidth is the smallest width of the column, as the N of %Ns.
	MinWidth int
	// Gap is the number of spaces before the column; 0 means the table's
	// Gap. It has no effect on the first column.
	Gap int
}

// Table is a plain-text table: columns, optionally a header line, rows.
type Table struct {
	Columns []Column
	// Gap is the number of spaces between columns (1 if 0).
	Gap int
	// Indent is the number of spaces every line starts with.
	Indent int
	// NoHeader leaves out the header line.
	NoHeader bool
	rows     [][]string
}

// New returns a table of the given columns, separated by gap spaces.
func New(gap int, cols ...Column) *Table {
	return &Table{Columns: cols, Gap: gap}
}

// Row appends a row. Missing cells are empty; cells beyond the columns
// are dropped.
func (t *Table) Row(cells ...string) {
	row := make([]string, len(t.Columns))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

// Widths returns the width of every column: the widest of its header (when
// printed), its cells and MinWidth.
func (t *Table) Widths() []int {
	w := make([]int, len(t.Columns))
	for j, c := range t.Columns {
		w[j] = c.MinWidth
		if !t.NoHeader {
			w[j] = max(w[j], utf8.RuneCountInString(c.Name))
		}
		for _, r := range t.rows {
			w[j] = max(w[j], utf8.RuneCountInString(r[j]))
		}
	}
	return w
}

// String renders the table, each line ending in a newline.
func (t *Table) String() string {
	var b strings.Builder
	widths := t.Widths()
	line := func(cells []string) {
		var l strings.Builder
		l.WriteString(strings.Repeat(" ", t.Indent))
		for j, c := range t.Columns {
			if j > 0 {
				gap := c.Gap
				if gap == 0 {
					gap = t.Gap
				}
				l.WriteString(strings.Repeat(" ", max(gap, 1)))
			}
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(cells[j]))
			if c.Align == Right {
				l.WriteString(pad)
				l.WriteString(cells[j])
			} else {
				l.WriteString(cells[j])
				l.WriteString(pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	if !t.NoHeader {
		names := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			names[j] = c.Name
		}
		line(names)
	}
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

// Write writes the rendered table to w.
func (t *Table) Write(w io.Writer) error {
	_, err := io.WriteString(w, t.String())
	return err
}
