package metrics

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// RVESIterations is the official repeat count of BIRD mini-dev's R-VES:
// run_sqls_parallel's iterate_num default, 100 (evaluation_ves.py l.112;
// the script's main never sets it).
const RVESIterations = 100

// RVESVerdict is the R-VES judgement of one prediction (Verdict.RVES).
type RVESVerdict struct {
	// Reward is the official reward: 0 for a wrong or failing
	// prediction, else 1.25, 1, 0.75, 0.5 or 0.25 by Ratio (RVESReward).
	Reward float64 `json:"reward"`
	// Ratio is the mean of the gold-to-prediction time ratios left after
	// trimming (0 when nothing was timed); Runs counts the interleaved
	// pairs timed, Kept those the trimming kept.
	Ratio float64 `json:"ratio"`
	Runs  int     `json:"runs,omitempty"`
	Kept  int     `json:"kept,omitempty"`
	// RatioSD is the standard deviation of the kept ratios: the timing
	// noise of one pair. RatioSE = RatioSD / sqrt(Kept) is the noise of
	// Ratio itself.
	RatioSD float64 `json:"ratio_sd,omitempty"`
	RatioSE float64 `json:"ratio_se,omitempty"`
	// RewardLow and RewardHigh are the rewards at the ends of the band
	// Ratio's own noise allows: from the lower to the higher of Ratio and
	// the trimmed means of the pairs timed prediction first and gold
	// first, each -/+ 2 standard errors (rvesFromRatios). Both are 0 for a
	// prediction that was not timed.
	RewardLow  float64 `json:"reward_low"`
	RewardHigh float64 `json:"reward_high"`
	// Error says why a correct prediction was not timed to the end (a
	// failure or timeout during the repeats); its reward is then 0.
	Error string `json:"error,omitempty"`
}

// RVESReward is the official reward of a time ratio (gold time over
// predicted time; evaluation_ves.py l.68-79): 0 for 0 (not timed),
// 1.25 from 2 up, 1 in [1, 2), 0.75 in [0.5, 1), 0.5 in [0.25, 0.5) and
// 0.25 below.
func RVESReward(ratio float64) float64 {
	switch {
	case ratio == 0:
		return 0
	case ratio >= 2:
		return 1.25
	case ratio >= 1:
		return 1
	case ratio >= 0.5:
		return 0.75
	case ratio >= 0.25:
		return 0.5
	}
	return 0.25
}

