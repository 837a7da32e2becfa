package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// seededTrial is one trial of a made-up run: entry, identity, runner and
// parameters, seed, and its outcomes on q0, q1, ... ("1" right, "0"
// wrong).
func seededTrial(entry int, id spec.Identity, runner string, params runners.Params, seed int64, outcomes string) runstore.RunTrial {
	t := runstore.RunTrial{Trial: spec.Trial{ID: fmt.Sprintf("e%d-%s-s%d", entry, id.Label("mini", seed), seed), Identity: &id, Runner: runner,
		Params: params, Entry: entry, Seed: seed, Benchmark: spec.BenchmarkSpec{Name: "mini"},
		Roles: map[string]string{runners.RoleReason: "m"}, Models: map[string]spec.ModelSpec{"m": {Backend: "sim"}}}}
	t.Label = id.Label("mini", seed)
	for q, ch := range outcomes {
		id := "q" + strconv.Itoa(q)
		t.Items = append(t.Items, runstore.Item{TrialID: t.ID, QuestionID: id, Index: q, Status: runstore.StatusDone,
			Verdict: &runstore.Verdict{QuestionID: id, Status: "ok", Correct: ch == '1'}})
	}
	return t
}

// tableByID returns the report's table id, failing the test without it.
func tableByID(t *testing.T, r *Report, id string) *Table {
	t.Helper()
	for _, tb := range r.Tables {
		if tb.ID == id {
			return tb
		}
	}
	var ids []string
	for _, tb := range r.Tables {
		ids = append(ids, tb.ID)
	}
	t.Fatalf("no table %s (tables: %s)", id, strings.Join(ids, ", "))
	return nil
}

// column returns the index of the column named name (with its group).
func column(t *testing.T, tb *Table, name string) int {
	t.Helper()
	for j, c := range tb.Columns {
		if c.header() == name {
			return j
		}
	}
	t.Fatalf("%s has no column %q", tb.ID, name)
	return -1
}

