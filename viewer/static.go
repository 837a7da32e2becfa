package viewer

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/runstore"
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

// staticPage marks the viewer's page b as a static copy's (data-static
// on its root element), whose script then loads the data scripts.
func staticPage(b []byte) ([]byte, error) {
	const root = `<html lang="en">`
	if !bytes.Contains(b, []byte(root)) {
		return nil, fmt.Errorf("%s has no %s", IndexFile, root)
	}
	return bytes.Replace(b, []byte(root), []byte(`<html lang="en" data-static>`), 1), nil
}

// IndexScript returns data/index.js.
func (v *Viewer) IndexScript() ([]byte, error) { return script("index", "", v.index) }

// QuestionScript returns data/q/N.js for question n.
func (v *Viewer) QuestionScript(ctx context.Context, n int, calls []map[string][]runstore.Call) ([]byte, error) {
	q, err := v.Question(ctx, n, calls)
	if err != nil {
		return nil, err
	}
	return script("question", strconv.Itoa(n), q)
}

// WriteStatic writes a static copy of the viewer into dir: index.html,
// its script and style, data/index.js and one data/q/N.js per question.
// It opens from file:// with no network. The questions are written in
// batches of at most maxBatchItems items: the call log is streamed once
// per batch, and items are read one at a time by a few workers, so that
// memory does not grow with the run.
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
		if p == IndexFile {
			b, err = staticPage(b)
			if err != nil {
				return err
			}
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
	// The questions are written in batches: one pass over each run's
	// call log gathers the calls of a batch's questions by run, question
	// and trial (call rows are small: no message), so that the calls held
	// grow with the batch, not with the run.
	for lo := 0; lo < len(v.questions); {
		hi := v.callBatch(lo)
		if err := v.writeQuestions(ctx, dir, lo, hi); err != nil {
			return fmt.Errorf("viewer: %w", err)
		}
		lo = hi
	}
	return nil
}

// maxBatchItems bounds the items (questions times the trials on their
// benchmark) of one batch of WriteStatic, and so the calls it holds (a
// Viewer's batchItems when set); maxBatchQuestions bounds its questions
// (each is a parameter of the batch's query of the call log).
const (
	maxBatchItems     = 5000
	maxBatchQuestions = 500
)

// callBatch returns the end of the batch of questions that starts at lo:
// at least one question, at most maxBatchItems items and
// maxBatchQuestions questions.
func (v *Viewer) callBatch(lo int) int {
	per := map[string]int{}
	for _, t := range v.trials {
		per[t.bench]++
	}
	limit := maxBatchItems
	if v.batchItems > 0 {
		limit = v.batchItems
	}
	hi, items := lo, 0
	for hi < len(v.questions) {
		n := per[v.questions[hi].bench]
		if hi > lo && (items+n > limit || hi-lo >= maxBatchQuestions) {
			break
		}
		items += n
		hi++
	}
	return hi
}

// writeQuestions writes data/q/N.js of questions lo .. hi-1: one pass over
// each run's call log, then the questions' items read one at a time by a
// few workers.
func (v *Viewer) writeQuestions(ctx context.Context, dir string, lo, hi int) error {
	var ids []string
	for n := lo; n < hi; n++ {
		if !slices.Contains(ids, v.questions[n].id) {
			ids = append(ids, v.questions[n].id)
		}
	}
	byQ := make([]map[string]map[string][]runstore.Call, len(v.runs))
	for ri, r := range v.runs {
		m := map[string]map[string][]runstore.Call{}
		if err := r.reader.EachCallOf(ctx, ids, func(c runstore.ItemCall) error {
			if m[c.QuestionID] == nil {
				m[c.QuestionID] = map[string][]runstore.Call{}
			}
			m[c.QuestionID][c.TrialID] = append(m[c.QuestionID][c.TrialID], c.Call)
			return nil
		}); err != nil {
			return err
		}
		byQ[ri] = m
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(4, max(1, runtime.GOMAXPROCS(0))))
	for n := lo; n < hi; n++ {
		g.Go(func() error {
			calls := make([]map[string][]runstore.Call, len(v.runs))
			for ri := range v.runs {
				calls[ri] = byQ[ri][v.questions[n].id]
				if calls[ri] == nil {
					calls[ri] = map[string][]runstore.Call{}
				}
			}
			b, err := v.QuestionScript(gctx, n, calls)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "data", "q", strconv.Itoa(n)+".js"), b, 0o644)
		})
	}
	return g.Wait()
}

