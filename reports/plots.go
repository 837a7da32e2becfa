package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/runners"
)

// Figure is one plot of a report.
type Figure struct {
	// ID is the file stem (e.g. "sweep-1").
	ID string
	// Title is the plot title; it says "(simulated model)" for sim runs.
	Title string
	// Note, when set, says what the figure marks or leaves out; report.md
	// prints it under the plot (the figure carries it as footnotes too).
	Note string
	// Data, when set, holds the numbers the figure draws; WriteFiles
	// writes it as plots/<ID>.csv beside the plot.
	Data *Table
	plot *plot.Plot
	// bar is the colour bar drawn right of a heat map; footer are lines of
	// text under the plot.
	bar           *plot.Plot
	footer        []string
	width, height vg.Length
}

// Render returns the figure encoded as format ("png" or "svg").
func (f *Figure) Render(format string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(f.width, f.height, format)
	if err != nil {
		return nil, fmt.Errorf("reports: plot %s: %w", f.ID, err)
	}
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: plot %s: %w", f.ID, err)
	}
	return b.Bytes(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
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
	// The legend takes rows lines of its text height; the title, the X
	// axis and its label take about 1.1 inch of h.
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
		if len(s.done) == 0 {
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
		if len(s.done) == 0 {
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
		p := newPlot(f.Title, param, fmt.Sprintf("EX (%%, %s %s)", levelPct(opt.Level), intervalName(multi)))
		data := figureData(opt, []string{"Series", param, "EX", "EX CI low", "EX CI high"}, multi)
		var testLines []string
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
			l.Color, sc.Color, sc.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			l.Dashes = plotutil.Dashes(i)
			eb, err := plotter.NewYErrorBars(d)
			if err != nil {
				return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
			}
			eb.Color = plotutil.Color(i)
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
			f.footer = []string{fmt.Sprintf("The paper's default %s = %s lies outside the swept range.", param, strconv.FormatFloat(def, 'f', -1, 64))}
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
		f.footer = append(f.footer, testLines...)
		if len(f.footer) > 0 {
			f.Note = strings.Join(f.footer, " ")
			f.height += vg.Length(13 * len(f.footer))
		}
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
// in every parameter of params (bench.AtPaperDefault), which the figure
// boxes; nil when the grid has none. The baseline of the grid's tests is
// its family's (sweepTests).
func gridDefault(ss []*system, params []string, opt Options) *system {
	for _, s := range ss {
		if bench.AtPaperDefault(bench.SystemRef{Runner: s.trial.Runner, Params: s.trial.Params, Swept: params}, opt.PaperDefaults) {
			return s
		}
	}
	return nil
}

// heatFigure builds a heat-map figure of cells over nominal axes, with a
// colour bar for EX (%) on the right.
func heatFigure(f *Figure, xl, yl string, xnames, ynames []string, cells []heatCell, showN bool) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	cmap := newSeqMap(0, 100)
	p.Add(&heatCells{nx: len(xnames), ny: len(ynames), cells: cells, cmap: cmap, showN: showN})
	p.NominalX(xnames...)
	p.NominalY(ynames...)
	f.plot = p
	f.bar = colourBar(cmap, "EX (%)")
	f.width += barWidth
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
			if !showN {
				for n := range ns {
					foot = append(foot, fmt.Sprintf("n = %d questions per point.", n))
				}
			}
			if empty > 0 {
				foot = append(foot, "Grey (n=0): no finished question at the point.")
			}
			f.footer = foot
			f.height += vg.Length(len(foot)) * 13
			heatFigure(f, params[0], params[1], xn, yn, cells, showN)
			f.Note = strings.Join(foot, " ")
			f.Data = data.table(f.ID, f.Title)
			out = append(out, f)
		}
	}
	return out, nil
}

// maxHeatmaps bounds the difficulty x reasoning-type heat maps of one
// report (one per system; a large grid run would otherwise draw hundreds).
const maxHeatmaps = 16

