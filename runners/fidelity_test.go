package runners_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fidelityStatuses are the three statuses a FIDELITY.md row may carry, in
// the order of the summary table's columns.
var fidelityStatuses = []string{"as described", "deviates", "public code"}

// TestFidelitySummaryCountsRows checks that the summary table at the top
// of docs/FIDELITY.md counts the rows of each method's section: the table is
// written by hand, and a row added, removed or re-labelled below must be
// counted again above. The expected values are the rows themselves.
func TestFidelitySummaryCountsRows(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "FIDELITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// summary maps a method's summary label to its four numbers; sections
	// holds the counted rows of each method section, in page order.
	summary := map[string][4]int{}
	var order []string
	type counted struct {
		title  string
		counts [4]int
	}
	var sections []counted
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
			if section != "Summary" && section != "How this page was checked" {
				sections = append(sections, counted{title: section})
			}
			continue
		}
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| ---") {
			continue
		}
		cols := strings.Split(strings.Trim(l, "| "), " | ")
		switch {
		case section == "Summary":
			if cols[0] == "method" {
				continue
			}
			var n [4]int
			for i := range n {
				v, err := strconv.Atoi(cols[i+1])
				if err != nil {
					t.Fatalf("FIDELITY.md:%d: summary column %d %q is not a number", line, i+1, cols[i+1])
				}
				n[i] = v
			}
			summary[cols[0]] = n
			if cols[0] != "all" {
				order = append(order, cols[0])
			}
		case len(sections) > 0 && cols[0] != "component":
			if len(cols) < 3 {
				t.Fatalf("FIDELITY.md:%d: row has %d columns; want at least 3", line, len(cols))
			}
			s := &sections[len(sections)-1]
			s.counts[0]++
			found := false
			for i, st := range fidelityStatuses {
				if strings.HasPrefix(cols[2], st) {
					s.counts[i+1]++
					found = true
					break
				}
			}
			if !found {
				t.Errorf("FIDELITY.md:%d: status %q is none of %q", line, cols[2], fidelityStatuses)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(order) != len(sections) {
		t.Fatalf("summary has %d methods %q; the page has %d method sections", len(order), order, len(sections))
	}
	var all [4]int
	for i, s := range sections {
		for j := range all {
			all[j] += s.counts[j]
		}
		got := summary[order[i]]
		if got != s.counts {
			t.Errorf("summary row %q: components, as described, deviates, public code = %v; section %q has %v",
				order[i], got, s.title, s.counts)
		}
	}
	if summary["all"] != all {
		t.Errorf("summary row \"all\" = %v; the sections sum to %v", summary["all"], all)
	}
}
