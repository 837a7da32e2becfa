package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/t2sbench/t2sbench/stats"
)

// GoldOutcome is one question's verdict as the two-gold table reads it:
// its status and whether it is correct.
type GoldOutcome struct {
	Status  Status
	Correct bool
}

// OutcomeOf is v's outcome.
func OutcomeOf(v Verdict) GoldOutcome { return GoldOutcome{Status: v.Status, Correct: v.Correct} }

// label is what the outcome counts as in EX: "correct", "wrong" (in the
// denominator, not correct) or the status of a gold that does not run
// (out of the denominator).
func (o GoldOutcome) label() string {
	switch {
	case !GoldRuns(o.Status):
		return string(o.Status)
	case o.Status == StatusOK && o.Correct:
		return "correct"
	}
	return "wrong"
}

// GoldSystem is one system's verdicts under two golds: A[s] and B[s] map
// question id to the outcome under seed s (one map for a prediction file)
// under the first and the second gold.
type GoldSystem struct {
	Name string
	A, B []map[string]GoldOutcome
}

// GoldEX is a system's EX under one gold: the mean over seeds of each
// seed's correct / attempted (attempted: the gold runs), NaN when nothing
// was attempted, with the counts summed over seeds.
type GoldEX struct {
	EX        float64 `json:"ex"`
	Correct   int     `json:"correct"`
	Attempted int     `json:"attempted"`
}

// GoldFlip is a question whose verdict differs between the two golds:
// From under the first, To under the second ("correct", "wrong", or the
// status of a gold that does not run). Seed is the position of the seed
// among the system's seeds (0 for a prediction file).
type GoldFlip struct {
	Seed       int    `json:"seed,omitempty"`
	QuestionID string `json:"question_id"`
	From       string `json:"from"`
	To         string `json:"to"`
}

// String is the flip as the two-gold tables list it: "1471 correct->wrong",
// with " (seed #n)" after the id for a system's n-th seed beyond the first.
func (f GoldFlip) String() string {
	q := f.QuestionID
	if f.Seed > 0 {
		q = fmt.Sprintf("%s (seed #%d)", q, f.Seed+1)
	}
	return q + " " + f.From + "->" + f.To
}

// maxFlipsListed bounds the flipped questions a two-gold table lists per
// system in text (the JSON output lists them all).
const maxFlipsListed = 20

// ListFlips returns the first maxFlipsListed of flips as the two-gold
// tables list them (GoldFlip.String) and how many are left out.
func ListFlips(flips []GoldFlip) (listed []string, more int) {
	for _, f := range flips[:min(len(flips), maxFlipsListed)] {
		listed = append(listed, f.String())
	}
	return listed, len(flips) - len(listed)
}

// TwoGoldRow is one system of the two-gold table.
type TwoGoldRow struct {
	System string `json:"system"`
	A      GoldEX `json:"gold_a"`
	B      GoldEX `json:"gold_b"`
	// RankA and RankB are the system's ranks by EX under each gold (1 is
	// the best; equal EX share the better rank, 1 2 2 4); 0 for a system
	// without EX. Change = RankA - RankB: positive when the second gold
	// moves the system up.
	RankA  int `json:"rank_a"`
	RankB  int `json:"rank_b"`
	Change int `json:"rank_change"`
	// Flips are the questions whose verdict differs, in the order of the
	// first gold's questions (seed after seed); ToCorrect and ToWrong
	// count the flips into and out of "correct".
	Flips     []GoldFlip `json:"flips"`
	ToCorrect int        `json:"to_correct"`
	ToWrong   int        `json:"to_wrong"`
}

// TwoGold is the table of EX under two golds: every system's EX and rank
// under each, the rank changes, Kendall's tau-b between the two rankings
// and the questions whose verdict flips.
type TwoGold struct {
	GoldA string `json:"gold_a"`
	GoldB string `json:"gold_b"`
	// Changed lists the questions whose gold SQL differs; only they can
	// flip.
	Changed []string     `json:"changed"`
	Rows    []TwoGoldRow `json:"systems"`
	// Tau is Kendall's tau-b between the systems' EX under the two golds
	// (stats.KendallTauB, ties counted as scipy.stats.kendalltau does),
	// over the systems with EX under both; nil when undefined (fewer than
	// two systems, or all tied under one gold).
	Tau *float64 `json:"kendall_tau_b"`
}