// TestSeedsAsReplicates reports a run of three systems under seeds 0, 1
// and 2 on six questions (rows: seeds; characters: q0..q5):
//
//	A      001110  001111  010110   (the baseline; per-seed EX 3/6, 4/6, 3/6)
//	B      111110  110110  111010   (per-seed EX 5/6, 4/6, 4/6)
//	lucky  111111  100000  000001   (per-seed EX 6/6, 1/6, 1/6)
//
// The main table has one row per system with EX the mean over seeds, its
// standard deviation and n = 3 seeds. lucky has the best single seed
// (100%) but a mean of 8/18 = 44.4, so B (13/18 = 72.2), not lucky, is
// bolded; the per-seed appendix bolds nothing. The pooled test of B
// against A is checked against a hand computation below.
func TestSeedsAsReplicates(t *testing.T) {
	seeds := []int64{0, 1, 2}
	rows := map[string][3]string{
		"A":     {"001110", "001111", "010110"},
		"B":     {"111110", "110110", "111010"},
		"lucky": {"111111", "100000", "000001"},
	}
	var trials []runstore.RunTrial
	for e, name := range []string{"A", "B", "lucky"} {
		for k, s := range seeds {
			trials = append(trials, seededTrial(e, spec.Identity{Name: name, Seed: true}, name, nil, s, rows[name][k]))
		}
	}
	run := &runstore.RunData{Dir: "runs/seeds", Meta: map[string]string{"name": "seeds"}, Trials: trials}
	r, err := Build([]*runstore.RunData{run}, Options{Seed: 1, Resamples: 500})
	if err != nil {
		t.Fatal(err)
	}

	main := tableByID(t, r, "ex-by-system")
	if len(main.Rows) != 3 {
		t.Fatalf("main table has %d rows; want one per system, 3", len(main.Rows))
	}
	ex, sd, ns := column(t, main, "mini EX"), column(t, main, "mini sd"), column(t, main, "mini seeds")
	for _, tc := range []struct {
		row, ex, sd string
		bold        bool
	}{
		// A: per-seed 3/6, 4/6, 3/6 = 9/18, 12/18, 9/18: mean 10/18 =
		// 55.6, SD sqrt(((9-10)² + (12-10)² + (9-10)²) / 18² / 2) =
		// sqrt(6/648) = 9.6 points. B: 15/18, 12/18, 12/18: mean 13/18 =
		// 72.2, SD sqrt((2² + 1 + 1) / 18² / 2) = 9.6 points.
		{"A", "55.6", "9.6", false},
		{"B", "72.2", "9.6", true},
		// lucky: 8/18 = 44.4; SD sqrt(((18-8)² + (3-8)² + (3-8)²)/18²/2)
		// = sqrt(150/648) = 48.1 points.
		{"lucky", "44.4", "48.1", false},
	} {
		var got []Cell
		for _, row := range main.Rows {
			if row[0].Text == tc.row {
				got = row
			}
		}
		if got == nil {
			t.Errorf("main table lacks %s", tc.row)
			continue
		}
		if got[ex].Text != tc.ex || got[sd].Text != tc.sd || got[ns].Text != "3" || got[ex].Bold != tc.bold {
			t.Errorf("%s: EX %s (bold %v) sd %s seeds %s; want %s (bold %v), %s, 3", tc.row, got[ex].Text, got[ex].Bold, got[sd].Text, got[ns].Text, tc.ex, tc.bold, tc.sd)
		}
	}
	app := tableByID(t, r, "ex-by-seed")
	if len(app.Rows) != 9 {
		t.Errorf("appendix has %d rows; want 9 (3 systems x 3 seeds)", len(app.Rows))
	}
	for _, row := range app.Rows {
		for _, c := range row {
			if c.Bold {
				t.Errorf("appendix bolds %q of %s seed %s; want nothing bolded", c.Text, row[0].Text, row[1].Text)
			}
		}
		if row[0].Text == "lucky" && row[1].Text == "0" && row[2].Text != "100.0" {
			t.Errorf("appendix: lucky seed 0 EX %s; want 100.0", row[2].Text)
		}
	}

	// B against A, counted from the rows above, per question q0..q5
	// (A's seeds | B's seeds):
	//   q0: 000 | 111 -> x = +3 (c_q 3)
	//   q1: 001 | 111 -> x = +2 (c_q 2)
	//   q2: 110 | 101 -> x =  0 (b_q 1: seed 1; c_q 1: seed 2)
	//   q3: 111 | 110 -> x = -1 (b_q 1: seed 2)
	//   q4: 111 | 111 -> x =  0
	//   q5: 010 | 000 -> x = -1 (b_q 1: seed 1)
	// so b = 3, c = 6 pooled and T = sum x = 3. Under the null each
	// nonzero x_q flips sign with probability 1/2: the magnitudes are
	// 3, 2, 1, 1, 16 equally likely sums +-3 +-2 +-1 +-1. With +3:
	// 7, 5, 5, 3, 3, 1, 1, -1; with -3 their negatives. |sum| >= 3 for
	// 7, 5, 5, 3, 3 and -7, -5, -5, -3, -3: 10 of 16, P = 0.625. (McNemar
	// on the 9 pooled pairs as if independent would give 2 * P(K <= 3),
	// K ~ Binomial(9, 1/2) = 2 * 130/512 = 0.508.)
	pw := tableByID(t, r, "pairwise-mini")
	var b []Cell
	for _, row := range pw.Rows {
		if row[0].Text == "B" {
			b = row
		}
	}
	if b == nil {
		t.Fatalf("pairwise table lacks B: %v", pw.Rows)
	}
	cols := map[string]int{}
	for _, n := range []string{"n", "seeds", "b", "c", "test", "p"} {
		cols[n] = column(t, pw, n)
	}
	if b[cols["n"]].Text != "6" || b[cols["seeds"]].Text != "3" || b[cols["b"]].Text != "3" || b[cols["c"]].Text != "6" ||
		b[cols["test"]].Text != stats.TestSignFlip || math.Abs(b[cols["p"]].Value-0.625) > 1e-12 {
		t.Errorf("B vs A: n %s seeds %s b %s c %s test %s p %v; want 6, 3, 3, 6, %s, 0.625 (by hand)", b[cols["n"]].Text, b[cols["seeds"]].Text,
			b[cols["b"]].Text, b[cols["c"]].Text, b[cols["test"]].Text, b[cols["p"]].Value, stats.TestSignFlip)
	}
	if !strings.Contains(strings.Join(r.Setup.Facts, " "), "exact sign-flip test over questions for several seeds") {
		t.Errorf("Setup does not say which test gave each p: %q", r.Setup.Facts)
	}
}

