package baseline

import (
	"context"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestSingleRecordsExtraction: direct and cot record how their SQL was
// found in the response, as real models write it; an answer they do not
// use (none found, or cut inside its SQL) records none.
func TestSingleRecordsExtraction(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	tests := []struct {
		name string
		s    sample
		want sqltext.Reason
	}{
		{"one fence after thinking", sample{Text: "<think>\nMaybe count all students.\n</think>\nThe query:\n```sql\n" + runkit.MiniQ0Gold + "\n```"}, sqltext.ReasonSingle},
		{"a correction", sample{Text: "```sql\n" + miniQ0Wrong + "\n```\nWait, that counts every major. Corrected query:\n```sql\n" + runkit.MiniQ0Gold + "\n```"}, sqltext.ReasonLastCorrection},
		{"alternatives", sample{Text: "```sql\n" + runkit.MiniQ0Gold + "\n```\nAlternatively, you can write it as:\n```sql\n" + miniQ0Wrong + "\n```"}, sqltext.ReasonFirstOfAlternatives},
		{"a final marker", sample{Text: "Draft:\n```sql\n" + miniQ0Wrong + "\n```\nFinal SQL:\n```sql\n" + runkit.MiniQ0Gold + "\n```\nThis joins on major_dept."}, sqltext.ReasonFinalMarker},
		{"prose only", sample{Text: "I cannot tell which department is meant."}, sqltext.ReasonNone},
		{"cut inside the sql", sample{Text: "```sql\nSELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Comp", Finish: llm.FinishLength}, sqltext.ReasonNone},
	}
	for _, name := range []string{"direct", "cot"} {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				r, err := runners.New(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := r.Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: samplesLLM([]sample{tt.s})})
				if err != nil {
					t.Fatal(err)
				}
				if res.Extraction != tt.want {
					t.Errorf("got extraction %q (SQL %q); want %q", res.Extraction, res.SQL, tt.want)
				}
			})
		}
	}
}

// TestSCRecordsExtraction: self-consistency records the reason of the
// sample its voted SQL first came from, not that of another sample.
func TestSCRecordsExtraction(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	tests := []struct {
		name    string
		samples []sample
		wantSQL string
		want    sqltext.Reason
	}{
		// The gold wins 2 to 1; its first sample chose it among
		// alternatives, the second held it alone.
		{"winner's first sample", []sample{
			{Text: "```sql\n" + miniQ0Wrong + "\n```"},
			{Text: "```sql\n" + runkit.MiniQ0Gold + "\n```\nAlternatively:\n```sql\n" + miniQ0Wrong + "\n```"},
			{Text: "Final SQL: " + runkit.MiniQ0Gold},
		}, runkit.MiniQ0Gold, sqltext.ReasonFirstOfAlternatives},
		{"no sample with SQL", []sample{{Text: "No idea."}, {Text: "The answer is four."}}, "", sqltext.ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSC(t, db, tt.samples)
			if res.SQL != tt.wantSQL || res.Extraction != tt.want {
				t.Errorf("got SQL %q extraction %q; want %q, %q", res.SQL, res.Extraction, tt.wantSQL, tt.want)
			}
		})
	}
}
