package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	plottext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// This file holds the drawing pieces gonum/plot lacks: a figure of a plot
// with a colour bar, a legend boxed inside the data area,
// heat-map cells that show their n and tell empty cells apart, a
// sequential colour map and dashed reference lines (refLine).

// Margins of every figure: gonum/plot draws the data area up to the
// canvas edge, which clips the legend's thumbnails and the last tick label.
const (
	marginRight = 10 // points
	marginTop   = 3
	barWidth    = 0.85 * vg.Inch
)

// textStyle is the default font at size points, centred on its point.
func textStyle(size float64, c color.Color) plottext.Style {
	return plottext.Style{Color: c, Font: font.From(plot.DefaultFont, vg.Points(size)), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
}

// draw lays the figure out on c: the colour bar (when set) on the right
// at the height of the plot's data area, the plot in the rest. Titles and
// notes are the caption's (Figure.Caption), not the image's.
func (f *Figure) draw(c draw.Canvas) {
	c = draw.Crop(c, 0, -marginRight, 0, -marginTop)
	main := c
	if f.bar != nil {
		main = draw.Crop(c, 0, -barWidth, 0, 0)
		bc := c
		bc.Min.X = main.Max.X + 6
		if f.plot != nil {
			data := f.plot.DataCanvas(main)
			bc.Min.Y, bc.Max.Y = data.Min.Y, data.Max.Y
		} else {
			// Panels: the bar spans the middle of the figure, at most
			// 3 inches high.
			mid, half := (c.Min.Y+c.Max.Y)/2, min(1.5*vg.Inch, (c.Max.Y-c.Min.Y)/2-20)
			bc.Min.Y, bc.Max.Y = mid-half, mid+half
		}
		f.bar.Draw(bc)
	}
	if f.side != nil {
		main = draw.Crop(main, 0, -f.sideWidth, 0, 0)
		data := f.plot.DataCanvas(main)
		sc := c
		sc.Min.X, sc.Min.Y, sc.Max.Y = main.Max.X+8, data.Min.Y, data.Max.Y
		f.side.Draw(sc)
	}
	if len(f.panels) > 0 {
		cols := max(1, f.cols)
		rows := (len(f.panels) + cols - 1) / cols
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 8, PadY: 8}
		for i, p := range f.panels {
			p.Draw(tiles.At(main, i%cols, i/cols))
		}
		return
	}
	f.plot.Draw(main)
}

// legendItem is one entry of an insetLegend.
type legendItem struct {
	name   string
	thumbs []plot.Thumbnailer
}

// insetLegend draws a legend inside the data area, on a white box, in the
// corner that covers the fewest of avoid (data coordinates), so that it
// neither leaves the canvas nor hides data when a corner is free.
type insetLegend struct {
	items []legendItem
	avoid []plotter.XY
}

func (l *insetLegend) add(name string, thumbs ...plot.Thumbnailer) {
	l.items = append(l.items, legendItem{name, thumbs})
}

// avoidSegment adds points along the segment from a to b (a line or an
// error bar), so that a legend box is not put across it.
func (l *insetLegend) avoidSegment(a, b plotter.XY, log bool) {
	const steps = 24
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		x := a.X + t*(b.X-a.X)
		if log && a.X > 0 && b.X > 0 {
			x = math.Exp(math.Log(a.X) + t*(math.Log(b.X)-math.Log(a.X)))
		}
		l.avoid = append(l.avoid, plotter.XY{X: x, Y: a.Y + t*(b.Y-a.Y)})
	}
}