// breakdownFigures draws, per system, EX by difficulty (rows) and
// reasoning type (columns), when the benchmark has both labels; each cell
// shows its n, a cell without questions is grey. It draws at most
// maxHeatmaps and returns a note saying how many it left out.
func breakdownFigures(c *corpus) ([]*Figure, []string) {
	var out []*Figure
	var notes []string
	total := 0
	for _, b := range c.benches {
		if !c.hasTypes[b] {
			continue
		}
		ss := c.onBench(b)
		levels := difficultyLevels(ss)
		if len(levels) == 0 {
			continue
		}
		for _, s := range ss {
			types := map[string]bool{}
			for _, it := range s.done {
				for _, ty := range s.labels[it.QuestionID].ReasoningTypes {
					types[ty] = true
				}
			}
			tn := slices.Sorted(maps.Keys(types))
			if len(tn) == 0 {
				continue
			}
			total++
			if len(out) >= maxHeatmaps {
				continue
			}
			var cells []heatCell
			empty := false
			for ci, ty := range tn {
				for ri, l := range levels {
					acc, n := groupAcc(s, func(i int) bool {
						id := s.done[i].QuestionID
						return s.difficulty(id, &s.done[i]) == l && slices.Contains(s.labels[id].ReasoningTypes, ty)
					})
					// n counts questions: the items of every seed, over
					// the seeds.
					n /= len(s.seeds)
					cells = append(cells, heatCell{c: ci, r: ri, v: 100 * acc, n: n})
					empty = empty || n == 0
				}
			}
			f := &Figure{ID: slugID("ex-by-difficulty-and-type", s.row, b), Title: c.caption(fmt.Sprintf("%s on %s: EX (%%) by difficulty and reasoning type", s.row, b)),
				width: vg.Length(math.Max(6, 1.2+0.8*float64(len(tn)))) * vg.Inch, height: vg.Length(2+0.6*float64(len(levels))) * vg.Inch}
			f.footer = []string{"n: questions in the cell; a question counts under each of its reasoning types."}
			if empty {
				f.footer[0] += " Grey (n=0): no question."
			}
			f.height += 13
			heatFigure(f, "reasoning type", "difficulty", tn, levels, cells, true)
			f.plot.X.Tick.Label.Rotation = math.Pi / 4
			f.plot.X.Tick.Label.XAlign, f.plot.X.Tick.Label.YAlign = -1, -0.5
			out = append(out, f)
		}
	}
	if total > len(out) {
		notes = append(notes, fmt.Sprintf("Drew %d of %d difficulty x reasoning-type heat maps (the first %d systems in plan order; at most %d per report); the EX by reasoning type tables cover every system.", len(out), total, len(out), maxHeatmaps))
	}
	return out, notes
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
		for _, e := range effs {
			x, ok := ax.x(e)
			if !ok {
				continue
			}
			acc, _, _ := e.s.ex()
			iv := e.s.acc.CI
			xs, ys, names = append(xs, x), append(ys, 100*acc), append(names, e.s.name)
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
		p := newPlot(f.Title, xl, fmt.Sprintf("EX (%%, %s %s)", levelPct(opt.Level), intervalName(seeded(all))))
		sc, err := plotter.NewScatter(d.XYs)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		sc.Color = plotutil.Color(0)
		sc.Shape = draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(d)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		eb.Color = plotutil.Color(0)
		var front plotter.XYs
		for _, i := range paretoFront(xs, ys) {
			front = append(front, d.XYs[i])
		}
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		l.Color = plotutil.Color(1)
		l.Dashes = plotutil.Dashes(1)
		l.Width = vg.Points(1.5)
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
		p.Add(l, eb, sc)
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
		leg.add(fmt.Sprintf("system (%s %s)", levelPct(opt.Level), intervalName(seeded(all))), sc)
		leg.add("Pareto frontier", l)
		p.Add(leg)
		f.plot = p
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

// validationFigure draws the validation trigger rates as grouped bars:
// one group per system, one bar per validation level, so that the legend
// holds the few levels and the systems label the X axis.
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
	width := vg.Length(math.Max(6, 1.5+0.7*float64(len(systems)))) * vg.Inch
	f := &Figure{ID: "validation-rates", Title: c.caption("Validation trigger rates (% of questions)"), width: width, height: 4.5 * vg.Inch}
	p := newPlot(f.Title, "", "questions (%)")
	w := vg.Points(math.Max(4, 36/float64(len(names))))
	leg := &insetLegend{}
	for j, n := range names {
		vals := make(plotter.Values, len(systems))
		for i, s := range systems {
			vals[i] = 100 * rates[s][n]
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		bc.Color = plotutil.Color(j)
		bc.LineStyle.Width = 0
		bc.Offset = w * vg.Length(float64(j)-float64(len(names)-1)/2)
		p.Add(bc)
		leg.add(strings.TrimPrefix(n, runners.ValidationPrefix), bc)
		for i, v := range vals {
			leg.avoidSegment(plotter.XY{X: float64(i), Y: 0}, plotter.XY{X: float64(i), Y: v}, false)
		}
	}
	labels := make([]string, len(systems))
	for i, s := range systems {
		labels[i] = s.name
	}
	p.NominalX(labels...)
	if len(systems) > 3 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	}
	p.Add(leg)
	pctAxis(p, 0.04, len(names), f.height)
	f.plot = p
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
