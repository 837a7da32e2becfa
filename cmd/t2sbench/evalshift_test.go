package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
)

// shiftedMiniFile writes mini's golds as SQL<TAB>db_id lines without the
// line of question 4, as a file with one line lost: from line 5 on, line
// k answers question k instead of k-1. Mini's questions are 0-13 on
// university, 14-29 on shop and 30-41 on weather, so the db ids of lines
// 14 (question 13 gets question 14's line) and 30 (question 29 gets 30's)
// name the wrong database.
func shiftedMiniFile(t *testing.T, b *datasets.Benchmark) string {
	t.Helper()
	var sb strings.Builder
	for i, ex := range b.Examples {
		if i == 4 {
			continue
		}
		sb.WriteString(strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(ex.GoldSQL) + "\t" + ex.DBID + "\n")
	}
	p := filepath.Join(t.TempDir(), "shifted.sql")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalShiftedFileRefused: a prediction file with one line dropped,
// scored with --limit 40 so that its 41 lines cover the 40 questions (the
// count checks do not see the loss), is refused with exit status 2,
// naming both lines whose db_id differs from their question's; with
// --allow-db-mismatch it is scored, with the mismatches as warnings and
// counted. Before the check it was scored, exit status 0, with the two
// lines only as warnings on stderr: EX 10% (4 of 40 correct: questions 0-3
// keep their own gold, every later one gets the next question's).
func TestEvalShiftedFileRefused(t *testing.T) {
	b := evalEnv(t)
	pred := shiftedMiniFile(t, b)
	stdout, stderr, err := runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--limit", "40", "--quiet", "--cache-dir", "off")
	if code := exitCode(err); code != exitUsage {
		t.Fatalf("exit %d (%v); want %d; stdout:\n%s", code, err, exitUsage, stdout)
	}
	for _, want := range []string{
		pred + ": 2 of 40 predictions name a database other than their question's, so the file is not scored",
		pred + `:14: question 13 is on database "university"; the prediction names "shop"`,
		pred + `:30: question 29 is on database "shop"; the prediction names "weather"`,
		"pass --allow-db-mismatch",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if stdout != "" || stderr != "" {
		t.Errorf("refused file printed stdout %q, stderr %q; want nothing (the error is main's to print)", stdout, stderr)
	}

	stdout, _, err = runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--limit", "40", "--quiet", "--cache-dir", "off", "--allow-db-mismatch", "--json")
	if err != nil {
		t.Fatalf("--allow-db-mismatch: %v", err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// Questions 0-3 get their own gold; 4-39 the next question's, none of
	// which gives the same result (mini's golds differ pairwise).
	if rep.DBMismatches != 2 || rep.Overall.Total != 40 || rep.Overall.Correct != 4 {
		t.Errorf("--allow-db-mismatch: %d mismatches, %d scored, %d correct; want 2, 40, 4", rep.DBMismatches, rep.Overall.Total, rep.Overall.Correct)
	}
	if len(rep.Warnings) < 3 || !strings.Contains(rep.Warnings[0], "2 of 40 predictions name a database other than their question's") ||
		!strings.Contains(rep.Warnings[1], pred+`:14: prediction names database "shop", question 13 is on "university"`) {
		t.Errorf("--allow-db-mismatch warnings %q; want the count, then each mismatch", rep.Warnings)
	}
	stdout, stderr, err = runEvalCLI(t, "--benchmark", "mini", "--pred", pred, "--limit", "40", "--quiet", "--cache-dir", "off", "--allow-db-mismatch")
	if err != nil || !strings.Contains(stderr, "warning: "+pred+": 2 of 40 predictions name a database") ||
		!strings.Contains(stdout, "database mismatches: 2 predictions name a database other than their question's") {
		t.Errorf("--allow-db-mismatch text: err %v, stdout:\n%s\nstderr:\n%s\nwant the warning and the count", err, stdout, stderr)
	}
}

// TestEvalOneStatement: eval scores a prediction holding a NUL byte, or a
// second statement, pred_error (SQLite would run the text before the NUL,
// the Spider mode the first statement alone), and one followed by a
// comment normally.
func TestEvalOneStatement(t *testing.T) {
	b := evalEnv(t)
	gold := b.Examples[0].GoldSQL // ... WHERE d.name = 'Computer Science'
	lines := map[int]string{
		0: gold + "\x00 AND 1=0",
		1: b.Examples[1].GoldSQL + "; DROP TABLE course",
		2: b.Examples[2].GoldSQL + "; -- note",
	}
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		line, _ := json.Marshal(map[string]any{"question_id": b.Examples[i].ID, "sql": lines[i]})
		sb.Write(append(line, '\n'))
	}
	pred := filepath.Join(t.TempDir(), "pred.jsonl")
	if err := os.WriteFile(pred, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"bird", "spider"} {
		out := filepath.Join(t.TempDir(), "verdicts.jsonl")
		_, _, err := runEvalCLI(t, "--benchmark", "mini", "--mode", mode, "--pred", pred, "--limit", "3", "--quiet", "--cache-dir", "off", "--out", out)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			status  metrics.Status
			correct bool
			errHas  string
		}{
			{metrics.StatusPredError, false, "NUL byte"},
			{metrics.StatusPredError, false, `"DROP TABLE course"`},
			{metrics.StatusOK, true, ""},
		}
		for i, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var v metrics.Verdict
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatal(err)
			}
			if w := want[i]; v.Status != w.status || v.Correct != w.correct || !strings.Contains(v.Error, w.errHas) {
				t.Errorf("%s: question %d: %s %v %q; want %s %v, error containing %q", mode, i, v.Status, v.Correct, v.Error, w.status, w.correct, w.errHas)
			}
		}
	}
}