// Plot implements plot.Plotter.
func (l *insetLegend) Plot(c draw.Canvas, p *plot.Plot) {
	if len(l.items) == 0 {
		return
	}
	lg := plot.NewLegend()
	lg.TextStyle.Font.Size = vg.Points(10)
	lg.Padding = 2
	var w, enth vg.Length
	for _, it := range l.items {
		lg.Add(it.name, it.thumbs...)
		r := lg.TextStyle.Rectangle(it.name)
		w = max(w, r.Max.X)
		enth = max(enth, r.Max.Y)
	}
	em := lg.TextStyle.Rectangle(" ").Max.X
	const pad, inset = 4, 5
	w += lg.ThumbnailWidth + em + 2*pad
	h := vg.Length(len(l.items))*enth + vg.Length(len(l.items)-1)*lg.Padding + 2*pad + lg.TextStyle.FontExtents().Descent
	trX, trY := p.Transforms(&c)
	corners := []vg.Rectangle{
		{Min: vg.Point{X: c.Max.X - inset - w, Y: c.Max.Y - inset - h}, Max: vg.Point{X: c.Max.X - inset, Y: c.Max.Y - inset}}, // top right
		{Min: vg.Point{X: c.Min.X + inset, Y: c.Max.Y - inset - h}, Max: vg.Point{X: c.Min.X + inset + w, Y: c.Max.Y - inset}}, // top left
		{Min: vg.Point{X: c.Max.X - inset - w, Y: c.Min.Y + inset}, Max: vg.Point{X: c.Max.X - inset, Y: c.Min.Y + inset + h}}, // bottom right
		{Min: vg.Point{X: c.Min.X + inset, Y: c.Min.Y + inset}, Max: vg.Point{X: c.Min.X + inset + w, Y: c.Min.Y + inset + h}}, // bottom left
	}
	best, bestN := 0, math.MaxInt
	for i, r := range corners {
		n := 0
		for _, pt := range l.avoid {
			x, y := trX(pt.X), trY(pt.Y)
			if x >= r.Min.X-6 && x <= r.Max.X+6 && y >= r.Min.Y-6 && y <= r.Max.Y+6 {
				n++
			}
		}
		if n < bestN {
			best, bestN = i, n
		}
	}
	r := corners[best]
	c.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 235})
	c.Fill(r.Path())
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.5)})
	c.Stroke(r.Path())
	inner := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: r.Min.X + pad, Y: r.Min.Y + pad}, Max: vg.Point{X: r.Max.X - pad, Y: r.Max.Y - pad}}}
	lg.Top = true
	lg.Draw(inner)
}

// refLine is a dashed reference line across the data area: vertical at
// a parameter value (the paper's default of a sweep, newVLine) or
// horizontal at a Y value (a forest plot's zero, newHLine).
type refLine struct {
	at       float64
	vertical bool
	Style    draw.LineStyle
}

func newVLine(x float64) *refLine { return newRefLine(x, true) }

func newHLine(y float64) *refLine { return newRefLine(y, false) }

