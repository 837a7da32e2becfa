package reports

import (
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
)

// TwoGoldTable is the table of a two-gold comparison (metrics.TwoGoldEX):
// each system's EX and rank under both golds, the rank change and the
// verdict flips, with Kendall's tau-b and each system's flipped questions
// in the notes. Its caption ends with the runs' title note
// (runstore.TitleNote), as the report's other captions do. Its ID is
// "two-gold".
func TwoGoldTable(t *metrics.TwoGold, runs []*runstore.RunData) *Table {
	caption := fmt.Sprintf("EX (%%) under two golds: A = %s, B = %s", t.GoldA, t.GoldB) + runstore.TitleNote(runs...)
	tab := &Table{ID: "two-gold", Caption: caption}
	tab.Columns = []Column{{Name: "System"},
		{Group: "A", Name: "EX", Numeric: true}, {Group: "A", Name: "rank", Numeric: true},
		{Group: "B", Name: "EX", Numeric: true}, {Group: "B", Name: "rank", Numeric: true},
		{Name: "change", Numeric: true}, {Name: "flips", Numeric: true}, {Name: "to correct", Numeric: true}, {Name: "to wrong", Numeric: true}}
	rank := func(r int) Cell {
		if r == 0 {
			return text("-")
		}
		return integer(r)
	}
	for _, r := range t.Rows {
		change := text("0")
		if r.Change != 0 {
			change = Cell{Text: fmt.Sprintf("%+d", r.Change), Value: float64(r.Change), HasValue: true}
		}
		tab.Rows = append(tab.Rows, []Cell{text(r.System), pct(r.A.EX), rank(r.RankA), pct(r.B.EX), rank(r.RankB), change,
			integer(len(r.Flips)), integer(r.ToCorrect), integer(r.ToWrong)})
	}
	tau := "Kendall's tau-b between the rankings: undefined (fewer than two systems, or all tied under one gold)."
	if t.Tau != nil {
		tau = fmt.Sprintf("Kendall's tau-b between the rankings under A and B: %.3f over %d systems (1: the same order).", *t.Tau, len(t.Rows))
	}
	tab.Notes = []string{fmt.Sprintf("%d questions' gold SQL differs between A and B; only they are scored again, the others keep their verdict. Rank 1 is the best; equal EX share a rank; change = rank under A - rank under B.", len(t.Changed)), tau}
	for _, r := range t.Rows {
		if len(r.Flips) == 0 {
			continue
		}
		parts, more := metrics.ListFlips(r.Flips)
		if more > 0 {
			parts = append(parts, fmt.Sprintf("and %d more", more))
		}
		tab.Notes = append(tab.Notes, fmt.Sprintf("Flipped, %s: %s.", r.System, strings.Join(parts, ", ")))
	}
	return tab
}
