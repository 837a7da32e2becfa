package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit/chromium"
	"github.com/t2sbench/t2sbench/viewer"
)

// The browser tests drive one headless Chromium per test binary (the
// `chromium` package; .ci/run installs it) over the DevTools protocol
// (internal/testkit/chromium): each page, a static copy opened from
// file://, is a new tab of it, whose rendered DOM the tests read. They
// skip when no Chromium is installed. Screenshots are taken only when
// $T2S_VIEW_SHOTS names a directory to write them to.

// pageBudget is the virtual-time budget of a page: the page runs until it
// has nothing left to do (its scripts loaded) or this much virtual time
// has passed, as with --virtual-time-budget.
const pageBudget = 5 * time.Second

var (
	browserOnce sync.Once
	browserB    *chromium.Browser
	browserErr  error
)

// browser returns the test binary's Chromium, started by the first test
// that asks (closed by TestMain), or skips t when none is installed.
func browser(t testing.TB) *chromium.Browser {
	t.Helper()
	bin, err := chromium.Find()
	if err != nil {
		t.Skipf("%v; skipping browser test", err)
	}
	browserOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		browserB, browserErr = chromium.Start(ctx, bin)
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserB
}

// closeBrowser ends the test binary's Chromium, if one was started.
func closeBrowser() {
	if browserB != nil {
		browserB.Close()
	}
}

// load opens url in a new tab of the test binary's Chromium with opt; the
// tab is closed when the test ends, if not before.
func load(t testing.TB, url string, opt chromium.LoadOptions) *chromium.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := browser(t).Load(ctx, url, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// domOf returns the serialized DOM of page p and closes p.
func domOf(t testing.TB, p *chromium.Page) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dom, err := p.DOM(ctx)
	p.Close()
	if err != nil {
		t.Fatal(err)
	}
	return dom
}

// dumpDOM loads url on virtual time (pageBudget) and returns its DOM, as
// `chromium --dump-dom --virtual-time-budget` prints it.
func dumpDOM(t testing.TB, url string) string {
	t.Helper()
	return domOf(t, load(t, url, chromium.LoadOptions{VirtualTime: pageBudget}))
}

// screenshot writes a w x h PNG of url to $T2S_VIEW_SHOTS/name; without
// $T2S_VIEW_SHOTS it does nothing.
func screenshot(t testing.TB, url, name string, w, h int) {
	t.Helper()
	dir := os.Getenv("T2S_VIEW_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := load(t, url, chromium.LoadOptions{VirtualTime: pageBudget, Width: w, Height: h})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", file)
}

// element is one start tag of a serialized DOM.
type element struct {
	name  string
	attrs map[string]string
}

func (e element) class(c string) bool {
	for _, f := range strings.Fields(e.attrs["class"]) {
		if f == c {
			return true
		}
	}
	return false
}

// elements scans the start tags of serialized HTML. Text and attribute
// values arrive escaped (< as &lt; in text, " as &quot; in values), so a
// start tag here is a real element, and its attributes are real
// attributes.
func elements(dom string) []element {
	var out []element
	isName := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_'
	}
	for i := 0; i+1 < len(dom); i++ {
		if dom[i] != '<' || !(dom[i+1] >= 'a' && dom[i+1] <= 'z' || dom[i+1] >= 'A' && dom[i+1] <= 'Z') {
			continue
		}
		j := i + 1
		for j < len(dom) && isName(dom[j]) {
			j++
		}
		e := element{name: strings.ToLower(dom[i+1 : j]), attrs: map[string]string{}}
		for j < len(dom) && dom[j] != '>' {
			if c := dom[j]; c == ' ' || c == '\n' || c == '\t' || c == '/' {
				j++
				continue
			}
			k := j
			for k < len(dom) && !strings.ContainsRune(" \t\n=>/", rune(dom[k])) {
				k++
			}
			name, val := strings.ToLower(dom[j:k]), ""
			if k < len(dom) && dom[k] == '=' {
				k++
				if k < len(dom) && (dom[k] == '"' || dom[k] == '\'') {
					q := dom[k]
					end := strings.IndexByte(dom[k+1:], q)
					if end < 0 {
						end = len(dom) - k - 1
					}
					val = dom[k+1 : k+1+end]
					k += end + 2
				} else {
					s := k
					for k < len(dom) && !strings.ContainsRune(" \t\n>", rune(dom[k])) {
						k++
					}
					val = dom[s:k]
				}
			}
			e.attrs[name] = html.UnescapeString(val)
			j = max(k, j+1)
		}
		out = append(out, e)
		i = j
	}
	return out
}

