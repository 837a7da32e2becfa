package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestEvalGoldVersionBIRD scores BIRD dev's current gold as the prediction
// under its own gold and under the initial release (bird-dev-2023-05),
// on the first 250 questions (toxicology's from 195 are in the shared
// data): 100% under the first; every flip is a question whose gold
// differs, from correct; and the changed questions are those
// datasets.GoldChanges finds between the two releases.
func TestEvalGoldVersionBIRD(t *testing.T) {
	t.Parallel()
	// The initial release's dev.json in the shared data, else a skip.
	data := filepath.Dir(filepath.Dir(testenv.Datasets(t, "bird", "dev_2023-05", "dev.json")))
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"eval", "--benchmark", "bird", "--data", data, "--gold-as-pred", "--gold-version", "bird-dev-2023-05",
		"--allow-missing-db", "--limit", "250", "--quiet", "--cache-dir", "off", "--json"}); err != nil {
		t.Fatalf("eval: %v\n%s", err, e.String())
	}
	var rep evalReport
	if err := json.Unmarshal(o.Bytes(), &rep); err != nil || rep.TwoGold == nil || len(rep.TwoGold.Rows) != 1 {
		t.Fatalf("eval --json: %v; want one two-gold row in\n%s", err, o.String())
	}
	cur, err := datasets.Open("bird", data, datasets.LoadOptions{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	old, err := datasets.Open("bird-dev-2023-05", data, datasets.LoadOptions{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := datasets.GoldChanges(old, cur)
	var want []string
	for _, c := range changes {
		want = append(want, c.ID)
	}
	if !slices.Equal(rep.TwoGold.Changed, want) {
		t.Errorf("got changed %v; want GoldChanges' %v", rep.TwoGold.Changed, want)
	}
	r := rep.TwoGold.Rows[0]
	if r.A.EX != 1 || r.A.Attempted == 0 || len(r.Flips) == 0 || r.ToWrong != len(r.Flips) {
		t.Errorf("got EX %v over %d, %d flips (%d to wrong); want 100%% under its own gold and only flips away from correct", r.A.EX, r.A.Attempted, len(r.Flips), r.ToWrong)
	}
	for _, f := range r.Flips {
		if !slices.Contains(want, f.QuestionID) || f.From != "correct" {
			t.Errorf("got flip %+v; want a changed question, from correct", f)
		}
	}
}
