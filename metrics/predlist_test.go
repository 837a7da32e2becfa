package metrics

import (
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestJSONListPredictions: a .json prediction file that is a JSON list is
// read by position, element i answering question i (BIRD's separator and
// db_id allowed in a string, "sql" and "db_id" in an object), an object
// with question_id by id, and a non-string element is a pred_error like
// any other format's.
func TestJSONListPredictions(t *testing.T) {
	t.Parallel()
	data := "[\"SELECT a\",\n \"SELECT b\\t----- bird -----\\td2\",\n {\"sql\": \"SELECT c\", \"db_id\": \"d3\"},\n null,\n {\"question_id\": \"e\", \"sql\": \"SELECT e\"}]"
	got, err := ParsePredictions("p.json", []byte(data), FormatForPath("p.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Prediction{
		{Index: 0, SQL: "SELECT a", Line: 1},
		{Index: 1, SQL: "SELECT b", DBID: "d2", Line: 2},
		{Index: 2, SQL: "SELECT c", DBID: "d3", Line: 3},
		{Index: 3, Line: 4, Invalid: "prediction is null (null), not a SQL string"},
		{Index: -1, QuestionID: "e", SQL: "SELECT e", Line: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d predictions %+v; want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("prediction %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	// Aligned with a benchmark, element i answers question i.
	b := &datasets.Benchmark{Name: "fake", Mode: "bird"}
	for i, db := range []string{"d1", "d2", "d3", "d4", "d5"} {
		b.Examples = append(b.Examples, datasets.Example{ID: string(rune('a' + i)), Index: i, DBID: db})
	}
	a, err := AlignPredictions("p.json", b, got, AlignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for idx, sql := range map[int]string{0: "SELECT a", 1: "SELECT b", 2: "SELECT c", 4: "SELECT e"} {
		if a.Preds[idx] != sql {
			t.Errorf("question %d: prediction %q; want %q", idx, a.Preds[idx], sql)
		}
	}
	if a.Invalid[3] == "" {
		t.Errorf("question 3 (null): no invalid reason; want pred_error")
	}
}

// TestAlignMessagesSayWhatToDo: the alignment errors name the way out:
// a file answering the first N questions says --limit N; a question id
// the benchmark does not hold shows the form of its ids (its first
// question's); a file none of whose predictions is among the questions
// --limit kept says so rather than "fewer predictions".
func TestAlignMessagesSayWhatToDo(t *testing.T) {
	t.Parallel()
	b := &datasets.Benchmark{Name: "logiccat", Mode: "logiccat"}
	for i, id := range []string{"AirCraft/1", "AirCraft/2", "Bank/1", "Bank/2"} {
		b.Examples = append(b.Examples, datasets.Example{ID: id, Index: i, DBID: strings.Split(id, "/")[0]})
	}
	pos := func(idx ...int) []Prediction {
		var ps []Prediction
		for _, i := range idx {
			ps = append(ps, Prediction{Index: i, SQL: "SELECT 1", Line: i + 1})
		}
		return ps
	}
	ids := func(qids ...string) []Prediction {
		var ps []Prediction
		for i, q := range qids {
			ps = append(ps, Prediction{Index: -1, QuestionID: q, SQL: "SELECT 1", Line: i + 1})
		}
		return ps
	}
	tests := []struct {
		name  string
		preds []Prediction
		opt   AlignOptions
		want  []string
	}{
		{"first two by position", pos(0, 1), AlignOptions{}, []string{"2 predictions for 4 questions", "they answer the first 2 questions", "pass --limit 2", "pass --allow-partial"}},
		{"first two by id", ids("AirCraft/1", "AirCraft/2"), AlignOptions{}, []string{"pass --limit 2", "pass --allow-partial"}},
		{"a gap", pos(0, 2), AlignOptions{}, []string{"fewer predictions than questions", "pass --allow-partial (or --limit N when the file answers the first N questions)"}},
		{"numeric id", ids("0", "1", "2", "3"), AlignOptions{}, []string{`p:1: question_id "0" is not in benchmark logiccat (4 questions), whose question ids look like "AirCraft/1" (its first question's)`}},
		{"numeric ids under --limit", ids("0", "1", "2", "3"), AlignOptions{DropExtra: true}, []string{"none of the file's 4 predictions answers one of the 4 questions", `line 1 gives question_id "0"`, `whose question ids look like "AirCraft/1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AlignPredictions("p", b, tt.preds, tt.opt)
			if err == nil {
				t.Fatalf("got no error; want one containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q; want it to contain %q", err, w)
				}
			}
		})
	}
}
