package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/t2sbench/t2sbench/metrics"
)

// Figure is one plot of a report.
type Figure struct {
	// ID is the file stem (e.g. "sweep-1").
	ID string
	// Title is the plot title; it says "(simulated model)" for sim runs.
	Title  string
	plot   *plot.Plot
	width  vg.Length
	height vg.Length
}

// Render returns the figure encoded as format ("png" or "svg").
func (f *Figure) Render(format string) ([]byte, error) {
	wt, err := f.plot.WriterTo(f.width, f.height, format)
	if err != nil {
		return nil, fmt.Errorf("reports: plot %s: %w", f.ID, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
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

// legendRoom raises the top of the Y axis so that a legend of rows entries
// drawn at the top of a plot of height h sits above the data instead of
// over it.
func legendRoom(p *plot.Plot, rows int, h vg.Length) {
	if rows == 0 {
		return
	}
	// The legend takes rows lines of its text height; the title, the X
	// axis and its label take about 1.1 inch of h.
	need := float64(rows)*p.Legend.TextStyle.Height("Xg").Points()*1.15 + 6
	avail := (h - 1.1*vg.Inch).Points()
	frac := math.Min(0.6, need/avail)
	span := p.Y.Max - p.Y.Min
	if span <= 0 {
		span = 1
	}
	p.Y.Max = p.Y.Min + span/(1-frac)
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
	for _, k := range sortedKeys(keys) {
		distinct := map[string]bool{}
		nonNum := false
		for _, s := range ss {
			v := s.trial.Params[k]
			b, _ := json.Marshal(v)
			distinct[string(b)] = true
			if _, isNum := toFloat(v); !isNum {
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

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
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
		pure := true
		for _, tok := range strings.Fields(s.config)[1:] {
			if !strings.Contains(tok, "=") {
				pure = false
			}
		}
		if !pure {
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

// variantOf returns the ablation tokens of s's configuration (the tokens
// after the runner that name no parameter value), "" for the full one.
func variantOf(s *system) string {
	var v []string
	for _, tok := range strings.Fields(s.config)[1:] {
		if !strings.Contains(tok, "=") {
			v = append(v, tok)
		}
	}
	return strings.Join(v, " ")
}

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

// sweepFigures plots EX against a single swept numeric parameter, one
// line per (ablation, backbone) series, with Wilson interval bars. Series
// are shifted apart by a small fraction of the X range so that their bars
// do not hide each other.
func sweepFigures(c *corpus, opt Options) ([]*Figure, error) {
	var out []*Figure
	groups, params := sweepSeries(c)
	for gi, g := range groups {
		param := params[gi]
		first := g[0][0]
		runner := strings.Fields(first.config)[0]
		f := &Figure{ID: fmt.Sprintf("sweep-%d", len(out)+1), width: 6 * vg.Inch, height: 4 * vg.Inch,
			Title: c.caption(fmt.Sprintf("%s on %s: EX vs %s", runner, first.bench, param))}
		p := newPlot(f.Title, param, fmt.Sprintf("EX (%%, %s Wilson CI)", levelPct(opt.Level)))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pts := range g {
			for _, s := range pts {
				x, _ := toFloat(s.trial.Params[param])
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		dodge := 0.0
		if len(g) > 1 && hi > lo {
			dodge = 0.012 * (hi - lo)
		}
		oneBackbone, oneVariant := true, true
		for _, pts := range g {
			oneBackbone = oneBackbone && pts[0].backbone == first.backbone
			oneVariant = oneVariant && variantOf(pts[0]) == variantOf(first)
		}
		for i, pts := range g {
			pts = append([]*system(nil), pts...)
			sort.SliceStable(pts, func(x, y int) bool {
				a, _ := toFloat(pts[x].trial.Params[param])
				bb, _ := toFloat(pts[y].trial.Params[param])
				return a < bb
			})
			shift := dodge * (float64(i) - float64(len(g)-1)/2)
			var d xyErr
			for _, s := range pts {
				x, _ := toFloat(s.trial.Params[param])
				acc, k, n := s.ex()
				iv, err := metrics.Wilson(k, n, opt.Level)
				if err != nil {
					return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
				}
				d.XYs = append(d.XYs, plotter.XY{X: x + shift, Y: 100 * acc})
				d.YErrors = append(d.YErrors, struct{ Low, High float64 }{100 * (acc - iv.Lo), 100 * (iv.Hi - acc)})
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
			var name []string
			if v := variantOf(pts[0]); !oneVariant || v != "" {
				if v == "" {
					v = "full"
				}
				name = append(name, v)
			}
			if !oneBackbone || len(name) == 0 {
				name = append(name, pts[0].backbone)
			}
			p.Legend.Add(strings.Join(name, ", "), l, sc)
		}
		p.Legend.Top = true
		padX(p, 0.05, 0.05)
		legendRoom(p, len(g), f.height)
		p.Y.Tick.Marker = capTicks{max: 100}
		f.plot = p
		out = append(out, f)
	}
	return out, nil
}

// grid is a GridXYZ over sorted x and y values.
type grid struct {
	xs, ys []float64
	z      map[[2]int]float64
}

func (g grid) Dims() (int, int) { return len(g.xs), len(g.ys) }
func (g grid) X(c int) float64  { return g.xs[c] }
func (g grid) Y(r int) float64  { return g.ys[r] }
func (g grid) Z(c, r int) float64 {
	if v, ok := g.z[[2]int{c, r}]; ok {
		return v
	}
	return math.NaN()
}

// heatPlot draws a heat map of g (values in [0, 100]) with each cell's
// value written in it; xnames and ynames, when set, label the axes.
func heatPlot(title, xl, yl string, g grid, xnames, ynames []string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	h := plotter.NewHeatMap(g, palette.Heat(64, 1))
	h.Min, h.Max = 0, 100
	h.NaN = color.White
	p.Add(h)
	var lab plotter.XYLabels
	for c := range g.xs {
		for r := range g.ys {
			if v, ok := g.z[[2]int{c, r}]; ok {
				lab.XYs = append(lab.XYs, plotter.XY{X: g.xs[c], Y: g.ys[r]})
				lab.Labels = append(lab.Labels, fmtFloat(v, 0))
			}
		}
	}
	if len(lab.XYs) > 0 {
		l, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = -0.5, -0.5
		}
		p.Add(l)
	}
	if xnames != nil {
		p.NominalX(xnames...)
	}
	if ynames != nil {
		p.NominalY(ynames...)
	}
	return p, nil
}

// simplexFigures plots EX over an alpha/beta/gamma grid: three numeric
// parameters that sum to 1 in every configuration; x and y are the first
// two (sorted by name), the third is 1 - x - y.
func simplexFigures(c *corpus) ([]*Figure, error) {
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
				v, _ := toFloat(s.trial.Params[k])
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
			if !contains(backbones, s.backbone) {
				backbones = append(backbones, s.backbone)
			}
		}
		for _, b := range backbones {
			xi, yi := map[float64]int{}, map[float64]int{}
			var xs, ys []float64
			for _, s := range ss {
				x, _ := toFloat(s.trial.Params[params[0]])
				y, _ := toFloat(s.trial.Params[params[1]])
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
			for i, x := range xs {
				xi[x] = i
			}
			for i, y := range ys {
				yi[y] = i
			}
			g := grid{z: map[[2]int]float64{}}
			xn := make([]string, len(xs))
			yn := make([]string, len(ys))
			for i, x := range xs {
				g.xs = append(g.xs, float64(i))
				xn[i] = strconv.FormatFloat(x, 'f', -1, 64)
			}
			for i, y := range ys {
				g.ys = append(g.ys, float64(i))
				yn[i] = strconv.FormatFloat(y, 'f', -1, 64)
			}
			for _, s := range ss {
				if s.backbone != b {
					continue
				}
				x, _ := toFloat(s.trial.Params[params[0]])
				y, _ := toFloat(s.trial.Params[params[1]])
				acc, _, _ := s.ex()
				g.z[[2]int{xi[x], yi[y]}] = 100 * acc
			}
			title := fmt.Sprintf("%s on %s: EX (%%) over %s, %s (%s = 1 - %s - %s)", strings.Fields(ss[0].config)[0], ss[0].bench,
				params[0], params[1], params[2], params[0], params[1])
			if len(backbones) > 1 {
				title += ", " + b
			}
			f := &Figure{ID: fmt.Sprintf("simplex-%d", len(out)+1), Title: c.caption(title), width: 6 * vg.Inch, height: 5 * vg.Inch}
			p, err := heatPlot(f.Title, params[0], params[1], g, xn, yn)
			if err != nil {
				return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
			}
			f.plot = p
			out = append(out, f)
		}
	}
	return out, nil
}

// maxHeatmaps bounds the difficulty x reasoning-type heat maps of one
// report (one per system; a large grid run would otherwise draw hundreds).
const maxHeatmaps = 16

// breakdownFigures draws, per system, EX by difficulty (rows) and
// reasoning type (columns), when the benchmark has both labels.
func breakdownFigures(c *corpus) ([]*Figure, []string) {
	var out []*Figure
	var notes []string
	skipped := 0
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
			tn := sortedKeys(types)
			if len(tn) == 0 {
				continue
			}
			if len(out) >= maxHeatmaps {
				skipped++
				continue
			}
			g := grid{z: map[[2]int]float64{}}
			for i := range tn {
				g.xs = append(g.xs, float64(i))
			}
			for i := range levels {
				g.ys = append(g.ys, float64(i))
			}
			for ci, ty := range tn {
				for ri, l := range levels {
					acc, n := groupAcc(s, func(i int) bool {
						id := s.done[i].QuestionID
						return s.difficulty(id, &s.done[i]) == l && contains(s.labels[id].ReasoningTypes, ty)
					})
					if n > 0 {
						g.z[[2]int{ci, ri}] = 100 * acc
					}
				}
			}
			f := &Figure{ID: fmt.Sprintf("breakdown-%d", len(out)+1), Title: c.caption(fmt.Sprintf("%s on %s: EX (%%) by difficulty and reasoning type", s.row, b)),
				width: vg.Length(math.Max(6, 1+0.8*float64(len(tn)))) * vg.Inch, height: vg.Length(2+0.6*float64(len(levels))) * vg.Inch}
			p, err := heatPlot(f.Title, "reasoning type", "difficulty", g, tn, levels)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", f.ID, err))
				continue
			}
			p.X.Tick.Label.Rotation = math.Pi / 4
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
			f.plot = p
			out = append(out, f)
		}
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d difficulty x reasoning-type heat maps left out (at most %d per report); the breakdown tables cover every system", skipped, maxHeatmaps))
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

// paretoFigures plots accuracy against cost per question (USD when every
// system is priced, else generated tokens per question) and against median
// latency, with the Pareto frontier.
func paretoFigures(c *corpus, effs []efficiency) ([]*Figure, error) {
	if len(effs) < 2 {
		return nil, nil
	}
	priced := true
	for _, e := range effs {
		priced = priced && e.priced
	}
	costName, cost := "generated tokens per question", func(e efficiency) float64 { return e.genQ }
	if priced {
		costName, cost = "cost per question (USD)", func(e efficiency) float64 { return e.c }
	}
	axes := []struct {
		id, name string
		x        func(e efficiency) (float64, bool)
	}{
		{"pareto-cost", costName, func(e efficiency) (float64, bool) { return cost(e), true }},
		{"pareto-latency", "median latency per question (s)", func(e efficiency) (float64, bool) { return e.lat.Median, e.hasLat }},
	}
	var out []*Figure
	for _, ax := range axes {
		var xs, ys []float64
		var names []string
		for _, e := range effs {
			x, ok := ax.x(e)
			if !ok {
				continue
			}
			acc, _, _ := e.s.ex()
			xs, ys, names = append(xs, x), append(ys, 100*acc), append(names, e.s.name)
		}
		if len(xs) < 2 {
			continue
		}
		f := &Figure{ID: ax.id, Title: c.caption("EX vs " + ax.name + ", with the Pareto frontier"), width: 6 * vg.Inch, height: 4 * vg.Inch}
		p := newPlot(f.Title, ax.name, "EX (%)")
		var pts plotter.XYs
		for i := range xs {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		sc.Color = plotutil.Color(0)
		var front plotter.XYs
		for _, i := range paretoFront(xs, ys) {
			front = append(front, pts[i])
		}
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		l.Color = plotutil.Color(1)
		l.Dashes = plotutil.Dashes(1)
		// Systems at the same point share one label instead of printing
		// their names over each other.
		var lpts plotter.XYs
		var lnames []string
		xlo, xhi := floats.Min(xs), floats.Max(xs)
		ylo, yhi := floats.Min(ys), floats.Max(ys)
		near := func(a, b plotter.XY) bool {
			return math.Abs(a.X-b.X) <= 0.02*math.Max(xhi-xlo, 1e-12) && math.Abs(a.Y-b.Y) <= 0.02*math.Max(yhi-ylo, 1e-12)
		}
	points:
		for i, pt := range pts {
			for j := range lpts {
				if near(lpts[j], pt) {
					lnames[j] += ", " + names[i]
					continue points
				}
			}
			lpts, lnames = append(lpts, pt), append(lnames, names[i])
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: lpts, Labels: lnames})
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", f.ID, err)
		}
		for i := range lab.TextStyle {
			lab.Offset = vg.Point{X: 3, Y: 3}
			lab.TextStyle[i].Font.Size = vg.Points(8)
		}
		p.Add(l, sc, lab)
		p.Legend.Add("Pareto frontier", l)
		p.Legend.Top = true
		// Room on the right for the labels of the costliest systems and
		// above the data for the legend.
		widest := 0.0
		for _, n := range lnames {
			widest = math.Max(widest, lab.TextStyle[0].Width(n).Points())
		}
		plotW := (f.width - vg.Inch).Points()
		padX(p, 0.03, math.Min(0.5, (widest+6)/plotW))
		legendRoom(p, 1, f.height)
		p.Y.Tick.Marker = capTicks{max: 100}
		f.plot = p
		out = append(out, f)
	}
	return out, nil
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
	f := &Figure{ID: "validation", Title: c.caption("Validation trigger rates (% of questions)"), width: width, height: 4.5 * vg.Inch}
	p := newPlot(f.Title, "", "questions (%)")
	w := vg.Points(math.Max(4, 36/float64(len(names))))
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
		p.Legend.Add(strings.TrimPrefix(n, "validation."), bc)
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
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 100
	legendRoom(p, len(names), f.height)
	p.Y.Tick.Marker = capTicks{max: 100}
	f.plot = p
	return f, nil
}

// capTicks are the default ticks without those above max: percentages
// stop at 100 when the axis is raised to make room for the legend.
type capTicks struct{ max float64 }

// Ticks implements plot.Ticker.
func (t capTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range (plot.DefaultTicks{}).Ticks(lo, math.Min(hi, t.max)) {
		if tk.Value <= t.max+1e-9 {
			out = append(out, tk)
		}
	}
	return out
}

// isLevelCounter reports whether a counter name is a validation level's
// trigger flag: "validation.l" followed by digits only.
func isLevelCounter(name string) bool {
	rest, ok := strings.CutPrefix(name, "validation.l")
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
