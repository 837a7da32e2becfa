package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
)

// Figure is one plot of a report.
type Figure struct {
	// ID is the file stem (e.g. "sweep-1").
	ID string
	// Title is the figure's title, for its caption (the image holds
	// none); it says "(simulated model)" for sim runs.
	Title string
	// Note, when set, says what the figure marks or leaves out; report.md
	// prints it under the plot (the figure carries it as footnotes too).
	Note string
	// N says how many questions the figure's numbers count ("n = 20
	// questions per system"); CI names the intervals it draws ("95%
	// Wilson CI"); both go into the caption.
	N, CI string
	// drawn are the colours and markers the figure drew each system in,
	// by name (Figure.drew).
	drawn map[string]drawnStyle
	// Data, when set, holds the numbers the figure draws; WriteFiles
	// writes it as plots/<ID>.csv beside the plot.
	Data *Table
	plot *plot.Plot
	// bar is the colour bar drawn right of a heat map.
	bar *plot.Plot
	// panels, when set, are drawn instead of plot: a grid of cols
	// panels per row (the heat maps of several systems).
	panels []*plot.Plot
	cols   int
	// side, when set, is a legend right of the plot, sideWidth wide.
	side          *plot.Legend
	sideWidth     vg.Length
	width, height vg.Length
}

// pngDPI is the resolution of the PNG files: print resolution, so that a
// paper can take them as they are.
const pngDPI = 300

// Render returns the figure encoded as format: "png" (pngDPI dots per
// inch), "svg" or "pdf" (vector, one page). The image holds no title; the
// caption (Caption) carries it.
func (f *Figure) Render(format string) ([]byte, error) {
	switch format {
	case "png":
		return f.renderPNG(pngDPI)
	case "pdf":
		b, err := f.encode(vgpdf.New(f.width, f.height))
		if err != nil {
			return nil, err
		}
		return pdfDates.ReplaceAll(b, []byte("/$1 (D:20000101000000)")), nil
	}
	c, err := draw.NewFormattedCanvas(f.width, f.height, format)
	if err != nil {
		return nil, fmt.Errorf("reports: plot %s: %w", f.ID, err)
	}
	return f.encode(c)
}

// renderPNG returns the figure as a PNG of dpi dots per inch.
func (f *Figure) renderPNG(dpi int) ([]byte, error) {
	return f.encode(vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(dpi))})
}

// encode draws the figure on c and returns c's encoding.
func (f *Figure) encode(c vg.CanvasWriterTo) ([]byte, error) {
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: plot %s: %w", f.ID, err)
	}
	return b.Bytes(), nil
}

// pdfDates matches the creation and modification dates the PDF writer
// stamps from the clock; Render fixes them (same length, so the file's
// cross-reference offsets hold) so that the same runs give the same bytes.
var pdfDates = regexp.MustCompile(`/(CreationDate|ModDate) \(D:[0-9]{14}\)`)

// Caption is the figure's caption: its title (with the simulated-model
// note of runstore.TitleNote where it applies), the number of questions and
// the interval method, for captions.md and captions.tex.
func (f *Figure) Caption() string {
	out := f.Title
	var more []string
	if f.N != "" {
		more = append(more, f.N)
	}
	if f.CI != "" {
		more = append(more, "intervals: "+f.CI)
	}
	if len(more) > 0 {
		out += ". " + strings.Join(more, "; ")
	}
	if !strings.HasSuffix(out, ".") {
		out += "."
	}
	if f.Note != "" {
		out += " " + f.Note
	}
	return out
}

