package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestSameStylePerSystemAcrossPlots checks that every plot of a report
// draws a system in the same colour (and marker, where it draws markers),
// as the plotters were built (Figure.drawn), and that no two systems share
// both colour and marker.
func TestSameStylePerSystemAcrossPlots(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	seen := map[string]drawnStyle{}
	from := map[string]string{}
	figs := 0
	for _, f := range r.Figures {
		if len(f.drawn) == 0 {
			continue
		}
		figs++
		for name, st := range f.drawn {
			prev, ok := seen[name]
			if !ok {
				seen[name], from[name] = st, f.ID
				continue
			}
			if !sameColor(prev.color, st.color) {
				t.Errorf("system %q: %s draws colour %v; got %v in %s; want one colour", name, from[name], prev.color, st.color, f.ID)
			}
			if prev.marker != nil && st.marker != nil && prev.marker != st.marker {
				t.Errorf("system %q: %s draws marker %T; got %T in %s; want one marker", name, from[name], prev.marker, st.marker, f.ID)
			}
			if prev.marker == nil {
				seen[name] = drawnStyle{prev.color, st.marker}
			}
		}
	}
	// The fixture's pairwise differences, both Pareto plots and the
	// validation rates draw systems.
	if figs < 4 {
		t.Errorf("%d figures record the systems they draw; want at least 4", figs)
	}
	pairs := map[string]string{}
	for name, st := range seen {
		k := fmt.Sprintf("%v %T", st.color, st.marker)
		if other, ok := pairs[k]; ok {
			t.Errorf("systems %q and %q share colour and marker %s", name, other, k)
		}
		pairs[k] = name
	}
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// TestReportStylesCycle checks reportStyles' assignment: the i-th system
// takes colour i mod 8 and marker (i + i/8) mod 8, and a repeated name
// keeps its first style.
func TestReportStylesCycle(t *testing.T) {
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	st := reportStyles(append(names, "s3"))
	for i, n := range names {
		if got, want := st[n].Color, okabeIto[i%8]; got != want {
			t.Errorf("%s colour = %v; want %v", n, got, want)
		}
		if got, want := st[n].Marker, markers[(i+i/8)%8]; got != want {
			t.Errorf("%s marker = %T; want %T", n, got, want)
		}
	}
}

// pdfPages counts the page objects of a PDF ("/Type /Page", not
// "/Type /Pages").
var pdfPages = regexp.MustCompile(`/Type /Page[^s]`)

// TestPlotsAsPDF checks that every figure renders to a PDF of one page
// with vector drawing operators (path construction and painting, not one
// embedded image), and that the bytes do not depend on the clock.
func TestPlotsAsPDF(t *testing.T) {
	r, _ := buildFixture(t, "sim")
	for _, f := range r.Figures[:3] {
		data, err := f.Render("pdf")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("%PDF-")) {
			t.Errorf("%s: pdf starts %q; want %%PDF-", f.ID, data[:min(8, len(data))])
		}
		if n := len(pdfPages.FindAll(data, -1)); n != 1 {
			t.Errorf("%s: pdf has %d pages; want 1", f.ID, n)
		}
		if bytes.Contains(data, []byte("/Subtype /Image")) {
			t.Errorf("%s: pdf embeds an image; want vector content", f.ID)
		}
		if !bytes.Contains(data, []byte("/CreationDate (D:20000101000000)")) {
			t.Errorf("%s: pdf creation date is not the fixed one", f.ID)
		}
		again, err := f.Render("pdf")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, again) {
			t.Errorf("%s: two renderings differ; want the same bytes", f.ID)
		}
	}
}

