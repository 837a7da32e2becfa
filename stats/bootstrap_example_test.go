package stats_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/t2sbench/t2sbench/stats"
)

// ExamplePairedBootstrapTable computes the 95% interval for the accuracy
// difference of ReAct-SQL's first Table 5 row from its paired counts.
func ExamplePairedBootstrapTable() {
	t := stats.Table2x2{BothRight: 338, AOnly: 53, BOnly: 56, BothWrong: 51}
	r, _ := stats.PairedBootstrapTable(t, stats.BootstrapOptions{Rand: rand.New(rand.NewPCG(1, 0))})
	fmt.Printf("delta %+.2f points, %.0f%% CI [%+.2f, %+.2f]\n", 100*r.Delta, 100*r.CI.Level, 100*r.CI.Lo, 100*r.CI.Hi)
	// Output:
	// delta +0.60 points, 95% CI [-3.41, +4.62]
}

// ExamplePairedBootstrap works on outcome vectors aligned by Pair.
func ExamplePairedBootstrap() {
	a := map[string]bool{"q1": true, "q2": false, "q3": true, "q4": false}
	b := map[string]bool{"q1": true, "q2": true, "q3": true, "q4": true}
	p, _ := stats.Pair(a, b, false)
	r, _ := stats.PairedBootstrap(p.A, p.B, stats.BootstrapOptions{Resamples: 1000, Rand: rand.New(rand.NewPCG(1, 0))})
	fmt.Printf("acc %.2f -> %.2f, delta %+.2f\n", r.AccA, r.AccB, r.Delta)
	// Output:
	// acc 0.50 -> 1.00, delta +0.50
}
