package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit/chromium"
	"github.com/t2sbench/t2sbench/viewer"
)

// smallSpec runs direct on two mini questions.
const smallSpec = `
name: view-small
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners: [{name: direct}]
`

// serveSmall serves the viewer of a two-question run and returns its URL
// (http://127.0.0.1:PORT) and the viewer.
func serveSmall(t *testing.T) (string, *viewer.Viewer) {
	t.Helper()
	dir := t.TempDir()
	if err := runSpec(t, smallSpec, dir); err != nil {
		t.Fatal(err)
	}
	v := openViewer(t, dir)
	srv := httptest.NewServer(v.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, v
}

// TestHostHeader: the server answers a request only when its Host is the
// address the server listens on (127.0.0.1 or localhost, with its port);
// a name that an attacker's DNS points at 127.0.0.1 (DNS rebinding), or
// another port, gets 421 Misdirected Request. A request for data that a
// browser marks as made by another origin (Sec-Fetch-Site) gets 403.
func TestHostHeader(t *testing.T) {
	t.Parallel()
	base, _ := serveSmall(t)
	port := base[strings.LastIndexByte(base, ':')+1:]
	tests := []struct {
		name, host, path, fetchSite string
		code                        int
	}{
		{"own address", "127.0.0.1:" + port, "/data/index.json", "", 200},
		{"localhost", "localhost:" + port, "/data/q/0.json", "same-origin", 200},
		{"page", "127.0.0.1:" + port, "/", "cross-site", 200},
		{"rebinding name", "evil.example:" + port, "/data/index.json", "", 421},
		{"rebinding name, page", "evil.example:" + port, "/", "", 421},
		{"rebinding name, no port", "evil.example", "/data/q/0.json", "", 421},
		{"name resolving to loopback", "127.0.0.1.nip.io:" + port, "/data/index.json", "", 421},
		{"other port", "127.0.0.1:1", "/data/index.json", "", 421},
		{"other loopback address", "127.0.0.2:" + port, "/data/index.json", "", 421},
		{"same-site page's request", "127.0.0.1:" + port, "/data/index.json", "same-site", 403},
		{"cross-site page's request", "127.0.0.1:" + port, "/data/q/0.json", "cross-site", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			if tt.fetchSite != "" {
				req.Header.Set("Sec-Fetch-Site", tt.fetchSite)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code {
				t.Errorf("GET %s with Host %q: got %s %.80q; want %d", tt.path, tt.host, resp.Status, body, tt.code)
			}
			if tt.code != 200 && strings.Contains(string(body), "view-small") {
				t.Errorf("GET %s with Host %q: refused, but the body holds the run's data: %.80q", tt.path, tt.host, body)
			}
		})
	}
}

// attackPage is a page of another origin that tries to read every data
// URL of the viewer at %[1]s: by fetch (cors and no-cors) and by
// including it as a script, with the global registration functions a
// data script of the static copy calls (T2S.index, T2S.question)
// defined to capture their argument. It reports what it read back to its
// own server (/report).
const attackPage = `<!doctype html><html><body><script>
var viewer = %[1]q, urls = %[2]s, read = [], tried = [];
window.T2S = {
  index: function (d) { read.push({how: 'script T2S.index', bytes: JSON.stringify(d).length}); },
  question: function (n, d) { read.push({how: 'script T2S.question ' + n, bytes: JSON.stringify(d).length}); }
};
function viaFetch(u, mode) {
  return fetch(viewer + u, {mode: mode}).then(function (r) { return r.text(); }).then(function (t) {
    tried.push(mode + ' ' + u);
    if (t.length > 0) read.push({how: 'fetch ' + mode + ' ' + u, bytes: t.length});
  }, function () { tried.push(mode + ' ' + u); });
}
function viaScript(u) {
  return new Promise(function (done) {
    var s = document.createElement('script');
    s.src = viewer + u;
    s.onload = s.onerror = function () { tried.push('script ' + u); done(); };
    document.head.appendChild(s);
  });
}
var all = [];
urls.forEach(function (u) { all.push(viaFetch(u, 'cors'), viaFetch(u, 'no-cors'), viaScript(u)); });
Promise.all(all).then(function () {
  return fetch('/report', {method: 'POST', body: JSON.stringify({read: read, tried: tried})});
});
</script></body></html>`

// TestBrowserCrossOriginCannotRead serves the viewer of a two-question
// run, and a page of another origin (another port of 127.0.0.1, which
// Chromium treats as same-site but cross-origin) that tries every data
// URL the viewer or its static copy has: fetch (cors, no-cors) and
// <script src> inclusion. The page reports to its own server what it
// read: nothing. The viewer's own page, served by the same server,
// renders the question from the same data.
func TestBrowserCrossOriginCannotRead(t *testing.T) {
	t.Parallel()
	browser(t)
	viewerURL, v := serveSmall(t)
	urls := []string{"/data/index.json", "/data/index.js"}
	for n := range 2 {
		urls = append(urls, fmt.Sprintf("/data/q/%d.json", n), fmt.Sprintf("/data/q/%d.js", n))
	}
	type report struct {
		Read []struct {
			How   string `json:"how"`
			Bytes int    `json:"bytes"`
		} `json:"read"`
		Tried []string `json:"tried"`
	}
	reports := make(chan report, 1)
	rawURLs, _ := json.Marshal(urls)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, attackPage, viewerURL, rawURLs)
		case "/report":
			var rep report
			if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
				t.Errorf("attack page's report: %v", err)
			}
			reports <- rep
		default:
			http.NotFound(w, r)
		}
	}))
	defer attacker.Close()
	load(t, attacker.URL+"/", chromium.LoadOptions{})
	select {
	case rep := <-reports:
		if len(rep.Tried) != 3*len(urls) {
			t.Errorf("attack page tried %d reads (%q); want %d (fetch cors, fetch no-cors, script of each data URL)", len(rep.Tried), rep.Tried, 3*len(urls))
		}
		for _, r := range rep.Read {
			t.Errorf("a page of another origin read %d bytes of viewer data by %s", r.Bytes, r.How)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the attack page sent no report within 60 s")
	}

	// The viewer's own page reads the same data, served (JSON) and from
	// a static copy (scripts), under its policy: the style sheet and the
	// bars' widths (set through the CSSOM) apply.
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	for name, base := range map[string]string{"served": viewerURL + "/", "static": pageURL(site, "")} {
		t.Run(name, func(t *testing.T) {
			p := load(t, base+"#/q/0", chromium.LoadOptions{})
			if got := waitFor(t, p, `(document.querySelector('pre.sql.gold') || {}).textContent || ''`); !strings.Contains(got, "SELECT") {
				t.Errorf("question 0 shows gold SQL %q; want the question's gold SQL", got)
			}
			p = load(t, base+"#/overview", chromium.LoadOptions{})
			got := waitFor(t, p, `document.querySelector('.bar .fill') ? getComputedStyle(document.querySelector('.bar')).width + ' ' + document.querySelector('.bar .fill').style.width : ''`)
			if !strings.HasPrefix(got, "160px ") || strings.HasSuffix(got, " ") {
				t.Errorf("EX bar: width and fill %q; want 160px (app.css) and the fill's width", got)
			}
		})
	}
}

// waitFor evaluates expr in page p until it gives a non-empty string (up
// to 60 s) and returns it.
func waitFor(t *testing.T, p *chromium.Page, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var got string
	for ctx.Err() == nil {
		if err := p.Eval(ctx, expr, &got); err != nil {
			t.Fatal(err)
		}
		if got != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return got
}
