package viewer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutSpec runs direct on two mini questions with sim answering in the
// realistic style, every sample cut at the token limit (finish_reason
// "length") and carrying reasoning.
const cutSpec = `
name: calls-cut
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 7, style: realistic, cut_rate: 1, reasoning_rate: 1}}
roles: {reason: sim}
runners: [{name: direct}]
`

// TestBrowserModelCalls opens a question's Model calls view in Chromium
// (every call and message open, #/q/0?calls=all): each call of the call
// log is shown with its messages' text and its answer as the question
// file holds them, the cut answer marked as cut, and the cache state.
func TestBrowserModelCalls(t *testing.T) {
	t.Parallel()
	browser(t)
	dir := t.TempDir()
	if err := runSpec(t, cutSpec, dir); err != nil {
		t.Fatal(err)
	}
	v := openViewer(t, dir)
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(site, "data", "q", "0.js"))
	if err != nil {
		t.Fatal(err)
	}
	q := questionFile(t, raw)
	if len(q.Items) != 1 || len(q.Items[0].Calls) == 0 {
		t.Fatalf("question file items %+v; want one item with calls", q.Items)
	}
	calls := q.Items[0].Calls
	route := "#/q/0?trial=0&calls=all"
	dom := dumpDOM(t, pageURL(site, route))
	els := elements(dom)
	if n := count(els, func(e element) bool { return e.name == "details" && e.class("call") }); n != len(calls) {
		t.Errorf("got %d calls shown; want %d from the call log", n, len(calls))
	}
	txt := text(dom)
	msgs, cut := 0, 0
	for _, c := range calls {
		for _, m := range c.Messages {
			msgs++
			// The page shows the text as it is (pre keeps whitespace).
			if !strings.Contains(txt, m.Text(q.Texts)) {
				t.Errorf("message %s %.80q not shown", m.Role, m.Text(q.Texts))
			}
		}
		for _, s := range c.Samples {
			if s.Finish == "length" {
				cut++
			}
			if s.Answer != "" && !strings.Contains(txt, s.Answer) {
				t.Errorf("answer %.80q not shown", s.Answer)
			}
		}
	}
	if msgs == 0 || cut == 0 {
		t.Fatalf("question file has %d messages and %d cut samples; want both > 0 (cut_rate 1)", msgs, cut)
	}
	if n := count(els, func(e element) bool { return e.name == "div" && e.class("sample") && e.class("cut") }); n != cut {
		t.Errorf("got %d samples marked cut; want %d", n, cut)
	}
	if n := strings.Count(txt, "finish: length (cut)"); n != cut {
		t.Errorf("got %d \"finish: length (cut)\" badges; want %d", n, cut)
	}
	if n := count(els, func(e element) bool { return e.name == "span" && (e.class("cache-hit") || e.class("cache-miss")) }); n != len(calls) {
		t.Errorf("got %d cache badges; want one per call (%d)", n, len(calls))
	}
	if n := count(els, func(e element) bool { return e.name == "span" && e.class("role-user") }); n == 0 {
		t.Error("no user message shown")
	}
	screenshot(t, pageURL(site, route), "model-calls.png", 1400, 1600)
}
