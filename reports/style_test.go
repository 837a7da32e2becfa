package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"testing"
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
