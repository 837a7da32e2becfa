package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/export"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// exportTrial is a trial of five questions: done, done with multi-line SQL,
// failed, done with empty SQL, and one never run.
func exportTrial() (*runstore.RunTrial, []datasets.Example) {
	var exs []datasets.Example
	for i := range 5 {
		exs = append(exs, datasets.Example{ID: fmt.Sprintf("q%d", i), Index: i, DBID: "db" + fmt.Sprint(i%2)})
	}
	res := func(sql string) *runners.Result { return &runners.Result{SQL: sql} }
	tr := &runstore.RunTrial{Trial: spec.Trial{Label: "direct"}, Items: []runstore.Item{
		{QuestionID: "q0", Status: runstore.StatusDone, Result: res("SELECT 1")},
		{QuestionID: "q1", Status: runstore.StatusDone, Result: res("SELECT a,\n  b -- both\nFROM t WHERE x = 'a\"b' AND y < 3 & 4")},
		{QuestionID: "q2", Status: runstore.StatusFailed, Result: res("SELECT half")},
		{QuestionID: "q3", Status: runstore.StatusDone, Result: res("  ")},
	}}
	return tr, exs
}

// TestExportFormats writes each format and reads it back with eval's
// parser: every question in order, the scored SQL where there is one, the
// placeholder where there is none, the db_id beside it.
func TestExportFormats(t *testing.T) {
	t.Parallel()
	tr, exs := exportTrial()
	preds, st := trialPredictions(tr, exs)
	if st.Failed != 1 || st.Pending != 1 || st.Empty != 1 {
		t.Fatalf("stats %+v; want 1 failed, 1 pending, 1 empty", st)
	}
	wantSQL := []string{"SELECT 1", "SELECT a,   b  FROM t WHERE x = 'a\"b' AND y < 3 & 4", export.NoPrediction, export.NoPrediction, export.NoPrediction}
	rawSQL := []string{"SELECT 1", tr.Items[1].Result.SQL, export.NoPrediction, export.NoPrediction, export.NoPrediction}
	for _, tt := range []struct {
		format string
		pf     metrics.PredFormat
		want   []string
	}{
		{export.SpiderSQL, metrics.FormatSQLLines, wantSQL},
		{export.BIRDJSON, metrics.FormatBIRDJSON, rawSQL},
		{export.JSONL, metrics.FormatJSONL, []string{"SELECT 1", tr.Items[1].Result.SQL, "", "", ""}},
	} {
		t.Run(tt.format, func(t *testing.T) {
			var b strings.Builder
			var st export.Stats
			if err := export.Write(&b, tt.format, preds, &st); err != nil {
				t.Fatal(err)
			}
			got, err := metrics.ParsePredictions("x", []byte(b.String()), tt.pf)
			if err != nil {
				t.Fatalf("eval's parser rejects the export: %v\n%s", err, b.String())
			}
			if len(got) != len(exs) {
				t.Fatalf("read back %d predictions; want %d\n%s", len(got), len(exs), b.String())
			}
			for i, p := range got {
				if p.SQL != tt.want[i] || p.DBID != exs[i].DBID || p.TabCut != "" || p.Invalid != "" {
					t.Errorf("prediction %d = %+v; want SQL %q on %s", i, p, tt.want[i], exs[i].DBID)
				}
				if tt.pf == metrics.FormatJSONL && p.QuestionID != exs[i].ID || tt.pf != metrics.FormatJSONL && p.Index != i {
					t.Errorf("prediction %d answers %q / index %d; want %s / %d", i, p.QuestionID, p.Index, exs[i].ID, i)
				}
			}
			if tt.format == export.SpiderSQL && strings.Count(b.String(), "\n") != len(exs) {
				t.Errorf("spider-sql has %d lines; want %d:\n%s", strings.Count(b.String(), "\n"), len(exs), b.String())
			}
		})
	}
}

// TestExportTrialChoice checks the trial selection: an unknown label is a
// usage error that lists the labels; the label may be left out only when
// the run has one trial.
func TestExportTrialChoice(t *testing.T) {
	t.Parallel()
	r := &runstore.RunData{Dir: "runs/x", Trials: []runstore.RunTrial{{Trial: spec.Trial{Label: "direct"}}, {Trial: spec.Trial{Label: "sc k=5"}}}}
	if tr, err := pickTrial(r, "sc k=5"); err != nil || tr.Label != "sc k=5" {
		t.Errorf("pickTrial(sc k=5) = %v, %v", tr, err)
	}
	for _, label := range []string{"cot", ""} {
		_, err := pickTrial(r, label)
		if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), `"direct", "sc k=5"`) {
			t.Errorf("pickTrial(%q) error %v; want a usage error listing \"direct\", \"sc k=5\"", label, err)
		}
	}
	one := &runstore.RunData{Trials: r.Trials[:1]}
	if tr, err := pickTrial(one, ""); err != nil || tr.Label != "direct" {
		t.Errorf("pickTrial of a one-trial run = %v, %v; want direct", tr, err)
	}
}

