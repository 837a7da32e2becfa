package reactdsl

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
)

// TestParseFailedCounters: a turn whose answer holds no DSL call that
// parses (prose, a broken call, JSON instead of calls) or no SQL where SQL
// is asked is counted once under parse_failed.reason.<setting's turn>; a
// well-formed turn is not.
func TestParseFailedCounters(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "How many singers are from France?"}
	calls := "```dsl\nr1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"country = 'France'\")\nr3 = select_columns(r2, [\"count(*)\"])\nexecute(r3)\n```"
	prose := "The singer table has a country column; count the French ones."
	cases := []struct {
		name, setting string
		replies       []string
		counter       string
		want          float64
	}{
		{"dsl well-formed", SettingIterateDSL, []string{calls, "```dsl\nanswer(r3)\n```"}, "parse_failed.reason.dsl_turn", 0},
		// prose, a call cut short, fenced JSON, then a good turn and the
		// answer: three turns did not parse.
		{"dsl malformed turns", SettingIterateDSL, []string{prose, "```dsl\nr1 = table_ref(\"singer\"\n```", "```json\n{\"action\": \"table_ref\", \"args\": [\"singer\"]}\n```", calls, "```dsl\nanswer(r3)\n```"},
			"parse_failed.reason.dsl_turn", 3},
		{"sql well-formed", SettingIterateSQL, []string{"FINAL ANSWER\n```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```"}, "parse_failed.reason.sql_turn", 0},
		{"sql prose then answer", SettingIterateSQL, []string{prose, "<think>count</think>\nThe answer is 2.", "FINAL ANSWER\n```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```"},
			"parse_failed.reason.sql_turn", 2},
		{"baseline prose", SettingBaseline, []string{prose}, "parse_failed.reason.generate", 1},
		{"baseline sql", SettingBaseline, []string{"```sql\nSELECT 1\n```"}, "parse_failed.reason.generate", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, runners.Params{"setting": tc.setting})
			res, err := r.Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: loopingModel(tc.replies)})
			if err != nil {
				t.Fatal(err)
			}
			if got := runkit.ParseFailed(t, res.Trace.Counters, tc.counter); got != tc.want {
				t.Errorf("%s = %v; want %v (counters %v)", tc.counter, got, tc.want, res.Trace.Counters)
			}
		})
	}
}
