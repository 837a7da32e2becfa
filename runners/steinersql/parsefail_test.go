package steinersql

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
)

// TestParseFailedCounters: a Stage 1 answer that does not parse as a
// decomposition, as real models get it wrong, is counted once under
// parse_failed.decompose.decompose; a well-formed one, a refused request
// and an answer cut at max_tokens (counted as cut) are not.
func TestParseFailedCounters(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	ex := datasets.Example{ID: "q", DBID: "university", Question: "How many students are older than 20?"}
	good := "```sql\nSELECT COUNT(*) FROM student WHERE age > 20\n```"
	cases := []struct {
		name, decompose string
		cut             bool
		want            float64
	}{
		{"well-formed", `{"operations": [], "terminal_tables": ["student"]}`, false, 0},
		{"fenced with prose", "Here it is:\n```json\n{\"terminal_tables\": [\"student\"]}\n```", false, 0},
		{"prose", "The student table is the only one needed; filter on age.", false, 1},
		{"truncated json", "```json\n{\"operations\": [{\"function\": \"COUNT\"}], \"terminal_tables\": [\"stud", false, 1},
		{"fenced wrong keys", "```json\n{\"tables\": [\"student\"], \"answer\": \"count\"}\n```", false, 1},
		{"think then prose", "<think>count students over 20</think>\nUse student.", false, 1},
		{"cut", "```json\n{\"terminal_tables\": [\"stud", true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := byRole(tc.decompose, good, tc.cut)
			r, err := New(runners.Params{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
			if err != nil {
				t.Fatal(err)
			}
			if got := runkit.ParseFailed(t, res.Trace.Counters, "parse_failed.decompose.decompose"); got != tc.want {
				t.Errorf("parse_failed.decompose.decompose = %v; want %v", got, tc.want)
			}
		})
	}
}
