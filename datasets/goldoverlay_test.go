package datasets

import (
	"strings"
	"testing"
)

func TestGoldOverlay(t *testing.T) {
	t.Parallel()
	b := &Benchmark{Name: "demo", Split: "dev", Examples: []Example{
		{ID: "7", Index: 0, DBID: "d", GoldSQL: "SELECT 1"},
		{ID: "x/2", Index: 1, DBID: "d", GoldSQL: "SELECT 2"},
	}}
	o, err := ParseGoldOverlay("fix.jsonl", []byte("{\"question_id\": 7, \"sql\": \"SELECT 10\", \"note\": \"why\"}\n\n{\"question_id\": \"x/2\", \"sql\": \"SELECT  2\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := o.ApplyTo(b, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Examples[0].GoldSQL != "SELECT 10" || b.Examples[0].GoldSQL != "SELECT 1" || o.Line["x/2"] != 3 {
		t.Errorf("got gold %q (original %q), line %d; want SELECT 10 (original unchanged), line 3", got.Examples[0].GoldSQL, b.Examples[0].GoldSQL, o.Line["x/2"])
	}
	// The second correction differs in white space only: one change.
	changed, err := CheckSecondGold(b, got)
	if err != nil || len(changed) != 1 || changed[0] != "7" {
		t.Errorf("got changes %v, %v; want [7]", changed, err)
	}
	bad := []struct{ name, text, want string }{
		{"not json", "SELECT 1\n", "fix.jsonl:1: not an overlay line"},
		{"unknown field", "{\"question_id\": 7, \"query\": \"SELECT 1\"}\n", "fix.jsonl:1: not an overlay line"},
		{"no id", "{\"sql\": \"SELECT 1\"}\n", "fix.jsonl:1: missing \"question_id\""},
		{"float id", "{\"question_id\": 1.5, \"sql\": \"SELECT 1\"}\n", "neither a string nor an integer"},
		{"empty sql", "{\"question_id\": 7, \"sql\": \" \"}\n", "fix.jsonl:1: question \"7\": missing or empty \"sql\""},
		{"duplicate", "{\"question_id\": 7, \"sql\": \"SELECT 1\"}\n{\"question_id\": \"7\", \"sql\": \"SELECT 2\"}\n", "fix.jsonl:2: question \"7\" corrected twice (first on line 1)"},
		{"empty file", "\n", "fix.jsonl: no corrections"},
		{"unknown id", "{\"question_id\": 8, \"sql\": \"SELECT 1\"}\n", "fix.jsonl:1: question \"8\" is not a question of demo"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseGoldOverlay("fix.jsonl", []byte(c.text))
			if err == nil {
				_, _, err = o.ApplyTo(b, false)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an error containing %q", err, c.want)
			}
		})
	}
	// A benchmark cut by a limit skips the ids beyond it, and counts them.
	o2, _ := ParseGoldOverlay("fix.jsonl", []byte("{\"question_id\": 7, \"sql\": \"SELECT 10\"}\n{\"question_id\": 8, \"sql\": \"SELECT 1\"}\n"))
	if _, n, err := o2.ApplyTo(b, true); err != nil || n != 1 {
		t.Errorf("got %d skipped, %v; want 1 and no error under a limit", n, err)
	}
	other := &Benchmark{Name: "demo", Split: "v2", Examples: []Example{{ID: "7", DBID: "e", GoldSQL: "SELECT 1"}, {ID: "x/2", DBID: "d"}}}
	if _, err := CheckSecondGold(b, other); err == nil || !strings.Contains(err.Error(), `question "7" is on database "d"`) {
		t.Errorf("got %v; want an error naming question 7's databases", err)
	}
}
