package sim

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/llm"
)

var calibrate = flag.String("sim.calibrate", "", "measure the ranked keyword reading: mini, or NAME=DIR[:FROM:TO] (questions FROM..TO-1, 0-based)")

// readingRecorder is an llm.Client that answers with the simulator and
// keeps, per question, the ranked reading of its understanding prompt.
type readingRecorder struct {
	m  *Model
	mu sync.Mutex
	by map[string]questionKeywords
}

func (r *readingRecorder) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if req.Responder == "iesr/understand" {
		pr := ParsePrompt(drawMessages(req.Messages))
		if ex, ok := r.m.Find(pr.Text); ok {
			ev := ""
			if ex.Evidence != "" && pr.Contains(ex.Evidence) {
				ev = ex.Evidence
			}
			k := keywordReading(&Sample{Request: req, Prompt: pr, Question: ex.Question, Evidence: ev, example: ex, model: r.m})
			r.mu.Lock()
			r.by[ex.DBID+"\x00"+ex.Question] = k
			r.mu.Unlock()
		}
	}
	return r.m.Complete(ctx, req)
}

// TestCalibrateReading measures the ranked keyword reading against the
// gold on a question set and prints it as a Calibration literal
// (calibrations.go). It runs only with -sim.calibrate: IESR's Stage 1
// (runners/iesr, its understanding prompt) on each question, the reading
// of that prompt per tier, and each tier's items and hits counted as
// Table 4 counts them (iesr.GoldUseOf, iesr.ScoreKeywords). Questions
// whose database is missing are left out.
func TestCalibrateReading(t *testing.T) {
	if *calibrate == "" {
		t.Skip("-sim.calibrate not set")
	}
	name, spec, _ := strings.Cut(*calibrate, "=")
	from, to := 0, -1
	var b *datasets.Benchmark
	if name == "mini" {
		b = runkit.Mini(t)
	} else {
		parts := strings.Split(spec, ":")
		switch len(parts) {
		case 1:
		case 3:
			var err error
			if from, err = strconv.Atoi(parts[1]); err != nil {
				t.Fatalf("-sim.calibrate %q: FROM %q: %v", *calibrate, parts[1], err)
			}
			if parts[2] != "" {
				if to, err = strconv.Atoi(parts[2]); err != nil {
					t.Fatalf("-sim.calibrate %q: TO %q: %v", *calibrate, parts[2], err)
				}
			}
		default:
			t.Fatalf("-sim.calibrate %q: want mini or NAME=DIR[:FROM:TO]", *calibrate)
		}
		var err error
		b, err = datasets.Open(name, parts[0], datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Engine.Close()
	}
	if to < 0 || to > len(b.Examples) {
		to = len(b.Examples)
	}
	if from < 0 || from > to {
		t.Fatalf("-sim.calibrate %q: questions %d..%d; want 0 <= FROM <= TO <= %d", *calibrate, from, to, len(b.Examples))
	}
	cal := measureReading(t, b, from, to)
	source := fmt.Sprintf("%s, all questions", b.Name)
	if from > 0 || to < len(b.Examples) {
		source = fmt.Sprintf("%s, questions %d-%d", b.Name, from+1, to)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%q: {Name: %q, Source: %q, Questions: %d, Kinds: [numKinds]KindCalibration{\n", b.Name, b.Name, source, cal.Questions)
	for kind, kc := range cal.Kinds {
		fmt.Fprintf(&sb, "\t{Tiers: []TierCount{")
		for i, c := range kc.Tiers {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "{%g, %g}", c.N, c.Hit)
		}
		fmt.Fprintf(&sb, "}, Pool: TierCount{%g, %g}, Gold: %g}, // %s\n", kc.Pool.N, kc.Pool.Hit, kc.Gold, kindNames[kind])
	}
	sb.WriteString("}},\n")
	fmt.Println(sb.String())
}

// measureReading measures the ranked keyword reading against the gold
// on questions from..to-1 of b (TestCalibrateReading).
func measureReading(t *testing.T, b *datasets.Benchmark, from, to int) Calibration {
	t.Helper()
	ctx := context.Background()
	m, err := New(b, Config{P: 0.6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec := &readingRecorder{m: m, by: map[string]questionKeywords{}}
	r, err := iesr.New(runners.Params{"n_rollout": 1, "stage_discriminator": false, "verify_keywords": false})
	if err != nil {
		t.Fatal(err)
	}
	cal := Calibration{Name: b.Name}
	for k := range numKinds {
		cal.Kinds[k].Tiers = make([]TierCount, numTiers[k])
	}
	dbs := map[string]datasets.Database{}
	for _, ex := range b.Examples[from:to] {
		db, ok := dbs[ex.DBID]
		if !ok {
			db, err = b.Engine.Open(ctx, ex.DBID)
			if err != nil {
				t.Logf("%s: %v (left out)", ex.ID, err)
				dbs[ex.DBID] = nil
				continue
			}
			dbs[ex.DBID] = db
		}
		if db == nil {
			continue
		}
		if _, err := r.Run(ctx, runners.Task{Example: ex.WithoutGold(), DB: db, LLM: rec}); err != nil {
			t.Fatalf("%s: %v", ex.ID, err)
		}
		k, ok := rec.by[ex.DBID+"\x00"+ex.Question]
		if !ok {
			t.Fatalf("%s: no understanding request", ex.ID)
		}
		sch, err := db.Schema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		g, err := iesr.GoldUseOf(ctx, db, sch, ex.GoldSQL)
		if err != nil {
			t.Fatal(err)
		}
		cal.Questions++
		score := func(kind int, items []string) iesr.PR {
			var kw iesr.Keywords
			for _, x := range items {
				switch kind {
				case KindTable:
					kw.Tables = append(kw.Tables, strings.ToLower(x))
				case KindColumn:
					kw.Columns = append(kw.Columns, strings.ToLower(x))
				case KindNumber:
					kw.Numbers = append(kw.Numbers, x)
				case KindOperator:
					if c, ok := iesr.CanonicalOperator(x); ok {
						x = c
					}
					kw.Operators = append(kw.Operators, x)
				}
			}
			return iesr.ScoreKeywords(kw, g)[[]string{"table", "column", "unit_num", "operator"}[kind]]
		}
		for kind := range numKinds {
			rk := k.rank[kind]
			for t, items := range rk.tiers {
				pr := score(kind, items)
				cal.Kinds[kind].Tiers[t].N += float64(pr.Pred)
				cal.Kinds[kind].Tiers[t].Hit += float64(pr.PredHit)
			}
			pr := score(kind, rk.pool)
			cal.Kinds[kind].Pool.N += float64(pr.Pred)
			cal.Kinds[kind].Pool.Hit += float64(pr.PredHit)
			cal.Kinds[kind].Gold += float64(score(kind, nil).Gold)
		}
	}
	return cal
}

// TestMiniCalibrationCurrent: the stored mini calibration is what the
// reading measures now (measureReading over all 42 mini questions, the
// numbers TestCalibrateReading -sim.calibrate=mini prints): a change to
// the reading that moves a tier's items or hits fails here until the
// calibrations are re-measured (mini, and Spider dev with
// -sim.calibrate=spider=DIR).
func TestMiniCalibrationCurrent(t *testing.T) {
	t.Parallel()
	b := runkit.Mini(t)
	got := measureReading(t, b, 0, len(b.Examples))
	want := calibrations["mini"]
	if got.Questions != want.Questions {
		t.Errorf("questions: got %d; want %d", got.Questions, want.Questions)
	}
	for kind := range numKinds {
		if g, w := fmt.Sprint(got.Kinds[kind]), fmt.Sprint(want.Kinds[kind]); g != w {
			t.Errorf("%s: got %s; want the stored %s", kindNames[kind], g, w)
		}
	}
}

var crosscheck = flag.String("sim.crosscheck", "", "compare the calibration check's rows on two question sets: NAME=DIR:SPLIT (fitted on questions SPLIT.., held out 0..SPLIT-1), or stored (each stored calibration's expected figures)")

// checkRows are the distinct rows of the calibration check
// (experiments/iesr-table4.yaml): its four profiles' Extract rows, and
// the Verified rows of those that have their own.
func checkRows() (names []string, rows [][numKinds]KindPR) {
	for _, p := range []string{"qwen2.5-7b", "qwen3-8b", "deepseek-v3", "gpt-4o"} {
		names, rows = append(names, p), append(rows, profiles[p].Extract)
		if profiles[p].Verified != profiles[p].Extract {
			names, rows = append(names, p+"+Ve"), append(rows, profiles[p].Verified)
		}
	}
	return names, rows
}

// withinPoints counts the figures (P and R of each kind: 8 a row) of e
// that are within pts percentage points of row's.
func withinPoints(e, row [numKinds]KindPR, pts float64) int {
	n := 0
	for k := range numKinds {
		for _, d := range []float64{e[k].P - row[k].P, e[k].R - row[k].R} {
			if math.Abs(d) <= pts/100 {
				n++
			}
		}
	}
	return n
}

// expectedAt is the expected precision and recall, per kind, on cal of
// the operating points row's fitted on fit.
func expectedAt(fit, cal *Calibration, row [numKinds]KindPR) [numKinds]KindPR {
	var e [numKinds]KindPR
	for k := range numKinds {
		e[k] = cal.Kinds[k].Expected(fit.Kinds[k].OperatingPoint(row[k]))
	}
	return e
}

// TestCrosscheckCalibration prints the figures the docs quote on how a
// calibration transfers between question sets. It runs only with
// -sim.crosscheck. With "stored", it prints each stored calibration's
// expected figures per row of the calibration check (the figures that
// check's measured table approaches). With NAME=DIR:SPLIT, it measures
// the reading on questions SPLIT.. (the fitted set) and 0..SPLIT-1 (held
// out), prints each set's join-table tier (tierTableBridge: its items in
// the gold), and counts the check's expected figures within 3 points of
// their rows with operating points fitted on the fitted set, on the
// fitted set and on the held-out one (6 rows x 8 figures).
func TestCrosscheckCalibration(t *testing.T) {
	if *crosscheck == "" {
		t.Skip("-sim.crosscheck not set")
	}
	names, rows := checkRows()
	pct := func(e [numKinds]KindPR) string {
		var sb strings.Builder
		for k := range numKinds {
			fmt.Fprintf(&sb, "  %4.1f/%4.1f", 100*e[k].P, 100*e[k].R)
		}
		return sb.String()
	}
	if *crosscheck == "stored" {
		for _, c := range []string{"mini", "spider"} {
			cal := calibrations[c]
			fmt.Printf("%s, expected P/R (table, column, number, operator):\n", c)
			for i, row := range rows {
				fmt.Printf("  %-14s%s\n", names[i], pct(expectedAt(cal, cal, row)))
			}
		}
		return
	}
	name, spec, _ := strings.Cut(*crosscheck, "=")
	dir, splitArg, ok := strings.Cut(spec, ":")
	split, err := strconv.Atoi(splitArg)
	if !ok || err != nil {
		t.Fatalf("-sim.crosscheck %q: want NAME=DIR:SPLIT (SPLIT a question index)", *crosscheck)
	}
	b, err := datasets.Open(name, dir, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	held := measureReading(t, b, 0, split)
	fit := measureReading(t, b, split, len(b.Examples))
	for _, s := range []struct {
		set string
		cal *Calibration
	}{{fmt.Sprintf("questions 1-%d", split), &held}, {fmt.Sprintf("questions %d-%d", split+1, len(b.Examples)), &fit}} {
		c := s.cal.Kinds[KindTable].Tiers[tierTableBridge]
		fmt.Printf("%s (%d with databases): join-table tier %g of %g in the gold (%.0f%%)\n", s.set, s.cal.Questions, c.Hit, c.N, 100*c.Hit/c.N)
	}
	in, out := 0, 0
	for i, row := range rows {
		eIn, eOut := expectedAt(&fit, &fit, row), expectedAt(&fit, &held, row)
		in += withinPoints(eIn, row, 3)
		out += withinPoints(eOut, row, 3)
		fmt.Printf("  %-14s fitted%s\n  %-14s held out%s\n", names[i], pct(eIn), "", pct(eOut))
	}
	fmt.Printf("fitted on questions %d-%d, expected figures within 3 points: %d of %d on those questions, %d of %d on questions 1-%d\n",
		split+1, len(b.Examples), in, 8*len(rows), out, 8*len(rows), split)
}
