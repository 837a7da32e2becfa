package verdictfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
)

// TestWriteDecode: a written file starts each line with its benchmark and
// reads back the verdicts, their status, database and Soft F1.
func TestWriteDecode(t *testing.T) {
	f1 := 0.5
	type extended struct {
		metrics.Verdict
		PredSQL string `json:"pred_sql"`
	}
	vs := []extended{
		{Verdict: metrics.Verdict{QuestionID: "q1", DBID: "db", Correct: true, Status: metrics.StatusOK, SoftF1: &f1}, PredSQL: "SELECT 1"},
		{Verdict: metrics.Verdict{QuestionID: "q2", DBID: "db", Status: metrics.StatusGoldError}},
	}
	path := filepath.Join(t.TempDir(), "v.jsonl")
	if err := Write(path, "bird-minidev", vs); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, `{"benchmark":"bird-minidev",`) {
			t.Errorf("line %s does not start with its benchmark", l)
		}
	}
	got, err := Decode(strings.NewReader(string(data)), path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Benchmark != "bird-minidev" || len(got.Verdicts) != 2 {
		t.Fatalf("Decode = %+v; want 2 verdicts of bird-minidev", got)
	}
	a, b := got.Verdicts[0], got.Verdicts[1]
	if a.QuestionID != "q1" || !a.Correct || a.DBID != "db" || a.SoftF1 == nil || *a.SoftF1 != 0.5 || a.RVESReward != nil {
		t.Errorf("first verdict %+v; want q1 correct on db with Soft F1 0.5", a)
	}
	if b.QuestionID != "q2" || b.Correct || b.Status != metrics.StatusGoldError || b.SoftF1 != nil {
		t.Errorf("second verdict %+v; want q2 wrong, gold_error", b)
	}
}

// TestDecodeErrors: each malformed file is refused at its line.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"question_id":"a","correct":true}` + "\n" + `{"correct":true}`, `v.jsonl:2: missing "question_id"`},
		{`{"question_id":"a"}`, `v.jsonl:1: missing "correct"`},
		{`{"question_id":"a","correct":true}` + "\n\n" + `{"question_id":"a","correct":false}`, `v.jsonl:3: question "a" repeated (first on line 1)`},
		{`{"benchmark":"spider","question_id":"a","correct":true}` + "\n" + `{"benchmark":"bird","question_id":"b","correct":true}`, `v.jsonl:2: verdict of benchmark "bird" in a file of benchmark "spider"`},
		{`[1]`, `v.jsonl:1: not a verdict line (want {"question_id": "...", "correct": true|false, ...}, as eval --out writes): `},
		{"\n\n", `v.jsonl: no verdicts`},
	} {
		_, err := Decode(strings.NewReader(tc.in), "v.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Decode(%q) = %v; want an error starting %q", tc.in, err, tc.want)
		}
	}
}
