package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
	"github.com/t2sbench/t2sbench/viewer"
)

// TestIndexMatchesSummary checks the overview against runstore.Summarize and
// the question rows against the verdicts, over the mini run.
func TestIndexMatchesSummary(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir)
	idx := v.Index()
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	sums := runstore.Summarize(r)
	if len(idx.Trials) != len(sums) {
		t.Fatalf("got %d trials; want %d", len(idx.Trials), len(sums))
	}
	if !idx.Simulated || !strings.Contains(idx.Title, "simulated model") {
		t.Errorf("title %q, simulated %v; want a simulated-model title", idx.Title, idx.Simulated)
	}
	for i, s := range sums {
		tr := idx.Trials[i]
		if tr.Label != s.Label || tr.Correct != s.Correct || tr.Attempted != s.Attempted || tr.EX != s.EX || tr.CILo != s.CILo || tr.CIHi != s.CIHi {
			t.Errorf("trial %d: got %s %d/%d EX %v [%v, %v]; want %s %d/%d EX %v [%v, %v]", i, tr.Label, tr.Correct, tr.Attempted, tr.EX, tr.CILo, tr.CIHi,
				s.Label, s.Correct, s.Attempted, s.EX, s.CILo, s.CIHi)
		}
		// Summarize counts calls from the items' call logs (read with
		// results); the viewer totals the log in SQL.
		if tr.Total.Calls != s.Calls || tr.Total.PromptTokens+tr.Total.CompletionTokens != s.Tokens {
			t.Errorf("trial %s: got %d calls, %d tokens; want %d, %d", tr.Label, tr.Total.Calls, tr.Total.PromptTokens+tr.Total.CompletionTokens, s.Calls, s.Tokens)
		}
	}
	if len(idx.Questions) != 42 || v.Questions() != 42 {
		t.Fatalf("got %d questions (%d files); want 42 (testdata/mini)", len(idx.Questions), v.Questions())
	}
	for _, row := range idx.Questions {
		if len(row.Outcome) != len(idx.Trials) || len(row.Status) != len(idx.Trials) {
			t.Fatalf("question %s: outcome %q, %d statuses; want %d of each", row.ID, row.Outcome, len(row.Status), len(idx.Trials))
		}
		if row.Question == "" || row.DB == "" {
			t.Errorf("question %s: text %q, db %q; want both from the benchmark", row.ID, row.Question, row.DB)
		}
	}
	for ti, trial := range r.Trials {
		o := runstore.TrialOutcomes(&trial, r.Totals[trial.ID])
		for _, row := range idx.Questions {
			want := byte('X')
			if c, ok := o.Correct[row.ID]; ok {
				want = 'W'
				if c {
					want = 'C'
				}
			}
			if row.Outcome[ti] != want {
				t.Errorf("trial %s question %s: got outcome %c; want %c", trial.Label, row.ID, row.Outcome[ti], want)
			}
		}
	}
	// Pairs: every pair of the 7 trials, McNemar as compare computes it.
	if len(idx.Pairs) != 21 {
		t.Fatalf("got %d pairs; want 21 (7 trials choose 2)", len(idx.Pairs))
	}
	systems, err := runstore.LoadRunSystems(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range idx.Pairs {
		pr, err := stats.Pair(systems[p.A].Correct, systems[p.B].Correct, true)
		if err != nil {
			t.Fatal(err)
		}
		want, err := stats.McNemar(pr.A, pr.B, stats.McNemarAuto)
		if err != nil {
			t.Fatal(err)
		}
		if p.OnlyA != want.B || p.OnlyB != want.C || math.Abs(p.P-want.P) > 1e-12 || p.N != len(pr.IDs) {
			t.Errorf("pair %d-%d: got b=%d c=%d p=%v n=%d; want b=%d c=%d p=%v n=%d", p.A, p.B, p.OnlyA, p.OnlyB, p.P, p.N, want.B, want.C, want.P, len(pr.IDs))
		}
	}
	if !strings.Contains(idx.Runs[0].Spec, "runner: alphasql") || idx.Runs[0].SpecStored {
		t.Errorf("run spec %q (stored %v); want the trials' configurations, not stored", idx.Runs[0].Spec, idx.Runs[0].SpecStored)
	}
}

