package metrics

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

func TestParseSQLLines(t *testing.T) {
	data := "SELECT 1\tdb_a\n\n  SELECT 2  \r\nSELECT 3\n"
	got, err := ParsePredictions("p.sql", []byte(data), FormatSQLLines)
	if err != nil {
		t.Fatal(err)
	}
	want := []Prediction{
		{Index: 0, SQL: "SELECT 1", DBID: "db_a", Line: 1},
		{Index: 1, SQL: "", Line: 2}, // a blank line is an empty prediction, not skipped
		{Index: 2, SQL: "SELECT 2", Line: 3},
		{Index: 3, SQL: "SELECT 3", Line: 4},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d predictions %+v; want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("prediction %d = %+v; want %+v", i, got[i], want[i])
		}
	}
}

func TestParseBIRDJSON(t *testing.T) {
	data := "{\n\"1\": \"SELECT b\\t----- bird -----\\tsuperhero\",\n\"0\": \"SELECT a\"\n}"
	got, err := ParsePredictions("p.json", []byte(data), FormatBIRDJSON)
	if err != nil {
		t.Fatal(err)
	}
	want := []Prediction{
		{Index: 0, SQL: "SELECT a", Line: 3}, // no separator: all SQL
		{Index: 1, SQL: "SELECT b", DBID: "superhero", Line: 2},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v; want %+v (sorted by index)", got, want)
	}
}

