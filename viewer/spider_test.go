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
	"github.com/t2sbench/t2sbench/internal/testkit/chromium"
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

// perfTimes names the timing figures, in milliseconds, that the page
// writes under ?perf=1 (perfFigures).
var perfTimes = []string{"overview_ms", "questions_ms", "filter_ms", "disagree_ms", "overview_again_ms", "question_ms"}

// perfFigures opens the static copy in site with ?perf=1 on the page's
// own clock (no virtual time): the page times, with the browser's clock
// (performance.now(), navigation timing), the opening of the overview,
// the questions table, a filter, the disagreement view and one question,
// and writes the figures into <pre id="perf">, which perfFigures reads.
// The question file is loaded before the load event, so the figures are
// there when the page has loaded.
func perfFigures(t testing.TB, site string) map[string]float64 {
	t.Helper()
	dom := domOf(t, load(t, pageURL(site, "?perf=1#/overview"), chromium.LoadOptions{}))
	i := strings.Index(dom, `<pre id="perf">`)
	if i < 0 {
		t.Fatalf("no perf figures in the DOM: %.300s", dom)
	}
	raw := text(dom[i : i+strings.Index(dom[i:], "</pre>")+6])
	var perf map[string]float64
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &perf); err != nil {
		t.Fatalf("perf figures %q: %v", raw, err)
	}
	return perf
}

// TestBrowserPerfProbe opens the mini run's static copy with ?perf=1: the
// page writes its timing figures, having seen every question and trial
// and as many rows under the filter (trial 0's wrong answers) as the index
// holds. BenchmarkSpiderOpen reads the same figures on Spider dev.
func TestBrowserPerfProbe(t *testing.T) {
	t.Parallel()
	browser(t)
	v := openViewer(t, miniRun(t))
	site := t.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	idx := v.Index()
	wrong := 0
	for _, r := range idx.Questions {
		if c := r.Outcome[0]; c == 'W' || c == 'F' {
			wrong++
		}
	}
	perf := perfFigures(t, site)
	if perf["questions"] != float64(len(idx.Questions)) || perf["trials"] != float64(len(idx.Trials)) || perf["filter_rows"] != float64(wrong) {
		t.Errorf("page saw %v questions, %v trials, %v filtered rows; want %d, %d, %d", perf["questions"], perf["trials"], perf["filter_rows"], len(idx.Questions), len(idx.Trials), wrong)
	}
	for _, k := range perfTimes {
		if _, ok := perf[k]; !ok {
			t.Errorf("perf figures %v lack %s", perf, k)
		}
	}
}

// BenchmarkSpiderOpen builds the Spider dev run (1,034 questions x 7
// trials, about 20 s on two cores; $T2S_VIEW_SPIDER_RUN names a run
// directory to build into or reuse), writes its static viewer and opens
// it in Chromium with ?perf=1 (perfFigures) once per iteration; it
// reports the browser's own figures per open: overview_ms (ms from
// navigation start until the overview is drawn), questions_ms (the
// questions table), filter_ms, disagree_ms, overview_again_ms and
// question_ms (one question loaded and drawn). It fails unless every
// question and trial arrived. It needs the shared Spider data and
// Chromium:
//
//	go test ./viewer -run '^$' -bench SpiderOpen -benchtime 3x
func BenchmarkSpiderOpen(b *testing.B) {
	spider := testenv.Datasets(b, "spider")
	browser(b)
	dir := os.Getenv("T2S_VIEW_SPIDER_RUN")
	if dir == "" {
		dir = b.TempDir()
	}
	start := time.Now()
	if err := runSpec(b, fmt.Sprintf(spiderSpec, spider), dir); err != nil {
		b.Fatal(err)
	}
	b.Logf("run: %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	v := openViewer(b, dir)
	if n := v.Questions(); n != 1034 || len(v.Index().Trials) != 7 {
		b.Fatalf("got %d questions, %d trials; want 1034 (Spider dev) and 7", n, len(v.Index().Trials))
	}
	site := b.TempDir()
	if err := v.WriteStatic(context.Background(), site); err != nil {
		b.Fatal(err)
	}
	idxInfo, _ := os.Stat(filepath.Join(site, "data", "index.js"))
	b.Logf("static copy: %s (data/index.js %d KB)", time.Since(start).Round(time.Millisecond), idxInfo.Size()/1024)
	screenshot(b, pageURL(site, "#/questions"), "spider-questions.png", 1400, 1000)
	screenshot(b, pageURL(site, "#/overview"), "spider-overview.png", 1400, 700)

	sum := map[string]float64{}
	n := 0
	// b.Loop runs this function once, so the run above is built once.
	for b.Loop() {
		perf := perfFigures(b, site)
		if perf["questions"] != 1034 || perf["trials"] != 7 {
			b.Fatalf("page saw %v questions, %v trials; want 1034 and 7", perf["questions"], perf["trials"])
		}
		for _, k := range perfTimes {
			sum[k] += perf[k]
		}
		n++
	}
	for _, k := range perfTimes {
		b.ReportMetric(sum[k]/float64(n), k)
	}
}
