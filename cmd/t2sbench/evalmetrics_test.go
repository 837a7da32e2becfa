package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestEvalSoftF1MiniDev scores the shared mini-dev golds as their own
// predictions with --metrics soft-f1,r-ves: on the 140 questions whose databases
// are in the shared data (shared datasets README) Soft F1 is 100, in the
// --json summary and in the text line.
func TestEvalSoftF1MiniDev(t *testing.T) {
	dir := testenv.Datasets(t, "bird")
	args := []string{"eval", "--benchmark", "bird-minidev", "--data", dir, "--gold-as-pred", "--quiet", "--cache-dir", "off", "--allow-missing-db", "--metrics", "soft-f1,r-ves", "--r-ves-repeats", "2", "--workers", "2"}
	stdout, stderr, err := runCLI(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("eval --json: %v\n%s", err, stderr)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output: %v", err)
	}
	if rep.Overall.Runnable != 140 || rep.Overall.SoftF1 == nil || *rep.Overall.SoftF1 != 1 {
		t.Fatalf("overall %+v (soft F1 %v); want 140 runnable with soft F1 1", rep.Overall, rep.Overall.SoftF1)
	}
	// Two repeats only: R-VES is present and in its range, its value
	// (noise) is metrics' TestRVESScorer's subject.
	if r := rep.Overall.RVES; r == nil || r.Score < 0.5 || r.Score > 1.1181 || r.Low > r.Score || r.High < r.Score {
		t.Errorf("R-VES %+v; want a score in [0.5, sqrt(1.25)] inside its band", r)
	}
	var text strings.Builder
	printEvalText(&text, rep)
	if !strings.Contains(text.String(), "Soft F1 100.00;") || !strings.Contains(text.String(), "R-VES ") {
		t.Errorf("text output:\n%s\nwant a line with Soft F1 100.00 and one with R-VES", text.String())
	}
}
