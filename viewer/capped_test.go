package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/viewer"
)

// hugeRun runs direct and sc (k = 2) on n mini questions against a server
// whose every answer is a SQL block selecting a literal of size bytes,
// and returns the run directory. The answer reaches the item's SQL, its
// candidates, its trace's outputs and, through the SQL's result, a
// preview column's name.
func hugeRun(t testing.TB, n, size int, runners string) string {
	t.Helper()
	content, err := json.Marshal("```sql\nSELECT '" + strings.Repeat("x", size) + "'\n```")
	if err != nil {
		t.Fatal(err)
	}
	// The server ignores max_tokens, as a hostile or broken one does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			N int `json:"n"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"x","choices":[`)
		for i := range max(1, req.N) {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"index":%d,"finish_reason":"stop","message":{"role":"assistant","content":%s}}`, i, content)
		}
		fmt.Fprint(w, `],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}`)
	}))
	t.Cleanup(srv.Close)
	spec := fmt.Sprintf(`name: view-huge
benchmarks: [{name: mini}]
models:
  m: {backend: openai, base_url: %q, model: x}
roles: {reason: m}
runners: %s
`, srv.URL+"/v1", runners)
	dir := t.TempDir()
	if _, err := benchkit.Run(t, dir, benchkit.Plan(t, benchkit.Spec(t, spec, "spec.yaml")), bench.Options{Limit: n}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// eachString calls fn with every string of a decoded JSON value and its
// path.
func eachString(v any, path string, fn func(path, s string)) {
	switch x := v.(type) {
	case string:
		fn(path, x)
	case map[string]any:
		for k, e := range x {
			fn(path+"/<key>", k)
			eachString(e, path+"/"+k, fn)
		}
	case []any:
		for i, e := range x {
			eachString(e, fmt.Sprintf("%s/%d", path, i), fn)
		}
	}
}

// TestQuestionTextsCapped: answers of 256 KB reach an item's SQL, its
// candidates, its trace's outputs and a preview column's name; every
// string of the question file is then at most MaxText bytes plus the
// marker, the item's SQL ends with "truncated, N bytes" (N the stored
// length) and the export command of that item, and its preview says
// why it was not executed.
func TestQuestionTextsCapped(t *testing.T) {
	t.Parallel()
	const size = 256 << 10
	dir := hugeRun(t, 1, size, `[{name: direct}, {name: sc, params: {k: 2}}]`)
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	v := openViewer(t, dir)
	raw, err := json.Marshal(must(v.Question(context.Background(), 0, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	qid := r.Trials[0].Items[0].QuestionID
	// The longest marker: the stored SQL's length has the most digits.
	maxLen := viewer.MaxText + len(fmt.Sprintf("\n… [truncated, %d bytes; full text: %s]", size+100, viewer.ExportCommand(abs, r.Trials[1].ID, qid)))
	cut := 0
	eachString(doc, "q", func(path, s string) {
		if len(s) > maxLen {
			t.Errorf("%s: got %d bytes; want at most %d (MaxText and the marker)", path, len(s), maxLen)
		}
		if _, ok := viewer.Truncated(s); ok {
			cut++
		}
	})
	// SQL, candidates (sc), trace outputs of both trials.
	if cut < 4 {
		t.Errorf("got %d truncated texts; want at least 4 (the SQL of both trials, sc's candidates, the trace outputs)", cut)
	}
	var q viewer.Question
	if err := json.Unmarshal(raw, &q); err != nil {
		t.Fatal(err)
	}
	for _, it := range q.Items {
		id := r.Trials[it.T].ID
		wantLen := len("SELECT '") + size + len("'")
		n, ok := viewer.Truncated(it.SQL)
		if !ok || n != wantLen {
			t.Errorf("trial %d SQL %.40q…: truncated %v, %d bytes; want truncated, %d bytes", it.T, it.SQL, ok, n, wantLen)
		}
		if cmd := viewer.ExportCommand(abs, id, qid); !strings.HasSuffix(it.SQL, "; full text: "+cmd+"]") {
			t.Errorf("trial %d SQL ends %q; want the export command %q", it.T, it.SQL[max(0, len(it.SQL)-200):], cmd)
		}
		if it.Preview == nil || !strings.Contains(it.Preview.Error, "not executed") {
			t.Errorf("trial %d preview %+v; want not executed (the SQL is over the cap)", it.T, it.Preview)
		}
	}
	if len(raw) > 16*maxLen {
		t.Errorf("question file is %d bytes; want at most %d", len(raw), 16*maxLen)
	}
}

// TestPreviewColumnCapped: a SQL text under the cap that selects a long
// literal names its result's column by it; the preview keeps a capped
// name with the marker.
func TestPreviewColumnCapped(t *testing.T) {
	t.Parallel()
	const size = 8 << 10
	dir := hugeRun(t, 1, size, `[{name: direct}]`)
	v := openViewer(t, dir)
	q, err := v.Question(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := q.Items[0].Preview
	if p == nil || len(p.Columns) != 1 {
		t.Fatalf("preview %+v; want one column", p)
	}
	if n, ok := viewer.Truncated(p.Columns[0]); !ok || n < size || len(p.Columns[0]) > 400 {
		t.Errorf("column name of %d bytes (truncated %v, %d bytes); want at most 400, truncated, at least %d bytes", len(p.Columns[0]), ok, n, size)
	}
}

// TestBrowserShowsTruncation opens a question whose answer is over the
// cap in the static copy: the page shows the marker with the full length
// and the export command.
func TestBrowserShowsTruncation(t *testing.T) {
	t.Parallel()
	browser(t)
	const size = 64 << 10
	dir := hugeRun(t, 1, size, `[{name: direct}]`)
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	if err := openViewer(t, dir).WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	want := fmt.Sprintf("… [truncated, %d bytes; full text: %s]", len("SELECT '")+size+len("'"), viewer.ExportCommand(abs, r.Trials[0].ID, r.Trials[0].Items[0].QuestionID))
	txt := text(dumpDOM(t, pageURL(site, "#/q/0?trial=0")))
	if !strings.Contains(txt, want) {
		t.Errorf("question page does not show %q", want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkStaticHugeAnswers writes the static viewer of a run of direct
// on four mini questions whose answers are 1 KB (the baseline) and 10 MB:
// with every text capped, the second writes about as many bytes
// (file-bytes/op) and allocates a small multiple of the bytes the store
// holds per item, not of the answers times the fields they reach.
func BenchmarkStaticHugeAnswers(b *testing.B) {
	for _, size := range []int{1 << 10, 10 << 20} {
		b.Run(fmt.Sprintf("answer=%d", size), func(b *testing.B) {
			dir := hugeRun(b, 4, size, `[{name: direct}]`)
			v := openViewer(b, dir)
			b.ReportAllocs()
			b.ResetTimer()
			var written int64
			for i := 0; i < b.N; i++ {
				site := b.TempDir()
				if err := v.WriteStatic(context.Background(), site); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				written = 0
				filepath.WalkDir(filepath.Join(site, "data"), func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						if fi, err := os.Stat(p); err == nil {
							written += fi.Size()
						}
					}
					return nil
				})
				b.StartTimer()
			}
			b.ReportMetric(float64(written), "file-bytes/op")
		})
	}
}
