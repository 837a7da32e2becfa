package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestEvalSoftF1MiniDev scores the shared mini-dev golds as their own
// predictions with --metrics soft-f1: on the 140 questions whose databases
// are in the shared data (shared datasets README) Soft F1 is 100, in the
// --json summary and in the text line.
func TestEvalSoftF1MiniDev(t *testing.T) {
	dir := testenv.Datasets(t, "bird")
	args := []string{"eval", "--benchmark", "bird-minidev", "--data", dir, "--gold-as-pred", "--quiet", "--cache-dir", "off", "--allow-missing-db", "--metrics", "soft-f1"}
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
	var text strings.Builder
	printEvalText(&text, rep)
	if !strings.Contains(text.String(), "Soft F1 100.00;") {
		t.Errorf("text output:\n%s\nwant a line with Soft F1 100.00", text.String())
	}
}
