package steinersql

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestParseFailedCounters: a Stage 1 answer that does not parse as a
// decomposition, as real models get it wrong, is counted once under
// parse_failed.decompose.decompose; a well-formed one, a refused request
// and an answer cut at max_tokens (counted as cut) are not.
func TestParseFailedCounters(t *testing.T) {
	db := miniDB(t, "university")
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
			client := &cutByRole{byRole: byRole{decompose: tc.decompose, generate: good}, cut: tc.cut}
			r, err := New(runners.Params{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Trace.Counters["parse_failed.decompose.decompose"]; got != tc.want {
				t.Errorf("parse_failed.decompose.decompose = %v; want %v", got, tc.want)
			}
			for name, v := range res.Trace.Counters {
				if strings.HasPrefix(name, runners.ParseFailedPrefix) && name != "parse_failed.decompose.decompose" {
					t.Errorf("counter %s = %v; want none other", name, v)
				}
			}
		})
	}
}

// cutByRole is byRole whose Stage 1 answer is marked cut at max_tokens
// when cut is set.
type cutByRole struct {
	byRole
	cut bool
}

func (c *cutByRole) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := c.byRole.Complete(ctx, req)
	if err == nil && c.cut && req.Role == RoleDecompose {
		resp.FinishReasons = []string{llm.FinishLength}
	}
	return resp, err
}
