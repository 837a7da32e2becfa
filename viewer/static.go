package viewer

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/bench"
)

//go:embed assets
var assets embed.FS

// IndexFile is the page of the viewer in a static copy.
const IndexFile = "index.html"

// Assets returns the page, script and style sheet of the viewer.
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return sub
}

// script wraps v's JSON in a call of the page's registration function
// fn: a data file a page can load with a <script> tag, from file:// too.
// encoding/json escapes <, > and & (and U+2028, U+2029), so no text of
// the data can close the script or break out of it.
func script(fn string, arg string, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("T2S.")
	b.WriteString(fn)
	b.WriteString("(")
	if arg != "" {
		b.WriteString(arg)
		b.WriteString(", ")
	}
	b.Write(raw)
	b.WriteString(");\n")
	return b.Bytes(), nil
}

// IndexScript returns data/index.js.
func (v *Viewer) IndexScript() ([]byte, error) { return script("index", "", v.index) }

// QuestionScript returns data/q/N.js for question n.
func (v *Viewer) QuestionScript(ctx context.Context, n int, calls []map[string][]bench.Call) ([]byte, error) {
	q, err := v.Question(ctx, n, calls)
	if err != nil {
		return nil, err
	}
	return script("question", strconv.Itoa(n), q)
}

// WriteStatic writes a static copy of the viewer into dir: index.html,
// its script and style, data/index.js and one data/q/N.js per question.
// It opens from file:// with no network. The call log is streamed once;
// items are read one at a time by a few workers.
func (v *Viewer) WriteStatic(ctx context.Context, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "data", "q"), 0o755); err != nil {
		return fmt.Errorf("viewer: %w", err)
	}
	if err := fs.WalkDir(Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Assets(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), b, 0o644)
	}); err != nil {
		return fmt.Errorf("viewer: write assets: %w", err)
	}
	idx, err := v.IndexScript()
	if err != nil {
		return fmt.Errorf("viewer: index: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "index.js"), idx, 0o644); err != nil {
		return fmt.Errorf("viewer: %w", err)
	}
	// The call log by run, question and trial: call rows are small (no
	// messages), so holding them costs far less than one trace each.
	byQ := make([]map[string]map[string][]bench.Call, len(v.runs))
	for ri, r := range v.runs {
		m := map[string]map[string][]bench.Call{}
		if err := r.reader.EachCall(ctx, func(c bench.ItemCall) error {
			if m[c.QuestionID] == nil {
				m[c.QuestionID] = map[string][]bench.Call{}
			}
			m[c.QuestionID][c.TrialID] = append(m[c.QuestionID][c.TrialID], c.Call)
			return nil
		}); err != nil {
			return fmt.Errorf("viewer: %w", err)
		}
		byQ[ri] = m
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(4, max(1, runtime.GOMAXPROCS(0))))
	for n := range v.questions {
		g.Go(func() error {
			calls := make([]map[string][]bench.Call, len(v.runs))
			for ri := range v.runs {
				calls[ri] = byQ[ri][v.questions[n].id]
				if calls[ri] == nil {
					calls[ri] = map[string][]bench.Call{}
				}
			}
			b, err := v.QuestionScript(gctx, n, calls)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "data", "q", strconv.Itoa(n)+".js"), b, 0o644)
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("viewer: %w", err)
	}
	return nil
}

// Handler serves the viewer: the embedded page, data/index.js, and each
// data/q/N.js built when it is asked for.
func (v *Viewer) Handler() http.Handler {
	mux := http.NewServeMux()
	static := http.FileServer(http.FS(Assets()))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/data/index.js":
			b, err := v.IndexScript()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			serveJS(w, b)
		case strings.HasPrefix(p, "/data/q/") && strings.HasSuffix(p, ".js"):
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/data/q/"), ".js"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			b, err := v.QuestionScript(r.Context(), n, nil)
			if errors.Is(err, errNoQuestion) {
				http.NotFound(w, r)
				return
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			serveJS(w, b)
		default:
			static.ServeHTTP(w, r)
		}
	})
	return mux
}

func serveJS(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
