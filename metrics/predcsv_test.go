package metrics

import (
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	cases := []struct {
		name           string
		data           string
		column, header string
		want           []Prediction
	}{
		{
			name: "header with question_id, quoted comma and doubled quote",
			data: "question_id,db_id,SQL\n7,concert_singer,\"SELECT name, age FROM singer WHERE name = \"\"Joe\"\"\"\n8,pets_1,SELECT 1\n",
			want: []Prediction{
				{Index: -1, QuestionID: "7", DBID: "concert_singer", SQL: `SELECT name, age FROM singer WHERE name = "Joe"`, Line: 2},
				{Index: -1, QuestionID: "8", DBID: "pets_1", SQL: "SELECT 1", Line: 3},
			},
		},
		{
			name: "multi-line SQL keeps its newlines and the next row's line",
			data: "predicted_sql\n\"SELECT a\nFROM t\nWHERE b = 1\"\nSELECT 2\n",
			want: []Prediction{
				{Index: 0, SQL: "SELECT a\nFROM t\nWHERE b = 1", Line: 2},
				{Index: 1, SQL: "SELECT 2", Line: 5},
			},
		},
		{
			name: "no header: column 1 by position",
			data: "SELECT 1\n\"SELECT a, b FROM t\"\n",
			want: []Prediction{{Index: 0, SQL: "SELECT 1", Line: 1}, {Index: 1, SQL: "SELECT a, b FROM t", Line: 2}},
		},
		{
			name: "no header, column by number", column: "2",
			data: "0,SELECT 1\n1,SELECT 2\n",
			want: []Prediction{{Index: 0, SQL: "SELECT 1", Line: 1}, {Index: 1, SQL: "SELECT 2", Line: 2}},
		},
		{
			name: "named column (DIN-SQL style)", column: "PREDICTED SQL",
			data: "\ufeffNLQ,PREDICTED SQL,GOLD SQL\nhow many?,SELECT count(*) FROM t,SELECT count(*) FROM t\n",
			want: []Prediction{{Index: 0, SQL: "SELECT count(*) FROM t", Line: 2}},
		},
		{
			name: "header forced on, column by number", column: "1", header: "yes",
			data: "whatever\nSELECT 1\n",
			want: []Prediction{{Index: 0, SQL: "SELECT 1", Line: 2}},
		},
		{
			name: "header forced off: a row that reads like a header is a prediction", header: "no",
			data: "sql\nSELECT 1\n",
			want: []Prediction{{Index: 0, SQL: "sql", Line: 1}, {Index: 1, SQL: "SELECT 1", Line: 2}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePredictionsWith("p.csv", []byte(tc.data), FormatCSV, ReadOptions{Column: tc.column, Header: tc.header})
			if err != nil {
				t.Fatalf("got error %v; want %d predictions", err, len(tc.want))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d predictions %+v; want %d", len(got), got, len(tc.want))
			}
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("prediction %d = %+v; want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestParseCSVErrors(t *testing.T) {
	cases := []struct {
		name, data, column, header, want string
	}{
		{"named column missing", "id,sql\n1,SELECT 1\n", "pred", "", `p.csv:1: no column "pred" in the header (columns: id, sql)`},
		{"no SQL column in header", "question_id,answer\n1,SELECT 1\n", "", "", `p.csv:1: no SQL column in the header (columns: question_id, answer`},
		{"numbered column missing in a row", "0,SELECT 1\n1\n", "2", "", "p.csv:2: the row has 1 columns; the SQL column (column 2) is missing"},
		{"unterminated quote", "sql\n\"SELECT 1\nSELECT 2\n", "", "", "p.csv:2: invalid CSV"},
		{"stray quote", "sql\nSELECT \"a\" b\"\n", "", "", "p.csv:2: invalid CSV"},
		{"duplicate question_id", "question_id,sql\n1,a\n1,b\n", "", "", `p.csv:3: duplicate question_id "1" (first at line 2)`},
		{"empty question_id", "question_id,sql\n,a\n", "", "", `p.csv:2: column "question_id" (column 1) is missing or empty`},
		{"name without header", "a,b\n", "sql", "no", `column "sql" is a name, but the file is read without a header`},
		{"column zero", "a\n", "0", "", "columns are numbered from 1"},
		{"bad header option", "a\n", "", "maybe", `csv header option "maybe"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePredictionsWith("p.csv", []byte(tc.data), FormatCSV, ReadOptions{Column: tc.column, Header: tc.header})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v; want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := ParsePredictionsWith("p.jsonl", []byte("{}"), FormatJSONL, ReadOptions{Column: "sql"}); err == nil || !strings.Contains(err.Error(), "needs the csv format") {
		t.Errorf("jsonl with a column option: got %v; want an error saying it needs csv", err)
	}
	if f := FormatForPath("din-sql.CSV"); f != FormatCSV {
		t.Errorf("FormatForPath(din-sql.CSV) = %q; want csv", f)
	}
}

// TestAlignCountMessages: the count errors say which way the file is off
// and what to do, in the CLI's words (no Go field names).
func TestAlignCountMessages(t *testing.T) {
	b := miniBench(3)
	var four, two []Prediction
	for i := 0; i < 4; i++ {
		four = append(four, Prediction{Index: i, SQL: "x", Line: i + 1})
	}
	two = four[:2]
	for _, tc := range []struct {
		name  string
		preds []Prediction
		want  []string
	}{
		{"too many", four, []string{"p.sql: 4 predictions for 3 questions", "more predictions than questions", "line 4 is the first past the last question"}},
		{"too few", two, []string{"p.sql: 2 predictions for 3 questions", "fewer predictions than questions", "pass --allow-partial"}},
	} {
		_, err := AlignPredictions("p.sql", b, tc.preds, AlignOptions{})
		if err == nil {
			t.Errorf("%s: no error; want a count error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "AllowPartial") || (tc.name == "too many" && strings.Contains(err.Error(), "allow-partial")) {
			t.Errorf("%s: error %q names a Go field or a flag that does not help", tc.name, err)
		}
	}
}
