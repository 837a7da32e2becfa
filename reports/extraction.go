package reports

import (
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// extractionTable counts, per system, how its final answers were found in
// the model's responses: the rule of the SQL extractor that chose each
// final SQL (runners.Result.Extraction, counted by sqltext.ReasonCounts,
// the count eval's summary shows for a file of responses). A column per
// reason that occurs; nil when no answer of the runs records a reason
// (runs stored before reasons were recorded, runners that read no SQL
// from text).
func extractionTable(c *corpus) *Table {
	all := sqltext.ReasonCounts{}
	for _, s := range c.systems {
		for r, n := range s.agg.reasons {
			all[r] += n
		}
	}
	if all.Total() == all[sqltext.ReasonUnrecorded] {
		return nil
	}
	order := all.Order()
	t := &Table{ID: "extraction", Caption: c.caption("How answers were found: the extraction rule that chose each final SQL in its model response")}
	t.Columns = []Column{{Name: "System"}, {Name: "answers", Numeric: true}}
	for _, r := range order {
		t.Columns = append(t.Columns, Column{Name: string(r), Numeric: true})
	}
	for _, s := range c.systems {
		counts := s.agg.reasons
		if counts.Total() == 0 {
			continue
		}
		row := []Cell{text(s.name), integer(counts.Total())}
		for _, r := range order {
			row = append(row, integer(counts[r]))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"answers: attempted items (every seed) with a stored result. " +
		"single: the response held one SQL candidate; final_marker: the first candidate after the last final-answer marker; " +
		"last_correction: a later candidate introduced by a correction cue; first_of_alternatives: the first of candidates offered as alternatives; " +
		"last_complete / last_incomplete: the last complete (else last) of several candidates without a cue; " +
		"last_assistant_turn: the last assistant turn of a transcript; continuation: the response continued a primed statement; " +
		"none: the runner read responses and returned no SQL; unrecorded: the answer was not read from a response by the extractor " +
		"(an answer compiled from DSL calls) or was stored before reasons were recorded. " +
		"A runner choosing among several responses counts the response its final SQL first came from."}
	return t
}
