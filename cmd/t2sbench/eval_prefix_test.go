package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/verdictfile"
)

// TestEvalResponsePrefixMini scores hand-written completion-style answers
// to the first eight mini questions, as a model continues a prompt that
// ended with "SELECT": six continue the statement (" COUNT(*) FROM ...",
// one after a markdown escape, some followed by prose or template debris),
// two answer with a statement of their own (one bare, one fenced), and
// the continuation of question 7 is a wrong answer (yearly, not monthly,
// salary). Read as they are, the continuations hold no SQL (or a
// subquery); with
// --response-prefix SELECT they score as the queries they complete.
func TestEvalResponsePrefixMini(t *testing.T) {
	evalEnv(t)
	responses := filepath.Join("testdata", "completion_responses.jsonl")
	preds := filepath.Join("testdata", "completion_preds.sql")
	tests := []struct {
		name    string
		args    []string
		correct int
		reasons map[sqltext.Reason]int
		primed  int
	}{
		// Read as they are, five continuations hold no SQL and that of
		// question 6 only its subquery, a wrong answer.
		{"responses without the prefix", []string{"--pred", responses, "--response-field", "response"}, 2,
			map[sqltext.Reason]int{sqltext.ReasonNone: 5, sqltext.ReasonSingle: 3}, 0},
		{"responses with --response-prefix SELECT", []string{"--pred", responses, "--response-field", "response", "--response-prefix", "SELECT"}, 7,
			map[sqltext.Reason]int{sqltext.ReasonContinuation: 6, sqltext.ReasonSingle: 2}, 0},
		{"sql-lines without the prefix", []string{"--pred", preds}, 2, nil, 0},
		{"sql-lines with --response-prefix SELECT", []string{"--pred", preds, "--response-prefix", "SELECT"}, 7, nil, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--benchmark", "mini", "--allow-partial", "--json", "--quiet", "--cache-dir", "off"}, tt.args...)
			stdout, _, err := runEvalCLI(t, args...)
			if code := exitCode(err); code != exitIncomplete {
				t.Fatalf("exit code %d (%v); want %d (8 of 42 questions answered)", code, err, exitIncomplete)
			}
			var rep evalReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
			}
			if rep.Overall.Total != 8 || rep.Overall.Correct != tt.correct || rep.Primed != tt.primed {
				t.Errorf("got %d scored, %d correct, %d primed; want 8, %d, %d", rep.Overall.Total, rep.Overall.Correct, rep.Primed, tt.correct, tt.primed)
			}
			if len(rep.ExtractionReasons) != len(tt.reasons) {
				t.Errorf("got extraction reasons %v; want %v", rep.ExtractionReasons, tt.reasons)
			}
			for why, n := range tt.reasons {
				if rep.ExtractionReasons[why] != n {
					t.Errorf("got extraction reasons %v; want %v", rep.ExtractionReasons, tt.reasons)
					break
				}
			}
		})
	}

	// The verdicts carry the completed SQL and the reason; the text
	// summary counts the reasons.
	outFile := filepath.Join(t.TempDir(), "verdicts.jsonl")
	stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", responses, "--response-field", "response", "--response-prefix", "SELECT",
		"--allow-partial", "--quiet", "--cache-dir", "off", "--out", outFile)
	if exitCode(err) != exitIncomplete || !strings.Contains(stdout, "extraction reasons: continuation 6 single 2\n") {
		t.Errorf("text output lacks the extraction reasons (err %v):\n%s", err, stdout)
	}
	f, err := os.Open(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := map[string]verdictfile.Response{
		"1": {PredSQL: "SELECT title FROM course WHERE instructor_id IS NULL", Extraction: sqltext.StyleContinuation, ExtractionReason: sqltext.ReasonContinuation},
		"6": {PredSQL: "SELECT name FROM instructor WHERE hire_date < '2015-01-01' AND salary > (SELECT AVG(salary) FROM instructor)", Extraction: sqltext.StyleContinuation, ExtractionReason: sqltext.ReasonContinuation},
		"5": {PredSQL: "SELECT s.name FROM student AS s JOIN enrollment AS e ON s.student_id = e.student_id GROUP BY s.student_id, s.name HAVING COUNT(DISTINCT e.course_id) >= 4", Extraction: sqltext.StyleFence, ExtractionReason: sqltext.ReasonSingle},
	}
	for sc.Scan() {
		var v verdictfile.Response
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("verdict %s: %v", sc.Text(), err)
		}
		w, ok := want[v.QuestionID]
		if !ok {
			continue
		}
		delete(want, v.QuestionID)
		if v.PredSQL != w.PredSQL || v.Extraction != w.Extraction || v.ExtractionReason != w.ExtractionReason || !v.Correct {
			t.Errorf("question %s: got %s; want a correct pred_sql %q, extraction %s, reason %s", v.QuestionID, sc.Text(), w.PredSQL, w.Extraction, w.ExtractionReason)
		}
	}
	if len(want) > 0 {
		t.Errorf("verdicts missing for questions %v", want)
	}
}

// TestEvalResponsePrefixRecord checks that a jsonl record's own
// response_prefix field primes its prediction without the flag, and that
// an empty one turns the flag off for its record.
func TestEvalResponsePrefixRecord(t *testing.T) {
	evalEnv(t)
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.jsonl")
	os.WriteFile(pred, []byte(`{"question_id": 0, "sql": "COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'", "response_prefix": "SELECT"}
{"question_id": 1, "sql": "title FROM course WHERE instructor_id IS NULL", "response_prefix": ""}
`), 0o644)
	for _, tt := range []struct {
		name            string
		flag            []string
		correct, primed int
	}{
		{"record prefix only", nil, 1, 1},
		{"flag, overridden by the empty record prefix", []string{"--response-prefix", "SELECT"}, 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--benchmark", "mini", "--pred", pred, "--allow-partial", "--json", "--quiet", "--cache-dir", "off"}, tt.flag...)
			stdout, _, err := runEvalCLI(t, args...)
			if exitCode(err) != exitIncomplete {
				t.Fatalf("eval: %v; want exit %d", err, exitIncomplete)
			}
			var rep evalReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
			}
			if rep.Overall.Correct != tt.correct || rep.Primed != tt.primed {
				t.Errorf("got %d correct, %d primed; want %d, %d", rep.Overall.Correct, rep.Primed, tt.correct, tt.primed)
			}
		})
	}
	if _, _, err := runEvalCLI(t, "--benchmark", "mini", "--gold-as-pred", "--response-prefix", "SELECT"); !errors.Is(err, errUsage) {
		t.Errorf("--gold-as-pred with --response-prefix: error %v; want a usage error", err)
	}
}
