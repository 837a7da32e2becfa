package reports

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// sweepSystem is a done system of entry "e" on mini with one question,
// named as load names a trial of identity id.
func sweepSystem(id spec.Identity, backbone string, params runners.Params) *system {
	tr := &runstore.RunTrial{}
	tr.Params = params
	tr.Identity = &id
	config := strings.Join(append([]string{id.Name}, id.Variant()...), " ")
	s := &system{name: id.Label("mini", 0), row: id.Label("mini", 0), config: config, head: id.Name, variant: id.Ablation,
		backbone: backbone, entry: "e", bench: "mini", trial: tr, agg: newItemAgg()}
	s.agg.add(s, &runstore.Item{QuestionID: "q1", Verdict: &runstore.Verdict{Correct: true}}, true)
	s.agg.finish()
	return s
}

func TestSweepSeriesKeepsAblations(t *testing.T) {
	// experiments/iesr-rollout.yaml: n_rollout swept with and without
	// schema compression; both must be series of one figure.
	var ss []*system
	for _, v := range []struct {
		ablation string
		comp     bool
	}{{"", true}, {"no-compression", false}} {
		for _, n := range []int{8, 16, 24} {
			id := spec.Identity{Name: "iesr", Ablation: v.ablation, Sweep: []spec.Setting{{Key: "n_rollout", Value: fmt.Sprint(n)}}}
			ss = append(ss, sweepSystem(id, "sim",
				runners.Params{"n_rollout": float64(n), "schema_compression": v.comp}))
		}
	}
	groups, params := sweepSeries(&corpus{systems: ss})
	if len(groups) != 1 || len(params) != 1 || params[0] != "n_rollout" {
		t.Fatalf("groups = %d, params = %v; want 1 group over n_rollout", len(groups), params)
	}
	if len(groups[0]) != 2 || len(groups[0][0]) != 3 || len(groups[0][1]) != 3 {
		t.Fatalf("series sizes wrong: got %d series; want 2 of 3 points", len(groups[0]))
	}
	if got := variantOf(groups[0][1][0]); got != "no-compression" {
		t.Errorf("second series variant = %q; want no-compression", got)
	}

	// An ablation-only entry (one point per series) is not a sweep.
	abl := []*system{
		sweepSystem(spec.Identity{Name: "iesr"}, "sim", runners.Params{"n_rollout": 32.0, "stage_scoring": true}),
		sweepSystem(spec.Identity{Name: "iesr", Ablation: "w/o-scoring"}, "sim", runners.Params{"n_rollout": 32.0, "stage_scoring": false}),
	}
	if groups, _ := sweepSeries(&corpus{systems: abl}); len(groups) != 0 {
		t.Errorf("ablation-only entry gave %d sweep groups; want 0", len(groups))
	}
}

