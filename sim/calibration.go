package sim

import (
	"math"
	"sort"
	"sync"
)

// TierCount is what a calibration measured for one tier of a kind's
// ranked reading, summed over its questions: the items the tier lists (N)
// and those of them the gold query uses (Hit).
type TierCount struct{ N, Hit float64 }

// KindCalibration is one kind's measurement: per tier of the ranked
// reading and for its pool, the items and hits, and the items the gold
// queries use (Gold).
type KindCalibration struct {
	Tiers []TierCount
	Pool  TierCount
	Gold  float64
}

// Calibration is a measurement of the simulator's ranked keyword reading
// (keywordReading) against the gold queries of a question set, as IESR's
// Table 4 measures a model (runners/iesr: the understanding prompt, the
// gold's read set, constants and operators, micro-averaged), made offline
// with TestCalibrateReading. It is t2sbench's measurement of the
// simulator, not of a model, and what the sim knows of the gold: totals
// over a question set, never an item's own gold.
type Calibration struct {
	// Name is the benchmark it applies to (datasets.Benchmark.Name).
	Name string
	// Source names the question set, Questions counts it.
	Source    string
	Questions int
	Kinds     [numKinds]KindCalibration
}

// KeepRates are a kind's operating point: the probability that an
// extraction keeps an item of each tier of its ranked reading, and each
// item of its pool.
type KeepRates struct {
	Tier []float64
	Pool float64
}

// Expected is the precision and recall against the gold that keep rates
// give on the calibration's question set (expected micro-averages; 0 where
// nothing is listed or nothing is to find).
func (kc *KindCalibration) Expected(k KeepRates) KindPR {
	var hit, n float64
	for t, c := range kc.Tiers {
		hit += k.Tier[t] * c.Hit
		n += k.Tier[t] * c.N
	}
	hit += k.Pool * kc.Pool.Hit
	n += k.Pool * kc.Pool.N
	var out KindPR
	if n > 0 {
		out.P = hit / n
	}
	if kc.Gold > 0 {
		out.R = hit / kc.Gold
	}
	return out
}

// OperatingPoint is the operating point that brings the expected precision
// and recall on the calibration's questions (Expected) to target's: the
// tiers are kept most precise first, down the ranking until the recall is
// reached (the pool last: going further down the ranking), and pool items
// are added, with the lowest tiers taken back to keep the recall, until
// the precision falls to the target. Where the ranking cannot reach the
// target (a recall above what the reading and its pool find, or a
// precision above what its best tiers give at that recall), it is the
// point of the ranking nearest the target (closest); Expected reports
// what is reached.
func (kc *KindCalibration) OperatingPoint(target KindPR) KeepRates {
	order := kc.precisionOrder()
	need := target.R * kc.Gold
	all := kc.tierHits()
	fill := func(h float64) []float64 { return kc.fill(order, h) }
	at := func(w float64) KeepRates {
		return KeepRates{Tier: fill(need - w*kc.Pool.Hit), Pool: w}
	}
	if need > all+kc.Pool.Hit {
		return kc.closest(order, target)
	}
	lo := 0.0
	if need > all {
		lo = (need - all) / kc.Pool.Hit
	}
	if kc.Expected(at(lo)).P < target.P || kc.Pool.N == 0 {
		return kc.closest(order, target)
	}
	hi := 1.0
	if kc.Expected(at(hi)).P >= target.P {
		return at(hi)
	}
	for range 60 {
		mid := (lo + hi) / 2
		if kc.Expected(at(mid)).P > target.P {
			lo = mid
		} else {
			hi = mid
		}
	}
	return at((lo + hi) / 2)
}

// RecallPoint is the operating point whose expected recall on the
// calibration's questions is r, whatever the precision: the tiers are
// kept most precise first, then the pool, until they hold r of the gold
// items (everything, where that is less than r).
func (kc *KindCalibration) RecallPoint(r float64) KeepRates {
	need, all := r*kc.Gold, kc.tierHits()
	k := KeepRates{Tier: kc.fill(kc.precisionOrder(), need)}
	if need > all && kc.Pool.Hit > 0 {
		k.Pool = min(1, (need-all)/kc.Pool.Hit)
	}
	return k
}

// precisionOrder are the tiers that list items, most precise first.
func (kc *KindCalibration) precisionOrder() []int {
	order := make([]int, 0, len(kc.Tiers))
	for t, c := range kc.Tiers {
		if c.N > 0 {
			order = append(order, t)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := kc.Tiers[order[i]], kc.Tiers[order[j]]
		return a.Hit/a.N > b.Hit/b.N
	})
	return order
}

