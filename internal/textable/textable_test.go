package textable

import (
	"bytes"
	"fmt"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name  string
		table func() *Table
		want  string
	}{
		{
			name: "widths from the widest cell, header included",
			table: func() *Table {
				t := New(2, Column{Name: "trial"}, Column{Name: "n", Align: Right}, Column{Name: "note"})
				t.Row("direct", "7", "x")
				t.Row("sc", "1234", "")
				return t
			},
			want: "trial      n  note\n" +
				"direct     7  x\n" +
				"sc      1234\n",
		},
		{
			name: "min width and per-column gap",
			table: func() *Table {
				t := New(1, Column{Name: "a", MinWidth: 4}, Column{Name: "b", Align: Right, MinWidth: 5}, Column{Name: "c", Gap: 3})
				t.Row("x", "1", "y")
				return t
			},
			want: "a        b   c\n" +
				"x        1   y\n",
		},
		{
			name: "indent and no header",
			table: func() *Table {
				t := New(2, Column{Name: "long header"}, Column{Align: Right, MinWidth: 7})
				t.Indent, t.NoHeader = 2, true
				t.Row("a", "75.0%")
				t.Row("bb", "-")
				return t
			},
			want: "  a     75.0%\n" +
				"  bb        -\n",
		},
		{
			name: "widths count code points, missing cells are empty",
			table: func() *Table {
				t := New(1, Column{Name: "Δ", Align: Right}, Column{Name: "x"})
				t.Row("+1.0")
				t.Row("αβ", "z", "dropped")
				return t
			},
			want: "   Δ x\n" +
				"+1.0\n" +
				"  αβ z\n",
		},
		{
			name: "no rows: the header only",
			table: func() *Table {
				return New(1, Column{Name: "system"}, Column{Name: "p", Align: Right, MinWidth: 10})
			},
			want: "system          p\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := tc.table()
			if got := tab.String(); got != tc.want {
				t.Errorf("got\n%q; want\n%q", got, tc.want)
			}
			var buf bytes.Buffer
			if err := tab.Write(&buf); err != nil || buf.String() != tc.want {
				t.Errorf("Write: got %q, %v; want %q, nil", buf.String(), err, tc.want)
			}
		})
	}
}

// TestMatchesPrintf checks that a table whose cells fit their minimum
// widths prints exactly what the hand-aligned Printf it replaces printed
// (the compare table's format).
func TestMatchesPrintf(t *testing.T) {
	const format = "%-*s %6s %8s %8s %8s  %-18s %5s %5s %-7s %10s %10s%s\n"
	tab := New(1,
		Column{Name: "system"}, Column{Name: "n", Align: Right, MinWidth: 6},
		Column{Name: "EX base", Align: Right, MinWidth: 8}, Column{Name: "EX sys", Align: Right, MinWidth: 8},
		Column{Name: "delta", Align: Right, MinWidth: 8}, Column{Name: "CI", MinWidth: 18, Gap: 2},
		Column{Name: "b", Align: Right, MinWidth: 5}, Column{Name: "c", Align: Right, MinWidth: 5},
		Column{Name: "test", MinWidth: 7}, Column{Name: "p", Align: Right, MinWidth: 10},
		Column{Name: "p(Holm)", Align: Right, MinWidth: 10}, Column{})
	rows := [][]string{
		{"iter", "498", "78.51", "79.12", "+0.60", "[-3.41, +4.62]", "53", "56", "chi2-cc", "0.848", "0.848", "~"},
		{"dsl", "498", "78.51", "84.54", "+6.02", "[+2.61, +9.44]", "28", "58", "chi2-cc", "0.002", "0.004", ""},
	}
	want := fmt.Sprintf(format, 6, "system", "n", "EX base", "EX sys", "delta", "CI", "b", "c", "test", "p", "p(Holm)", "")
	for _, r := range rows {
		tab.Row(r...)
		mark := ""
		if r[11] != "" {
			mark = " " + r[11]
		}
		want += fmt.Sprintf(format, 6, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], mark)
	}
	if got := tab.String(); got != want {
		t.Errorf("got\n%s; want (Printf)\n%s", got, want)
	}
}