func newPlot(x, y string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// padX widens the X range by frac of its span on each side, so that points
// and error bars at the ends are not drawn on the axis and labels next to
// the last point are not clipped.
func padX(p *plot.Plot, lo, hi float64) {
	span := p.X.Max - p.X.Min
	if span <= 0 {
		span = math.Max(1, math.Abs(p.X.Max))
	}
	p.X.Min -= lo * span
	p.X.Max += hi * span
}

// legendFrac is the share of a plot's data-area height that a legend of
// rows entries takes in a figure of height h.
func legendFrac(p *plot.Plot, rows int, h vg.Length) float64 {
	if rows == 0 {
		return 0
	}
	// The legend takes rows lines of its text height; the X axis, its
	// label and the margins take about 1.1 inch of h.
	need := float64(rows)*p.Legend.TextStyle.Height("Xg").Points()*1.15 + 6
	avail := (h - 1.1*vg.Inch).Points()
	return math.Min(0.6, need/avail)
}

// pctAxis confines a percentage Y axis (EX, shares of questions) to
// [0, 100]. It starts from the range of the data and their intervals
// (what plot.Add collected), adds headroom (a share of the span) above
// the top and a little below the bottom without crossing 0 or 100, then
// makes room for an inset legend of rows entries: above the data when
// that stays within 100, else below the data when that stays above 0,
// else none (the legend then takes the corner that hides least). Ticks are
// integers (pctTicks).
func pctAxis(p *plot.Plot, headroom float64, rows int, h vg.Length) {
	lo := math.Max(0, math.Min(100, p.Y.Min))
	hi := math.Max(0, math.Min(100, p.Y.Max))
	if hi-lo < 4 { // a flat series still gets a few units of axis
		mid := math.Max(2, math.Min(98, (lo+hi)/2))
		lo, hi = math.Min(lo, mid-2), math.Max(hi, mid+2)
	}
	span := hi - lo
	lo, hi = math.Max(0, lo-0.03*span), math.Min(100, hi+headroom*span)
	if frac := legendFrac(p, rows, h); frac > 0 {
		grown := (hi - lo) / (1 - frac)
		switch {
		case lo+grown <= 100:
			hi = lo + grown
		case hi-grown >= 0:
			lo = hi - grown
		}
	}
	p.Y.Min, p.Y.Max = lo, hi
	p.Y.Tick.Marker = pctTicks{}
}

// pctTicks marks a percentage axis at integer values, labelled without
// decimals ("75", not "75.00"), with unlabelled minor ticks between.
type pctTicks struct{}

// Ticks implements plot.Ticker.
func (pctTicks) Ticks(lo, hi float64) []plot.Tick {
	steps := []struct{ major, minor float64 }{{1, 0}, {2, 1}, {5, 1}, {10, 5}, {20, 10}, {25, 5}, {50, 10}, {100, 50}}
	st := steps[len(steps)-1]
	for _, s := range steps {
		if (hi-lo)/s.major <= 7 {
			st = s
			break
		}
	}
	var out []plot.Tick
	step := st.major
	if st.minor > 0 {
		step = st.minor
	}
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+1e-9; v += step {
		t := plot.Tick{Value: v}
		if r := math.Mod(v, st.major); r < 1e-9 || st.major-r < 1e-9 {
			t.Label = strconv.Itoa(int(math.Round(v)))
		}
		out = append(out, t)
	}
	return out
}

// xyErr is points with asymmetric Y errors, for YErrorBars.
type xyErr struct {
	plotter.XYs
	plotter.YErrors
}

// varyingParams returns the parameters whose values differ among the
// systems, sorted, and whether all their values are numbers.
func varyingParams(ss []*system) ([]string, bool) {
	keys := map[string]bool{}
	for _, s := range ss {
		for k := range s.trial.Params {
			keys[k] = true
		}
	}
	var out []string
	numeric := true
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		distinct := map[string]bool{}
		nonNum := false
		for _, s := range ss {
			v := s.trial.Params[k]
			b, _ := json.Marshal(v)
			distinct[string(b)] = true
			if _, isNum := runners.Number(v); !isNum {
				nonNum = true
			}
		}
		if len(distinct) > 1 {
			out = append(out, k)
			numeric = numeric && !nonNum
		}
	}
	return out, numeric
}

// sweepGroups returns, per runner entry and benchmark, the systems of that
// entry whose configuration labels name only parameter values (no
// ablation), in plan order.
func sweepGroups(c *corpus) [][]*system {
	var keys []string
	by := map[string][]*system{}
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		if s.variant != "" {
			continue
		}
		k := s.entry + "\x00" + s.bench
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], s)
	}
	out := make([][]*system, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}

// variantOf returns the ablation of s's configuration, "" for the full
// one and for sweep and grid points.
func variantOf(s *system) string { return s.variant }

// sweepSeries returns, per runner entry and benchmark, its systems split
// into series by (ablation variant, backbone), in plan order, and the one
// numeric parameter that varies within the series; ok is false when the
// entry is not a one-parameter sweep.
func sweepSeries(c *corpus) (groups [][][]*system, params []string) {
	var keys []string
	by := map[string][]*system{}
	for _, s := range c.systems {
		if s.done() == 0 {
			continue
		}
		k := s.entry + "\x00" + s.bench
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], s)
	}
	for _, k := range keys {
		var names []string
		series := map[string][]*system{}
		for _, s := range by[k] {
			n := variantOf(s) + "\x00" + s.backbone
			if _, ok := series[n]; !ok {
				names = append(names, n)
			}
			series[n] = append(series[n], s)
		}
		param := ""
		ok := true
		var g [][]*system
		for _, n := range names {
			ss := series[n]
			g = append(g, ss)
			if len(ss) < 2 {
				continue
			}
			ps, numeric := varyingParams(ss)
			if len(ps) != 1 || !numeric || (param != "" && ps[0] != param) {
				ok = false
				break
			}
			param = ps[0]
		}
		if ok && param != "" {
			groups, params = append(groups, g), append(params, param)
		}
	}
	return groups, params
}

// paperDefault returns the runner's default value of param from
// Options.PaperDefaults.
func paperDefault(opt Options, runner, param string) (float64, bool) {
	v, ok := opt.PaperDefaults[runner][param]
	return v, ok
}

