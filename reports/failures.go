package reports

import (
	"strings"

	"github.com/t2sbench/t2sbench/runners"
)

// parseFailureTable lists, per system, role and action, the structured
// answers the runner could not parse (trace counters
// "parse_failed.<role>.<action>", runners.ParseFailedPrefix): how many
// answers, on how many of the system's attempted questions, and their
// share. nil when no system has such a counter.
func parseFailureTable(c *corpus) *Table {
	t := &Table{ID: "parse-failures", Caption: c.caption("Structured answers that did not parse, by system, role and action (the method went on without them)")}
	t.Columns = []Column{{Name: "System"}, {Name: "Role"}, {Name: "Action"},
		{Name: "answers", Numeric: true, Better: Lower}, {Name: "questions", Numeric: true, Better: Lower}, {Name: "questions (%)", Numeric: true, Better: Lower}}
	for _, s := range c.systems {
		for _, name := range s.counterNames(runners.ParseFailedPrefix) {
			total, questions, _ := s.counter(name)
			if total == 0 {
				continue
			}
			role, action, _ := strings.Cut(strings.TrimPrefix(name, runners.ParseFailedPrefix), ".")
			share := 0.0
			if s.done() > 0 {
				share = float64(questions) / float64(s.done())
			}
			t.Rows = append(t.Rows, []Cell{text(s.name), text(role), text(action), num(total, 0), integer(questions), pct(share)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "answers: samples whose JSON object, required line or SQL block could not be read (an object under other keys than the prompt asks for included); questions: attempted questions with at least one; cut answers are counted apart (cut.<role>).")
	return t
}
