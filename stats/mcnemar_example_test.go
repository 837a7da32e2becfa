package stats_test

import (
	"fmt"

	"github.com/t2sbench/t2sbench/stats"
)

// ExampleMcNemarCounts reproduces two p-values of ReAct-SQL's Table 5.
func ExampleMcNemarCounts() {
	r, _ := stats.McNemarCounts(53, 56, stats.McNemarAuto)
	fmt.Printf("b=%d c=%d %s P=%.3f\n", r.B, r.C, r.Test, r.P)
	r, _ = stats.McNemarCounts(38, 283, stats.McNemarExact)
	fmt.Printf("b=%d c=%d %s P=%.2g\n", r.B, r.C, r.Test, r.P)
	// Output:
	// b=53 c=56 chi2-cc P=0.848
	// b=38 c=283 exact P=1.9e-47
}

// ExampleMcNemar tests two systems' outcomes on the same eight questions;
// with only four discordant questions the exact test is used.
func ExampleMcNemar() {
	a := []bool{true, true, true, false, true, false, true, true}
	b := []bool{true, false, false, false, true, false, false, true}
	r, _ := stats.McNemar(a, b, stats.McNemarAuto)
	fmt.Printf("N=%d b=%d c=%d %s P=%.3f\n", r.N, r.B, r.C, r.Test, r.P)
	// Output:
	// N=8 b=3 c=0 exact P=0.250
}
