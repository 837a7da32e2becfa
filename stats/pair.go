package stats

import (
	"fmt"
	"slices"
)

// Paired holds two systems' outcomes on the same questions, aligned by
// question id: A[i] and B[i] are the outcomes on question IDs[i]. IDs are
// sorted.
type Paired struct {
	IDs  []string
	A, B []bool
	// OnlyA and OnlyB list (sorted) the ids present on one side only; they
	// are non-empty only when Pair was asked to intersect.
	OnlyA, OnlyB []string
}

// Pair aligns the outcome maps a and b (question id -> correct) by id.
// An id present on one side only is an error naming it, unless intersect is
// set, in which case such ids are dropped and listed in OnlyA and OnlyB.
// Pairing no questions at all is an error.
func Pair(a, b map[string]bool, intersect bool) (Paired, error) {
	var p Paired
	for id := range a {
		if _, ok := b[id]; ok {
			p.IDs = append(p.IDs, id)
		} else {
			p.OnlyA = append(p.OnlyA, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			p.OnlyB = append(p.OnlyB, id)
		}
	}
	slices.Sort(p.IDs)
	slices.Sort(p.OnlyA)
	slices.Sort(p.OnlyB)
	if !intersect && (len(p.OnlyA) > 0 || len(p.OnlyB) > 0) {
		if len(p.OnlyA) > 0 {
			return Paired{}, fmt.Errorf("stats: question %q is in the first system only (%d such, %d only in the second); pair on the intersection (compare --intersect) to drop them", p.OnlyA[0], len(p.OnlyA), len(p.OnlyB))
		}
		return Paired{}, fmt.Errorf("stats: question %q is in the second system only (%d such); pair on the intersection (compare --intersect) to drop them", p.OnlyB[0], len(p.OnlyB))
	}
	if len(p.IDs) == 0 {
		return Paired{}, fmt.Errorf("stats: no question ids in common (%d and %d questions)", len(a), len(b))
	}
	p.A = make([]bool, len(p.IDs))
	p.B = make([]bool, len(p.IDs))
	for i, id := range p.IDs {
		p.A[i] = a[id]
		p.B[i] = b[id]
	}
	return p, nil
}

// Table2x2 is the paired 2x2 table of two systems A and B over the same
// questions. AOnly is McNemar's b (A right, B wrong) and BOnly is c.
type Table2x2 struct {
	BothRight, AOnly, BOnly, BothWrong int
}

// N is the number of questions in the table.
func (t Table2x2) N() int { return t.BothRight + t.AOnly + t.BOnly + t.BothWrong }

// AccA is system A's accuracy, (BothRight+AOnly)/N.
func (t Table2x2) AccA() float64 { return float64(t.BothRight+t.AOnly) / float64(t.N()) }

// AccB is system B's accuracy, (BothRight+BOnly)/N.
func (t Table2x2) AccB() float64 { return float64(t.BothRight+t.BOnly) / float64(t.N()) }

// Delta is the accuracy difference AccB - AccA = (BOnly-AOnly)/N.
func (t Table2x2) Delta() float64 { return float64(t.BOnly-t.AOnly) / float64(t.N()) }

func (t Table2x2) validate() error {
	if t.BothRight < 0 || t.AOnly < 0 || t.BOnly < 0 || t.BothWrong < 0 {
		return fmt.Errorf("stats: negative count in 2x2 table %+v", t)
	}
	if t.N() == 0 {
		return fmt.Errorf("stats: empty 2x2 table")
	}
	return nil
}

// Tabulate counts the paired 2x2 table of outcome vectors a and b, which
// must have the same, non-zero length.
func Tabulate(a, b []bool) (Table2x2, error) {
	if len(a) != len(b) {
		return Table2x2{}, fmt.Errorf("stats: outcome vectors differ in length: %d and %d", len(a), len(b))
	}
	if len(a) == 0 {
		return Table2x2{}, fmt.Errorf("stats: empty outcome vectors")
	}
	var t Table2x2
	for i := range a {
		switch {
		case a[i] && b[i]:
			t.BothRight++
		case a[i]:
			t.AOnly++
		case b[i]:
			t.BOnly++
		default:
			t.BothWrong++
		}
	}
	return t, nil
}
