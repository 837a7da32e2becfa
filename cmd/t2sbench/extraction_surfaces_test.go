package main

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestExtractionCountsEverySurface reads how answers were found from every
// place that shows it, against counts made without sqltext.CountReasons:
//
//   - the report of the quickstart run (terminal, CSV, Markdown, LaTeX),
//     against a GROUP BY over the reasons the runners stored in run.db;
//   - eval's summary (--json and text) of hand-written responses in the
//     styles real models write, against the reason of each, written by
//     hand.
func TestExtractionCountsEverySurface(t *testing.T) {
	t.Run("report", func(t *testing.T) {
		q := quickstartRun(t)
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(q.Dir, "run.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.Query(`SELECT t.label, coalesce(json_extract(i.digest, '$.extraction'), ''), count(*) FROM items i JOIN trials t ON t.id = i.trial_id
			WHERE i.status IN ('done', 'failed') AND i.digest IS NOT NULL GROUP BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]int{} // system -> reason -> count
		for rows.Next() {
			var label, why string
			var n int
			if err := rows.Scan(&label, &why, &n); err != nil {
				t.Fatal(err)
			}
			if why == "" {
				why = string(sqltext.ReasonUnrecorded)
			}
			if want[label] == nil {
				want[label] = map[string]int{}
			}
			want[label][why] += n
		}
		rows.Close()
		if len(want) != 7 || want["direct"]["single"] != 42 {
			t.Fatalf("store counts %v; want the 7 quickstart systems, direct's 42 answers single (one fenced block each)", want)
		}

		out := t.TempDir()
		stdout, _, err := runCLI(t, "report", q.Dir, "--out", out, "--format", "md,tex,csv", "--no-view")
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(out, "tables", "extraction.csv"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]int{}
		head := recs[0]
		for _, rec := range recs[1:] {
			got[rec[0]] = map[string]int{}
			total := 0
			for j := 2; j < len(rec); j++ {
				n, err := strconv.Atoi(rec[j])
				if err != nil {
					t.Fatalf("extraction.csv cell %q: %v", rec[j], err)
				}
				if n > 0 {
					got[rec[0]][head[j]] = n
				}
				total += n
			}
			if rec[1] != strconv.Itoa(total) {
				t.Errorf("system %s: answers %s; want %d, the sum of its reasons", rec[0], rec[1], total)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("extraction.csv counts %v; want the store's %v", got, want)
		}
		md, _ := os.ReadFile(filepath.Join(out, "tables", "extraction.md"))
		tex, _ := os.ReadFile(filepath.Join(out, "tables", "extraction.tex"))
		for name, text := range map[string]string{"terminal": stdout, "extraction.md": string(md), "extraction.tex": string(tex)} {
			if !strings.Contains(text, "How answers were found") || !strings.Contains(text, "unrecorded") {
				t.Errorf("%s lacks the extraction table (caption and unrecorded column):\n%s", name, text)
			}
		}
	})

	t.Run("eval", func(t *testing.T) {
		evalEnv(t)
		// Mini questions 0-4, each answered in one real-model style; the
		// reason each must give, by hand.
		gold0 := "SELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'"
		lines := []struct {
			id       int
			response string
			why      sqltext.Reason
		}{
			{0, "<think>\nCount students in CS.\n</think>\n```sql\n" + gold0 + ";\n```", sqltext.ReasonSingle},
			{1, "```sql\nSELECT title FROM course\n```\nWait, only the courses nobody teaches. Corrected query:\n```sql\nSELECT title FROM course WHERE instructor_id IS NULL\n```", sqltext.ReasonLastCorrection},
			{2, "```sql\nSELECT name FROM instructor ORDER BY salary DESC LIMIT 1\n```\nAlternatively, you can use a subquery:\n```sql\nSELECT name FROM instructor WHERE salary = (SELECT max(salary) FROM instructor)\n```", sqltext.ReasonFirstOfAlternatives},
			{3, "Step 1: draft\n```sql\nSELECT 1\n```\nFinal SQL:\n```sql\nSELECT count(*) FROM course\n```", sqltext.ReasonFinalMarker},
			{4, "Let me think about which tables hold the enrolment and whether the", sqltext.ReasonNone},
		}
		var b strings.Builder
		want := sqltext.ReasonCounts{}
		for _, l := range lines {
			js, _ := json.Marshal(map[string]any{"question_id": l.id, "response": l.response})
			b.Write(js)
			b.WriteByte('\n')
			want[l.why]++
		}
		pred := filepath.Join(t.TempDir(), "responses.jsonl")
		if err := os.WriteFile(pred, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--benchmark", "mini", "--allow-partial", "--quiet", "--cache-dir", "off", "--pred", pred, "--response-field", "response"}
		stdout, _, err := runEvalCLI(t, append(args, "--json")...)
		if exitCode(err) != exitIncomplete {
			t.Fatalf("exit %d (%v); want %d (5 of 42 questions answered)", exitCode(err), err, exitIncomplete)
		}
		var rep evalReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rep.ExtractionReasons, want) {
			t.Errorf("eval --json extraction reasons %v; want %v", rep.ExtractionReasons, want)
		}
		stdout, _, _ = runEvalCLI(t, args...)
		line := "extraction reasons: final_marker 1 last_correction 1 first_of_alternatives 1 single 1 none 1\n"
		if !strings.Contains(stdout, line) {
			t.Errorf("eval summary lacks %q:\n%s", line, stdout)
		}
	})
}
