package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// outcomes builds a seed's outcome map from "id:label" items, label c
// (correct), w (wrong) or g (gold_error).
func outcomes(items ...string) map[string]GoldOutcome {
	m := map[string]GoldOutcome{}
	for _, it := range items {
		id, l, _ := strings.Cut(it, ":")
		switch l {
		case "c":
			m[id] = GoldOutcome{Status: StatusOK, Correct: true}
		case "w":
			m[id] = GoldOutcome{Status: StatusOK}
		case "g":
			m[id] = GoldOutcome{Status: StatusGoldError}
		}
	}
	return m
}

func TestTwoGoldEX(t *testing.T) {
	t.Parallel()
	// Four questions; the second gold changes q3 and q4. Under the first
	// gold: s1 3/4, s2 2/4, s3 1/4; under the second: s1 loses q3
	// (2/4), s2 gains q3 and q4 (4/4), s3's q4 gold fails (1/3).
	sys := []GoldSystem{
		{Name: "s1", A: []map[string]GoldOutcome{outcomes("q1:c", "q2:c", "q3:c", "q4:w")}, B: []map[string]GoldOutcome{outcomes("q1:c", "q2:c", "q3:w", "q4:w")}},
		{Name: "s2", A: []map[string]GoldOutcome{outcomes("q1:c", "q2:c", "q3:w", "q4:w")}, B: []map[string]GoldOutcome{outcomes("q1:c", "q2:c", "q3:c", "q4:c")}},
		{Name: "s3", A: []map[string]GoldOutcome{outcomes("q1:c", "q2:w", "q3:w", "q4:w")}, B: []map[string]GoldOutcome{outcomes("q1:c", "q2:w", "q3:w", "q4:g")}},
	}
	tg, err := TwoGoldEX("old", "new", []string{"q3", "q4"}, sys)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		exA, exB     float64
		rankA, rankB int
		flips        string
		toC, toW     int
	}
	wants := []want{
		{0.75, 0.5, 1, 2, "q3:correct>wrong", 0, 1},
		{0.5, 1, 2, 1, "q3:wrong>correct q4:wrong>correct", 2, 0},
		{0.25, 1.0 / 3, 3, 3, "q4:wrong>gold_error", 0, 0},
	}
	for i, w := range wants {
		r := tg.Rows[i]
		t.Run(r.System, func(t *testing.T) {
			var fl []string
			for _, f := range r.Flips {
				fl = append(fl, f.QuestionID+":"+f.From+">"+f.To)
			}
			if math.Abs(r.A.EX-w.exA) > 1e-12 || math.Abs(r.B.EX-w.exB) > 1e-12 || r.RankA != w.rankA || r.RankB != w.rankB ||
				r.Change != w.rankA-w.rankB || strings.Join(fl, " ") != w.flips || r.ToCorrect != w.toC || r.ToWrong != w.toW {
				t.Errorf("got EX %v/%v rank %d/%d change %d flips %q (+%d -%d); want %v/%v rank %d/%d flips %q (+%d -%d)",
					r.A.EX, r.B.EX, r.RankA, r.RankB, r.Change, strings.Join(fl, " "), r.ToCorrect, r.ToWrong, w.exA, w.exB, w.rankA, w.rankB, w.flips, w.toC, w.toW)
			}
		})
	}
	// Rankings by EX (0.75, 0.5, 0.25) and (0.5, 1, 1/3): pairs (s1,s2)
	// discordant, (s1,s3) and (s2,s3) concordant, no tie: (2 - 1) / 3
	// (stats.KendallTauB; scipy.stats.kendalltau([.75,.5,.25],
	// [.5,1,1/3]) gives 0.3333333333333333).
	if tg.Tau == nil || math.Abs(*tg.Tau-1.0/3) > 1e-12 {
		t.Errorf("got tau %v; want 1/3", tg.Tau)
	}
	if _, err := json.Marshal(tg); err != nil {
		t.Errorf("got %v encoding the table; want none", err)
	}
}

func TestTwoGoldEXTiesAndSeeds(t *testing.T) {
	t.Parallel()
	// Two seeds: EX is the mean of the seeds' EX, (1/2 + 2/2) / 2 = 0.75
	// under the first gold; flips are listed per seed. s2 ties s1 under
	// the second gold (both 0.5): they share rank 1 (competition ranks).
	sys := []GoldSystem{
		{Name: "s1", A: []map[string]GoldOutcome{outcomes("a:c", "b:w"), outcomes("a:c", "b:c")}, B: []map[string]GoldOutcome{outcomes("a:c", "b:w"), outcomes("a:c", "b:w")}},
		{Name: "s2", A: []map[string]GoldOutcome{outcomes("a:w", "b:c"), outcomes("a:w", "b:c")}, B: []map[string]GoldOutcome{outcomes("a:w", "b:c"), outcomes("a:w", "b:c")}},
	}
	tg, err := TwoGoldEX("A", "B", []string{"b"}, sys)
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := tg.Rows[0], tg.Rows[1]
	if r0.A.EX != 0.75 || r0.B.EX != 0.5 || r0.RankA != 1 || r0.RankB != 1 || r1.RankA != 2 || r1.RankB != 1 {
		t.Errorf("got s1 EX %v/%v ranks %d/%d, s2 ranks %d/%d; want 0.75/0.5, 1/1 and 2/1", r0.A.EX, r0.B.EX, r0.RankA, r0.RankB, r1.RankA, r1.RankB)
	}
	if len(r0.Flips) != 1 || r0.Flips[0].Seed != 1 || r0.Flips[0].QuestionID != "b" {
		t.Errorf("got flips %+v; want b under seed position 1", r0.Flips)
	}
	// Two systems, tied under the second gold: tau-b is undefined.
	if tg.Tau != nil {
		t.Errorf("got tau %v; want none (all tied under one gold)", *tg.Tau)
	}
	if _, err := TwoGoldEX("A", "B", nil, []GoldSystem{{Name: "x", A: sys[0].A, B: sys[0].B[:1]}}); err == nil {
		t.Error("got no error for different seed counts; want one")
	}
}

// TestListFlips: the tables list the first 20 flips, written by
// GoldFlip.String, and count the rest.
func TestListFlips(t *testing.T) {
	var flips []GoldFlip
	for i := range 25 {
		flips = append(flips, GoldFlip{QuestionID: fmt.Sprint(i), From: "correct", To: "wrong", Seed: i % 2})
	}
	listed, more := ListFlips(flips)
	if len(listed) != 20 || more != 5 {
		t.Fatalf("ListFlips(25 flips) lists %d, %d more; want 20, 5 more", len(listed), more)
	}
	if listed[0] != "0 correct->wrong" || listed[1] != "1 (seed #2) correct->wrong" {
		t.Errorf("listed %q, %q; want %q, %q", listed[0], listed[1], "0 correct->wrong", "1 (seed #2) correct->wrong")
	}
	if listed, more := ListFlips(flips[:3]); len(listed) != 3 || more != 0 {
		t.Errorf("ListFlips(3 flips) lists %d, %d more; want 3, 0 more", len(listed), more)
	}
}