func newRefLine(at float64, vertical bool) *refLine {
	return &refLine{at: at, vertical: vertical, Style: draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
}

// Plot implements plot.Plotter.
func (l *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if l.vertical {
		x := trX(l.at)
		c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := trY(l.at)
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the line's X (vertical) or Y
// only.
func (l *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if l.vertical {
		return l.at, l.at, math.Inf(1), math.Inf(-1)
	}
	return math.Inf(1), math.Inf(-1), l.at, l.at
}

// Thumbnail implements plot.Thumbnailer: a horizontal stroke, whichever
// the line's direction.
func (l *refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// emptyCell is the colour of a heat-map cell without questions: a grey
// that the sequential map (seqMap) never produces.
var emptyCell = color.NRGBA{R: 0xd0, G: 0xd0, B: 0xd0, A: 0xff}

// viridis are the stops of matplotlib's viridis map at 0, 1/9, ..., 1: a
// perceptually uniform, colour-blind-safe sequential map from dark purple
// (0) to yellow (100), with no white or grey in it.
var viridis = []color.NRGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x48, 0x28, 0x78, 0xff}, {0x3e, 0x49, 0x89, 0xff}, {0x31, 0x68, 0x8e, 0xff},
	{0x26, 0x82, 0x8e, 0xff}, {0x1f, 0x9e, 0x89, 0xff}, {0x35, 0xb7, 0x79, 0xff}, {0x6e, 0xce, 0x58, 0xff},
	{0xb5, 0xde, 0x2b, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

// seqMap is a palette.ColorMap interpolating stops linearly in RGB.
type seqMap struct {
	stops    []color.NRGBA
	min, max float64
	alpha    float64
}

func newSeqMap(min, max float64) *seqMap {
	return &seqMap{stops: viridis, min: min, max: max, alpha: 1}
}

// At implements palette.ColorMap.
func (m *seqMap) At(v float64) (color.Color, error) {
	if math.IsNaN(v) || v < m.min || v > m.max {
		return nil, fmt.Errorf("reports: colour map: %v outside [%v, %v]", v, m.min, m.max)
	}
	t := 0.0
	if m.max > m.min {
		t = (v - m.min) / (m.max - m.min)
	}
	pos := t * float64(len(m.stops)-1)
	i := min(int(pos), len(m.stops)-2)
	f := pos - float64(i)
	a, b := m.stops[i], m.stops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: uint8(math.Round(255 * m.alpha))}, nil
}

func (m *seqMap) Max() float64       { return m.max }
func (m *seqMap) SetMax(v float64)   { m.max = v }
func (m *seqMap) Min() float64       { return m.min }
func (m *seqMap) SetMin(v float64)   { m.min = v }
func (m *seqMap) Alpha() float64     { return m.alpha }
func (m *seqMap) SetAlpha(a float64) { m.alpha = a }
func (m *seqMap) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		v := m.min
		if n > 1 {
			v += float64(i) / float64(n-1) * (m.max - m.min)
		}
		cs[i], _ = m.At(v)
	}
	return seqPalette(cs)
}

type seqPalette []color.Color

func (p seqPalette) Colors() []color.Color { return p }

// heatCell is one cell of a heat map: column c, row r, EX v (percent) over
// n questions; n == 0 is an empty cell. mark is appended to the value
// (a significance star); boxed outlines the cell (the paper's default).
type heatCell struct {
	c, r  int
	v     float64
	n     int
	mark  string
	boxed bool
}

// heatCells draws heat-map cells at integer positions (nominal axes), each
// filled from cmap and labelled with its value and, when showN, its n;
// empty cells get emptyCell and "n=0"; positions without a cell stay blank.
type heatCells struct {
	nx, ny int
	cells  []heatCell
	cmap   palette.ColorMap
	showN  bool
}

// cellColor returns the fill of a cell.
func (h *heatCells) cellColor(cell heatCell) color.Color {
	if cell.n == 0 {
		return emptyCell
	}
	col, err := h.cmap.At(math.Max(h.cmap.Min(), math.Min(h.cmap.Max(), cell.v)))
	if err != nil {
		return emptyCell
	}
	return col
}

// inkOn returns black or white, whichever reads better on fill.
func inkOn(fill color.Color) color.Color {
	r, g, b, _ := fill.RGBA()
	lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	if lum < 0.45 {
		return color.White
	}
	return color.Black
}

// Plot implements plot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, cell := range h.cells {
		x0, x1 := trX(float64(cell.c)-0.5), trX(float64(cell.c)+0.5)
		y0, y1 := trY(float64(cell.r)-0.5), trY(float64(cell.r)+0.5)
		rect := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
		fill := h.cellColor(cell)
		c.SetColor(fill)
		c.Fill(rect.Path())
		c.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(1)})
		c.Stroke(rect.Path())
		ink := inkOn(fill)
		mid := vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}
		big := textStyle(10, ink)
		if cell.n == 0 {
			c.FillText(textStyle(8, color.Gray{Y: 60}), mid, "n=0")
			continue
		}
		label := fmtFloat(cell.v, 0) + cell.mark
		if h.showN {
			c.FillText(big, vg.Point{X: mid.X, Y: mid.Y + 5}, label)
			c.FillText(textStyle(7.5, ink), vg.Point{X: mid.X, Y: mid.Y - 6}, fmt.Sprintf("n=%d", cell.n))
		} else {
			c.FillText(big, mid, label)
		}
	}
	// Boxes last, so that neighbours do not paint over them.
	for _, cell := range h.cells {
		if !cell.boxed {
			continue
		}
		x0, x1 := trX(float64(cell.c)-0.5), trX(float64(cell.c)+0.5)
		y0, y1 := trY(float64(cell.r)-0.5), trY(float64(cell.r)+0.5)
		rect := vg.Rectangle{Min: vg.Point{X: x0 + 1.5, Y: y0 + 1.5}, Max: vg.Point{X: x1 - 1.5, Y: y1 - 1.5}}
		c.SetLineStyle(draw.LineStyle{Color: color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, Width: vg.Points(2.5)})
		c.Stroke(rect.Path())
	}
}

// DataRange implements plot.DataRanger: every cell is one unit wide.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(h.nx) - 0.5, -0.5, float64(h.ny) - 0.5
}

// colourBar returns the plot of a vertical colour bar for cmap (a
// percentage), labelled label.
func colourBar(cmap palette.ColorMap, label string) *plot.Plot {
	p := plot.New()
	p.Add(colourStrip{cmap})
	p.HideX()
	p.Y.Label.Text = label
	p.Y.Tick.Marker = pctTicks{}
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Label.TextStyle.Font.Size = vg.Points(10)
	return p
}

// colourStrip draws a colour map's range as 128 filled bands, so that a
// colour bar stays vector in PDF and SVG (gonum's ColorBar draws an
// image).
type colourStrip struct{ cmap palette.ColorMap }

