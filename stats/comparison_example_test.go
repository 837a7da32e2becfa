package stats_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/t2sbench/t2sbench/stats"
)

// ExampleCompareTable compares ReAct-SQL's two ablations with its
// baseline on BIRD mini-dev (Table 5 counts, n = 498), adjusts the two
// p-values with Holm and prints them as compare and the reports do. The
// second interval agrees with the normal approximation 6.02 +- 1.96 *
// sqrt((86/498 - 0.0602^2) / 498) = [2.41, 9.63] points.
func ExampleCompareTable() {
	// Each comparison gets its own source, seeded as compare --seed 1
	// seeds it, so that its interval does not depend on the others.
	opt := func() stats.CompareOptions { return stats.CompareOptions{Rand: rand.New(rand.NewPCG(1, 0))} }
	iter, _ := stats.CompareTable(stats.Table2x2{BothRight: 338, AOnly: 53, BOnly: 56, BothWrong: 51}, opt())
	dsl, _ := stats.CompareTable(stats.Table2x2{BothRight: 363, AOnly: 28, BOnly: 58, BothWrong: 49}, opt())
	if err := stats.AdjustHolm([]*stats.Comparison{iter, dsl}); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range []*stats.Comparison{iter, dsl} {
		fmt.Printf("%s %s %s p(Holm)=%s %s\n", c.FormatDelta(2), c.FormatCI(2), c.FormatTest(), stats.FormatP(c.PAdj), c.Mark())
	}
	// Output:
	// +0.60 [-3.41, +4.62] p=0.848 b=53 c=56 chi2-cc p(Holm)=0.848 ~
	// +6.02 [+2.41, +9.64] p=0.002 b=28 c=58 chi2-cc p(Holm)=0.004
}
