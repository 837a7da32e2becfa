package reports

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/t2sbench/t2sbench/internal/golden"
	"github.com/t2sbench/t2sbench/runstore"
)

// buildFixture writes the synthetic run and builds its report.
func buildFixture(t *testing.T, backend string) (*Report, string) {
	t.Helper()
	dir := t.TempDir()
	writeFixtureRun(t, dir, backend)
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	run.Dir = "runs/fixture" // the golden files do not depend on the temp dir
	r, err := Build([]*runstore.RunData{run}, fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// checkGolden compares got with testdata/golden/name, rewriting it under
// -update (internal/golden).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}

func TestGoldenTables(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	wantIDs := []string{"ex-by-system", "ex-by-difficulty-mini", "ex-by-reasoning-type-mini", "pairwise-mini", "ablation-iesr-mini", "efficiency", "efficiency-roles", "ex-and-turns-by-difficulty-mini", "validation-rates"}
	var ids []string
	for _, tb := range r.Tables {
		ids = append(ids, tb.ID)
	}
	if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
		t.Fatalf("tables = %v; want %v", ids, wantIDs)
	}
	for _, tb := range r.Tables {
		for _, f := range []struct {
			ext   string
			write func(*Table, *bytes.Buffer) error
		}{
			{"txt", func(t *Table, b *bytes.Buffer) error { return t.WriteTerminal(b) }},
			{"md", func(t *Table, b *bytes.Buffer) error { return t.WriteMarkdown(b) }},
			{"tex", func(t *Table, b *bytes.Buffer) error { return t.WriteLaTeX(b) }},
			{"csv", func(t *Table, b *bytes.Buffer) error { return t.WriteCSV(b) }},
		} {
			t.Run(tb.ID+"."+f.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := f.write(tb, &b); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, tb.ID+"."+f.ext, b.Bytes())
			})
		}
	}
}

// distinctShare decodes a PNG and returns its size, its number of distinct
// colours and the share of pixels that differ from the most common colour
// (the background).
func distinctShare(t *testing.T, data []byte) (w, h, colours int, share float64) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	b := img.Bounds()
	counts := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r, g, bl, a}]++
		}
	}
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	total := b.Dx() * b.Dy()
	return b.Dx(), b.Dy(), len(counts), float64(total-most) / float64(total)
}

func TestFiguresProducedAndNotBlank(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	var ids []string
	for _, f := range r.Figures {
		ids = append(ids, f.ID)
	}
	// The pairwise differences, one sweep (alphasql n_rollout), one
	// simplex grid, the heat maps of the fixture's 17 systems in pages of
	// heatmapPanelRows rows of two panels, two Pareto plots (not every
	// model priced: generated tokens), validation rates.
	want := []string{"pairwise-delta-mini", "ex-vs-n-rollout-alphasql-mini", "ex-over-alpha-beta-iesr-grid-mini",
		"ex-by-difficulty-and-type-mini-p1", "ex-by-difficulty-and-type-mini-p2", "ex-by-difficulty-and-type-mini-p3",
		"pareto-ex-vs-gen-tokens", "pareto-ex-vs-latency", "validation-rates"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("figures = %v;\nwant %v", ids, want)
	}
	panels := 0
	for _, f := range r.Figures {
		panels += len(f.panels)
	}
	if panels != 17 {
		t.Errorf("heat-map panels = %d; want 17 (every system of the fixture)", panels)
	}
	for _, f := range r.Figures {
		if !strings.Contains(f.Title, "(simulated model)") {
			t.Errorf("figure %s title %q does not say simulated model", f.ID, f.Title)
		}
		// The blank check at 72 dpi: a 300-dpi PNG costs 17 times the
		// pixels and shows the same marks (TestPNGResolution checks the
		// resolution).
		data, err := f.renderPNG(72)
		if err != nil {
			t.Fatal(err)
		}
		w, h, colours, share := distinctShare(t, data)
		// 4.5in x 3in or larger at 72 dots per inch.
		if w < 324 || h < 216 {
			t.Errorf("%s: %dx%d pixels; want at least 324x216 (72 dpi)", f.ID, w, h)
		}
		// A blank image has one colour; a plot has axes, text and marks
		// in several colours covering at least 1% of the canvas.
		if colours < 3 || share < 0.01 {
			t.Errorf("%s: %d colours, %.4f of pixels off the background; want >= 3 colours and >= 0.01", f.ID, colours, share)
		}
		svg, err := f.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) || len(svg) < 2000 {
			t.Errorf("%s: svg of %d bytes does not look like a plot", f.ID, len(svg))
		}
	}
}

// TestPNGResolution checks that a PNG is drawn at pngDPI (300) dots per
// inch, its pixel size the figure's size in inches times 300, and that
// two renderings give the same bytes.
func TestPNGResolution(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	var f *Figure
	for _, g := range r.Figures {
		if g.ID == "validation-rates" {
			f = g
		}
	}
	if f == nil {
		t.Fatal("no validation-rates figure")
	}
	data, err := f.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(math.Ceil(float64(f.width/vg.Inch)*300)), int(math.Ceil(float64(f.height/vg.Inch)*300))
	if abs(cfg.Width-wantW) > 1 || abs(cfg.Height-wantH) > 1 {
		t.Errorf("png %dx%d pixels; want %dx%d (%.2fx%.2f in at 300 dpi)", cfg.Width, cfg.Height, wantW, wantH, float64(f.width/vg.Inch), float64(f.height/vg.Inch))
	}
	again, err := f.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("two renderings of the png differ; want the same bytes")
	}
}

func abs(x int) int { return max(x, -x) }

func TestParetoFront(t *testing.T) {
	// Points (cost, EX): B dominates A (cheaper and better); C is more
	// expensive and better than B; D is dominated by C.
	xs := []float64{2, 1, 3, 4}
	ys := []float64{50, 60, 70, 65}
	got := paretoFront(xs, ys)
	want := []int{1, 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("paretoFront = %v; want %v", got, want)
	}
}

func TestWriteFilesDeterministic(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	// Every format but the 300-dpi PNGs, which TestPNGResolution renders
	// twice for one figure: they are drawn by the same code as the SVGs
	// and cost most of the time.
	formats, err := ParseFormats("md,tex,csv,svg,pdf")
	if err != nil {
		t.Fatal(err)
	}
	out1, out2 := t.TempDir(), t.TempDir()
	files1, err := r.WriteFiles(out1, formats)
	if err != nil {
		t.Fatal(err)
	}
	// A second report built from scratch from the same run directory.
	r2, _ := buildFixture(t, "sim")
	files2, err := r2.WriteFiles(out2, formats)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files1, "\n") != strings.Join(files2, "\n") {
		t.Fatalf("file lists differ:\n%v\n%v", files1, files2)
	}
	for _, f := range files1 {
		a, _ := os.ReadFile(filepath.Join(out1, f))
		b, _ := os.ReadFile(filepath.Join(out2, f))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: %d and %d bytes, identical=%v; want identical non-empty files", f, len(a), len(b), bytes.Equal(a, b))
		}
	}
	md, err := os.ReadFile(filepath.Join(out1, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files1 {
		if f != ReportFile && !bytes.Contains(md, []byte("("+f+")")) {
			t.Errorf("report.md does not link %s", f)
		}
	}
	if !bytes.HasPrefix(md, []byte("# fixture (simulated model)\n")) {
		t.Errorf("report.md starts %q; want the simulated-model title", md[:min(len(md), 60)])
	}
}