// sweepFigures plots EX against a single swept numeric parameter, one
// line per (ablation, backbone) series, with Wilson interval bars and the
// paper's default value marked. Series are shifted apart by a small
// fraction of the X range so that their bars do not hide each other.
func sweepFigures(c *corpus, cs *comparisons, opt Options) ([]*Figure, error) {
	var out []*Figure
	groups, params := sweepSeries(c)
	for gi, g := range groups {
		param := params[gi]
		first := g[0][0]
		runner := first.head
		f := &Figure{ID: slugID("ex-vs", param, runner, first.bench), width: 6 * vg.Inch, height: 4 * vg.Inch,
			Title: c.caption(fmt.Sprintf("%s on %s: EX vs %s", runner, first.bench, param))}
		var all []*system
		for _, pts := range g {
			all = append(all, pts...)
		}
		multi := seeded(all)
		p := newPlot(param, fmt.Sprintf("EX (%%, %s %s)", levelPct(opt.Level), intervalName(multi)))
		data := figureData(opt, []string{"Series", param, "EX", "EX CI low", "EX CI high"}, multi)
		var testLines, notes []string
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pts := range g {
			for _, s := range pts {
				x, _ := runners.Number(s.trial.Params[param])
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		logX := logWorthy(lo, hi)
		dodge := 0.0
		if len(g) > 1 && hi > lo && !logX {
			dodge = 0.012 * (hi - lo)
		}
		oneBackbone, oneVariant := true, true
		for _, pts := range g {
			oneBackbone = oneBackbone && pts[0].backbone == first.backbone
			oneVariant = oneVariant && variantOf(pts[0]) == variantOf(first)
		}
		leg := &insetLegend{}
		for i, pts := range g {
			pts = append([]*system(nil), pts...)
			sort.SliceStable(pts, func(x, y int) bool {
				a, _ := runners.Number(pts[x].trial.Params[param])
				bb, _ := runners.Number(pts[y].trial.Params[param])
				return a < bb
			})
			shift := dodge * (float64(i) - float64(len(g)-1)/2)
			var d xyErr
			base, why, tests := sweepTests(cs, pts)
			seriesName := seriesLabel(pts[0], oneVariant, oneBackbone)
			var differ []string
			for _, s := range pts {
				x, _ := runners.Number(s.trial.Params[param])
				acc, _, _ := s.ex()
				iv := s.acc.CI
				t := tests[s]
				data.addPoint([]Cell{text(seriesName), paramCell(x), pct(acc), pct(iv.Lo), pct(iv.Hi)}, s, t, s == base)
				if t != nil && t.Significant() {
					differ = append(differ, param+" = "+strconv.FormatFloat(x, 'f', -1, 64))
				}
				d.XYs = append(d.XYs, plotter.XY{X: x + shift, Y: 100 * acc})
				d.YErrors = append(d.YErrors, struct{ Low, High float64 }{100 * (acc - iv.Lo), 100 * (iv.Hi - acc)})
				leg.avoidSegment(plotter.XY{X: x + shift, Y: 100 * iv.Lo}, plotter.XY{X: x + shift, Y: 100 * iv.Hi}, logX)
			}
			for j := 1; j < len(d.XYs); j++ {
				leg.avoidSegment(d.XYs[j-1], d.XYs[j], logX)
			}
			l, sc, err := plotter.NewLinePoints(d.XYs)
			if err != nil {
				return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
			}
			st := seriesStyle(i)
			l.Color, sc.GlyphStyle = st.Color, st.glyph(vg.Points(3))
			l.Dashes = plotutil.Dashes(i)
			eb, err := plotter.NewYErrorBars(d)
			if err != nil {
				return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
			}
			eb.Color = st.Color
			p.Add(l, sc, eb)
			leg.add(seriesName, l, sc)
			if base != nil {
				bx, _ := runners.Number(base.trial.Params[param])
				found := "none does"
				if len(differ) > 0 {
					found = strings.Join(differ, ", ")
				}
				who := ""
				if len(g) > 1 {
					who = seriesName + ": "
				}
				testLines = append(testLines, fmt.Sprintf("%sEX of each point against %s = %s (%s; %s, Holm over the %d other points, alpha = %g); differs: %s.",
					who, param, strconv.FormatFloat(bx, 'f', -1, 64), why, testName(multi), len(tests), roundTo(1-opt.Level, 6), found))
			}
		}
		def, hasDef := paperDefault(opt, first.trial.Runner, param)
		if hasDef && (def < lo || def > hi) {
			// A line outside the swept range would squeeze the data into
			// part of the axis; say where the default is instead.
			notes = []string{fmt.Sprintf("The paper's default %s = %s lies outside the swept range.", param, strconv.FormatFloat(def, 'f', -1, 64))}
		} else if hasDef {
			vl := newVLine(def)
			p.Add(vl)
			leg.avoidSegment(plotter.XY{X: def, Y: 0}, plotter.XY{X: def, Y: 200}, logX)
			leg.add(fmt.Sprintf("paper default %s = %s", param, strconv.FormatFloat(def, 'f', -1, 64)), vl)
			lo, hi = math.Min(lo, def), math.Max(hi, def)
		}
		if logX {
			setLogX(p, lo, hi, 0.05)
		} else {
			p.X.Min, p.X.Max = lo, hi
			padX(p, 0.05, 0.05)
			p.X.Tick.Marker = trimTicks{}
		}
		notes = append(notes, testLines...)
		f.Note = strings.Join(notes, " ")
		f.N = questionsNote(questionsPer(all), "point")
		f.CI = levelPct(opt.Level) + " " + intervalName(multi)
		p.Add(leg)
		// Room above (or below) the data for the legend, so that a corner
		// is free.
		pctAxis(p, 0, len(leg.items), f.height)
		f.plot = p
		f.Data = data.table(f.ID, f.Title)
		out = append(out, f)
	}
	return out, nil
}

// seriesLabel names a sweep's series as its legend does: the ablation
// ("full" for none) when the series differ in it, the backbone when they
// differ in it or nothing else names them.
func seriesLabel(s *system, oneVariant, oneBackbone bool) string {
	var name []string
	if v := variantOf(s); !oneVariant || v != "" {
		if v == "" {
			v = "full"
		}
		name = append(name, v)
	}
	if !oneBackbone || len(name) == 0 {
		name = append(name, s.backbone)
	}
	return strings.Join(name, ", ")
}

// paramCell is a parameter value as the labels print it ("0.4", "32").
func paramCell(v float64) Cell {
	return Cell{Text: strconv.FormatFloat(v, 'f', -1, 64), Value: v, HasValue: true}
}

// intervalName names the interval a plot of systems' EX draws: Wilson's
// when every system has one seed; with several, the cluster bootstrap over
// questions and seeds (a system of one seed keeps Wilson's, which the
// main table's note says).
func intervalName(multi bool) string {
	if multi {
		return "CI over questions and seeds"
	}
	return "Wilson CI"
}

// gridDefault returns the point of a grid at the runner's paper default
// in every parameter of params (runstore.AtPaperDefault), which the figure
// boxes; nil when the grid has none. The baseline of the grid's tests is
// its family's (sweepTests).
func gridDefault(ss []*system, params []string, opt Options) *system {
	for _, s := range ss {
		if runstore.AtPaperDefault(runstore.SystemRef{Runner: s.trial.Runner, Params: s.trial.Params, Swept: params}, opt.PaperDefaults) {
			return s
		}
	}
	return nil
}

// heatFigure builds a heat-map figure of cells over nominal axes, with a
// colour bar for EX (%) on the right that spans the range of the cells
// with questions (dataRange), printed on the bar, so that close values
// still look different.
func heatFigure(f *Figure, xl, yl string, xnames, ynames []string, cells []heatCell, showN bool) {
	lo, hi := dataRange(cells)
	cmap := newSeqMap(lo, hi)
	f.plot = heatPlot(xl, yl, xnames, ynames, cells, cmap, showN)
	f.bar = colourBar(cmap, fmt.Sprintf("EX (%%), %s to %s", fmtFloat(lo, 1), fmtFloat(hi, 1)))
	f.width += barWidth
}

// heatPlot is a heat map of cells in cmap over nominal axes: xnames on
// X, labelled xl, and ynames on Y, labelled yl.
func heatPlot(xl, yl string, xnames, ynames []string, cells []heatCell, cmap palette.ColorMap, showN bool) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	p.Add(&heatCells{nx: len(xnames), ny: len(ynames), cells: cells, cmap: cmap, showN: showN})
	p.NominalX(xnames...)
	p.NominalY(ynames...)
	return p
}

// dataRange returns the lowest and highest value of the cells with
// questions, at least one unit apart (a flat grid is centred in a
// one-point range), within [0, 100]; [0, 100] when no cell has questions.
func dataRange(cells []heatCell) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range cells {
		if c.n > 0 {
			lo, hi = math.Min(lo, c.v), math.Max(hi, c.v)
		}
	}
	if lo > hi {
		return 0, 100
	}
	if hi-lo < 1 {
		mid := (lo + hi) / 2
		lo, hi = math.Max(0, mid-0.5), math.Min(100, mid+0.5)
		if hi-lo < 1 {
			if lo == 0 {
				hi = 1
			} else {
				lo = 99
			}
		}
	}
	return lo, hi
}

