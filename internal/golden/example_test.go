package golden_test

import (
	"fmt"

	"github.com/t2sbench/t2sbench/internal/golden"
)

// A run's closing line on stderr holds its run directory, a temporary
// directory here, and its wall-clock time; the counts stay as they are.
func ExampleNormalize() {
	dir := "/tmp/TestCLIGolden1234/001"
	line := "run quickstart: 7 trials, run directory " + dir + "/qs\n" +
		"294 items run: 294 done; 6689 model calls (126 cached) in 12.982s\n"
	fmt.Print(golden.Normalize(line, golden.Path(dir, "$TMP"), golden.Durations))
	// Output:
	// run quickstart: 7 trials, run directory $TMP/qs
	// 294 items run: 294 done; 6689 model calls (126 cached) in <duration>
}

func ExampleDiff() {
	fmt.Printf("%s", golden.Diff("want", []byte("a\nb\nc\n"), "got", []byte("a\nB\nc\n")))
	// Output:
	// --- want
	// +++ got
	// @@ -1,3 +1,3 @@
	//  a
	// -b
	// +B
	//  c
}
