package metrics

import (
	"fmt"

	"github.com/t2sbench/t2sbench/datasets"
)

// SoftF1 is BIRD mini-dev's Soft F1 of one prediction: a cell-level F1
// between the gold and the predicted result tables, following the official
// evaluation/evaluation_f1.py (bird-bench/mini_dev, calculate_f1_score and
// calculate_row_match; docs/METHODS.md cites the lines):
//
//   - both results empty: 1;
//   - duplicate rows are dropped from each side first, the first
//     occurrence kept in place (dict.fromkeys);
//   - the rows left are paired by position: gold row i with predicted row
//     i, so the same rows in another order can score below 1 although
//     EX, a set comparison, is 1;
//   - within a pair, a predicted value matches when it occurs anywhere in
//     the gold row (membership, so column order and repeats are ignored:
//     ('-', '-') against ('-',) matches twice); every count of the pair is
//     divided by the gold row's width;
//   - a gold row without a partner counts 1 to the false negatives, a
//     predicted row without one 1 to the false positives;
//   - precision, recall and F1 from those sums, 0 when a denominator is 0.
//
// Values compare as Python's == does on what sqlite3 returns (1 == 1.0,
// '1' != 1, None == None). A value the BIRD modes cannot compare (text that
// is not valid UTF-8, which the official sqlite3 connection refuses) is a
// *ValueError naming its side; the official script scores such a question
// 0, as it does a failing or timed-out query (evaluation_f1.py's
// execute_model), and so does Scorer.
func SoftF1(gold, pred *datasets.ResultSet) (float64, error) {
	g, err := toTable(gold, textStrict, SideGold)
	if err != nil {
		return 0, err
	}
	p, err := toTable(pred, textStrict, SidePred)
	if err != nil {
		return 0, err
	}
	return softF1(g, p), nil
}

// softF1 is calculate_f1_score over converted tables.
func softF1(g, p table) float64 {
	if len(g.rows) == 0 && len(p.rows) == 0 {
		return 1
	}
	gr, pr := dedupRows(g.rows), dedupRows(p.rows)
	// The sums run in the official order (gold rows, then the predicted
	// rows beyond them), so that the floating-point totals are the same.
	var tp, fp, fn float64
	for i, grow := range gr {
		if i >= len(pr) {
			fn++
			continue
		}
		if len(grow) == 0 {
			// A row of no column divides by zero in the official code,
			// whose exception scores the question 0; no query returns one.
			return 0
		}
		m, po, to := rowMatch(pr[i], grow)
		tp += m
		fp += po
		fn += to
	}
	for range len(pr) - len(gr) {
		fp++
	}
	var precision, recall float64
	if tp+fp > 0 {
		precision = tp / (tp + fp)
	}
	if tp+fn > 0 {
		recall = tp / (tp + fn)
	}
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

// rowMatch is calculate_row_match: the predicted values found in the gold
// row, the predicted values not found there and the gold values not found
// in the predicted row, each divided by the gold row's width.
func rowMatch(pred, gold []pyValue) (match, predOnly, truthOnly float64) {
	in := func(v pyValue, row []pyValue) bool {
		for _, x := range row {
			if x.key == v.key {
				return true
			}
		}
		return false
	}
	var m, po, to int
	for _, v := range pred {
		if in(v, gold) {
			m++
		} else {
			po++
		}
	}
	for _, v := range gold {
		if !in(v, pred) {
			to++
		}
	}
	n := float64(len(gold))
	return float64(m) / n, float64(po) / n, float64(to) / n
}

// SupportsSoftF1 reports whether mode m can score Soft F1 and R-VES: the
// BIRD modes, whose official evaluation defines them.
func (m Mode) SupportsSoftF1() bool { return m == ModeBIRD || m == ModeBIRDMiniDev }

func checkBIRDMetric(name string, m Mode) error {
	if !m.SupportsSoftF1() {
		return fmt.Errorf("metrics: %s is defined by BIRD's official evaluation; it needs mode bird or bird-minidev, not %q", name, m)
	}
	return nil
}
