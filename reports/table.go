package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Better says which direction of a column's values is best, for bolding.
type Better int

// Column directions.
const (
	// NoBest: the column is not bolded.
	NoBest Better = iota
	// Higher: the largest value is best (EX).
	Higher
	// Lower: the smallest value is best (cost, latency).
	Lower
)

// Column is one table column.
type Column struct {
	// Group, when set, is a header spanning the adjacent columns of the
	// same group (a backbone over its EX and Drop columns); LaTeX sets it
	// as a \multicolumn with a \cmidrule, the other formats prefix it to
	// Name.
	Group string
	Name  string
	// Numeric columns are right-aligned.
	Numeric bool
	Better  Better
}

// Cell is one table cell.
type Cell struct {
	// Text is the cell as printed, without emphasis or marks.
	Text string
	// Value is the number the cell shows (for bolding); HasValue says
	// whether there is one.
	Value    float64
	HasValue bool
	// Bold marks the best value of its column (set by Table.MarkBest).
	Bold bool
	// NotSig marks a difference that is not significant: "~" in text
	// formats, a dagger in LaTeX.
	NotSig bool
}

// Table is a rendered-agnostic table: caption, columns, rows and notes.
type Table struct {
	// ID is the file stem of the table's files (e.g. "ablation-1").
	ID string
	// Caption is the table's caption; it says "(simulated model)" for sim
	// runs.
	Caption string
	Columns []Column
	Rows    [][]Cell
	// Notes are footnotes printed under the table.
	Notes []string
}

// header is the column's one-line name: "Group Name".
func (c Column) header() string {
	if c.Group == "" {
		return c.Name
	}
	return c.Group + " " + c.Name
}

// text returns a cell holding s.
func text(s string) Cell { return Cell{Text: s} }

// num returns a numeric cell printed with prec decimals.
func num(v float64, prec int) Cell {
	if math.IsNaN(v) {
		return Cell{Text: "-"}
	}
	return Cell{Text: fmtFloat(v, prec), Value: v, HasValue: true}
}

// pct returns a cell of v (a fraction) printed as a percentage with one
// decimal.
func pct(v float64) Cell {
	c := num(100*v, 1)
	return c
}

func integer(n int) Cell { return Cell{Text: fmt.Sprintf("%d", n), Value: float64(n), HasValue: true} }