// IndexJSON returns the index as the server serves it
// (data/index.json).
func (v *Viewer) IndexJSON() ([]byte, error) { return json.Marshal(v.index) }

// QuestionJSON returns question n as the server serves it
// (data/q/N.json).
func (v *Viewer) QuestionJSON(ctx context.Context, n int) ([]byte, error) {
	q, err := v.Question(ctx, n, nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(q)
}

// ContentSecurityPolicy is the policy the server sends with every
// response: scripts, styles and data only from the viewer itself, no
// inline script or style attribute, no plugin, no form, no base URL, and
// no page of another origin may frame it.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the viewer: the embedded page, data/index.json, and each
// data/q/N.json built when it is asked for. It answers only requests
// whose Host is the address the request arrived on (an IP address, or
// localhost on a loopback address, with the port), so that a name an
// attacker's DNS points at this machine (DNS rebinding) gets 421; it
// answers a request for data that a page of another origin made
// (Sec-Fetch-Site) with 403. The data is JSON with nosniff, which no
// page can run as a script, and no response allows another origin to
// read it (no CORS header; Cross-Origin-Resource-Policy same-origin). The
// data scripts of a static copy (data/*.js) are never served.
func (v *Viewer) Handler() http.Handler {
	mux := http.NewServeMux()
	static := http.FileServer(http.FS(Assets()))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasPrefix(p, "/data/") && !sameOrigin(r) {
			http.Error(w, "viewer: data is served to the viewer's own page only", http.StatusForbidden)
			return
		}
		switch {
		case p == "/data/index.json":
			b, err := v.IndexJSON()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			serveJSON(w, b)
		case strings.HasPrefix(p, "/data/q/") && strings.HasSuffix(p, ".json"):
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/data/q/"), ".json"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			b, err := v.QuestionJSON(r.Context(), n)
			if errors.Is(err, errNoQuestion) {
				http.NotFound(w, r)
				return
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			serveJSON(w, b)
		case strings.HasPrefix(p, "/data/"):
			http.NotFound(w, r)
		default:
			static.ServeHTTP(w, r)
		}
	})
	return guard(mux)
}

// guard checks a request's Host against the address it arrived on and
// sets the security headers of every response.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if err := checkHost(r.Host, local); err != nil {
			http.Error(w, "viewer: "+err.Error(), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkHost accepts host, a request's Host header, when it names the
// address local the request arrived on: the same IP address, or
// localhost when that address is a loopback one, and the same port. A
// name other than localhost is refused, whatever it resolves to: a page
// that reaches the viewer through it (DNS rebinding) is another origin.
func checkHost(host string, local net.Addr) error {
	tcp, ok := local.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("host %q: the server's address is unknown", host)
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		// No port: the scheme's default.
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
	}
	if port != strconv.Itoa(tcp.Port) {
		return fmt.Errorf("host %q is not this server's address (port %d)", host, tcp.Port)
	}
	if strings.EqualFold(strings.TrimSuffix(name, "."), "localhost") && tcp.IP.IsLoopback() {
		return nil
	}
	if ip := net.ParseIP(name); ip != nil && ip.Equal(tcp.IP) {
		return nil
	}
	return fmt.Errorf("host %q is not this server's address %s: open the viewer at http://%s/", host, tcp, tcp)
}

// sameOrigin reports whether r was not made by a page of another origin:
// a browser says so in Sec-Fetch-Site (same-site is another port of the
// same host, another origin too); a request without it is not a
// browser's, or is an old browser's, which CORS and nosniff still stop.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

func serveJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
