package reports

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto is the colour-blind-safe categorical palette of Okabe and Ito
// ("Color Universal Design", 2008; Wong, "Points of view: Color
// blindness", Nature Methods 8:441, 2011), in the order systems take it:
// blue, orange, bluish green, vermillion, reddish purple, sky blue,
// black, yellow (last: it reads poorly on white).
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xb2, 0xff}, {0xe6, 0x9f, 0x00, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xd5, 0x5e, 0x00, 0xff},
	{0xcc, 0x79, 0xa7, 0xff}, {0x56, 0xb4, 0xe9, 0xff}, {0x00, 0x00, 0x00, 0xff}, {0xf0, 0xe4, 0x42, 0xff},
}

// markers are the glyphs systems take, so that a system reads without
// its colour too (in grey print, or for readers who cannot tell two
// colours apart).
var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
}

// sysStyle is the colour and marker of one system in every plot of a
// report.
type sysStyle struct {
	Color  color.NRGBA
	Marker draw.GlyphDrawer
}

// glyph is the style's marker at radius r.
func (st sysStyle) glyph(r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Color: st.Color, Shape: st.Marker, Radius: r}
}

// reportStyles assigns each system of the report its style, once, from
// the ordered list of system names (plan order): the i-th name takes
// colour i mod 8 and marker (i + i/8) mod 8, so that the first 64 systems
// all differ in colour or marker. Every plot takes a system's style from
// this map, so a system looks the same in all of them.
func reportStyles(names []string) map[string]sysStyle {
	out := make(map[string]sysStyle, len(names))
	i := 0
	for _, n := range names {
		if _, ok := out[n]; ok {
			continue
		}
		out[n] = seriesStyle(i)
		i++
	}
	return out
}

// seriesStyle is the i-th style: colour i mod 8 and marker
// (i + i/8) mod 8. reportStyles gives it to the i-th system; a plot whose
// series are not systems (a sweep's backbones) gives it to its i-th
// series.
func seriesStyle(i int) sysStyle {
	return sysStyle{Color: okabeIto[i%len(okabeIto)], Marker: markers[(i+i/len(okabeIto))%len(markers)]}
}

// styleOf returns the system's style (reportStyles).
func (c *corpus) styleOf(s *system) sysStyle { return c.styles[s.name] }

// addSystemPoints adds to p the point and interval d holds for each of
// ss (the i-th point is ss[i]'s), each system in its colour and marker
// (reportStyles), its interval in the same colour, records them on f
// (Figure.drew) and returns a legend item per system.
func (c *corpus) addSystemPoints(f *Figure, p *plot.Plot, ss []*system, d xyErr) ([]legendItem, error) {
	items := make([]legendItem, 0, len(ss))
	for i, s := range ss {
		st := c.styleOf(s)
		one := xyErr{XYs: d.XYs[i : i+1], YErrors: d.YErrors[i : i+1]}
		sc, err := plotter.NewScatter(one)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		sc.GlyphStyle = st.glyph(vg.Points(3.5))
		eb, err := plotter.NewYErrorBars(one)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		eb.Color = st.Color
		p.Add(eb, sc)
		f.drew(s.name, sc.GlyphStyle.Color, sc.GlyphStyle.Shape)
		items = append(items, legendItem{s.name, []plot.Thumbnailer{sc}})
	}
	return items, nil
}

// drew records on f the colour and marker (nil for a bar) f drew system
// name in, as the plotter was built, so that tests can check that a
// system looks the same in every plot.
func (f *Figure) drew(name string, col color.Color, marker draw.GlyphDrawer) {
	if f.drawn == nil {
		f.drawn = map[string]drawnStyle{}
	}
	f.drawn[name] = drawnStyle{col, marker}
}

// drawnStyle is what a figure drew one system in.
type drawnStyle struct {
	color  color.Color
	marker draw.GlyphDrawer
}
