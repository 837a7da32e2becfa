package golden

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// contextLines is the number of unchanged lines Diff shows around a
// change, as diff -u does.
const contextLines = 3

// maxCells bounds the longest-common-subsequence table Diff builds (after
// the common head and tail of the two texts are set aside); beyond it the
// differing middle is shown as removed, then added, whole.
const maxCells = 1 << 22

// Diff returns a unified diff of old against new (lines removed from old
// marked -, added in new +, with 3 lines of context and @@ -l,n +l,n @@
// hunk headers), under a header naming oldName and newName; nil when the two
// are equal. A changed line that ends in spaces, tabs or a carriage return
// is shown quoted, so that an invisible difference is seen; a last line
// without its newline is followed by "\ No newline at end of file".
func Diff(oldName string, old []byte, newName string, new []byte) []byte {
	if bytes.Equal(old, new) {
		return nil
	}
	a, b := splitLines(old), splitLines(new)
	ops := edits(a, b)
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before the change to context
		// lines after the last change closer than 2*contextLines to the next.
		start := max(i-contextLines, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*contextLines {
				break
			}
		}
		end = min(end+contextLines, len(ops))
		writeHunk(&out, ops[start:end], a, b)
		i = end
	}
	return out.Bytes()
}

// op is one line of the edit script: kind ' ' keeps a[i] (= b[j]), '-'
// removes a[i], '+' adds b[j].
type op struct {
	kind byte
	i, j int
}

// splitLines splits s into lines, each keeping its "\n" (the last may lack
// one).
func splitLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(s), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edits returns a shortest edit script turning a into b: the common head
// and tail are kept, and the middle follows a longest common subsequence
// of lines (or, over maxCells, is removed and added whole).
func edits(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for k := 0; k < p; k++ {
		ops = append(ops, op{' ', k, k})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	n, m := len(ma), len(mb)
	if n*m > maxCells {
		for k := range n {
			ops = append(ops, op{'-', p + k, p})
		}
		for k := range m {
			ops = append(ops, op{'+', p + n, p + k})
		}
	} else {
		// lcs[i*(m+1)+j] is the length of a longest common subsequence
		// of ma[i:] and mb[j:].
		lcs := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
				} else {
					lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, op{' ', p + i, p + j})
				i++
				j++
			case j == m || (i < n && lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]):
				ops = append(ops, op{'-', p + i, p + j})
				i++
			default:
				ops = append(ops, op{'+', p + i, p + j})
				j++
			}
		}
	}
	for k := 0; k < s; k++ {
		ops = append(ops, op{' ', len(a) - s + k, len(b) - s + k})
	}
	return ops
}

// writeHunk writes one hunk: its @@ header (1-based first lines and line
// counts; an empty side starts at the line before, as diff -u writes) and
// its lines.
func writeHunk(out *bytes.Buffer, ops []op, a, b []string) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	sa, sb := ops[0].i+1, ops[0].j+1
	if na == 0 {
		sa--
	}
	if nb == 0 {
		sb--
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(sa, na), span(sb, nb))
	for _, o := range ops {
		line := ""
		switch o.kind {
		case '+':
			line = b[o.j]
		default:
			line = a[o.i]
		}
		text, nl := strings.CutSuffix(line, "\n")
		if o.kind != ' ' && strings.TrimRight(text, " \t\r") != text {
			text = strconv.Quote(text)
		}
		out.WriteByte(o.kind)
		out.WriteString(text)
		out.WriteByte('\n')
		if !nl {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}

// span formats a hunk side as diff -u does: "l,n", or "l" when n is 1.
func span(l, n int) string {
	if n == 1 {
		return strconv.Itoa(l)
	}
	return fmt.Sprintf("%d,%d", l, n)
}