// TestExportEvalRoundTrip runs direct with sim (realistic answer style:
// fences, prose, multi-line SQL) on each benchmark, exports the trial in
// every format and scores the file with eval: every question's verdict
// (status and correctness) must be the run's own. Spider and BIRD (their
// first 30 questions) come from the shared datasets and are skipped when
// absent.
func TestExportEvalRoundTrip(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tt := range []struct {
		bench string
		data  func(t *testing.T) string
		limit int
	}{
		{"mini", func(*testing.T) string { return "" }, 0},
		{"spider", func(t *testing.T) string { return testenv.Datasets(t, "spider") }, 30},
		{"bird", func(t *testing.T) string { return testenv.Datasets(t, "bird") }, 30},
	} {
		t.Run(tt.bench, func(t *testing.T) {
			data := tt.data(t)
			dir := t.TempDir()
			sp := filepath.Join(dir, "spec.yaml")
			b := "name: " + tt.bench
			if data != "" {
				b += ", data: " + data
			}
			os.WriteFile(sp, []byte(`name: export
benchmarks: [{`+b+`}]
models:
  sim: {backend: sim, p: 0.6, seed: 3, style: realistic}
roles: {reason: sim}
runners: [{name: direct}]
workers: 4
`), 0o644)
			run := filepath.Join(dir, "run")
			// The shared BIRD data may hold a few databases only.
			args := []string{"run", sp, "--out", run, "--quiet", "--allow-missing-db"}
			if tt.limit > 0 {
				args = append(args, "--limit", fmt.Sprint(tt.limit))
			}
			if _, stderr, err := runCLI(t, args...); err != nil && exitCode(err) != exitIncomplete {
				t.Fatalf("run: %v\n%s", err, stderr)
			}
			want := runVerdicts(t, run)
			if tt.limit > 0 && len(want) != tt.limit {
				t.Fatalf("run scored %d questions; want %d", len(want), tt.limit)
			}
			multiline := 0
			r, _ := runstore.ReadRun(run, true)
			for _, it := range r.Trials[0].Items {
				if it.Result != nil && strings.Contains(strings.TrimSpace(it.Result.SQL), "\n") {
					multiline++
				}
			}
			t.Logf("%s: %d questions, %d predictions on several lines", tt.bench, len(want), multiline)
			for _, format := range []string{export.SpiderSQL, export.BIRDJSON, export.JSONL} {
				pred := filepath.Join(dir, "pred."+format)
				if _, stderr, err := runCLI(t, "export", run, "--trial", "direct", "--format", format, "--out", pred); err != nil {
					t.Fatalf("export %s: %v\n%s", format, err, stderr)
				}
				verdicts := filepath.Join(dir, "verdicts-"+format+".jsonl")
				args := []string{"eval", "--benchmark", tt.bench, "--pred", pred, "--format", string(export.Formats[format]),
					"--out", verdicts, "--quiet", "--cache-dir", filepath.Join(dir, "gold"), "--workers", "2", "--allow-missing-db"}
				if data != "" {
					args = append(args, "--data", data)
				}
				if tt.limit > 0 {
					args = append(args, "--limit", fmt.Sprint(tt.limit))
				}
				if _, stderr, err := runCLI(t, args...); err != nil {
					t.Fatalf("eval %s: %v\n%s", format, err, stderr)
				}
				got := evalVerdicts(t, verdicts)
				if len(got) != len(want) {
					t.Errorf("%s: eval scored %d questions; the run %d", format, len(got), len(want))
				}
				bad := 0
				for id, w := range want {
					if g, ok := got[id]; !ok || g != w {
						if bad++; bad <= 5 {
							t.Errorf("%s: question %s: eval %+v; run %+v", format, id, g, w)
						}
					}
				}
				if bad > 0 {
					t.Errorf("%s: %d of %d verdicts differ from the run's", format, bad, len(want))
				}
			}
		})
	}
}

// verdictKey is what the round trip compares: a verdict's status and
// correctness.
type verdictKey struct {
	Status  string
	Correct bool
}

func runVerdicts(t *testing.T, dir string) map[string]verdictKey {
	t.Helper()
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]verdictKey{}
	for _, it := range r.Trials[0].Items {
		if it.Verdict != nil {
			out[it.QuestionID] = verdictKey{string(it.Verdict.Status), it.Verdict.Correct}
		}
	}
	return out
}

func evalVerdicts(t *testing.T, path string) map[string]verdictKey {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]verdictKey{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v metrics.Verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out[v.QuestionID] = verdictKey{string(v.Status), v.Correct}
	}
	return out
}
