package stats

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// SeedAcc is one seed's accuracy: Correct of N questions.
type SeedAcc struct {
	Seed       int64
	N, Correct int
	Acc        float64
}

// SeedAccuracy is one system's accuracy over its seeds, the form papers
// report: the mean over seeds of each seed's accuracy, the standard
// deviation over seeds and the number of seeds, with a confidence interval
// that carries the variation of questions and of seeds (a cluster
// bootstrap over questions).
type SeedAccuracy struct {
	// PerSeed are the seeds' accuracies, by seed.
	PerSeed []SeedAcc
	// Mean is the mean of PerSeed's accuracies; SD their sample standard
	// deviation (n-1 denominator; NaN for one seed).
	Mean, SD float64
	// N is the number of questions any seed has: the clusters resampled.
	N int
	// CI is the cluster bootstrap interval of Mean (percentile), with
	// Resamples resamples.
	CI        Interval
	Resamples int
	// Warnings are non-fatal problems (seeds with different questions).
	Warnings []string
}

// Seeds is the number of seeds.
func (a SeedAccuracy) Seeds() int { return len(a.PerSeed) }

// MeanSD is the mean of xs and their sample standard deviation (n - 1 in
// the denominator): how a system's accuracy over its seeds is reported,
// "mean ± sd". The mean is NaN for no value and the sd for fewer than two.
func MeanSD(xs []float64) (mean, sd float64) {
	mean, sd = math.NaN(), math.NaN()
	if len(xs) == 0 {
		return mean, sd
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean = sum / float64(len(xs))
	if len(xs) > 1 {
		ss := 0.0
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(ss / float64(len(xs)-1))
	}
	return mean, sd
}

// AccuracyOverSeeds computes the accuracy of a system over its seeds
// (SeedAccuracy). Each resample of the interval draws the questions with
// replacement and keeps every seed of a drawn question, and recomputes the
// mean over seeds of each seed's accuracy on the drawn questions. When
// every seed has the same questions, the resampled statistic depends only
// on how many drawn questions are right under k of the S seeds (k = 0..S),
// drawn as a Multinomial (a chain of binomials, resampleClusters); when
// the seeds' questions differ (a trial with pending items), the questions
// are drawn one by one and a warning says so. opt.Method must be
// BootstrapPercentile (or empty).
func AccuracyOverSeeds(r Replicates, opt BootstrapOptions) (SeedAccuracy, error) {
	seeds := r.Seeds()
	if len(seeds) == 0 {
		return SeedAccuracy{}, fmt.Errorf("stats: accuracy over seeds: no seed")
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return SeedAccuracy{}, err
	}
	if opt.Method != BootstrapPercentile {
		return SeedAccuracy{}, fmt.Errorf("stats: accuracy over seeds: method %q, want %q", opt.Method, BootstrapPercentile)
	}
	var a SeedAccuracy
	ids := map[string]int{}
	for _, s := range seeds {
		sa := SeedAcc{Seed: s, N: len(r[s])}
		if sa.N == 0 {
			return SeedAccuracy{}, fmt.Errorf("stats: accuracy over seeds: seed %d has no question", s)
		}
		for id, ok := range r[s] {
			ids[id]++
			if ok {
				sa.Correct++
			}
		}
		sa.Acc = float64(sa.Correct) / float64(sa.N)
		a.PerSeed = append(a.PerSeed, sa)
	}
	S := len(seeds)
	accs := make([]float64, S)
	for i, sa := range a.PerSeed {
		accs[i] = sa.Acc
	}
	a.Mean, a.SD = MeanSD(accs)
	a.N, a.Resamples = len(ids), opt.Resamples
	balanced := true
	for _, n := range ids {
		balanced = balanced && n == S
	}
	if balanced {
		// y_q = seeds right on question q; the mean over seeds of each
		// seed's accuracy is sum_q y_q / (N S).
		counts := make([]int, S+1)
		for id := range ids {
			y := 0
			for _, s := range seeds {
				if r[s][id] {
					y++
				}
			}
			counts[y]++
		}
		var cats []category
		for y := 1; y <= S; y++ {
			if counts[y] > 0 {
				cats = append(cats, category{y, counts[y]})
			}
		}
		n := a.N
		hist := resampleClusters(cats, n, S, opt.Resamples, opt.Rand)
		a.CI, _ = histIntervalAt(hist, n*S, float64(n*S), 0, nil, opt)
		return a, nil
	}
	a.Warnings = append(a.Warnings, "stats: accuracy over seeds: the seeds have different questions (pending items); the interval resamples the union of their questions")
	order := slices.Sorted(maps.Keys(ids))
	// in[s][q] is -1 when seed s lacks question q, else its outcome.
	in := make([][]int8, S)
	for k, s := range seeds {
		in[k] = make([]int8, len(order))
		for q, id := range order {
			v, ok := r[s][id]
			switch {
			case !ok:
				in[k][q] = -1
			case v:
				in[k][q] = 1
			}
		}
	}
	stat := make([]float64, opt.Resamples)
	correct, total := make([]int, S), make([]int, S)
	for i := range stat {
		clear(correct)
		clear(total)
		for range order {
			q := opt.Rand.IntN(len(order))
			for k := range S {
				if v := in[k][q]; v >= 0 {
					total[k]++
					correct[k] += int(v)
				}
			}
		}
		m, used := 0.0, 0
		for k := range S {
			if total[k] > 0 {
				m += float64(correct[k]) / float64(total[k])
				used++
			}
		}
		stat[i] = m / float64(used)
	}
	slices.Sort(stat)
	alpha := (1 - opt.Level) / 2
	a.CI = Interval{Lo: sortedQuantile(stat, alpha), Hi: sortedQuantile(stat, 1-alpha), Level: opt.Level}
	return a, nil
}

// sortedQuantile is the type-7 quantile at probability p of sorted values.
func sortedQuantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	lo = max(0, min(lo, len(sorted)-1))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (h-float64(lo))*(sorted[hi]-sorted[lo])
}
