package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// spiderSpec is a Spider dev run of 7 cheap trials (direct, cot and sc at
// five sample counts) with the sim model: 1,034 questions x 7 trials.
const spiderSpec = `
name: viewer-spider
benchmarks:
  - name: spider
    data: %q
models:
  sim: {backend: sim, p: 0.6, seed: 3}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
    sweep: {k: [2, 3, 4, 6, 8]}
seeds: [0]
workers: 4
`

// TestSpiderOpenTime builds the Spider dev run, writes its static viewer
// and opens it in Chromium with ?perf=1: the page times, with the
// browser's own clock (performance.now(), navigation timing), the opening
// of the overview, the questions table, a filter, the disagreement view
// and one question, and writes the figures into the DOM. The test logs
// them; it asserts no time (a shared machine's load decides them), only
// that every question and trial arrived.
//
// It needs the shared Spider data and Chromium, and takes about 30 s on
// two cores (the run 18 s, the static copy 3 s): it is skipped with -short.
func TestSpiderOpenTime(t *testing.T) {
	if testing.Short() {
		t.Skip("Spider dev viewer timing (about 30 s); skipped with -short")
	}
	spider := testenv.Datasets(t, "spider")
	chromiumPath(t)
	dir := os.Getenv("T2S_VIEW_SPIDER_RUN") // reuse a run built before, when given
	if dir == "" {
		dir = t.TempDir()
	}
	start := time.Now()
	if err := runSpec(t, fmt.Sprintf(spiderSpec, spider), dir); err != nil {
		t.Fatal(err)
	}
	t.Logf("run: %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	v := openViewer(t, dir)
	if n := v.Questions(); n != 1034 || len(v.Index().Trials) != 7 {
		t.Fatalf("got %d questions, %d trials; want 1034 (Spider dev) and 7", n, len(v.Index().Trials))
	}
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	idxInfo, _ := os.Stat(filepath.Join(site, "data", "index.js"))
	t.Logf("static copy: %s (data/index.js %d KB)", time.Since(start).Round(time.Millisecond), idxInfo.Size()/1024)

	// No virtual time here: the page's clock must be the real one. The
	// question file is loaded before the load event, so --dump-dom sees
	// the figures.
	dom := browse(t, pageURL(site, "?perf=1#/overview"), 0, "--dump-dom")
	i := strings.Index(dom, `<pre id="perf">`)
	if i < 0 {
		t.Fatalf("no perf figures in the DOM: %.300s", dom)
	}
	raw := text(dom[i : i+strings.Index(dom[i:], "</pre>")+6])
	var perf map[string]float64
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &perf); err != nil {
		t.Fatalf("perf figures %q: %v", raw, err)
	}
	if perf["questions"] != 1034 || perf["trials"] != 7 {
		t.Errorf("page saw %v questions, %v trials; want 1034 and 7", perf["questions"], perf["trials"])
	}
	t.Logf("Spider dev, 1,034 questions x 7 trials, browser timing (ms since navigation start unless noted): "+
		"overview rendered at %.0f; questions table %.0f ms; filter %.0f ms (%v rows); disagreements %.0f ms; overview again %.0f ms; one question loaded and drawn %.0f ms",
		perf["overview_ms"], perf["questions_ms"], perf["filter_ms"], perf["filter_rows"], perf["disagree_ms"], perf["overview_again_ms"], perf["question_ms"])
	if d := os.Getenv("T2S_VIEW_SHOTS"); d != "" {
		screenshot(t, pageURL(site, "#/questions"), filepath.Join(shotsDir(t), "spider-questions.png"), 1400, 1000)
		screenshot(t, pageURL(site, "#/overview"), filepath.Join(shotsDir(t), "spider-overview.png"), 1400, 700)
	}
}