// simplexFigures plots EX over an alpha/beta/gamma grid: three numeric
// parameters that sum to 1 in every configuration; x and y are the first
// two (sorted by name), the third is 1 - x - y. The paper's default point
// is boxed and is the baseline of McNemar tests against every other point
// (Holm-adjusted over the grid), unless Options.Baseline names another.
func simplexFigures(c *corpus, cs *comparisons, opt Options) ([]*Figure, error) {
	var out []*Figure
	for _, ss := range sweepGroups(c) {
		params, numeric := varyingParams(ss)
		if len(params) != 3 || !numeric || len(ss) < 3 {
			continue
		}
		ok := true
		for _, s := range ss {
			sum := 0.0
			for _, k := range params {
				v, _ := runners.Number(s.trial.Params[k])
				sum += v
			}
			if math.Abs(sum-1) > 1e-6 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var backbones []string
		for _, s := range ss {
			if !slices.Contains(backbones, s.backbone) {
				backbones = append(backbones, s.backbone)
			}
		}
		runner := ss[0].head
		xi, yi := map[float64]int{}, map[float64]int{}
		var xs, ys []float64
		for _, s := range ss {
			x, _ := runners.Number(s.trial.Params[params[0]])
			y, _ := runners.Number(s.trial.Params[params[1]])
			if _, seen := xi[x]; !seen {
				xi[x] = 0
				xs = append(xs, x)
			}
			if _, seen := yi[y]; !seen {
				yi[y] = 0
				ys = append(ys, y)
			}
		}
		sort.Float64s(xs)
		sort.Float64s(ys)
		xn := make([]string, len(xs))
		yn := make([]string, len(ys))
		for i, x := range xs {
			xi[x] = i
			xn[i] = strconv.FormatFloat(x, 'f', -1, 64)
		}
		for i, y := range ys {
			yi[y] = i
			yn[i] = strconv.FormatFloat(y, 'f', -1, 64)
		}
		for _, b := range backbones {
			var bs []*system
			for _, s := range ss {
				if s.backbone == b {
					bs = append(bs, s)
				}
			}
			def := gridDefault(bs, params, opt)
			base, why, tests := sweepTests(cs, bs)
			multi := seeded(bs)
			data := figureData(opt, append(slices.Clone(params), "EX"), multi)
			var cells []heatCell
			ns := map[int]bool{}
			empty, sig := 0, 0
			for _, s := range bs {
				x, _ := runners.Number(s.trial.Params[params[0]])
				y, _ := runners.Number(s.trial.Params[params[1]])
				acc, _, _ := s.ex()
				n := s.acc.N
				cell := heatCell{c: xi[x], r: yi[y], v: 100 * acc, n: n, boxed: s == def}
				t, tested := tests[s]
				if tested && t.Significant() {
					cell.mark = "*"
					sig++
				}
				var row []Cell
				for _, k := range params {
					v, _ := runners.Number(s.trial.Params[k])
					row = append(row, paramCell(v))
				}
				data.addPoint(append(row, pct(acc)), s, t, s == base)
				if s == base && base != def {
					cell.mark = " B"
				}
				if n == 0 {
					empty++
				}
				ns[n] = true
				cells = append(cells, cell)
			}
			title := fmt.Sprintf("%s on %s: EX (%%) over %s, %s (%s = 1 - %s - %s)", runner, ss[0].bench,
				params[0], params[1], params[2], params[0], params[1])
			id := []string{"ex-over", params[0], params[1], runner, ss[0].bench}
			if len(backbones) > 1 {
				title += ", " + b
				id = append(id, b)
			}
			f := &Figure{ID: slugID(id...), Title: c.caption(title), width: 6 * vg.Inch, height: 5 * vg.Inch}
			showN := len(ns) > 1
			var foot []string
			point := func(s *system) string {
				var kv []string
				for _, k := range params {
					v, _ := runners.Number(s.trial.Params[k])
					kv = append(kv, k+"="+strconv.FormatFloat(v, 'f', -1, 64))
				}
				return strings.Join(kv, ", ")
			}
			if def != nil {
				foot = append(foot, fmt.Sprintf("Red box: the paper's default point (%s).", point(def)))
			}
			switch {
			case base == nil:
				foot = append(foot, "No baseline for tests: the paper's default point is not on the grid (report --baseline LABEL picks one).")
			default:
				lead := "* marks a point whose EX differs from the boxed one's"
				if base != def {
					lead = "B: the baseline (" + point(base) + ", " + why + "); * marks a point whose EX differs from its"
				}
				found := "none does"
				if sig > 0 {
					found = fmt.Sprintf("%d do", sig)
				}
				foot = append(foot, fmt.Sprintf("%s (%s, Holm over the %d other points, alpha = %g); %s.", lead, testName(multi), len(tests), roundTo(1-opt.Level, 6), found))
			}
			if empty > 0 {
				foot = append(foot, "Grey (n=0): no finished question at the point.")
			}
			heatFigure(f, params[0], params[1], xn, yn, cells, showN)
			f.Note = strings.Join(foot, " ")
			qs := map[int]bool{}
			for n := range ns {
				if n > 0 {
					qs[n] = true
				}
			}
			f.N = questionsNote(qs, "point")
			f.Data = data.table(f.ID, f.Title)
			out = append(out, f)
		}
	}
	return out, nil
}

// heatmapPanelRows is how many rows of heat-map panels one figure holds;
// a figure holds two columns of panels when a panel is narrow enough
// (heatmapLayout). Systems beyond one figure go on further pages.
const heatmapPanelRows = 3

// heatmapLayout returns the panels per row and per figure, and a panel's
// width and height, for heat maps of types columns and levels rows.
func heatmapLayout(types, levels int) (cols, perPage int, w, h vg.Length) {
	w = vg.Length(math.Max(3, 1.2+0.6*float64(types))) * vg.Inch
	h = vg.Length(1.7+0.45*float64(levels)) * vg.Inch
	cols = 1
	if w <= 4*vg.Inch {
		cols = 2
	}
	return cols, cols * heatmapPanelRows, w, h
}

// breakdownFigures draws, per benchmark, EX by difficulty (rows) and
// reasoning type (columns) for every system, when the benchmark has both
// labels: one panel per system, each cell with its n, a cell without
// questions grey, one colour bar (0 to 100) for all panels. The panels
// fill figures of heatmapPanelRows rows; when the systems do not fit one
// figure the figures are pages (-p1, -p2, ...), which the captions and a
// note say.
func breakdownFigures(c *corpus) ([]*Figure, []string) {
	var out []*Figure
	var notes []string
	for _, b := range c.benches {
		if !c.hasTypes[b] {
			continue
		}
		ss := c.onBench(b)
		levels := difficultyLevels(ss)
		if len(levels) == 0 {
			continue
		}
		types := map[string]bool{}
		var drawn []*system
		for _, s := range ss {
			for _, ty := range s.typesSeen() {
				types[ty] = true
			}
			if s.agg.typed {
				drawn = append(drawn, s)
			}
		}
		if len(drawn) == 0 {
			continue
		}
		tn := slices.Sorted(maps.Keys(types))
		cols, perPage, pw, ph := heatmapLayout(len(tn), len(levels))
		pages := (len(drawn) + perPage - 1) / perPage
		for pg := 0; pg < pages; pg++ {
			page := drawn[pg*perPage : min(len(drawn), (pg+1)*perPage)]
			id := []string{"ex-by-difficulty-and-type", b}
			title := fmt.Sprintf("EX (%%) by difficulty and reasoning type on %s", b)
			if pages > 1 {
				id = append(id, fmt.Sprintf("p%d", pg+1))
				title += fmt.Sprintf(", page %d of %d (systems %d to %d of %d)", pg+1, pages, pg*perPage+1, pg*perPage+len(page), len(drawn))
			}
			rows := (len(page) + cols - 1) / cols
			f := &Figure{ID: slugID(id...), Title: c.caption(title), cols: min(cols, len(page)),
				width: vg.Length(min(cols, len(page)))*pw + barWidth, height: vg.Length(rows) * ph}
			empty := false
			cmap := newSeqMap(0, 100)
			for _, s := range page {
				var cells []heatCell
				for ci, ty := range tn {
					for ri, l := range levels {
						acc, n := s.cellAcc(l, ty)
						// n counts questions: the items of every seed, over
						// the seeds.
						n /= len(s.seeds)
						cells = append(cells, heatCell{c: ci, r: ri, v: 100 * acc, n: n})
						empty = empty || n == 0
					}
				}
				p := heatPlot("reasoning type", "difficulty", tn, levels, cells, cmap, true)
				p.Title.Text = s.row
				p.Title.TextStyle.Font.Size = vg.Points(10)
				p.X.Tick.Label.Rotation = math.Pi / 6
				p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
				f.panels = append(f.panels, p)
			}
			f.bar = colourBar(cmap, "EX (%)")
			f.N = questionsNote(questionsPer(page), "system")
			f.Note = "n: questions in the cell; a question counts under each of its reasoning types."
			if empty {
				f.Note += " Grey (n=0): no question."
			}
			out = append(out, f)
		}
		if pages > 1 {
			notes = append(notes, fmt.Sprintf("The difficulty x reasoning-type heat maps of %s take %d figures (%d systems, at most %d per figure, in plan order).", b, pages, len(drawn), perPage))
		}
	}
	return out, notes
}

// questionsPer returns the numbers of questions the systems count (each
// system's attempted items over its seeds), for questionsNote.
func questionsPer(ss []*system) map[int]bool {
	ns := make(map[int]bool, len(ss))
	for _, s := range ss {
		ns[s.done()/max(1, len(s.seeds))] = true
	}
	return ns
}

// questionsNote says how many questions the systems of a figure count:
// "n = 20 questions per system", or the range when they differ.
func questionsNote(ns map[int]bool, per string) string {
	if len(ns) == 0 {
		return ""
	}
	lo, hi := math.MaxInt, 0
	for n := range ns {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("n = %d questions per %s", lo, per)
	}
	return fmt.Sprintf("n = %d to %d questions per %s", lo, hi, per)
}

// paretoFront returns the indices of the points not dominated by another
// (lower or equal x and higher or equal y, one strictly), sorted by x.
func paretoFront(xs, ys []float64) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if xs[idx[a]] != xs[idx[b]] {
			return xs[idx[a]] < xs[idx[b]]
		}
		return ys[idx[a]] > ys[idx[b]]
	})
	var out []int
	best := math.Inf(-1)
	for _, i := range idx {
		if ys[i] > best {
			out = append(out, i)
			best = ys[i]
		}
	}
	return out
}