func TestParsePredictionErrors(t *testing.T) {
	cases := []struct {
		name   string
		format PredFormat
		data   string
		want   string
	}{
		{"bird non-numeric key", FormatBIRDJSON, "{\"a\": \"x\"}", `p:1: key "a" is not a question index`},
		{"bird duplicate key", FormatBIRDJSON, "{\"0\": \"x\",\n\"0\": \"y\"}", `p:2: duplicate key "0" (first at line 1)`},
		{"bird not an object or a list", FormatBIRDJSON, `"SELECT 1"`, "p:1: want a JSON object mapping question index to SQL, or a JSON list of SQL strings"},
		{"list element without sql", FormatBIRDJSON, "[\"SELECT 1\",\n {\"query\": \"SELECT 2\"}]", `p:2: element 1: missing field "sql"`},
		{"list trailing data", FormatBIRDJSON, `["SELECT 1"] x`, "p:1: "},
		{"bird truncated", FormatBIRDJSON, "{\"0\": \"x\",\n", "p:2: unexpected end"},
		{"bird trailing data", FormatBIRDJSON, "{}\n{}", "p:2: trailing data"},
		{"jsonl missing sql", FormatJSONL, "{\"question_id\": 1, \"sql\": \"a\"}\n{\"question_id\": 2}", `p:2: missing field "sql"`},
		{"jsonl bad question_id", FormatJSONL, "{\"question_id\": [1], \"sql\": \"a\"}", `p:1: field "question_id": want a string or an integer`},
		{"jsonl invalid JSON", FormatJSONL, "\n\n{oops}", "p:3: invalid JSON object"},
		{"jsonl duplicate id", FormatJSONL, "{\"question_id\": \"a\", \"sql\": \"x\"}\n{\"question_id\": \"a\", \"sql\": \"y\"}", `p:2: duplicate question_id "a" (first at line 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePredictions("p", []byte(c.data), c.format)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v; want it to contain %q", err, c.want)
			}
		})
	}
}

func miniBench(n int) *datasets.Benchmark {
	b := &datasets.Benchmark{Name: "fake", Mode: "bird"}
	for i := 0; i < n; i++ {
		b.Examples = append(b.Examples, datasets.Example{ID: string(rune('a' + i)), Index: i, DBID: "d"})
	}
	return b
}

func TestAlignPredictions(t *testing.T) {
	b := miniBench(3)
	lines := []Prediction{{Index: 0, SQL: "x", Line: 1}, {Index: 1, SQL: "y", Line: 2}}
	_, err := AlignPredictions("p.sql", b, lines, AlignOptions{})
	if err == nil || !strings.Contains(err.Error(), "2 predictions for 3 questions") {
		t.Fatalf("count mismatch error = %v; want one naming both counts", err)
	}
	a, err := AlignPredictions("p.sql", b, lines, AlignOptions{AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Preds) != 2 || a.Preds[1] != "y" || len(a.Unscored) != 1 || a.Unscored[0] != "c" {
		t.Fatalf("partial align = %+v; want 2 preds and unscored [c]", a)
	}
	four := append(lines, Prediction{Index: 2, SQL: "z", Line: 3}, Prediction{Index: 3, SQL: "w", Line: 4})
	if _, err := AlignPredictions("p.sql", b, four, AlignOptions{}); err == nil || !strings.Contains(err.Error(), "4 predictions for 3 questions") {
		t.Fatalf("too many predictions error = %v", err)
	}
	if a, err := AlignPredictions("p.sql", b, four, AlignOptions{DropExtra: true}); err != nil || len(a.Preds) != 3 {
		t.Fatalf("DropExtra: %+v, %v; want 3 preds", a, err)
	}
	byID := []Prediction{{Index: -1, QuestionID: "b", SQL: "q", DBID: "other", Line: 1}, {Index: -1, QuestionID: "zz", Line: 2}}
	if _, err := AlignPredictions("p.jsonl", b, byID, AlignOptions{AllowPartial: true}); err == nil || !strings.Contains(err.Error(), `p.jsonl:2: question_id "zz" is not in benchmark`) {
		t.Fatalf("unknown id error = %v", err)
	}
	var dbErr *DBMismatchError
	if _, err := AlignPredictions("p.jsonl", b, byID[:1], AlignOptions{AllowPartial: true}); !errors.As(err, &dbErr) {
		t.Fatalf("jsonl align with another db_id: %v; want a *DBMismatchError", err)
	}
	a, err = AlignPredictions("p.jsonl", b, byID[:1], AlignOptions{AllowPartial: true, AllowDBMismatch: true})
	if err != nil || a.Preds[1] != "q" || len(a.Warnings) != 2 || len(a.DBMismatches) != 1 {
		t.Fatalf("jsonl align = %+v, %v; want pred for index 1, a db mismatch and its two warnings", a, err)
	}
}

// TestAlignDBMismatch: in every format that gives a database id per
// prediction, an id other than the question's refuses the file, naming
// file:line, the question's database and the file's, and how many in all;
// with AllowDBMismatch the file is scored and the mismatches are listed.
// The benchmark has questions a, b on database d1 and c, d on d2; each
// file answers them with one line missing or one id wrong.
func TestAlignDBMismatch(t *testing.T) {
	b := &datasets.Benchmark{Name: "fake", Mode: "bird"}
	for i, db := range []string{"d1", "d1", "d2", "d2"} {
		b.Examples = append(b.Examples, datasets.Example{ID: string(rune('a' + i)), Index: i, DBID: db})
	}
	tests := []struct {
		name, file, data string
		format           PredFormat
		want             []DBMismatch
		shifted          bool // a line is missing: the counts differ
	}{
		{"sql-lines, second line dropped", "p.sql", "SELECT 1\td1\nSELECT 3\td2\nSELECT 4\td2\n", FormatSQLLines,
			[]DBMismatch{{Line: 2, QuestionID: "b", Want: "d1", Got: "d2"}}, true},
		{"sql-lines with a type column", "p.sql", "SELECT 1\td1\t1\nSELECT 2\td1\t1\nSELECT 3\td1\t1\nSELECT 4\td2\t1\n", FormatSQLLines,
			[]DBMismatch{{Line: 3, QuestionID: "c", Want: "d2", Got: "d1"}}, false},
		{"bird-json", "p.json", "{\"0\": \"SELECT 1\\t----- bird -----\\td1\",\n \"1\": \"SELECT 2\\t----- bird -----\\td2\",\n \"2\": \"SELECT 3\\t----- bird -----\\td2\",\n \"3\": \"SELECT 4\\t----- bird -----\\td9\"}", FormatBIRDJSON,
			[]DBMismatch{{Line: 2, QuestionID: "b", Want: "d1", Got: "d2"}, {Line: 4, QuestionID: "d", Want: "d2", Got: "d9"}}, false},
		{"jsonl", "p.jsonl", "{\"question_id\": \"a\", \"sql\": \"SELECT 1\", \"db_id\": \"d1\"}\n{\"question_id\": \"c\", \"sql\": \"SELECT 3\", \"db_id\": \"d1\"}\n{\"question_id\": \"b\", \"sql\": \"SELECT 2\"}\n{\"question_id\": \"d\", \"sql\": \"SELECT 4\", \"db_id\": \"d2\"}\n", FormatJSONL,
			[]DBMismatch{{Line: 2, QuestionID: "c", Want: "d2", Got: "d1"}}, false},
		{"csv by position", "p.csv", "sql,db_id\nSELECT 1,d1\nSELECT 2,d1\nSELECT 3,d2\nSELECT 4,d1\n", FormatCSV,
			[]DBMismatch{{Line: 5, QuestionID: "d", Want: "d2", Got: "d1"}}, false},
		{"csv by question id", "p.csv", "question_id,sql,db_id\nb,SELECT 2,d2\na,SELECT 1,d1\nc,SELECT 3,d2\nd,SELECT 4,d2\n", FormatCSV,
			[]DBMismatch{{Line: 2, QuestionID: "b", Want: "d1", Got: "d2"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParsePredictions(tt.file, []byte(tt.data), tt.format)
			if err != nil {
				t.Fatal(err)
			}
			_, err = AlignPredictions(tt.file, b, ps, AlignOptions{AllowPartial: true})
			var de *DBMismatchError
			if !errors.As(err, &de) {
				t.Fatalf("AlignPredictions: %v; want a *DBMismatchError", err)
			}
			if !reflect.DeepEqual(de.Mismatches, tt.want) {
				t.Errorf("mismatches %+v; want %+v", de.Mismatches, tt.want)
			}
			msg := err.Error()
			first := tt.want[0]
			for _, w := range []string{
				fmt.Sprintf("%s: %d of %d predictions name a database other than their question's", tt.file, len(tt.want), len(ps)),
				fmt.Sprintf("%s:%d: question %s is on database %q; the prediction names %q", tt.file, first.Line, first.QuestionID, first.Want, first.Got),
				"pass --allow-db-mismatch",
			} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if got := strings.Contains(msg, "the file has 3 predictions for the 4 questions of fake"); got != tt.shifted {
				t.Errorf("error %q names the counts: %v; want %v", msg, got, tt.shifted)
			}
			a, err := AlignPredictions(tt.file, b, ps, AlignOptions{AllowPartial: true, AllowDBMismatch: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.DBMismatches, tt.want) || len(a.Warnings) != 1+len(tt.want) ||
				!strings.Contains(a.Warnings[0], fmt.Sprintf("%d of %d predictions name a database other than their question's", len(tt.want), len(ps))) {
				t.Errorf("allowed: mismatches %+v, warnings %q; want %+v and a summary warning first", a.DBMismatches, a.Warnings, tt.want)
			}
		})
	}
	// A file with more mismatches than the error names says how many more.
	var many []Prediction
	for i := range b.Examples {
		many = append(many, Prediction{Index: i, SQL: "SELECT 1", DBID: "x", Line: i + 1})
	}
	big := &datasets.Benchmark{Name: "fake"}
	for i := 0; i < 8; i++ {
		big.Examples = append(big.Examples, datasets.Example{ID: fmt.Sprint(i), Index: i, DBID: "d"})
		if i >= len(many) {
			many = append(many, Prediction{Index: i, SQL: "SELECT 1", DBID: "x", Line: i + 1})
		}
	}
	_, err := AlignPredictions("p.sql", big, many, AlignOptions{})
	if err == nil || !strings.Contains(err.Error(), "8 of 8 predictions") || !strings.Contains(err.Error(), "... and 3 more") || strings.Contains(err.Error(), "p.sql:6:") {
		t.Errorf("8 mismatches: error %v; want the first 5 named and \"... and 3 more\"", err)
	}
}

func FuzzParseSQLLines(f *testing.F) {
	f.Add([]byte("SELECT 1\tdb\n\nSELECT 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePredictions("f", data, FormatSQLLines)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			if p.Index != i || p.Line != i+1 || strings.Contains(p.SQL, "\t") {
				t.Fatalf("prediction %d = %+v", i, p)
			}
		}
	})
}

func FuzzParseBIRDJSON(f *testing.F) {
	f.Add([]byte("{\"0\": \"SELECT 1\\t----- bird -----\\tdb\", \"1\": \"x\"}"))
	f.Add([]byte("{\"0\": 1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePredictions("f", data, FormatBIRDJSON)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].Index <= ps[i-1].Index {
				t.Fatalf("indices not strictly increasing: %+v", ps)
			}
		}
	})
}

func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte("{\"question_id\": 3, \"sql\": \"SELECT 1\"}\n{\"question_id\": \"x\", \"sql\": \"\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePredictions("f", data, FormatJSONL)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if p.QuestionID == "" || seen[p.QuestionID] || p.Index != -1 {
				t.Fatalf("bad prediction %+v", p)
			}
			seen[p.QuestionID] = true
		}
	})
}

// TestNonStringPredictions checks that every JSON reader turns a value that
// is not a string into a prediction marked Invalid, never a refused file.
// The bird-json case copies the shape of BIRD's own ChatGPT prediction
// files (DAMO-ConvAI bird/llm/exp_result/turbo_output/predict_dev.json),
// which hold the number 0 for questions where the model call failed.
func TestNonStringPredictions(t *testing.T) {
	cases := []struct {
		name    string
		format  PredFormat
		data    string
		want    []Prediction
		invalid []string // expected start of each Invalid, "" for valid
	}{
		{"bird-json: number, null, list, object, boolean", FormatBIRDJSON,
			"{\"0\": \"SELECT 1\\t----- bird -----\\tfinancial\",\n\"1\": 0,\n\"2\": null,\n\"3\": [\"SELECT 1\"],\n\"4\": {\"sql\": \"x\"},\n\"5\": true\n}",
			[]Prediction{
				{Index: 0, SQL: "SELECT 1", DBID: "financial", Line: 1},
				{Index: 1, Line: 2}, {Index: 2, Line: 3}, {Index: 3, Line: 4}, {Index: 4, Line: 5}, {Index: 5, Line: 6},
			},
			[]string{"", "prediction is a number (0)", "prediction is null (null)", `prediction is a list (["SELECT 1"])`, `prediction is an object ({"sql": "x"})`, "prediction is a boolean (true)"}},
		{"jsonl: number, null, list, object", FormatJSONL,
			"{\"question_id\": 1, \"sql\": \"SELECT 1\"}\n{\"question_id\": 2, \"sql\": 7.5}\n{\"question_id\": 3, \"sql\": null}\n{\"question_id\": 4, \"sql\": [1]}\n{\"question_id\": 5, \"sql\": {}}\n",
			[]Prediction{
				{Index: -1, QuestionID: "1", SQL: "SELECT 1", Line: 1},
				{Index: -1, QuestionID: "2", Line: 2}, {Index: -1, QuestionID: "3", Line: 3}, {Index: -1, QuestionID: "4", Line: 4}, {Index: -1, QuestionID: "5", Line: 5},
			},
			[]string{"", "prediction is a number (7.5)", "prediction is null", "prediction is a list ([1])", "prediction is an object ({})"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePredictions("p", []byte(c.data), c.format)
			if err != nil {
				t.Fatalf("ParsePredictions: %v; want the file read", err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d predictions %+v; want %d", len(got), got, len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				inv := g.Invalid
				g.Invalid = ""
				if g != w {
					t.Errorf("prediction %d = %+v; want %+v", i, g, w)
				}
				if (c.invalid[i] == "") != (inv == "") || !strings.HasPrefix(inv, c.invalid[i]) {
					t.Errorf("prediction %d Invalid = %q; want it to start with %q", i, inv, c.invalid[i])
				}
			}
		})
	}
	// A missing "sql" field is still a malformed line, not a prediction.
	if _, err := ParsePredictions("p", []byte(`{"question_id": 1}`), FormatJSONL); err == nil || !strings.Contains(err.Error(), `missing field "sql"`) {
		t.Errorf("missing sql: error %v; want missing field", err)
	}
}

// TestScoreInvalidPrediction scores a file with a non-string value: that
// question is pred_error with the reason, the others are scored normally,
// and a failing gold still gives gold_error.
func TestScoreInvalidPrediction(t *testing.T) {
	b := fixtureBench(t)
	data := "{\"0\": \"SELECT name, age FROM singer WHERE country = 'France'\", \"1\": 0, \"2\": null, \"3\": \"SELECT DISTINCT country FROM singer\", \"4\": \"SELECT 1\", \"5\": [], \"6\": \"SELECT 1\"}"
	ps, err := ParsePredictions("p.json", []byte(data), FormatBIRDJSON)
	if err != nil {
		t.Fatal(err)
	}
	a, err := AlignPredictions("p.json", b, ps, AlignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Invalid) != 3 || len(a.Warnings) != 3 {
		t.Fatalf("aligned invalid %v warnings %q; want 3 of each", a.Invalid, a.Warnings)
	}
	s, err := NewScorer(b, nil, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.ScoreAligned(context.Background(), a, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status  Status
		correct bool
		err     string
	}{
		{StatusOK, true, ""},
		{StatusPredError, false, "prediction is a number (0), not a SQL string"},
		{StatusPredError, false, "prediction is null"},
		{StatusOK, true, ""},
		{StatusMissingDB, false, "absent"},
		{StatusGoldError, false, "nope"}, // the gold fails: gold_error whatever the prediction
		{StatusGoldError, false, "UTF-8"},
	}
	for i, w := range want {
		v := vs[i]
		if v.Status != w.status || v.Correct != w.correct || !strings.Contains(v.Error, w.err) {
			t.Errorf("question %d: %+v; want %s correct %v error containing %q", i, v, w.status, w.correct, w.err)
		}
	}
}

// TestTabWarning checks that a TAB inside a predicted SQL line is reported
// as such, not as a database name.
func TestTabWarning(t *testing.T) {
	b := miniBench(2)
	ps, err := ParsePredictions("p.sql", []byte("SELECT name\tFROM singer WHERE code = 1\nSELECT 1\td\tsimple\n"), FormatSQLLines)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].SQL != "SELECT name" || ps[0].DBID != "" || ps[0].TabCut != "FROM singer WHERE code = 1" {
		t.Errorf("line 1 = %+v; want SQL cut at the TAB, no db id, TabCut the rest", ps[0])
	}
	if ps[1].DBID != "d" || ps[1].TabCut != "" {
		t.Errorf("line 2 = %+v; want db id d (SQL<TAB>db_id<TAB>type is the gold-file layout)", ps[1])
	}
	one, err := ParsePredictions("p.sql", []byte("SELECT *\tFROM\tt\n"), FormatSQLLines)
	if err != nil || one[0].DBID != "" || one[0].TabCut != "FROM\tt" {
		t.Errorf("keyword after a TAB = %+v, %v; want TabCut \"FROM\\tt\", no db id", one, err)
	}
	a, err := AlignPredictions("p.sql", b, ps, AlignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "p.sql:1: question a: the prediction holds a TAB") ||
		!strings.Contains(a.Warnings[0], `"FROM singer WHERE code = 1" is ignored`) || strings.Contains(a.Warnings[0], "names database") {
		t.Errorf("warnings %q; want one saying a TAB cut the SQL", a.Warnings)
	}
}
