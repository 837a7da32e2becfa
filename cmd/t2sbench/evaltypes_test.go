package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestEvalLogicCatByReasoningType checks that eval breaks LogicCat, which
// has no difficulty labels, down by its reasoning types instead of one
// "unknown" difficulty: the counts per type are those of the JSON's
// "type" field over the questions scored, mapped 1 physical,
// 2 mathematical, 3 commonsense, 4 hypothetical (docs/METHODS.md). The
// SQLite files serve (logiccat-sqlite): gold as prediction needs no
// server.
func TestEvalLogicCatByReasoningType(t *testing.T) {
	t.Parallel()
	dir := testenv.Datasets(t, "logiccat")
	const limit = 40
	raw, err := os.ReadFile(filepath.Join(dir, "sqlite", "cop_cot_test_2369.json"))
	if err != nil {
		t.Fatal(err)
	}
	var items []struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"1": "physical", "2": "mathematical", "3": "commonsense", "4": "hypothetical"}
	want := map[string]int{}
	for _, it := range items[:limit] {
		want[names[it.Type]]++
	}
	args := []string{"eval", "--benchmark", "logiccat-sqlite", "--data", dir, "--gold-as-pred", "--limit", "40", "--quiet"}
	out, _ := mustCLI(t, exitOK, append(args, "--json")...)
	var rep struct {
		ReasoningTypes  []string `json:"reasoning_types"`
		ByReasoningType map[string]struct {
			Total int `json:"total"`
		} `json:"by_reasoning_type"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	if w := []string{"commonsense", "hypothetical", "mathematical", "physical"}; !reflect.DeepEqual(rep.ReasoningTypes, w) {
		t.Fatalf("reasoning_types = %v; want %v", rep.ReasoningTypes, w)
	}
	for ty, n := range want {
		if got := rep.ByReasoningType[ty].Total; got != n {
			t.Errorf("%s: %d questions; want %d (the JSON's type field)", ty, got, n)
		}
	}
	text, _ := mustCLI(t, exitOK, args...)
	if strings.Contains(text, "unknown") || !strings.Contains(text, "reasoning type") {
		t.Errorf("eval output shows an unknown difficulty or no reasoning types:\n%s", text)
	}
}