// Plot implements plot.Plotter.
func (s colourStrip) Plot(c draw.Canvas, p *plot.Plot) {
	const bands = 128
	trX, trY := p.Transforms(&c)
	lo, hi := s.cmap.Min(), s.cmap.Max()
	for i := range bands {
		v0 := lo + (hi-lo)*float64(i)/bands
		v1 := lo + (hi-lo)*float64(i+1)/bands
		col, err := s.cmap.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: trX(0), Y: trY(v0)}, Max: vg.Point{X: trX(1), Y: trY(v1) + 0.3}}
		c.SetColor(col)
		c.Fill(r.Path())
	}
}

// DataRange implements plot.DataRanger.
func (s colourStrip) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, s.cmap.Min(), s.cmap.Max()
}

// logWorthy reports whether values spanning [lo, hi] call for a log axis:
// all positive and hi/lo above 100 (two orders of magnitude), where a
// linear axis squeezes the small values into one corner.
func logWorthy(lo, hi float64) bool {
	return lo > 0 && hi > 0 && hi/lo > 100
}

// setLogX makes p's X axis logarithmic over [lo, hi], widened by frac of
// the span in log space on each side.
func setLogX(p *plot.Plot, lo, hi, frac float64) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	f := math.Pow(hi/lo, frac)
	p.X.Min, p.X.Max = lo/f, hi*f
}

// pointLabels names points next to them (8 pt text): each label takes the
// first place (right or left of its point, above or below it, next to it
// or up to two lines further away) that stays inside the data area and
// clears the labels placed before it, else the place that overlaps least. Points on the right half of the X
// axis try the left first, so that their labels stay inside the frame.
//
// collide records whether, in the last Plot, some label could not be
// placed clear of the others and inside the frame; a figure then hides
// the labels (hidden) and names the points in a legend beside the frame
// instead (paretoFigures).
type pointLabels struct {
	pts     []plotter.XY
	names   []string
	right   []bool // try the right of the point first
	hidden  bool
	collide bool
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	sty := textStyle(8, color.Black)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	trX, trY := p.Transforms(&c)
	const dx, dy = 4, 3
	var placed []vg.Rectangle
	clear := true
	for i, pt := range l.pts {
		x, y := trX(pt.X), trY(pt.Y)
		w, h := sty.Width(l.names[i]), sty.Height(l.names[i])
		rightOf := vg.Rectangle{Min: vg.Point{X: x + dx, Y: 0}, Max: vg.Point{X: x + dx + w, Y: 0}}
		leftOf := vg.Rectangle{Min: vg.Point{X: x - dx - w, Y: 0}, Max: vg.Point{X: x - dx, Y: 0}}
		sides := []vg.Rectangle{rightOf, leftOf}
		if !l.right[i] {
			sides[0], sides[1] = leftOf, rightOf
		}
		// Next to the point first, then one or two lines further away.
		var cands []vg.Rectangle
		for k := 0; k < 3; k++ {
			off := dy + vg.Length(k)*h
			for _, above := range []bool{true, false} {
				for _, s := range sides {
					if above {
						s.Min.Y, s.Max.Y = y+off, y+off+h
					} else {
						s.Min.Y, s.Max.Y = y-off-h, y-off
					}
					cands = append(cands, s)
				}
			}
		}
		best, bestCost := cands[0], vg.Length(math.Inf(1))
		for _, r := range cands {
			var cost vg.Length
			for _, q := range placed {
				cost += overlapArea(r, q)
			}
			// Leaving the data area (clipped by the figure's edge) costs
			// more than covering another label.
			cost += 2 * (w*h - overlapArea(r, c.Rectangle))
			if cost < bestCost {
				best, bestCost = r, cost
			}
		}
		placed = append(placed, best)
		clear = clear && bestCost <= 0
	}
	l.collide = !clear
	if !l.hidden {
		for i, r := range placed {
			c.FillText(sty, r.Min, l.names[i])
		}
	}
}

// sideLegend returns a legend of items for the right of a figure, icons
// on the left, and the width it takes: 10-point text, 8-point beyond 14
// entries.
func sideLegend(items []legendItem) (*plot.Legend, vg.Length) {
	lg := plot.NewLegend()
	lg.Top, lg.Left = true, true
	lg.TextStyle.Font.Size = vg.Points(10)
	if len(items) > 14 {
		lg.TextStyle.Font.Size = vg.Points(8)
	}
	lg.Padding = 2
	var w vg.Length
	for _, it := range items {
		lg.Add(it.name, it.thumbs...)
		w = max(w, lg.TextStyle.Rectangle(it.name).Max.X)
	}
	return &lg, w + lg.ThumbnailWidth + lg.TextStyle.Rectangle(" ").Max.X + 12
}

// overlapArea is the area two rectangles share.
func overlapArea(a, b vg.Rectangle) vg.Length {
	w := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
	h := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}