// TestSweepAgainstPaperDefault: every point of a sweep (sc's k) and of a
// simplex grid (iesr's alpha, beta, gamma) is compared with the point of
// the same runner at its paper default, the sweep being Holm's family;
// the benchmark's pairwise table keeps only the default point of each.
// Outcomes on q0..q9: direct right on q0-q4; sc k=1 on q0-q3, k=4 (the
// default) on q0-q6, k=8 on q0-q8; the grid's default (0.5, 0, 0.5) on
// q0-q5, its other points on q0-q2 and q0-q7.
//
// Against k=4: k=1 has b = 3, c = 0, exact McNemar p = 2/8 = 0.25; k=8
// b = 0, c = 2, p = 2/4 = 0.5. Holm over the two: 0.5 and 0.5. Against
// direct they would have been b = 1, c = 0 and b = 0, c = 4.
func TestSweepAgainstPaperDefault(t *testing.T) {
	right := func(n int) string { return strings.Repeat("1", n) + strings.Repeat("0", 10-n) }
	trials := []runstore.RunTrial{seededTrial(0, spec.Identity{Name: "direct"}, "direct", nil, 0, right(5))}
	for _, p := range []struct {
		k     float64
		right int
	}{{1, 4}, {4, 7}, {8, 9}} {
		id := spec.Identity{Name: "sc", Sweep: []spec.Setting{{Key: "k", Value: fmt.Sprint(p.k)}}}
		trials = append(trials, seededTrial(1, id, "sc", runners.Params{"k": p.k}, 0, right(p.right)))
	}
	for _, p := range []struct {
		a, b, g float64
		right   int
	}{{0, 0, 1, 3}, {0.5, 0, 0.5, 6}, {1, 0, 0, 8}} {
		id := spec.Identity{Name: "iesr", Point: []spec.Setting{{Key: "alpha", Value: fmt.Sprint(p.a)}, {Key: "beta", Value: fmt.Sprint(p.b)}, {Key: "gamma", Value: fmt.Sprint(p.g)}}}
		trials = append(trials, seededTrial(2, id, "iesr", runners.Params{"alpha": p.a, "beta": p.b, "gamma": p.g}, 0, right(p.right)))
	}
	run := &runstore.RunData{Dir: "runs/sweep", Meta: map[string]string{"name": "sweep"}, Trials: trials}
	opt := Options{Seed: 1, Resamples: 500, PaperDefaults: map[string]map[string]float64{"sc": {"k": 4}, "iesr": {"alpha": 0.5, "beta": 0, "gamma": 0.5}}}
	r, err := Build([]*runstore.RunData{run}, opt)
	if err != nil {
		t.Fatal(err)
	}

	pw := tableByID(t, r, "pairwise-mini")
	var systems []string
	for _, row := range pw.Rows {
		systems = append(systems, row[0].Text)
	}
	if got := strings.Join(systems, "; "); got != "sc k=4; iesr alpha=0.5,beta=0,gamma=0.5" {
		t.Errorf("pairwise rows %q; want the default point of each sweep only", got)
	}

	for _, tc := range []struct {
		table, base string
		// points are the tested points with their b, c, p and Holm p.
		points [][5]string
	}{
		{"sweep-k-sc-mini", "k=4", [][5]string{{"k=1", "3", "0", "0.250", "0.500"}, {"k=8", "0", "2", "0.500", "0.500"}}},
		// Against (0.5, 0, 0.5), right on q0-q5: (0, 0, 1) b = 3, c = 0,
		// p = 0.25; (1, 0, 0) b = 0, c = 2, p = 0.5.
		{"sweep-alpha-beta-gamma-iesr-mini", "alpha=0.5,beta=0,gamma=0.5",
			[][5]string{{"alpha=0,beta=0,gamma=1", "3", "0", "0.250", "0.500"}, {"alpha=1,beta=0,gamma=0", "0", "2", "0.500", "0.500"}}},
	} {
		tb := tableByID(t, r, tc.table)
		if !strings.Contains(tb.Caption, "against "+tc.base+" ("+runstore.WhyPaperDefault+")") {
			t.Errorf("%s caption %q does not name the default point %s", tc.table, tb.Caption, tc.base)
		}
		if len(tb.Rows) != 1+len(tc.points) || tb.Rows[0][0].Text != tc.base+" (baseline)" {
			t.Fatalf("%s rows %v; want the baseline %s then %d points", tc.table, tb.Rows, tc.base, len(tc.points))
		}
		b, c, p, ph := column(t, tb, "b"), column(t, tb, "c"), column(t, tb, "p"), column(t, tb, "p (Holm)")
		for i, want := range tc.points {
			row := tb.Rows[i+1]
			got := [5]string{row[0].Text, row[b].Text, row[c].Text, row[p].Text, row[ph].Text}
			if got != want {
				t.Errorf("%s: got point, b, c, p, p(Holm) %v; want %v", tc.table, got, want)
			}
		}
	}
	// The plots' data compare the same points with the same baselines.
	for _, f := range r.Figures {
		if f.ID != "ex-vs-k-sc-mini" && !strings.HasPrefix(f.ID, "ex-over-alpha-beta") {
			continue
		}
		if f.Data == nil {
			t.Errorf("figure %s has no data", f.ID)
			continue
		}
		role, b := column(t, f.Data, "role"), column(t, f.Data, "b")
		var roles, bs []string
		for _, row := range f.Data.Rows {
			roles, bs = append(roles, row[role].Text), append(bs, row[b].Text)
		}
		// Rows in the plots' order: k = 1, 4, 8; the grid's points in plan
		// order, the default second.
		if got := strings.Join(roles, ",") + " " + strings.Join(bs, ","); got != ",baseline, 3,-,0" {
			t.Errorf("figure %s data roles and b %q; want the default point as baseline and b = 3, 0 for the others", f.ID, got)
		}
	}
}
