package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestEvalResponseFieldMini scores testdata/raw_responses.jsonl, twelve
// hand-written raw responses to the first twelve mini questions in the
// styles real models answer in, end to end: the SQL is extracted from each
// response, the verdicts carry it with its style, and the two responses
// without SQL are pred_error "no SQL in response", not a refused file.
func TestEvalResponseFieldMini(t *testing.T) {
	b := evalEnv(t)
	outFile := filepath.Join(t.TempDir(), "verdicts.jsonl")
	stdout, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", filepath.Join("testdata", "raw_responses.jsonl"), "--response-field", "response",
		"--allow-partial", "--json", "--quiet", "--cache-dir", "off", "--out", outFile)
	// Twelve responses for 42 questions: scored with --allow-partial, and
	// the command reports the run as incomplete (exit 3).
	if code := exitCode(err); code != exitIncomplete {
		t.Fatalf("exit code %d (%v); want %d (incomplete: 30 questions without a prediction)", code, err, exitIncomplete)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
	}
	// The fixture's responses 0-7 and 10 hold the gold SQL of their
	// question, 9 a runnable wrong query, 8 a refusal, 11 null.
	if rep.Overall.Total != 12 || rep.Overall.Correct != 9 || rep.Status[metrics.StatusPredError] != 2 || rep.Status[metrics.StatusOK] != 10 {
		t.Fatalf("got total %d correct %d status %v; want 12, 9, ok 10 and pred_error 2", rep.Overall.Total, rep.Overall.Correct, rep.Status)
	}
	wantStyles := map[sqltext.Style]int{sqltext.StyleFence: 4, sqltext.StyleJSON: 1, sqltext.StyleBare: 4, sqltext.StyleUnclosedFence: 1, sqltext.StyleNone: 2}
	for st, n := range wantStyles {
		if rep.Extraction[st] != n {
			t.Errorf("extraction[%s] = %d; want %d (all: %v)", st, rep.Extraction[st], n, rep.Extraction)
		}
	}

	gold := map[string]string{}
	for _, ex := range b.Examples {
		gold[ex.ID] = ex.GoldSQL
	}
	want := map[string]struct {
		style   sqltext.Style
		sql     string // "" means the question's gold SQL
		correct bool
		err     string
	}{
		"0":  {sqltext.StyleFence, "", true, ""},
		"1":  {sqltext.StyleFence, "", true, ""},
		"2":  {sqltext.StyleFence, "SELECT i.name, d.name\nFROM instructor AS i\nJOIN department AS d ON i.dept_id = d.dept_id\nORDER BY i.salary DESC\nLIMIT 1", true, ""},
		"3":  {sqltext.StyleFence, "", true, ""},
		"4":  {sqltext.StyleJSON, "SELECT d.name, COUNT(c.course_id)\nFROM department AS d\nLEFT JOIN course AS c ON c.dept_id = d.dept_id\nGROUP BY d.dept_id, d.name", true, ""},
		"5":  {sqltext.StyleBare, "SELECT s.name FROM student AS s JOIN enrollment AS e ON s.student_id = e.student_id\nGROUP BY s.student_id, s.name\nHAVING COUNT(DISTINCT e.course_id) >= 4", true, ""},
		"6":  {sqltext.StyleBare, "", true, ""},
		"7":  {sqltext.StyleBare, "", true, ""},
		"8":  {sqltext.StyleNone, "", false, sqltext.NoSQL},
		"9":  {sqltext.StyleUnclosedFence, "SELECT d.name FROM department AS d LIMIT 1", false, ""},
		"10": {sqltext.StyleBare, "", true, ""},
		"11": {sqltext.StyleNone, "", false, sqltext.NoSQL},
	}
	f, err := os.Open(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	seen := 0
	for sc.Scan() {
		var v struct {
			QuestionID string         `json:"question_id"`
			Status     metrics.Status `json:"status"`
			Correct    bool           `json:"correct"`
			Error      string         `json:"error"`
			PredSQL    *string        `json:"pred_sql"`
			Extraction sqltext.Style  `json:"extraction"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("verdict %s: %v", sc.Text(), err)
		}
		w, ok := want[v.QuestionID]
		if !ok {
			t.Fatalf("verdict for unexpected question %q", v.QuestionID)
		}
		seen++
		wantSQL := w.sql
		if wantSQL == "" && w.style != sqltext.StyleNone {
			wantSQL = gold[v.QuestionID]
		}
		if v.PredSQL == nil || *v.PredSQL != wantSQL || v.Extraction != w.style || v.Correct != w.correct || v.Error != w.err {
			t.Errorf("question %s: got %s; want pred_sql %q, extraction %s, correct %v, error %q", v.QuestionID, sc.Text(), wantSQL, w.style, w.correct, w.err)
		}
	}
	if seen != len(want) {
		t.Errorf("verdict file has %d lines; want %d", seen, len(want))
	}

	// The text summary counts the extraction styles.
	stdout, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", filepath.Join("testdata", "raw_responses.jsonl"), "--response-field", "response", "--allow-partial", "--quiet", "--cache-dir", "off")
	if exitCode(err) != exitIncomplete || !strings.Contains(stdout, "extraction: bare 4 fence 4 fence-unclosed 1 json 1 none 2") {
		t.Errorf("text output lacks the extraction counts (err %v):\n%s", err, stdout)
	}
}

func TestEvalResponseFieldErrors(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	sqlFile := filepath.Join(dir, "pred.sql")
	os.WriteFile(sqlFile, []byte("SELECT 1\n"), 0o644)
	for _, args := range [][]string{
		{"--benchmark", "mini", "--gold-as-pred", "--response-field", "response"},
		{"--benchmark", "mini", "--pred", sqlFile, "--response-field", "response"},
	} {
		if _, _, err := runEvalCLI(t, args...); !errors.Is(err, errUsage) {
			t.Errorf("eval %q: error %v; want a usage error", args, err)
		}
	}
	// A line without the field is an error naming file, line and field.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"question_id\": \"0\", \"response\": \"SELECT 1\"}\n{\"question_id\": \"1\", \"sql\": \"SELECT 1\"}\n"), 0o644)
	_, _, err := runEvalCLI(t, "--benchmark", "mini", "--pred", bad, "--response-field", "response", "--allow-partial", "--quiet", "--cache-dir", "off")
	if err == nil || !strings.Contains(err.Error(), bad+`:2: field "response": missing`) {
		t.Errorf("missing field error = %v; want file:2 naming the field", err)
	}
}