// TestPointLabelsGiveWayToLegend checks that labels that cannot all be
// placed apart (twelve systems at one point) are hidden and the points
// named in a legend beside the plot, while a few points far apart keep
// their labels.
func TestPointLabelsGiveWayToLegend(t *testing.T) {
	for _, c := range []struct {
		name     string
		pts      []plotter.XY
		collide  bool
		drawnTxt int
	}{
		{"apart", []plotter.XY{{X: 10, Y: 60}, {X: 50, Y: 80}, {X: 90, Y: 70}}, false, 3},
		{"crowded", func() []plotter.XY {
			var out []plotter.XY
			for i := range 12 {
				out = append(out, plotter.XY{X: 50 + 0.1*float64(i), Y: 70 + 0.1*float64(i)})
			}
			return out
		}(), true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &pointLabels{}
			for i, pt := range c.pts {
				l.pts = append(l.pts, pt)
				l.names = append(l.names, fmt.Sprintf("system number %d", i))
				l.right = append(l.right, true)
			}
			p := plot.New()
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 50, 100
			data := draw.Canvas{Canvas: &textRecorder{}, Rectangle: vg.Rectangle{Max: vg.Point{X: 5 * vg.Inch, Y: 3 * vg.Inch}}}
			l.Plot(data, p)
			if l.collide != c.collide {
				t.Fatalf("collide = %v; want %v", l.collide, c.collide)
			}
			// The figure then hides the labels: a second layout draws none.
			if l.collide {
				l.hidden = true
			}
			rec := &textRecorder{}
			data.Canvas = rec
			l.Plot(data, p)
			if len(rec.texts) != c.drawnTxt {
				t.Errorf("%d labels drawn; want %d", len(rec.texts), c.drawnTxt)
			}
		})
	}
}

// TestDataRange checks the simplex colour scale's range: the lowest and
// highest value of the cells with questions (an empty cell's value is
// ignored), widened to one point when flat, [0, 100] without data.
func TestDataRange(t *testing.T) {
	for _, c := range []struct {
		name   string
		cells  []heatCell
		lo, hi float64
	}{
		{"span", []heatCell{{v: 54.8, n: 42}, {v: 61.9, n: 42}, {v: 0, n: 0}}, 54.8, 61.9},
		{"flat", []heatCell{{v: 50, n: 3}, {v: 50, n: 3}}, 49.5, 50.5},
		{"flat at 100", []heatCell{{v: 100, n: 3}}, 99, 100},
		{"flat at 0", []heatCell{{v: 0, n: 3}}, 0, 1},
		{"no data", []heatCell{{v: 10, n: 0}}, 0, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			lo, hi := dataRange(c.cells)
			if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
				t.Errorf("dataRange = [%v, %v]; want [%v, %v]", lo, hi, c.lo, c.hi)
			}
		})
	}
	// The fixture's simplex: the bar's label prints the range of its cells.
	r, _ := buildFixture(t, "sim")
	for _, f := range r.Figures {
		if f.bar == nil || f.plot == nil {
			continue
		}
		if !regexp.MustCompile(`^EX \(%\), [0-9.]+ to [0-9.]+$`).MatchString(f.bar.Y.Label.Text) {
			t.Errorf("%s: colour bar label %q; want the range printed", f.ID, f.bar.Y.Label.Text)
		}
		if f.bar.Y.Min <= 0 && f.bar.Y.Max >= 100 {
			t.Errorf("%s: colour bar spans [%v, %v]; want the data's range", f.ID, f.bar.Y.Min, f.bar.Y.Max)
		}
	}
}

// TestValidationLevelNames checks that the validation plot groups its bars
// by level with the names docs/METHODS.md gives the levels.
func TestValidationLevelNames(t *testing.T) {
	for counter, want := range map[string]string{"validation.l1": "L1 execution", "validation.l2": "L2 structure", "validation.l3": "L3 semantics", "validation.l4": "l4"} {
		if got := validationLevelName(counter); got != want {
			t.Errorf("validationLevelName(%q) = %q; want %q", counter, got, want)
		}
	}
	r, _ := buildFixture(t, "sim")
	for _, f := range r.Figures {
		if f.ID != "validation-rates" {
			continue
		}
		var got []string
		for _, tk := range f.plot.X.Tick.Marker.Ticks(f.plot.X.Min, f.plot.X.Max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if want := []string{"L1 execution", "L2 structure", "L3 semantics"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("validation plot groups %q; want %q", got, want)
		}
		return
	}
	t.Fatal("no validation-rates figure")
}
