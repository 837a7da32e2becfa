package reports

import (
	"fmt"
	"math"

	"github.com/t2sbench/t2sbench/runners"
)

// table4Fields and table4Stages follow runners/iesr (Table4Fields,
// Table4Stages): the counters table4.<stage>.<field>.{pred, pred_hit,
// gold, gold_hit} that iesr's gold analysis stores per item.
var (
	table4Fields = []string{"table", "column", "unit_num", "operator"}
	table4Stages = []struct{ stage, suffix string }{{"extract", ""}, {"verified", "+Ve"}}
)

// table4Tables builds IESR's Table 4, one table per benchmark: per system
// whose items carry table4 counters, a row for its understanding model's
// extraction and, when keyword verification ran, a "+Ve" row for the
// verified keywords, each with the precision and recall (%) of the
// extracted tables, columns, numbers with units and operators against
// what the gold queries use, micro-averaged over the questions (summed
// hits over summed counts).
func table4Tables(c *corpus) []*Table {
	var out []*Table
	for _, b := range c.benches {
		var rows [][]Cell
		labels := map[string]int{}
		type row struct {
			label, system string
			cells         []Cell
		}
		var pending []row
		for _, s := range c.onBench(b) {
			if len(s.counterNames(runners.Table4Prefix)) == 0 {
				continue
			}
			models := s.models()
			model := models[runners.RoleUnderstand]
			if model == "" {
				model = models[runners.RoleReason]
			}
			for _, st := range table4Stages {
				pre := runners.CounterTable4(st.stage, "", "")
				if len(s.counterNames(pre)) == 0 {
					continue
				}
				cells := []Cell{}
				for _, f := range table4Fields {
					sum := func(part string) float64 {
						t, _, _ := s.counter(runners.CounterTable4(st.stage, f, part))
						return t
					}
					cells = append(cells, pct(ratio(sum("pred_hit"), sum("pred"))), pct(ratio(sum("gold_hit"), sum("gold"))))
				}
				label := model + st.suffix
				labels[label]++
				pending = append(pending, row{label, s.name, cells})
			}
		}
		if len(pending) == 0 {
			continue
		}
		for _, r := range pending {
			label := r.label
			if labels[label] > 1 {
				label += " (" + r.system + ")"
			}
			rows = append(rows, append([]Cell{text(label)}, r.cells...))
		}
		t := &Table{ID: slugID("keyword-precision-recall", b),
			Caption: c.caption(fmt.Sprintf("Precision and recall (%%) of the keywords the understanding model extracts (tables, columns, numbers with units, operators) against what the gold queries use, on %s; +Ve: after keyword verification", b))}
		t.Columns = []Column{{Name: "Model"}}
		for _, f := range table4Fields {
			t.Columns = append(t.Columns, Column{Group: f, Name: "P", Numeric: true, Better: Higher}, Column{Group: f, Name: "R", Numeric: true, Better: Higher})
		}
		t.Rows = rows
		t.Notes = []string{"Gold tables and columns are the engine's read set of the gold query (SQLite's EXPLAIN bytecode; a name scan on MySQL); numbers and operators are the gold's tokens (a number matches by value, its unit unchecked; LIMIT 1 is not counted). Micro-averaged: summed hits over summed items. \"-\": nothing extracted, or nothing to find."}
		t.MarkBest()
		out = append(out, t)
	}
	return out
}

// ratio is a/b, NaN when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