func count(els []element, pred func(element) bool) int {
	n := 0
	for _, e := range els {
		if pred(e) {
			n++
		}
	}
	return n
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// text is the visible text of serialized HTML (tags removed, entities
// decoded).
func text(dom string) string { return html.UnescapeString(tagRE.ReplaceAllString(dom, " ")) }

// pageURL is the file:// URL of the static copy's page with a hash route.
func pageURL(dir, route string) string {
	abs, _ := filepath.Abs(filepath.Join(dir, viewer.IndexFile))
	return "file://" + abs + route
}

// TestBrowserViews opens the static copy of the mini run in Chromium:
// every view renders what the data says (and, with $T2S_VIEW_SHOTS, the
// screenshots show it).
func TestBrowserViews(t *testing.T) {
	t.Parallel()
	browser(t)
	dir := miniRun(t)
	v := openViewer(t, dir)
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	idx := v.Index()
	q0, err := v.Question(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("overview", func(t *testing.T) {
		t.Parallel()
		dom := dumpDOM(t, pageURL(site, "#/overview"))
		els := elements(dom)
		if n := count(els, func(e element) bool { return e.name == "tr" && e.class("click") }); n != len(idx.Trials) {
			t.Errorf("got %d trial rows; want %d", n, len(idx.Trials))
		}
		txt := text(dom)
		for _, tr := range idx.Trials {
			want := fmt.Sprintf("%.1f%%", 100*tr.EX)
			if !strings.Contains(txt, tr.Label) || !strings.Contains(txt, want) {
				t.Errorf("overview lacks trial %s with EX %s", tr.Label, want)
			}
		}
		if !strings.Contains(txt, "viewer-mini (simulated model)") {
			t.Errorf("overview lacks the simulated-model title")
		}
		screenshot(t, pageURL(site, "#/overview"), "overview.png", 1400, 900)
	})

	t.Run("questions filter", func(t *testing.T) {
		t.Parallel()
		want := 0
		for _, r := range idx.Questions {
			if c := r.Outcome[tCot]; c == 'W' || c == 'F' {
				want++
			}
		}
		dom := dumpDOM(t, pageURL(site, fmt.Sprintf("#/questions?trial=%d&outcome=wrong", tCot)))
		n := count(elements(dom), func(e element) bool { return e.name == "tr" && e.attrs["data-n"] != "" })
		if n != want || want == 0 {
			t.Errorf("got %d rows for cot wrong; want %d (> 0)", n, want)
		}
		if !strings.Contains(text(dom), fmt.Sprintf("%d of %d questions", want, len(idx.Questions))) {
			t.Errorf("count line missing %d of %d", want, len(idx.Questions))
		}
		screenshot(t, pageURL(site, "#/questions"), "questions.png", 1400, 900)
	})

	t.Run("mcts tree", func(t *testing.T) {
		t.Parallel()
		it := q0.Items[tAlpha]
		want := chosenNodes(t, it)
		if want < 2 {
			t.Fatalf("expected a chosen path of at least root and terminal; got %d nodes", want)
		}
		route := fmt.Sprintf("#/q/0?trial=%d", tAlpha)
		dom := dumpDOM(t, pageURL(site, route))
		els := elements(dom)
		if n := count(els, func(e element) bool { return e.name == "div" && e.class("node") && e.class("chosen") }); n != want {
			t.Errorf("got %d highlighted nodes; want %d (the paths to the visited terminals with the final SQL)", n, want)
		}
		if !strings.Contains(text(dom), "ROOT") || !strings.Contains(text(dom), "Q=") {
			t.Errorf("tree lacks the root line with Q and N")
		}
		screenshot(t, pageURL(site, route), "mcts-alphasql.png", 1400, 2400)
	})

	t.Run("iesr", func(t *testing.T) {
		t.Parallel()
		trajs, _ := q0.Items[tIESR].Trace.Data["trajectories"].([]any)
		route := fmt.Sprintf("#/q/0?trial=%d", tIESR)
		dom := dumpDOM(t, pageURL(site, route))
		if !strings.Contains(dom, `id="iesr"`) || !strings.Contains(text(dom), "disc_conf") {
			t.Fatalf("IESR section missing")
		}
		sec := dom[strings.Index(dom, `id="iesr"`):]
		sec = sec[:strings.Index(sec, "</table>")]
		if n := strings.Count(sec, "<tr") - 1; n != len(trajs) || n == 0 {
			t.Errorf("got %d trajectory rows; want %d (> 0)", n, len(trajs))
		}
		if n := count(elements(sec), func(e element) bool { return e.name == "span" && e.class("stack") }); n != len(trajs) {
			t.Errorf("got %d score-part bars; want %d", n, len(trajs))
		}
		screenshot(t, pageURL(site, route), "mcts-iesr.png", 1400, 2400)
	})

	t.Run("react", func(t *testing.T) {
		t.Parallel()
		n := -1
		var turns, compiled int
		for i := 0; i < v.Questions(); i++ {
			q, err := v.Question(context.Background(), i, nil)
			if err != nil {
				t.Fatal(err)
			}
			turns, compiled = 0, 0
			for _, s := range q.Items[tReact].Trace.Steps {
				if s.Action == "turn" {
					turns++
					c, _ := s.Info["compiled_sql"].([]any)
					compiled += len(c)
				}
			}
			if turns >= 3 && compiled > 0 {
				n = i
				break
			}
		}
		if n < 0 {
			t.Fatal("no question with three ReAct turns")
		}
		route := fmt.Sprintf("#/q/%d?trial=%d", n, tReact)
		dom := dumpDOM(t, pageURL(site, route))
		els := elements(dom)
		if got := count(els, func(e element) bool { return e.attrs["data-turn"] != "" }); got != turns {
			t.Errorf("question %d: got %d turns shown; want %d", n, got, turns)
		}
		if got := count(els, func(e element) bool { return e.name == "pre" && e.class("compiled") }); got != compiled {
			t.Errorf("question %d: got %d compiled SQL shown; want %d", n, got, compiled)
		}
		if !strings.Contains(text(dom), "observation:") || !strings.Contains(text(dom), "compiled SQL of the answer") {
			t.Errorf("ReAct view lacks observations or the compiled SQL")
		}
		screenshot(t, pageURL(site, route), "react.png", 1400, 2000)
	})

	t.Run("steiner", func(t *testing.T) {
		t.Parallel()
		it := q0.Items[tSteiner]
		raw, _ := json.Marshal(it.Trace.Data["scaffold"])
		var sc struct {
			Terminals []string `json:"terminals"`
			Edges     []any    `json:"edges"`
		}
		json.Unmarshal(raw, &sc)
		route := fmt.Sprintf("#/q/0?trial=%d", tSteiner)
		dom := dumpDOM(t, pageURL(site, route))
		els := elements(dom)
		if n := count(els, func(e element) bool { return e.name == "circle" }); n != len(q0.Schema.Tables) {
			t.Errorf("got %d tables drawn; want %d", n, len(q0.Schema.Tables))
		}
		if n := count(els, func(e element) bool { return e.name == "circle" && e.attrs["class"] == "terminal" }); n != len(sc.Terminals) || n == 0 {
			t.Errorf("got %d terminals drawn; want %d (> 0)", n, len(sc.Terminals))
		}
		if n := count(els, func(e element) bool { return e.name == "line" && e.attrs["class"] == "tree-edge" }); n != len(sc.Edges) {
			t.Errorf("got %d Steiner tree edges drawn; want %d", n, len(sc.Edges))
		}
		if !strings.Contains(dom, `id="validation"`) {
			t.Errorf("validation table missing")
		}
		screenshot(t, pageURL(site, route), "steiner.png", 1400, 1800)
	})

	t.Run("disagreements", func(t *testing.T) {
		t.Parallel()
		var p viewer.Pair
		for _, x := range idx.Pairs {
			if x.A == tDirect && x.B == tAlpha {
				p = x
			}
		}
		route := fmt.Sprintf("#/disagree?a=%d&b=%d", tDirect, tAlpha)
		dom := dumpDOM(t, pageURL(site, route))
		if n := count(elements(dom), func(e element) bool { return e.name == "div" && e.class("disc-entry") }); n != p.OnlyA+p.OnlyB || n == 0 {
			t.Errorf("got %d discordant questions; want %d + %d (> 0)", n, p.OnlyA, p.OnlyB)
		}
		if !strings.Contains(text(dom), fmt.Sprintf("McNemar p = %.3g", p.P)) {
			t.Errorf("McNemar p %.3g not shown", p.P)
		}
		screenshot(t, pageURL(site, route), "disagreements.png", 1400, 1600)
	})

	t.Run("model calls", func(t *testing.T) {
		t.Parallel()
		want := 0
		for _, tr := range idx.Trials {
			want += len(tr.Usage) + 1
		}
		dom := dumpDOM(t, pageURL(site, "#/calls"))
		sec := dom[strings.Index(dom, `id="calls"`):]
		if n := strings.Count(sec, "<tr") - 1; n != want {
			t.Errorf("got %d usage rows; want %d", n, want)
		}
	})
}

// chosenNodes counts the nodes the page must highlight: the paths from the
// root to the visited terminals whose SQL is the item's final SQL.
func chosenNodes(t *testing.T, it viewer.QuestItem) int {
	raw, err := json.Marshal(it.Trace.Data["tree"])
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Nodes []struct {
			ID, Parent, Visits int
			Terminal           bool
			Info               map[string]any
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	on := map[int]bool{}
	for _, n := range tree.Nodes {
		if n.Terminal && n.Visits > 0 && n.Info["sql"] == it.SQL {
			for id := n.ID; id >= 0; id = tree.Nodes[id].Parent {
				on[id] = true
			}
		}
	}
	return len(on)
}

// TestBrowserShowsMarkupAsText: a question, a model answer, a label, a
// verdict error and a call-log error holding <script>, an <img onerror>
// and an attribute injection render as text on every view.
func TestBrowserShowsMarkupAsText(t *testing.T) {
	t.Parallel()
	browser(t)
	v := openViewerWith(t, hostileBenchmark, injectionRun(t))
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{"#/overview", "#/questions", "#/q/0?trial=0", "#/q/0?trial=1", "#/q/0?trial=0&calls=all", "#/disagree?a=0&b=1", "#/calls"} {
		t.Run(route, func(t *testing.T) {
			t.Parallel()
			dom := dumpDOM(t, pageURL(site, route))
			els := elements(dom)
			for _, e := range els {
				if e.name == "img" {
					t.Errorf("an <img> element was created from the data")
				}
				for a := range e.attrs {
					if strings.HasPrefix(a, "on") {
						t.Errorf("<%s> has an event attribute %s=%q", e.name, a, e.attrs[a])
					}
				}
				if e.name == "script" && !map[string]bool{"app.js": true, "data/index.js": true, "data/q/0.js": true}[e.attrs["src"]] {
					t.Errorf("unexpected <script> element %v", e.attrs)
				}
			}
			txt := text(dom)
			if strings.Contains(dom, "<title>pwned</title>") {
				t.Errorf("the payload ran: the title was changed")
			}
			if !strings.Contains(txt, payload) {
				t.Errorf("the payload is not shown as text on %s", route)
			}
		})
	}
	dom := dumpDOM(t, pageURL(site, "#/q/0?trial=0&calls=all"))
	for _, want := range []string{"prompt " + payload, "system " + payload, "answer " + payload, "finish: " + payload} {
		if !strings.Contains(text(dom), want) {
			t.Errorf("model calls: %q not shown as text", want)
		}
	}
	screenshot(t, pageURL(site, "#/q/0?trial=0"), "injection.png", 1400, 1400)
}