// paretoFigures plots accuracy, with its Wilson interval, against cost per
// question (USD when every system is priced, else generated tokens per
// question) and against median latency, with the Pareto frontier. The X
// axis is logarithmic when the values span more than two orders of
// magnitude (logWorthy).
func paretoFigures(c *corpus, effs []efficiency, opt Options) ([]*Figure, error) {
	if len(effs) < 2 {
		return nil, nil
	}
	priced := true
	for _, e := range effs {
		priced = priced && e.priced
	}
	costID, costName, cost := "pareto-ex-vs-gen-tokens", "generated tokens per question", func(e efficiency) float64 { return e.genQ }
	if priced {
		costID, costName, cost = "pareto-ex-vs-cost", "cost per question (USD)", func(e efficiency) float64 { return e.c }
	}
	axes := []struct {
		id, name string
		x        func(e efficiency) (float64, bool)
	}{
		{costID, costName, func(e efficiency) (float64, bool) { return cost(e), true }},
		{"pareto-ex-vs-latency", "median latency per question (s)", func(e efficiency) (float64, bool) { return e.lat.Median, e.hasLat }},
	}
	var out []*Figure
	for _, ax := range axes {
		var xs, ys []float64
		var names []string
		var d xyErr
		var drawn []*system
		for _, e := range effs {
			x, ok := ax.x(e)
			if !ok {
				continue
			}
			acc, _, _ := e.s.ex()
			iv := e.s.acc.CI
			xs, ys, names = append(xs, x), append(ys, 100*acc), append(names, e.s.name)
			drawn = append(drawn, e.s)
			d.XYs = append(d.XYs, plotter.XY{X: x, Y: 100 * acc})
			d.YErrors = append(d.YErrors, struct{ Low, High float64 }{100 * (acc - iv.Lo), 100 * (iv.Hi - acc)})
		}
		if len(xs) < 2 {
			continue
		}
		xlo, xhi := floats.Min(xs), floats.Max(xs)
		ylo, yhi := floats.Min(ys), floats.Max(ys)
		logX := logWorthy(xlo, xhi)
		f := &Figure{ID: ax.id, Title: c.caption("EX vs " + ax.name + ", with the Pareto frontier"), width: 6.5 * vg.Inch, height: 4.5 * vg.Inch}
		xl := ax.name
		if logX {
			xl += ", log scale"
		}
		var all []*system
		for _, e := range effs {
			all = append(all, e.s)
		}
		p := newPlot(xl, fmt.Sprintf("EX (%%, %s %s)", levelPct(opt.Level), intervalName(seeded(all))))
		var front plotter.XYs
		for _, i := range paretoFront(xs, ys) {
			front = append(front, d.XYs[i])
		}
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		l.Color = color.Gray{Y: 110}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Width = vg.Points(1.2)
		// norm places a value on the axis, in [0, 1], as the axis scales it.
		norm := func(x float64) float64 {
			if xhi == xlo {
				return 0.5
			}
			if logX {
				return (math.Log(x) - math.Log(xlo)) / (math.Log(xhi) - math.Log(xlo))
			}
			return (x - xlo) / (xhi - xlo)
		}
		// Systems at (nearly) the same point share one label instead of
		// printing their names over each other; pointLabels places each
		// label where it clears the frame and the others (the points on
		// the right half try their left first).
		var lpts []plotter.XY
		var shared [][]string
		near := func(a, b plotter.XY) bool {
			return math.Abs(norm(a.X)-norm(b.X)) <= 0.02 && math.Abs(a.Y-b.Y) <= 0.02*math.Max(yhi-ylo, 1e-12)
		}
	points:
		for i, pt := range d.XYs {
			for j := range lpts {
				if near(lpts[j], pt) {
					shared[j] = append(shared[j], names[i])
					continue points
				}
			}
			lpts, shared = append(lpts, pt), append(shared, []string{names[i]})
		}
		lnames := make([]string, len(shared))
		for j, ns := range shared {
			lnames[j] = sharedLabel(ns)
		}
		p.Add(l)
		sysThumbs, err := c.addSystemPoints(f, p, drawn, d)
		if err != nil {
			return nil, err
		}
		// Headroom for the labels of the best systems, up to 100.
		pctAxis(p, 0.06, 0, f.height)
		labels := &pointLabels{pts: lpts, names: lnames}
		for _, pt := range lpts {
			labels.right = append(labels.right, norm(pt.X) <= 0.55)
		}
		leg := &insetLegend{}
		for i, pt := range d.XYs {
			leg.avoidSegment(plotter.XY{X: pt.X, Y: pt.Y - d.YErrors[i].Low}, plotter.XY{X: pt.X, Y: pt.Y + d.YErrors[i].High}, logX)
		}
		for j := 1; j < len(front); j++ {
			leg.avoidSegment(front[j-1], front[j], logX)
		}
		p.Add(labels)
		if logX {
			setLogX(p, xlo, xhi, 0.06)
		} else {
			padX(p, 0.05, 0.05)
			p.X.Tick.Marker = trimTicks{}
		}
		leg.add("Pareto frontier", l)
		p.Add(leg)
		f.N = questionsNote(questionsPer(drawn), "system")
		f.CI = levelPct(opt.Level) + " " + intervalName(seeded(all))
		f.plot = p
		// The labels name the points when they can all be placed apart
		// and inside the frame (a trial layout on a recorder tells);
		// else a legend beside the frame names every system's marker.
		f.draw(draw.NewCanvas(new(recorder.Canvas), f.width, f.height))
		if labels.collide {
			labels.hidden = true
			f.side, f.sideWidth = sideLegend(sysThumbs)
			f.width += f.sideWidth
		}
		out = append(out, f)
	}
	return out, nil
}