// TestQuestionContent checks one question's file: the gold from the
// benchmark with its preview, each trial's SQL and trace as stored, and
// the calls of the call log.
func TestQuestionContent(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir)
	q, err := v.Question(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := datasets.Open("mini", "", datasets.LoadOptions{CacheDir: filepath.Join(dir, "cache", "datasets", "mini")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	ex, _ := b.ByID(q.ID)
	if q.Gold == nil || q.Gold.SQL != ex.GoldSQL || q.Question != ex.Question {
		t.Fatalf("got gold %+v, question %q; want %q, %q", q.Gold, q.Question, ex.GoldSQL, ex.Question)
	}
	if q.Gold.Preview == nil || q.Gold.Preview.Error != "" || len(q.Gold.Preview.Columns) == 0 {
		t.Errorf("gold preview %+v; want columns and no error", q.Gold.Preview)
	}
	if len(q.Items) != 7 {
		t.Fatalf("got %d items; want 7", len(q.Items))
	}
	rd, err := runstore.OpenItemReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	calls, err := rd.QuestionCalls(context.Background(), q.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range q.Items {
		tr := v.Index().Trials[it.T]
		stored, ok, err := rd.Item(context.Background(), tr.ID, q.ID)
		if err != nil || !ok {
			t.Fatalf("item %s/%s: ok %v, %v", tr.ID, q.ID, ok, err)
		}
		if it.SQL != stored.Result.SQL || it.Status != stored.Status {
			t.Errorf("trial %s: got SQL %q status %s; want %q %s", tr.Label, it.SQL, it.Status, stored.Result.SQL, stored.Status)
		}
		if len(it.Calls) != len(calls[tr.ID]) || len(it.Calls) == 0 {
			t.Errorf("trial %s: got %d calls; want %d from the call log (and at least 1)", tr.Label, len(it.Calls), len(calls[tr.ID]))
		}
		if it.SQL != "" && it.Preview == nil {
			t.Errorf("trial %s: no preview of %q", tr.Label, it.SQL)
		}
	}
	if _, ok := q.Items[tAlpha].Trace.Data["tree"]; !ok {
		t.Errorf("alphasql trace data keys %v; want a tree", keys(q.Items[tAlpha].Trace.Data))
	}
	if q.Schema == nil || len(q.Schema.Tables) == 0 {
		t.Errorf("schema %+v; want the database's tables (steinersql has a scaffold)", q.Schema)
	}
	if _, err := v.Question(context.Background(), 42, nil); err == nil {
		t.Errorf("question 42 of 42: got no error; want one")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestStaticCopy writes the static copy and checks every data file is a
// registration call holding valid JSON.
func TestStaticCopy(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir)
	out := t.TempDir()
	if err := v.WriteStatic(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "app.js", "app.css", "data/index.js"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("static copy lacks %s: %v", f, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "data", "q", "*.js"))
	if len(files) != 42 {
		t.Fatalf("got %d question files; want 42", len(files))
	}
	for _, f := range files {
		n := strings.TrimSuffix(filepath.Base(f), ".js")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prefix := "T2S.question(" + n + ", "
		if !bytes.HasPrefix(b, []byte(prefix)) || !bytes.HasSuffix(b, []byte(");\n")) {
			t.Fatalf("%s starts %q; want %q ... \");\\n\"", f, b[:min(40, len(b))], prefix)
		}
		var q viewer.Question
		if err := json.Unmarshal(b[len(prefix):len(b)-3], &q); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if strconv.Itoa(q.N) != n {
			t.Errorf("%s holds question %d", f, q.N)
		}
	}
}

// TestScriptEscapesMarkup: a data file never holds markup that could close
// its <script> (encoding/json escapes < > &).
func TestScriptEscapesMarkup(t *testing.T) {
	t.Parallel()
	v := openViewerWith(t, hostileBenchmark, injectionRun(t))
	b, err := v.IndexScript()
	if err != nil {
		t.Fatal(err)
	}
	qb, err := v.QuestionScript(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string][]byte{"index": b, "question": qb} {
		if bytes.Contains(s, []byte("<")) || bytes.Contains(s, []byte(">")) {
			t.Errorf("%s script holds a raw < or >: %q", name, s[:min(200, len(s))])
		}
		if !bytes.Contains(s, []byte(`\u003cscript\u003e`)) {
			t.Errorf("%s script lacks the escaped payload", name)
		}
	}
}

// TestHandler serves the viewer and fetches each kind of file: the data
// is JSON (application/json, nosniff), the static copy's data scripts are
// not served, and every response carries the security headers.
func TestHandler(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir)
	srv := httptest.NewServer(v.Handler())
	defer srv.Close()
	tests := []struct {
		path, want, ctype string
		code              int
	}{
		{"/", "<script src=\"app.js\">", "text/html; charset=utf-8", 200},
		{"/app.js", "T2S.index = function", "text/javascript; charset=utf-8", 200},
		{"/data/index.json", `{"title":"viewer-mini (simulated model)"`, "application/json", 200},
		{"/data/q/3.json", `{"n":3,`, "application/json", 200},
		{"/data/q/42.json", "", "", 404},
		{"/data/q/x.json", "", "", 404},
		{"/data/index.js", "", "", 404},
		{"/data/q/3.js", "", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code || !strings.Contains(string(body), tt.want) {
				t.Errorf("GET %s: got %d %q; want %d and %q", tt.path, resp.StatusCode, body[:min(80, len(body))], tt.code, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); tt.ctype != "" && ct != tt.ctype {
				t.Errorf("GET %s: Content-Type %q; want %q", tt.path, ct, tt.ctype)
			}
			for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Content-Security-Policy": viewer.ContentSecurityPolicy,
				"Cross-Origin-Resource-Policy": "same-origin", "Access-Control-Allow-Origin": ""} {
				if got := resp.Header.Get(h); got != want {
					t.Errorf("GET %s: %s %q; want %q", tt.path, h, got, want)
				}
			}
		})
	}
}

// TestTwoRuns opens the same run twice: the trials of both appear, labels
// carry their run's name, and the questions of one benchmark are one row
// each with an outcome per trial.
func TestTwoRuns(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewer(t, dir, dir)
	idx := v.Index()
	if len(idx.Trials) != 14 || len(idx.Questions) != 42 {
		t.Fatalf("got %d trials, %d questions; want 14 and 42", len(idx.Trials), len(idx.Questions))
	}
	if got := idx.Trials[7].Label; got != "viewer-mini: direct" || idx.Trials[7].Run != 1 {
		t.Errorf("trial 7: label %q run %d; want \"viewer-mini: direct\" of run 1", got, idx.Trials[7].Run)
	}
	for _, r := range idx.Questions {
		if r.Outcome[:7] != r.Outcome[7:] {
			t.Errorf("question %s: outcomes %q differ between the two copies of the run", r.ID, r.Outcome)
		}
	}
	q, err := v.Question(context.Background(), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 14 || q.Items[13].T != 13 || len(q.Items[13].Calls) != len(q.Items[6].Calls) {
		t.Errorf("question 5: %d items; want 14, the second run's the same as the first's", len(q.Items))
	}
}

// TestBenchmarkUnavailable: when a benchmark cannot be opened the viewer
// still opens, says why, and shows what the verdicts hold.
func TestBenchmarkUnavailable(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	v := openViewerWith(t, func(spec.BenchmarkSpec) (*datasets.Benchmark, error) {
		return nil, os.ErrNotExist
	}, dir)
	idx := v.Index()
	if len(idx.Warnings) != 1 || !strings.Contains(idx.Warnings[0], "benchmark mini: file does not exist") {
		t.Errorf("warnings %q; want one naming benchmark mini and the error", idx.Warnings)
	}
	r := idx.Questions[0]
	if r.Question != "" || r.DB != "university" || r.Difficulty != "simple" {
		t.Errorf("question 0: text %q db %q difficulty %q; want no text, db and difficulty from the verdicts", r.Question, r.DB, r.Difficulty)
	}
	q, err := v.Question(context.Background(), 0, nil)
	if err != nil || q.Gold != nil || len(q.Items) != 7 || q.Items[0].Preview != nil {
		t.Errorf("question 0: gold %+v, %d items, err %v; want no gold, 7 items without previews", q.Gold, len(q.Items), err)
	}
}

// TestWriteStaticBatches writes the static viewer of the mini run with the
// call log taken two questions at a time (batches of 20 items: 7 trials a
// question) and all at once (the default batch holds the 42 questions
// times 7 trials): every file is byte-identical to the one-batch copy's.
func TestWriteStaticBatches(t *testing.T) {
	t.Parallel()
	dir := miniRun(t)
	write := func(batch int) map[string][]byte {
		v, err := viewer.Open(context.Background(), []string{dir}, viewer.Options{Benchmark: openBenchmark(dir), NoPreviews: true})
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		viewer.SetBatchItems(v, batch)
		site := t.TempDir()
		if err := v.WriteStatic(context.Background(), site); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		if err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(site, p)
			files[rel] = b
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return files
	}
	want := write(0)
	if n := len(want); n < 42 {
		t.Fatalf("one-batch copy has %d files; want at least the 42 questions'", n)
	}
	for _, batch := range []int{20} {
		t.Run(fmt.Sprint(batch), func(t *testing.T) {
			got := write(batch)
			if len(got) != len(want) {
				t.Errorf("batches of %d items write %d files; want %d", batch, len(got), len(want))
			}
			for p, b := range want {
				if !bytes.Equal(got[p], b) {
					t.Errorf("batches of %d items: %s differs from the one-batch copy's", batch, p)
				}
			}
		})
	}
}