// TwoGoldEX computes the two-gold table of systems, in their order: it is
// the one computation eval, compare and report print. goldA and goldB name
// the golds; changed lists the questions whose gold differs (in the order
// flips are listed). A system with different seed counts under the two
// golds is an error.
func TwoGoldEX(goldA, goldB string, changed []string, systems []GoldSystem) (*TwoGold, error) {
	t := &TwoGold{GoldA: goldA, GoldB: goldB, Changed: changed}
	if t.Changed == nil {
		t.Changed = []string{}
	}
	for _, s := range systems {
		if len(s.A) != len(s.B) || len(s.A) == 0 {
			return nil, fmt.Errorf("metrics: two golds: system %q has %d seeds under %s and %d under %s", s.Name, len(s.A), goldA, len(s.B), goldB)
		}
		r := TwoGoldRow{System: s.Name, A: goldEX(s.A), B: goldEX(s.B), Flips: []GoldFlip{}}
		for k := range s.A {
			for _, id := range flipOrder(changed, s.A[k], s.B[k]) {
				from, to := s.A[k][id].label(), s.B[k][id].label()
				if _, ok := s.A[k][id]; !ok {
					from = "unscored"
				}
				if _, ok := s.B[k][id]; !ok {
					to = "unscored"
				}
				if from == to {
					continue
				}
				r.Flips = append(r.Flips, GoldFlip{Seed: k, QuestionID: id, From: from, To: to})
				switch {
				case to == "correct":
					r.ToCorrect++
				case from == "correct":
					r.ToWrong++
				}
			}
		}
		t.Rows = append(t.Rows, r)
	}
	ranks := func(ex func(r TwoGoldRow) float64) []int {
		out := make([]int, len(t.Rows))
		for i, r := range t.Rows {
			x := ex(r)
			if math.IsNaN(x) {
				continue
			}
			out[i] = 1
			for _, o := range t.Rows {
				if y := ex(o); !math.IsNaN(y) && y > x {
					out[i]++
				}
			}
		}
		return out
	}
	ra := ranks(func(r TwoGoldRow) float64 { return r.A.EX })
	rb := ranks(func(r TwoGoldRow) float64 { return r.B.EX })
	var xa, xb []float64
	for i := range t.Rows {
		t.Rows[i].RankA, t.Rows[i].RankB = ra[i], rb[i]
		if ra[i] > 0 && rb[i] > 0 {
			t.Rows[i].Change = ra[i] - rb[i]
			xa, xb = append(xa, t.Rows[i].A.EX), append(xb, t.Rows[i].B.EX)
		}
	}
	if tau, err := stats.KendallTauB(xa, xb); err == nil && !math.IsNaN(tau) {
		t.Tau = &tau
	}
	return t, nil
}

// flipOrder is the questions to look at for flips: changed, then any
// other question whose outcome differs between a and b (sorted), so that
// a flip the caller did not expect is listed too.
func flipOrder(changed []string, a, b map[string]GoldOutcome) []string {
	in := make(map[string]bool, len(changed))
	for _, id := range changed {
		in[id] = true
	}
	var other []string
	for id, o := range a {
		if p, ok := b[id]; !in[id] && (!ok || p.label() != o.label()) {
			other = append(other, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !in[id] && !ok {
			other = append(other, id)
		}
	}
	slices.Sort(other)
	return append(slices.Clone(changed), other...)
}

// goldEX is the EX of a system's seeds under one gold.
func goldEX(seeds []map[string]GoldOutcome) GoldEX {
	var g GoldEX
	sum, n := 0.0, 0
	for _, m := range seeds {
		c, a := 0, 0
		for _, o := range m {
			if !GoldRuns(o.Status) {
				continue
			}
			a++
			if o.Status == StatusOK && o.Correct {
				c++
			}
		}
		g.Correct += c
		g.Attempted += a
		if a > 0 {
			sum += float64(c) / float64(a)
			n++
		}
	}
	g.EX = math.NaN()
	if n > 0 {
		g.EX = sum / float64(n)
	}
	return g
}

// MarshalJSON writes EX as null when it is NaN (nothing attempted).
func (g GoldEX) MarshalJSON() ([]byte, error) {
	type plain struct {
		EX        *float64 `json:"ex"`
		Correct   int      `json:"correct"`
		Attempted int      `json:"attempted"`
	}
	p := plain{Correct: g.Correct, Attempted: g.Attempted}
	if !math.IsNaN(g.EX) {
		p.EX = &g.EX
	}
	return json.Marshal(p)
}