// trimTicks are the default ticks with their labels' trailing zeros cut
// ("27500", not "27500.00"; "1.5", not "1.50").
type trimTicks struct{}

// Ticks implements plot.Ticker.
func (trimTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i, t := range ts {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ts[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ts
}

// sharedLabel names the systems drawn at one point: all of them when two
// short names fit, else the first and how many more (a grid's points can
// share one cost; the tables list them all).
func sharedLabel(names []string) string {
	if all := strings.Join(names, ", "); len(names) == 1 || len(names) == 2 && len(all) <= 40 {
		return all
	}
	return fmt.Sprintf("%s and %d more", names[0], len(names)-1)
}

// validationLevels are the names of SteinerSQL's validation levels, as
// docs/METHODS.md defines them (Stage 3 validation): L1 runs the query,
// L2 checks its structure against the scaffold (tables, joins,
// attributes), L3 its semantics (GROUP BY, aggregates, numeric
// constraints).
var validationLevels = map[string]string{
	"l1": "L1 execution",
	"l2": "L2 structure",
	"l3": "L3 semantics",
}

// validationLevelsNote is the caption's account of the levels.
const validationLevelsNote = "Levels (docs/METHODS.md, SteinerSQL's Stage 3 validation): L1 execution, the query runs; L2 structure, its tables and joins are the scaffold's and its attributes map to the question; L3 semantics, non-aggregated SELECT columns are grouped, aggregates match the decomposition and numeric constraints are present."

// validationLevelName is the readable name of a validation counter
// ("validation.l2" -> "L2 structure"); a counter without one keeps
// its name without the prefix.
func validationLevelName(counter string) string {
	short := strings.TrimPrefix(counter, runners.ValidationPrefix)
	if n, ok := validationLevels[short]; ok {
		return n
	}
	return short
}

// validationFigure draws the validation trigger rates as a compact
// grouped bar chart: one group per validation level, named as
// docs/METHODS.md defines the levels, one bar per system in the system's
// colour (reportStyles), the systems in the legend.
func validationFigure(c *corpus) (*Figure, error) {
	names, systems, rates := validationRates(c)
	if len(systems) == 0 {
		return nil, nil
	}
	// The figure shows the trigger rate of each level (validation.l1,
	// validation.l2, ...), as the SteinerSQL paper's Figure 3 does; the
	// table also lists the per-level attempts, corrections and passes.
	var levels []string
	for _, n := range names {
		if isLevelCounter(n) {
			levels = append(levels, n)
		}
	}
	if len(levels) > 0 {
		names = levels
	}
	// A group takes 0.8 of its unit; bars share it, at most 16 points each.
	unit := vg.Length(math.Max(1.3, 0.22*float64(len(systems)))) * vg.Inch
	w := min(vg.Points(16), 0.8*unit/vg.Length(len(systems)))
	width := max(4.5*vg.Inch, 1.2*vg.Inch+unit*vg.Length(len(names)))
	f := &Figure{ID: "validation-rates", Title: c.caption("Validation trigger rates (% of questions on which each level fired)"), width: width, height: 3.4 * vg.Inch}
	p := newPlot("", "questions (%)")
	leg := &insetLegend{}
	for i, s := range systems {
		st := c.styleOf(s)
		vals := make(plotter.Values, len(names))
		for j, n := range names {
			vals[j] = 100 * rates[s][n]
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		bc.Color = st.Color
		bc.LineStyle.Width = 0
		bc.Offset = w * vg.Length(float64(i)-float64(len(systems)-1)/2)
		p.Add(bc)
		f.drew(s.name, bc.Color, nil)
		leg.add(s.name, bc)
		for j, v := range vals {
			leg.avoidSegment(plotter.XY{X: float64(j), Y: 0}, plotter.XY{X: float64(j), Y: v}, false)
		}
	}
	labels := make([]string, len(names))
	for j, n := range names {
		labels[j] = validationLevelName(n)
	}
	p.NominalX(labels...)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	// The axis spans half a unit either side of the groups, so that no
	// width is left empty.
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Add(leg)
	pctAxis(p, 0.04, len(systems), f.height)
	f.plot = p
	f.N = questionsNote(questionsPer(systems), "system")
	f.Note = validationLevelsNote
	return f, nil
}

// isLevelCounter reports whether a counter name is a validation level's
// trigger flag: "validation.l" followed by digits only.
func isLevelCounter(name string) bool {
	rest, ok := strings.CutPrefix(name, runners.ValidationPrefix+"l")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