// TrimRatios is the official outlier trimming (clean_abnormal,
// evaluation_ves.py l.23-31): it keeps the values strictly within three
// population standard deviations of the mean. When every value is the
// same (standard deviation 0) the official code keeps none and its
// division by zero scores the question 0; here all are kept, the only
// reading under which such a run has a ratio.
func TrimRatios(xs []float64) []float64 {
	keep := trimBounds(xs)
	var out []float64
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// meanSD is the mean and the population standard deviation (numpy's
// np.std, ddof 0) of xs.
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// rvesFromRatios turns the timed ratios into a verdict: the trimmed mean
// (evaluation_ves.py l.66-67) and its reward, and the noise band. ratios
// alternate in order: even positions timed the prediction first, odd ones
// the gold first. The band runs from the lower to the higher of the two
// orders' trimmed means, each widened by two of its standard errors: on
// the same query twice, the second execution is often the faster one (a
// warm page cache), so each order alone is biased and neither their
// spread nor a standard error that assumes independent runs would cover
// it.
func rvesFromRatios(ratios []float64) RVESVerdict {
	kept := TrimRatios(ratios)
	v := RVESVerdict{Runs: len(ratios), Kept: len(kept)}
	if len(kept) == 0 {
		return v
	}
	v.Ratio, v.RatioSD = meanSD(kept)
	v.RatioSE = v.RatioSD / math.Sqrt(float64(len(kept)))
	v.Reward = RVESReward(v.Ratio)
	lo, hi := v.Ratio-2*v.RatioSE, v.Ratio+2*v.RatioSE
	trim := trimBounds(ratios)
	for _, order := range []int{0, 1} {
		var xs []float64
		for i := order; i < len(ratios); i += 2 {
			if trim(ratios[i]) {
				xs = append(xs, ratios[i])
			}
		}
		if len(xs) == 0 {
			continue
		}
		m, sd := meanSD(xs)
		se := sd / math.Sqrt(float64(len(xs)))
		lo, hi = min(lo, m-2*se), max(hi, m+2*se)
	}
	if lo <= 0 {
		lo = math.SmallestNonzeroFloat64 // a timed, correct prediction earns at least 0.25
	}
	v.RewardLow, v.RewardHigh = RVESReward(lo), RVESReward(hi)
	return v
}

// trimBounds returns the test TrimRatios applies to each value of xs.
func trimBounds(xs []float64) func(float64) bool {
	mean, sd := meanSD(xs)
	if sd == 0 {
		return func(float64) bool { return true }
	}
	return func(x float64) bool { return x < mean+3*sd && x > mean-3*sd }
}

// timeRVES times predSQL and gold on db, interleaved as the official
// iterated_execute_sql does (evaluation_ves.py l.58-65: n pairs, each
// ratio gold time over predicted time), on one connection when db is a
// datasets.Pinner; the order within a pair alternates (see below). Each execution is bounded
// by timeout (when positive) and by the database's own timeout; the
// prediction stays the read-only, single statement Execute allows.
func timeRVES(ctx context.Context, db datasets.Database, predSQL, goldSQL string, n int, timeout time.Duration) RVESVerdict {
	if p, ok := db.(datasets.Pinner); ok {
		if pinned, err := p.Pin(ctx); err == nil {
			defer pinned.Close()
			db = pinned
		}
	}
	run := func(q string) (time.Duration, error) {
		_, st, msg, elapsed, err := execute(ctx, db, q, timeout)
		if err != nil {
			return 0, err
		}
		if st != ExecOK {
			return 0, fmt.Errorf("%s", msg)
		}
		return elapsed, nil
	}
	ratios := make([]float64, 0, n)
	for i := range n {
		// The official order is the prediction, then the gold. Run as
		// such, the second of two executions of the same query is
		// systematically faster on some questions (gold-as-prediction
		// ratios of 0.84 to 1.26 on mini-dev, most outside their own
		// noise), so every other pair runs the gold first: the order's
		// effect cancels and the ratio's spread is the timing noise.
		var pt, gt time.Duration
		var perr, gerr error
		if i%2 == 0 {
			pt, perr = run(predSQL)
			if perr == nil {
				gt, gerr = run(goldSQL)
			}
		} else {
			gt, gerr = run(goldSQL)
			if gerr == nil {
				pt, perr = run(predSQL)
			}
		}
		if perr != nil {
			return RVESVerdict{Runs: len(ratios), Error: "prediction: " + perr.Error()}
		}
		if gerr != nil {
			return RVESVerdict{Runs: len(ratios), Error: "gold: " + gerr.Error()}
		}
		ratios = append(ratios, float64(gt)/float64(max(pt, time.Nanosecond)))
	}
	return rvesFromRatios(ratios)
}

// RVESScore is one question's contribution to R-VES, from 0 to 1:
// sqrt(reward) (compute_ves, evaluation_ves.py l.136-146, which
// multiplies by 100 and averages over the questions).
func RVESScore(reward float64) float64 { return math.Sqrt(reward) }

// RVESSummary is R-VES over a group of verdicts (EXGroup.RVES): the mean
// of RVESScore, from 0 to 1.25's square root, over the verdicts whose gold
// runs, with the band its own timing noise allows (each question at its
// RewardLow, and at its RewardHigh) and the median of the questions'
// RatioSD.
type RVESSummary struct {
	Score         float64 `json:"score"`
	Low           float64 `json:"low"`
	High          float64 `json:"high"`
	MedianRatioSD float64 `json:"median_ratio_sd"`

	sum, low, high float64
	sds            []float64
	n              int
}

func (r *RVESSummary) add(v *RVESVerdict) {
	r.n++
	r.sum += RVESScore(v.Reward)
	r.low += RVESScore(v.RewardLow)
	r.high += RVESScore(v.RewardHigh)
	if v.Kept > 0 {
		r.sds = append(r.sds, v.RatioSD)
	}
}

func (r *RVESSummary) finish() {
	if r.n == 0 {
		return
	}
	n := float64(r.n)
	r.Score, r.Low, r.High = r.sum/n, r.low/n, r.high/n
	if len(r.sds) > 0 {
		r.MedianRatioSD = median(r.sds)
	}
}

// median is the median of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}
