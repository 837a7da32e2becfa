package stats

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// scoresOf returns one seed's scores keyed q0, q1, ...
func scoresOf(v ...float64) Scores {
	m := map[string]float64{}
	for i, x := range v {
		m["q"+strconv.Itoa(i)] = x
	}
	return Scores{0: m}
}

func TestCompareScores(t *testing.T) {
	t.Parallel()
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	t.Run("0/1 scores agree with McNemar", func(t *testing.T) {
		// 20 questions: 2 only A gets right, 8 only B, 10 both. McNemar's
		// exact p = 2 Pr(K <= 2), K ~ Binomial(10, 1/2) = 2 (1 + 10 + 45)
		// / 1024 = 0.109375 (SignFlipP computes it exactly); the Monte
		// Carlo estimate from 20,000 sign draws has a standard error of
		// about 0.0022, so 0.01 is over 4 of them.
		var a, b []float64
		for i := range 20 {
			switch {
			case i < 2:
				a, b = append(a, 1), append(b, 0)
			case i < 10:
				a, b = append(a, 0), append(b, 1)
			default:
				a, b = append(a, 1), append(b, 1)
			}
		}
		p, err := PairScores(scoresOf(a...), scoresOf(b...), false)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CompareScores(p, CompareOptions{Rand: rng(), Resamples: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.P-0.109375) > 0.01 || c.B != 2 || c.C != 8 || c.AccA != 0.6 || c.AccB != 0.9 || math.Abs(c.Delta-0.3) > 1e-12 {
			t.Errorf("got p %v b %d c %d acc %v/%v delta %v; want p 0.109375 (+-0.01), b 2, c 8, acc 0.6/0.9, delta 0.3", c.P, c.B, c.C, c.AccA, c.AccB, c.Delta)
		}
		// The interval agrees with the binary bootstrap's
		// (PairedBootstrapTable, drawn another way) within a question's
		// step, 1/20.
		ref, err := PairedBootstrapTable(Table2x2{BothRight: 10, AOnly: 2, BOnly: 8}, BootstrapOptions{Rand: rng()})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.CI.Lo-ref.CI.Lo) > 0.05+1e-9 || math.Abs(c.CI.Hi-ref.CI.Hi) > 0.05+1e-9 {
			t.Errorf("got CI [%v, %v]; want within 0.05 of the binary bootstrap's [%v, %v]", c.CI.Lo, c.CI.Hi, ref.CI.Lo, ref.CI.Hi)
		}
	})
	t.Run("constant difference", func(t *testing.T) {
		// Every question: B scores 0.5 more. Every resample's mean
		// difference is 0.5, so the interval is [0.5, 0.5]; of the 16
		// sign assignments of four equal magnitudes only the 2 with all
		// signs alike reach |T| = 2: p = 2/16 = 0.125 (Monte Carlo
		// tolerance 0.01 at 20,000 draws).
		p, err := PairScores(scoresOf(0.25, 0.5, 0, 0.1), scoresOf(0.75, 1, 0.5, 0.6), false)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CompareScores(p, CompareOptions{Rand: rng(), Resamples: 20000, CIMethod: BootstrapBCa})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.CI.Lo-0.5) > 1e-12 || math.Abs(c.CI.Hi-0.5) > 1e-12 || math.Abs(c.P-0.125) > 0.01 || c.Test != TestSignFlipMC {
			t.Errorf("got CI [%v, %v] p %v test %s; want [0.5, 0.5], p 0.125 (+-0.01), %s", c.CI.Lo, c.CI.Hi, c.P, c.Test, TestSignFlipMC)
		}
	})
	t.Run("no difference", func(t *testing.T) {
		p, _ := PairScores(scoresOf(0.3, 0.7), scoresOf(0.3, 0.7), false)
		c, err := CompareScores(p, CompareOptions{Rand: rng(), Resamples: 100})
		if err != nil {
			t.Fatal(err)
		}
		if c.P != 1 || len(c.Warnings) == 0 {
			t.Errorf("got p %v warnings %v; want 1 and a warning", c.P, c.Warnings)
		}
	})
	t.Run("pairing", func(t *testing.T) {
		if _, err := PairScores(scoresOf(1, 2), scoresOf(1), false); err == nil {
			t.Error("got no error for a question of one side only; want one")
		}
		p, err := PairScores(scoresOf(1, 2), scoresOf(1), true)
		if err != nil || len(p.IDs) != 1 || len(p.OnlyA) != 1 {
			t.Errorf("got %+v, %v; want one paired question and one dropped", p, err)
		}
		if _, err := CompareScores(p, CompareOptions{}); err == nil {
			t.Error("got no error without Rand; want one")
		}
	})
}

func TestCompareScorePairs(t *testing.T) {
	t.Parallel()
	base := ScoreArm{Key: "base", Scores: scoresOf(0.1, 0.2, 0.3, 0.4, 0.5)}
	up := ScoreArm{Key: "up", Scores: scoresOf(0.9, 0.9, 0.9, 0.9, 0.9)}
	same := ScoreArm{Key: "same", Scores: scoresOf(0.1, 0.2, 0.3, 0.4, 0.5), Excluded: map[string]bool{"q4": true}}
	opt := FamilyOptions{Resamples: 2000}
	r1, err := CompareScorePairs([][2]ScoreArm{{base, up}, {base, same}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := CompareScorePairs([][2]ScoreArm{{base, same}, {base, up}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The pair's source depends on the two names only (PairRand): the
	// same comparison whatever the order of the family.
	if a, b := r1[0].Comparison, r2[1].Comparison; a.P != b.P || a.CI != b.CI {
		t.Errorf("got %+v and %+v; want the same comparison in either order", r1[0].Comparison, r2[1].Comparison)
	}
	// Holm over two p-values: the smaller doubled (and the excluded
	// question q4 left out of the second pair: 4 questions).
	c := r1[0].Comparison
	if math.Abs(c.PAdj-math.Min(1, 2*c.P)) > 1e-12 || r1[1].Comparison.N != 4 || c.Family != 2 {
		t.Errorf("got PAdj %v (p %v), second pair n %d, family %d; want 2p, 4 and 2", c.PAdj, c.P, r1[1].Comparison.N, c.Family)
	}
}
