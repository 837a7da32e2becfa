package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

func TestMarkBest(t *testing.T) {
	tb := &Table{Columns: []Column{{Name: "sys"}, {Name: "EX", Numeric: true, Better: Higher}, {Name: "cost", Numeric: true, Better: Lower}, {Name: "n", Numeric: true}},
		Rows: [][]Cell{
			{text("a"), pct(0.6004), num(0.3, 2), integer(5)},
			{text("b"), pct(0.5996), num(0.1, 2), integer(9)}, // 60.0 as printed: tied with a
			{text("c"), pct(0.5), text("-"), integer(1)},
		}}
	tb.MarkBest()
	got := [][]bool{}
	for _, r := range tb.Rows {
		got = append(got, []bool{r[1].Bold, r[2].Bold, r[3].Bold})
	}
	want := [][]bool{{true, false, false}, {true, true, false}, {false, false, false}}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("row %d col %d bold = %v; want %v", i, j+1, got[i][j], want[i][j])
			}
		}
	}
}

func TestRenderEscapes(t *testing.T) {
	tb := &Table{ID: "x_1", Caption: "EX & cost 100% (a_b)", Columns: []Column{{Name: "sys|name"}, {Name: "Δ", Numeric: true}},
		Rows: [][]Cell{{text("w/o_x"), Cell{Text: "-2.5", Value: -2.5, HasValue: true, NotSig: true}}}, Notes: []string{"~ : not significant"}}
	var tex, md, csv bytes.Buffer
	if err := tb.WriteLaTeX(&tex); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\caption{EX \& cost 100\% (a\_b)}`, `w/o\_x & $-$2.5\rlap{$^{\dagger}$} \\`, `$\Delta$`, `$^{\dagger}$ : not significant`, `\label{tab:x\_1}`} {
		if !strings.Contains(tex.String(), want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex.String())
		}
	}
	for _, want := range []string{`| sys\|name | Δ |`, `| w/o\_x | -2.5 ~ |`, "| :--- | ---: |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if got, want := csv.String(), "sys|name,Δ\nw/o_x,-2.5 ~\n"; got != want {
		t.Errorf("CSV = %q; want %q", got, want)
	}
}

// TestPairwiseNumbers checks one row of the fixture's pairwise table from
// first principles: alphasql n_rollout=8 against the baseline has b = 2,
// c = 15 (counted from the outcomes here), so the exact McNemar p is
//
//	2 * BinomialCDF(2; 17, 1/2) = 2 * (1 + 17 + 136) / 2^17 = 0.00235
//
// and Holm over the table's 16 comparisons multiplies the smallest p by
// 16: 0.0376. Tolerance: the printed three decimals.
func TestPairwiseNumbers(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	tb := tableByID(t, r, "pairwise-mini")
	var row []Cell
	for _, rw := range tb.Rows {
		if rw[0].Text == "alphasql n_rollout=8" {
			row = rw
		}
	}
	if row == nil {
		t.Fatal("no alphasql n_rollout=8 row")
	}
	if row[6].Text != "2" || row[7].Text != "15" {
		t.Fatalf("b, c = %s, %s; want 2, 15", row[6].Text, row[7].Text)
	}
	wantP := 2 * (1 + 17 + 136) / math.Pow(2, 17)
	if math.Abs(row[9].Value-wantP) > 1e-12 {
		t.Errorf("p = %v; want %v", row[9].Value, wantP)
	}
	if row[10].Text != "0.038" || row[4].NotSig {
		t.Errorf("Holm p = %s (NotSig %v); want 0.038 and significant", row[10].Text, row[4].NotSig)
	}
	if row[4].Text != "+32.5" {
		t.Errorf("Δ = %s; want +32.5 ((15-2)/40 points)", row[4].Text)
	}
}

func TestRealModelNotTitledSimulated(t *testing.T) {
	r, _ := buildFixture(t, "openai")
	if strings.Contains(r.Title, "simulated") {
		t.Errorf("title %q of a non-sim run says simulated", r.Title)
	}
	for _, tb := range r.Tables {
		if strings.Contains(tb.Caption, "simulated") {
			t.Errorf("caption %q of a non-sim run says simulated", tb.Caption)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	writeFixtureRun(t, dir, "sim")
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	opt := fixtureOptions()
	opt.Baseline = "no-such-system"
	if _, err := Build([]*runstore.RunData{run}, opt); err == nil || !strings.Contains(err.Error(), `baseline "no-such-system"`) {
		t.Errorf("unknown baseline: err = %v; want naming it", err)
	}
	if _, err := Build(nil, Options{}); err == nil {
		t.Errorf("no runs: err = nil; want an error")
	}
	opt = fixtureOptions()
	opt.Level = 1.5
	if _, err := Build([]*runstore.RunData{run}, opt); err == nil || !strings.Contains(err.Error(), "level") {
		t.Errorf("level 1.5: err = %v; want a level error", err)
	}
	if _, err := ParseFormats("md,gif"); err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Errorf("ParseFormats(md,gif): err = %v; want naming gif", err)
	}
}

// TestTwoRuns reports two runs with the same trial labels: system names
// are prefixed with the run (its directory when the names clash), and the
// pairwise table pairs them question by question.
func TestTwoRuns(t *testing.T) {
	var runs []*runstore.RunData
	for _, d := range []string{"runs/a", "runs/b"} {
		dir := t.TempDir()
		writeFixtureRun(t, dir, "sim")
		r, err := runstore.ReadRun(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		r.Dir = d
		runs = append(runs, r)
	}
	opt := fixtureOptions()
	opt.Baseline = "fixture (runs/a): react-dsl"
	rep, err := Build(runs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := "fixture (runs/a) + fixture (runs/b) (simulated model)"; rep.Title != want {
		t.Errorf("title = %q; want %q", rep.Title, want)
	}
	for _, tb := range rep.Tables {
		if tb.ID != "pairwise-mini" {
			continue
		}
		for _, row := range tb.Rows {
			// The same trial in the other run has identical outcomes.
			if row[0].Text == "fixture (runs/b): react-dsl" && (row[4].Text != "0.0" || row[6].Text != "0" || row[7].Text != "0") {
				t.Errorf("identical runs: Δ, b, c = %s, %s, %s; want 0.0, 0, 0", row[4].Text, row[6].Text, row[7].Text)
			}
		}
		if len(tb.Rows) != 2*len(fixtureTrials())-1 {
			t.Errorf("pairwise rows = %d; want %d", len(tb.Rows), 2*len(fixtureTrials())-1)
		}
	}
}

// TestMainTableDenominator builds the main table of a run whose second
// trial has a failed item, a question on a missing database and a pending
// item: EX is correct / attempted (gold runs, failed counted wrong), the
// failed column counts the failure, and notes list the excluded question
// and the partial EX.
func TestMainTableDenominator(t *testing.T) {
	ok := func(q string, correct bool) runstore.Item {
		return runstore.Item{QuestionID: q, Status: runstore.StatusDone, Verdict: &runstore.Verdict{QuestionID: q, Status: "ok", Correct: correct}}
	}
	a := runstore.RunTrial{Trial: spec.Trial{ID: "a", Label: "direct", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{ok("q1", true), ok("q2", true), ok("q3", false), ok("q4", true)}}
	b := runstore.RunTrial{Trial: spec.Trial{ID: "b", Label: "search", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{ok("q1", true), ok("q2", true),
			{QuestionID: "q3", Status: runstore.StatusFailed, ErrorClass: "bad_request", Verdict: &runstore.Verdict{QuestionID: "q3", Status: "pred_error"}},
			{QuestionID: "q5", Status: runstore.StatusDone, Verdict: &runstore.Verdict{QuestionID: "q5", Status: "missing_db"}},
			{QuestionID: "q4", Status: runstore.StatusError, ErrorClass: "server_error"}}}
	r := &runstore.RunData{Dir: "runs/x", Meta: map[string]string{"name": "x"}, Trials: []runstore.RunTrial{a, b}, Totals: map[string]int{"a": 4, "b": 5}}
	rep, err := Build([]*runstore.RunData{r}, Options{Seed: 1, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	tb := rep.Tables[0]
	if tb.ID != "ex-by-system" || len(tb.Rows) != 2 {
		t.Fatalf("first table %s with %d rows; want ex-by-system with 2", tb.ID, len(tb.Rows))
	}
	// search: q1, q2 right, q3 failed: EX = 2/3 over n = 3 (q5 has no
	// runnable gold, q4 is pending).
	row := tb.Rows[1]
	if row[0].Text != "search" || row[1].Text != "66.7" || row[3].Text != "3" || row[4].Text != "1" {
		t.Errorf("search row EX %s n %s failed %s; want 66.7, 3, 1", row[1].Text, row[3].Text, row[4].Text)
	}
	notes := strings.Join(tb.Notes, " ")
	for _, want := range []string{"missing_db 1", "Partial", "search on mini (1 pending)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

// TestMainTableDeterministicEX: a benchmark with a nondeterministic gold
// gets an "EX det." column, EX over the other questions: direct is right
// on q1, q2 and q4 and wrong on q3, whose gold ties at its LIMIT: EX 3/4,
// EX det. 3/3; search is right on q3 only: EX 1/4, EX det. 0/3.
func TestMainTableDeterministicEX(t *testing.T) {
	item := func(q string, correct bool) runstore.Item {
		v := &runstore.Verdict{QuestionID: q, Status: "ok", Correct: correct}
		if q == "q3" {
			v.GoldFlags = []string{metrics.FlagLimitTie}
		}
		return runstore.Item{QuestionID: q, Status: runstore.StatusDone, Verdict: v}
	}
	a := runstore.RunTrial{Trial: spec.Trial{ID: "a", Label: "direct", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{item("q1", true), item("q2", true), item("q3", false), item("q4", true)}}
	b := runstore.RunTrial{Trial: spec.Trial{ID: "b", Label: "search", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{item("q1", false), item("q2", false), item("q3", true), item("q4", false)}}
	r := &runstore.RunData{Dir: "runs/x", Meta: map[string]string{"name": "x"}, Trials: []runstore.RunTrial{a, b}}
	rep, err := Build([]*runstore.RunData{r}, Options{Seed: 1, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	tb := rep.Tables[0]
	if got := tb.Columns[len(tb.Columns)-1].Name; got != "EX det." {
		t.Fatalf("last column %q; want EX det.", got)
	}
	for i, want := range [][2]string{{"75.0", "100.0"}, {"25.0", "0.0"}} {
		row := tb.Rows[i]
		if row[1].Text != want[0] || row[len(row)-1].Text != want[1] {
			t.Errorf("%s: EX %s, EX det. %s; want %s, %s", row[0].Text, row[1].Text, row[len(row)-1].Text, want[0], want[1])
		}
	}
	if !strings.Contains(strings.Join(tb.Notes, " "), "EX det.:") {
		t.Errorf("notes %q do not explain EX det.", tb.Notes)
	}
}
