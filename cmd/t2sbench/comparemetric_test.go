package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/metrics"
)

// TestCompareSoftF1MatchesEval compares two verdict files' Soft F1 and
// checks the means compare pairs against the Soft F1 eval prints for
// each file (its summary, metrics.SummarizeEX): the same questions, the
// same number.
func TestCompareSoftF1MatchesEval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalF1 := func(out string, args ...string) float64 {
		t.Helper()
		var o, e bytes.Buffer
		full := append([]string{"eval", "--benchmark", "mini", "--metrics", "soft-f1", "--quiet", "--cache-dir", "off", "--json", "--out", out}, args...)
		if err := run(&o, &e, full); err != nil {
			t.Fatalf("eval: %v\n%s", err, e.String())
		}
		var rep struct {
			Overall struct {
				SoftF1 *float64 `json:"soft_f1"`
			} `json:"overall"`
		}
		if err := json.Unmarshal(o.Bytes(), &rep); err != nil || rep.Overall.SoftF1 == nil {
			t.Fatalf("eval --json: %v; no overall soft_f1 in %s", err, o.String())
		}
		return *rep.Overall.SoftF1
	}
	gold := evalF1(filepath.Join(dir, "gold.jsonl"), "--gold-as-pred")
	pred := evalF1(filepath.Join(dir, "pred.jsonl"), "--pred", "testdata/golden/input/mini-pred.sql")
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"compare", "--metric", "soft-f1", "--json", "-B", "200", filepath.Join(dir, "gold.jsonl"), filepath.Join(dir, "pred.jsonl")}); err != nil {
		t.Fatalf("compare: %v\n%s", err, e.String())
	}
	var rows []compare.Row
	if err := json.Unmarshal(o.Bytes(), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("compare --json: %v, %d rows:\n%s", err, len(rows), o.String())
	}
	r := rows[0]
	if math.Abs(r.AccBaseline-gold) > 1e-12 || math.Abs(r.AccSystem-pred) > 1e-12 || r.Metric != "soft-f1" || r.Test != "sign-flip-mc" || math.Abs(r.Delta-(pred-gold)) > 1e-12 {
		t.Errorf("got baseline %v system %v delta %v metric %q test %q; want eval's Soft F1 %v and %v, their difference, soft-f1, sign-flip-mc", r.AccBaseline, r.AccSystem, r.Delta, r.Metric, r.Test, gold, pred)
	}
}

// TestCompareMetricOutcome checks the 0/1 outcome --metric pass@K and
// majority@K give a question, on hand-made candidate marks: pass@K looks
// at the first K candidates as stored; majority@K is metrics.MajorityAtK
// (the largest result group of the first K, ties to the first seen).
func TestCompareMetricOutcome(t *testing.T) {
	t.Parallel()
	marks := []metrics.CandidateMark{{Correct: false, Result: "x"}, {Correct: true, Result: "y"}, {Correct: false, Result: "x"}}
	cases := []struct {
		metric string
		want   bool
	}{
		{"pass@1", false},     // the first is wrong
		{"pass@2", true},      // the second is right
		{"pass@9", true},      // fewer than K: every candidate
		{"majority@2", false}, // x and y tie; x came first, wrong
		{"majority@3", false}, // x wins 2 to 1
	}
	for _, c := range cases {
		t.Run(c.metric, func(t *testing.T) {
			m, err := parseCompareMetric(c.metric)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.outcome(marks); got != c.want {
				t.Errorf("got %v; want %v", got, c.want)
			}
		})
	}
	right := []metrics.CandidateMark{{Correct: true, Result: "y"}, {Correct: false, Result: "x"}, {Correct: true, Result: "y"}}
	if m, _ := parseCompareMetric("majority@3"); !m.outcome(right) {
		t.Error("got false for majority@3 of y, x, y (y right); want true")
	}
	for _, bad := range []string{"pass@0", "pass@", "majority@x", "f1"} {
		if _, err := parseCompareMetric(bad); err == nil {
			t.Errorf("got no error for --metric %q; want one", bad)
		}
	}
}