func TestPctTicks(t *testing.T) {
	// Majors every 1, 2, 5, 10, 20, 25, 50 or 100 units: the first step
	// that gives at most 7 intervals over the range.
	for _, tc := range []struct {
		lo, hi float64
		want   string // the labelled ticks
	}{
		{38.8, 100, "40 50 60 70 80 90 100"},
		{0, 100, "0 20 40 60 80 100"},
		{60, 62.5, "60 61 62"},
		{72.9, 86, "74 76 78 80 82 84 86"},
	} {
		var got []string
		for _, tk := range (pctTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Value < tc.lo-1e-9 || tk.Value > tc.hi+1e-9 {
				t.Errorf("Ticks(%v, %v): tick %v outside the range", tc.lo, tc.hi, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("Ticks(%v, %v) labels = %q; want %q", tc.lo, tc.hi, strings.Join(got, " "), tc.want)
		}
	}
}

func TestPctAxis(t *testing.T) {
	const h = 4 * vg.Inch
	for _, tc := range []struct {
		name             string
		lo, hi, headroom float64
		rows             int
		wantMin, wantMax float64 // -1: only bounds are checked
		wantRoom         string  // where the legend's room is: "top", "bottom", ""
	}{
		// The sweep of sweep-ex-vs-n-rollout: Wilson bars up to 100, so the
		// legend's room goes below the data.
		{"data reach 100", 48, 100, 0, 3, -1, 100, "bottom"},
		{"room above", 20, 60, 0, 3, 18.8, -1, "top"},
		{"full range", 0, 100, 0.06, 3, 0, 100, ""},
		// 90.5 + 0.06 * 80.5 = 95.33: headroom stops short of 100.
		{"headroom below 100", 10, 90.5, 0.06, 0, 10 - 0.03*80.5, 90.5 + 0.06*80.5, ""},
		{"headroom capped", 10, 98, 0.06, 0, 10 - 0.03*88, 100, ""},
		// All at 100: four units [96, 100], then 3% of them below.
		{"flat", 100, 100, 0, 0, 96 - 0.03*4, 100, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plot.New()
			p.Y.Min, p.Y.Max = tc.lo, tc.hi
			pctAxis(p, tc.headroom, tc.rows, h)
			if p.Y.Min < 0 || p.Y.Max > 100 || p.Y.Min >= p.Y.Max {
				t.Fatalf("axis [%v, %v]; want within [0, 100]", p.Y.Min, p.Y.Max)
			}
			if p.Y.Min > tc.lo || p.Y.Max < math.Min(tc.hi, 100) {
				t.Errorf("axis [%v, %v] cuts the data [%v, %v]", p.Y.Min, p.Y.Max, tc.lo, tc.hi)
			}
			if tc.wantMin >= 0 && math.Abs(p.Y.Min-tc.wantMin) > 1e-9 {
				t.Errorf("min %v; want %v", p.Y.Min, tc.wantMin)
			}
			if tc.wantMax >= 0 && math.Abs(p.Y.Max-tc.wantMax) > 1e-9 {
				t.Errorf("max %v; want %v", p.Y.Max, tc.wantMax)
			}
			frac := legendFrac(p, tc.rows, h)
			span := p.Y.Max - p.Y.Min
			top, bottom := (p.Y.Max-tc.hi)/span >= frac-1e-9, (tc.lo-p.Y.Min)/span >= frac-1e-9
			switch tc.wantRoom {
			case "top":
				if !top {
					t.Errorf("axis [%v, %v] leaves %.2f of the height above the data; want %.2f for the legend", p.Y.Min, p.Y.Max, (p.Y.Max-tc.hi)/span, frac)
				}
			case "bottom":
				if !bottom {
					t.Errorf("axis [%v, %v] leaves %.2f of the height below the data; want %.2f for the legend", p.Y.Min, p.Y.Max, (tc.lo-p.Y.Min)/span, frac)
				}
			}
			if _, ok := p.Y.Tick.Marker.(pctTicks); !ok {
				t.Errorf("tick marker %T; want pctTicks", p.Y.Tick.Marker)
			}
		})
	}
}

func TestIsLevelCounter(t *testing.T) {
	for name, want := range map[string]bool{"validation.l1": true, "validation.l12": true, "validation.l2.attempts": false,
		"validation.pass": false, "validation.l": false} {
		if got := isLevelCounter(name); got != want {
			t.Errorf("isLevelCounter(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestSamePairSameInterval(t *testing.T) {
	// The fixture's pairwise baseline is "iesr reason=simA", the full
	// configuration of the ablation's simA column: both tables compare the
	// same pairs and must show the same bootstrap interval.
	r, _ := buildFixture(t, "sim")
	var pw, ab *Table
	for _, tb := range r.Tables {
		switch tb.ID {
		case "pairwise-mini":
			pw = tb
		case "ablation-iesr-mini":
			ab = tb
		}
	}
	if pw == nil || ab == nil {
		t.Fatal("fixture report lacks pairwise-mini or ablation-iesr-mini")
	}
	checked := 0
	for _, ar := range ab.Rows[1:] {
		for _, pr := range pw.Rows {
			if pr[0].Text == ar[0].Text+" reason=simA" {
				checked++
				if pr[5].Text != ar[3].Text {
					t.Errorf("%s: pairwise CI %s; ablation CI %s; want equal", pr[0].Text, pr[5].Text, ar[3].Text)
				}
			}
		}
	}
	if checked != len(ab.Rows)-1 {
		t.Errorf("matched %d ablation rows in the pairwise table; want %d", checked, len(ab.Rows)-1)
	}
}

func TestTexEscapeQuotesAndDashes(t *testing.T) {
	for in, want := range map[string]string{
		`full configuration "iesr", 95%`: "full configuration ``iesr'', 95\\%",
		"report --price":                 "report -{}-price",
		"w/o_x":                          `w/o\_x`,
	} {
		if got := texEscape(in); got != want {
			t.Errorf("texEscape(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestHeatCellColours(t *testing.T) {
	h := &heatCells{cmap: newSeqMap(0, 100)}
	// The empty colour must differ from every colour the map gives, 100
	// included (the issue: empty cells looked like 100).
	for v := 0.0; v <= 100; v += 0.5 {
		if got := h.cellColor(heatCell{v: v, n: 1}); got == color.Color(emptyCell) {
			t.Fatalf("cell of EX %v with n=1 has the empty colour", v)
		}
	}
	if got := h.cellColor(heatCell{v: math.NaN(), n: 0}); got != color.Color(emptyCell) {
		t.Errorf("cell with n=0 has colour %v; want the empty colour %v", got, emptyCell)
	}
	// A cell with n=0 is empty whatever value it carries.
	if got := h.cellColor(heatCell{v: 100, n: 0}); got != color.Color(emptyCell) {
		t.Errorf("cell with n=0 and v=100 has colour %v; want the empty colour", got)
	}
	// The map's ends are viridis' ends.
	lo, _ := h.cmap.At(0)
	hi, _ := h.cmap.At(100)
	if lo != color.Color(viridis[0]) || hi != color.Color(viridis[len(viridis)-1]) {
		t.Errorf("colour map ends %v, %v; want %v, %v", lo, hi, viridis[0], viridis[len(viridis)-1])
	}
}

func TestLogWorthy(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   bool
	}{
		{1, 100, false},   // two orders exactly: linear still reads
		{1, 101, true},    // over 100
		{57, 10965, true}, // quickstart's generated tokens per question: direct vs iesr
		{0, 1000, false},  // zero has no logarithm
		{-1, 1000, false}, // nor has a negative value
		{8, 40, false},    // an n_rollout sweep
	} {
		if got := logWorthy(c.lo, c.hi); got != c.want {
			t.Errorf("logWorthy(%v, %v) = %v; want %v", c.lo, c.hi, got, c.want)
		}
	}
}

func TestParetoLogAxis(t *testing.T) {
	mk := func(name string, gen, lat float64) efficiency {
		s := sweepSystem(spec.Identity{Name: name}, "sim", runners.Params{})
		return efficiency{s: s, genQ: gen, hasLat: true, lat: stats.LatencyStats{Median: lat}}
	}
	c := &corpus{}
	// Generated tokens span 50 to 10000 (ratio 200): log; latencies 1 to
	// 3 s: linear.
	figs, err := paretoFigures(c, []efficiency{mk("direct", 50, 1), mk("sc", 400, 2), mk("iesr", 10000, 3)}, Options{Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 {
		t.Fatalf("%d figures; want 2", len(figs))
	}
	if _, ok := figs[0].plot.X.Scale.(plot.LogScale); !ok || figs[0].ID != "pareto-ex-vs-gen-tokens" {
		t.Errorf("%s: X scale %T; want a log scale (values span 200x)", figs[0].ID, figs[0].plot.X.Scale)
	}
	if _, ok := figs[1].plot.X.Scale.(plot.LogScale); ok {
		t.Errorf("%s: X scale is logarithmic; want linear (values span 3x)", figs[1].ID)
	}
	if _, err := figs[0].Render("png"); err != nil {
		t.Fatal(err)
	}
}

// gridSystems are the points of a simplex grid of runner iesr at step 0.5
// plus, when extra is set, the point (0.4, 0.2, 0.4).
func gridSystems(extra bool) []*system {
	pts := [][3]float64{{0, 0, 1}, {0, 0.5, 0.5}, {0, 1, 0}, {0.5, 0, 0.5}, {0.5, 0.5, 0}, {1, 0, 0}}
	if extra {
		pts = append(pts, [3]float64{0.4, 0.2, 0.4})
	}
	var ss []*system
	for _, p := range pts {
		pt := []spec.Setting{{Key: "alpha", Value: fmt.Sprint(p[0])}, {Key: "beta", Value: fmt.Sprint(p[1])}, {Key: "gamma", Value: fmt.Sprint(p[2])}}
		s := sweepSystem(spec.Identity{Name: "iesr", Point: pt}, "sim",
			runners.Params{"alpha": p[0], "beta": p[1], "gamma": p[2]})
		s.trial.Runner = "iesr"
		s.outcomes = stats.Single(map[string]bool{"q1": true})
		ss = append(ss, s)
	}
	return ss
}

func TestGridBaseline(t *testing.T) {
	params := []string{"alpha", "beta", "gamma"}
	defs := map[string]map[string]float64{"iesr": {"alpha": 0.4, "beta": 0.2, "gamma": 0.4}}
	for _, c := range []struct {
		name     string
		extra    bool
		opt      Options
		wantBase string
		wantDef  string
	}{
		{"the paper's default point", true, Options{PaperDefaults: defs}, "iesr alpha=0.4,beta=0.2,gamma=0.4", "iesr alpha=0.4,beta=0.2,gamma=0.4"},
		{"--baseline wins", true, Options{PaperDefaults: defs, Baseline: "iesr alpha=0.5,beta=0,gamma=0.5"}, "iesr alpha=0.5,beta=0,gamma=0.5", "iesr alpha=0.4,beta=0.2,gamma=0.4"},
		// Never the first point, the degenerate corner alpha = beta = 0.
		{"default not on the grid", false, Options{PaperDefaults: defs}, "", ""},
		{"no defaults", true, Options{}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ss := gridSystems(c.extra)
			cs, err := planComparisons(&corpus{systems: ss}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			base, _, _ := sweepTests(cs, ss)
			def := gridDefault(ss, params, c.opt)
			name := func(s *system) string {
				if s == nil {
					return ""
				}
				return s.name
			}
			if name(base) != c.wantBase || name(def) != c.wantDef {
				t.Errorf("baseline %q, default %q; want %q, %q", name(base), name(def), c.wantBase, c.wantDef)
			}
		})
	}
}

func TestFixtureFiguresMarkDefaultsAndCaps(t *testing.T) {
	dir := t.TempDir()
	writeFixtureRun(t, dir, "sim")
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	opt := fixtureOptions()
	// The fixture's grid has step 0.5; (0.5, 0, 0.5) stands in for the
	// paper's default.
	opt.PaperDefaults = map[string]map[string]float64{"iesr": {"alpha": 0.5, "beta": 0, "gamma": 0.5}, "alphasql": {"n_rollout": 4}}
	r, err := Build([]*runstore.RunData{run}, opt)
	if err != nil {
		t.Fatal(err)
	}
	var simplex *Figure
	for _, f := range r.Figures {
		if strings.HasPrefix(f.ID, "ex-over-") {
			simplex = f
		}
	}
	if simplex == nil {
		t.Fatal("no simplex figure")
	}
	if !strings.Contains(simplex.Note, "Red box: the paper's default point (alpha=0.5, beta=0, gamma=0.5)") ||
		!strings.Contains(simplex.Note, "McNemar, Holm over the 5 other points") {
		t.Errorf("simplex note %q; want the default point boxed and 5 tests against it", simplex.Note)
	}
	// 17 systems (6 ablation, 3 sweep, react-dsl, steinersql, 6 grid)
	// have heat maps; they take three pages of six panels (two columns of
	// heatmapPanelRows rows), which a note and the captions say.
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "heat maps of mini take 3 figures (17 systems, at most 6 per figure") {
		t.Errorf("notes %q; want one saying the 17 heat maps take 3 figures", r.Notes)
	}
	for _, f := range r.Figures {
		if strings.HasPrefix(f.ID, "ex-by-difficulty-and-type-mini-p3") && !strings.Contains(f.Caption(), "page 3 of 3 (systems 13 to 17 of 17)") {
			t.Errorf("caption %q; want it to say page 3 of 3, systems 13 to 17", f.Caption())
		}
	}
}

func TestTokensPerSecondOnlyForRealModels(t *testing.T) {
	for _, c := range []struct {
		backend string
		numeric bool
	}{{"sim", false}, {"openai", true}} {
		r, _ := buildFixture(t, c.backend)
		roles := tableByID(t, r, "efficiency-roles")
		for _, row := range roles.Rows {
			if got := row[7]; got.HasValue != c.numeric || (!c.numeric && got.Text != "sim") {
				t.Errorf("%s backend: %s tok/s %q; want numeric=%v", c.backend, row[0].Text, got.Text, c.numeric)
			}
		}
	}
}

// textRecorder is a vg.Canvas that keeps the strings drawn on it.
type textRecorder struct {
	texts []string
	at    []vg.Point
}

func (*textRecorder) SetLineWidth(vg.Length)              {}
func (*textRecorder) SetLineDash([]vg.Length, vg.Length)  {}
func (*textRecorder) SetColor(color.Color)                {}
func (*textRecorder) Rotate(float64)                      {}
func (*textRecorder) Translate(vg.Point)                  {}
func (*textRecorder) Scale(float64, float64)              {}
func (*textRecorder) Push()                               {}
func (*textRecorder) Pop()                                {}
func (*textRecorder) Stroke(vg.Path)                      {}
func (*textRecorder) Fill(vg.Path)                        {}
func (*textRecorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *textRecorder) FillString(_ font.Face, pt vg.Point, s string) {
	r.texts, r.at = append(r.texts, s), append(r.at, pt)
}

func TestPointLabelsApart(t *testing.T) {
	// The rollout Pareto plot: labels of points at one height, closer
	// together than their names are wide, and points on the frame's top
	// and right edge.
	names := []string{"iesr no-compression n_rollout=8", "iesr no-compression n_rollout=16", "iesr no-compression n_rollout=24",
		"iesr no-compression n_rollout=32", "iesr n_rollout=16", "iesr n_rollout=24", "iesr n_rollout=32", "iesr n_rollout=40"}
	pts := []plotter.XY{{X: 0, Y: 95}, {X: 30, Y: 90}, {X: 55, Y: 100}, {X: 80, Y: 100}, {X: 30, Y: 75}, {X: 55, Y: 75}, {X: 80, Y: 75}, {X: 100, Y: 75}}
	l := &pointLabels{pts: pts, names: names}
	for _, pt := range pts {
		l.right = append(l.right, pt.X <= 55)
	}
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 50, 100
	rec := &textRecorder{}
	data := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 5 * vg.Inch, Y: 3 * vg.Inch}}}
	l.Plot(data, p)
	if len(rec.texts) != len(names) {
		t.Fatalf("%d labels drawn; want %d", len(rec.texts), len(names))
	}
	sty := textStyle(8, color.Black)
	var boxes []vg.Rectangle
	for i, s := range rec.texts {
		// FillString gets the baseline; the box reaches the descent below.
		w, h := sty.Width(s), sty.Height(s)
		desc := sty.FontExtents().Descent
		r := vg.Rectangle{Min: vg.Point{X: rec.at[i].X, Y: rec.at[i].Y - desc}, Max: vg.Point{X: rec.at[i].X + w, Y: rec.at[i].Y - desc + h}}
		if r.Min.X < -0.5 || r.Max.X > data.Max.X+0.5 || r.Min.Y < -0.5 || r.Max.Y > data.Max.Y+0.5 {
			t.Errorf("label %q at %v leaves the data area %v", s, r, data.Rectangle)
		}
		for j, q := range boxes {
			if a := overlapArea(r, q); a > 0.5 {
				t.Errorf("label %q overlaps %q by %.1f pt²", s, rec.texts[j], a)
			}
		}
		boxes = append(boxes, r)
	}
}

func TestSharedLabelAndTrimTicks(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"sc"}, "sc"},
		{[]string{"direct", "cot"}, "direct, cot"},
		{[]string{"iesr alpha=0,beta=0.1,gamma=0.9", "iesr alpha=0,beta=0.2,gamma=0.8"}, "iesr alpha=0,beta=0.1,gamma=0.9 and 1 more"},
		{[]string{"a", "b", "c"}, "a and 2 more"},
	} {
		if got := sharedLabel(tc.names); got != tc.want {
			t.Errorf("sharedLabel(%q) = %q; want %q", tc.names, got, tc.want)
		}
	}
	var labels []string
	// plot.DefaultTicks labels [0, 0.5] "0.00 0.25 0.50".
	for _, tk := range (trimTicks{}).Ticks(0, 0.5) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0 0.25 0.5" {
		t.Errorf("trimTicks(0, 0.5) labels %q; want %q", got, "0 0.25 0.5")
	}
}