func fmtFloat(v float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// MarkBest bolds the best value of every column with a direction. Ties
// are all bolded; a column with fewer than two values is left alone.
func (t *Table) MarkBest() {
	for j, col := range t.Columns {
		if col.Better == NoBest {
			continue
		}
		best, n := math.NaN(), 0
		for _, r := range t.Rows {
			if j >= len(r) || !r[j].HasValue {
				continue
			}
			v := r[j].Value
			n++
			if math.IsNaN(best) || (col.Better == Higher && v > best) || (col.Better == Lower && v < best) {
				best = v
			}
		}
		if n < 2 {
			continue
		}
		for i := range t.Rows {
			if j < len(t.Rows[i]) && t.Rows[i][j].HasValue && t.Rows[i][j].Text == fmtSame(t.Rows[i][j], best) {
				t.Rows[i][j].Bold = true
			}
		}
	}
}

// fmtSame reports the text the best value would have in cell c's
// precision, so that values equal as printed are tied.
func fmtSame(c Cell, best float64) string {
	prec := 0
	if i := strings.IndexByte(c.Text, '.'); i >= 0 {
		prec = len(c.Text) - i - 1
	}
	s := fmtFloat(best, prec)
	if strings.HasPrefix(c.Text, "+") && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// WriteTerminal renders the table for a terminal with tablewriter: the
// caption above, bold as *x*, "~" after non-significant values, notes
// below.
func (t *Table) WriteTerminal(w io.Writer) error {
	fmt.Fprintf(w, "%s\n", t.Caption)
	tab := tablewriter.NewTable(w)
	aligns := make([]tw.Align, len(t.Columns))
	for j, c := range t.Columns {
		aligns[j] = tw.AlignLeft
		if c.Numeric {
			aligns[j] = tw.AlignRight
		}
	}
	tab.Configure(func(cfg *tablewriter.Config) {
		cfg.Header.Formatting.AutoFormat = tw.Off
		cfg.Header.Alignment.Global = tw.AlignCenter
		cfg.Row.Alignment.PerColumn = aligns
		cfg.Row.Formatting.AutoWrap = tw.WrapNone
	})
	head := make([]any, len(t.Columns))
	for j, c := range t.Columns {
		head[j] = c.header()
	}
	tab.Header(head...)
	for _, r := range t.Rows {
		row := make([]string, len(t.Columns))
		for j := range t.Columns {
			if j >= len(r) {
				continue
			}
			s := r[j].Text
			if r[j].Bold {
				s = "*" + s + "*"
			}
			if r[j].NotSig {
				s += " ~"
			}
			row[j] = s
		}
		if err := tab.Append(row); err != nil {
			return fmt.Errorf("reports: table %s: %w", t.ID, err)
		}
	}
	if err := tab.Render(); err != nil {
		return fmt.Errorf("reports: table %s: %w", t.ID, err)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s\n", n)
	}
	return nil
}

// WriteMarkdown renders the table as GitHub Markdown: caption in bold,
// numeric columns right-aligned, best values bold, notes as a paragraph.
func (t *Table) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "**%s**\n\n", mdEscape(t.Caption))
	var b strings.Builder
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + mdEscape(c.header()) + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.Numeric {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" :--- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for j := range t.Columns {
			s := ""
			if j < len(r) {
				s = mdEscape(r[j].Text)
				if r[j].Bold && s != "" {
					s = "**" + s + "**"
				}
				if r[j].NotSig {
					s += " ~"
				}
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(t.Notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", mdEscape(strings.Join(t.Notes, " ")))
	}
	return nil
}

func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

// WriteLaTeX renders the table as a booktabs table environment. Numeric
// columns are right-aligned and marks are set with \rlap so that they take
// no width and the digits stay aligned; the best value of a column is in
// \textbf; a non-significant difference carries a dagger.
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% Requires \\usepackage{booktabs}.\n")
	b.WriteString("\\begin{table}[t]\n\\centering\n\\small\n")
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%s}\n", texEscape(t.Caption), texEscape(t.ID))
	b.WriteString("\\begin{tabular}{")
	for _, c := range t.Columns {
		if c.Numeric {
			b.WriteString("r")
		} else {
			b.WriteString("l")
		}
	}
	b.WriteString("}\n\\toprule\n")
	b.WriteString(texGroups(t.Columns))
	names := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		names[j] = texEscape(c.Name)
	}
	b.WriteString(strings.Join(names, " & ") + " \\\\\n\\midrule\n")
	for _, r := range t.Rows {
		cells := make([]string, len(t.Columns))
		for j := range t.Columns {
			if j >= len(r) {
				continue
			}
			s := texEscape(r[j].Text)
			if t.Columns[j].Numeric {
				s = texNumber(s)
			}
			if r[j].Bold && s != "" {
				s = "\\textbf{" + s + "}"
			}
			if r[j].NotSig {
				s += "\\rlap{$^{\\dagger}$}"
			}
			cells[j] = s
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if len(t.Notes) > 0 {
		notes := make([]string, len(t.Notes))
		for i, n := range t.Notes {
			notes[i] = texEscape(strings.ReplaceAll(n, "~", "†"))
		}
		fmt.Fprintf(&b, "\\par\\smallskip\\footnotesize %s\n", strings.Join(notes, " "))
	}
	b.WriteString("\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// texGroups returns the group header line and its rules, or "" when no
// column has a group.
func texGroups(cols []Column) string {
	has := false
	for _, c := range cols {
		has = has || c.Group != ""
	}
	if !has {
		return ""
	}
	var cells, rules []string
	for j := 0; j < len(cols); {
		k := j + 1
		for k < len(cols) && cols[j].Group != "" && cols[k].Group == cols[j].Group {
			k++
		}
		if cols[j].Group == "" {
			cells = append(cells, "")
		} else {
			cells = append(cells, fmt.Sprintf("\\multicolumn{%d}{c}{%s}", k-j, texEscape(cols[j].Group)))
			rules = append(rules, fmt.Sprintf("\\cmidrule(lr){%d-%d}", j+1, k))
		}
		j = k
	}
	return strings.Join(cells, " & ") + " \\\\\n" + strings.Join(rules, " ") + "\n"
}

// texNumber typesets a numeric cell: a missing value as an en dash, a
// leading minus as a math minus.
func texNumber(s string) string {
	if s == "-" {
		return "--"
	}
	if strings.HasPrefix(s, "-") {
		return "$-$" + s[1:]
	}
	if strings.HasPrefix(s, "[-") {
		s = "[$-$" + s[2:]
	}
	return strings.ReplaceAll(s, ", -", ", $-$")
}

func texEscape(s string) string {
	return texQuotes(texReplacer.Replace(s))
}

// texQuotes sets straight double quotes as opening and closing TeX quotes
// (“x”), alternating; a straight quote would print as a closing one.
func texQuotes(s string) string {
	if !strings.Contains(s, `"`) {
		return s
	}
	var b strings.Builder
	open := true
	for _, r := range s {
		if r != '"' {
			b.WriteRune(r)
			continue
		}
		if open {
			b.WriteString("``")
		} else {
			b.WriteString("''")
		}
		open = !open
	}
	return b.String()
}

var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "^", `\^{}`, "±", `$\pm$`, "≥", `$\geq$`, "<", `$<$`, ">", `$>$`,
	"α", `$\alpha$`, "β", `$\beta$`, "γ", `$\gamma$`, "Δ", `$\Delta$`, "†", `$^{\dagger}$`, "~", `\textasciitilde{}`,
	"--", "-{}-",
)

// WriteCSV renders the table as CSV: one header row, then the rows; a
// non-significant value ends in " ~". The caption and notes are not part
// of the CSV.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		head[j] = c.header()
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		row := make([]string, len(t.Columns))
		for j := range t.Columns {
			if j < len(r) {
				row[j] = r[j].Text
				if r[j].NotSig {
					row[j] += " ~"
				}
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