// tierHits are the gold hits of all the tiers.
func (kc *KindCalibration) tierHits() float64 {
	var all float64
	for _, c := range kc.Tiers {
		all += c.Hit
	}
	return all
}

// fill keeps the tiers, in order, until they hold h hits.
func (kc *KindCalibration) fill(order []int, h float64) []float64 {
	keep := make([]float64, len(kc.Tiers))
	for _, t := range order {
		c := kc.Tiers[t]
		if h <= 0 {
			break
		}
		if c.Hit <= 0 {
			continue
		}
		keep[t] = min(1, h/c.Hit)
		h -= keep[t] * c.Hit
	}
	return keep
}

// closest is the point of the ranking nearest target where target is
// out of its reach: the tiers in order, then the pool, kept down to the
// depth whose expected precision and recall are closest to target's (the
// larger of the two gaps the least).
func (kc *KindCalibration) closest(order []int, target KindPR) KeepRates {
	steps := append(append([]int{}, order...), -1)
	var best KeepRates
	bestGap := 2.0
	const grid = 200
	for depth := 0; depth <= len(steps)*grid; depth++ {
		k := KeepRates{Tier: make([]float64, len(kc.Tiers))}
		for i, t := range steps {
			f := min(1, max(0, float64(depth-i*grid)/grid))
			if t < 0 {
				k.Pool = f
			} else {
				k.Tier[t] = f
			}
		}
		e := kc.Expected(k)
		if gap := max(math.Abs(e.P-target.P), math.Abs(e.R-target.R)); depth > 0 && gap < bestGap {
			best, bestGap = k, gap
		}
	}
	return best
}

// calibrationFor is the calibration of the benchmark called name: its
// own where one was measured, else the default one (defaultCalibration:
// Spider dev's, its unmeasured tiers filled from mini's; a modelling
// choice: the reading's figures differ between question sets, so on
// another benchmark the simulated Table 4 is not calibrated).
func calibrationFor(name string) *Calibration {
	if c, ok := calibrations[name]; ok {
		return c
	}
	return defaultCalibration()
}

// defaultCalibration is the calibration of a benchmark without its own:
// DefaultCalibration's, with each tier it did not measure (no item
// listed: Spider dev has no hints, so its hint tiers of numbers and
// operators are empty) taken from FallbackCalibration, which measured
// it. Without them such a tier would get keep rate 0, and a benchmark
// whose hints carry numbers and operators (BIRD) would never list one.
var defaultCalibration = sync.OnceValue(func() *Calibration {
	return fillUnmeasured(calibrations[DefaultCalibration], calibrations[FallbackCalibration])
})

// fillUnmeasured is base with each tier base did not measure (N = 0) and
// from measured taken from from: its items and hits per question, scaled
// to base's question count, the hits added to the gold items (the gold
// items only that tier finds). The other tiers, the pool and base
// itself are left as they are.
func fillUnmeasured(base, from *Calibration) *Calibration {
	out := *base
	out.Source = base.Source + "; the tiers it did not measure from " + from.Source
	scale := float64(base.Questions) / float64(from.Questions)
	for k := range out.Kinds {
		kc := base.Kinds[k]
		kc.Tiers = append([]TierCount(nil), kc.Tiers...)
		for t, c := range kc.Tiers {
			if c.N > 0 || t >= len(from.Kinds[k].Tiers) || from.Kinds[k].Tiers[t].N == 0 {
				continue
			}
			f := from.Kinds[k].Tiers[t]
			kc.Tiers[t] = TierCount{N: f.N * scale, Hit: f.Hit * scale}
			kc.Gold += f.Hit * scale
		}
		out.Kinds[k] = kc
	}
	return &out
}

// opPoints are a model's keep rates on its benchmark's calibration.
type opPoints struct {
	// stage are a keyword answer's, per stage (stageExtract,
	// stageVerified) and kind: the profile's Extract and Verified rows.
	stage [2][numKinds]KeepRates
	// schema are a schema selection's (pickTables): the tables' rates
	// whose expected recall is the profile's SchemaRecall.
	schema KeepRates
}

// operatingPoints are the model's keep rates (opPoints), solved once.
func (s *Model) operatingPoints() *opPoints {
	s.opsOnce.Do(func() {
		cal := calibrationFor(s.b.Name)
		for k := range numKinds {
			s.ops.stage[stageExtract][k] = cal.Kinds[k].OperatingPoint(s.prof.Extract[k])
			s.ops.stage[stageVerified][k] = cal.Kinds[k].OperatingPoint(s.prof.Verified[k])
		}
		s.ops.schema = cal.Kinds[KindTable].RecallPoint(s.prof.SchemaRecall())
	})
	return &s.ops
}
