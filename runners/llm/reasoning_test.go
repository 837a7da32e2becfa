package llm

import "fmt"

func ExampleSplitReasoning() {
	answer, reasoning := SplitReasoning("the user wants counts\n</think>\n<think>or names?</think>\nSELECT count(*) FROM t")
	fmt.Printf("%q\n%q\n", answer, reasoning)
	// Output:
	// "SELECT count(*) FROM t"
	// "the user wants counts\n\nor names?"
}
