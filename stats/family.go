package stats

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// DefaultSeed is the bootstrap seed of a comparison when none is given
// (the --seed default of compare and report; the run summary and the
// viewer use it).
const DefaultSeed = 1

// PairRand returns the bootstrap source of the comparison of system
// against baseline: PCG(seed, FNV-1a-64(baseline + "\x00" + system)), the
// two keys being the systems' names (a run's trial label without the
// seed; a verdict file's name). The interval of a pair depends on the seed
// and on the two names only: not on which other systems are compared, nor
// on their order, nor on where it is printed. Swapping baseline and system
// changes the stream as it changes the sign of the difference.
func PairRand(seed uint64, baseline, system string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, keyHash(baseline+"\x00"+system)))
}

// SystemRand returns the bootstrap source of one system's accuracy
// interval over seeds (SeedAccuracy): PCG(seed, FNV-1a-64(key)).
func SystemRand(seed uint64, key string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, keyHash(key)))
}

func keyHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Arm is one system of a family of comparisons: its name, which seeds its
// bootstrap (PairRand), and its outcomes under each seed.
type Arm struct {
	Key      string
	Outcomes Replicates
	// Excluded are questions left out of every pair the system is in, on
	// both sides: a verdict file's questions whose gold does not run in
	// its scoring. Runs leave such questions out of Outcomes instead.
	Excluded map[string]bool
}

// without returns r, per seed, without the questions of drop (r itself
// when there are none): Replicates or Scores.
func without[T any](r map[int64]map[string]T, drop ...map[string]bool) map[int64]map[string]T {
	n := 0
	for _, d := range drop {
		n += len(d)
	}
	if n == 0 {
		return r
	}
	out := map[int64]map[string]T{}
	for s, m := range r {
		o := make(map[string]T, len(m))
		for id, v := range m {
			keep := true
			for _, d := range drop {
				keep = keep && !d[id]
			}
			if keep {
				o[id] = v
			}
		}
		out[s] = o
	}
	return out
}

// FamilyOptions configure CompareFamily.
type FamilyOptions struct {
	// Test, Level, Resamples and CIMethod are as in CompareOptions.
	Test      string
	Level     float64
	Resamples int
	CIMethod  string
	// Seed is the bootstrap seed (DefaultSeed if 0); each pair draws from
	// PairRand(Seed, baseline, system).
	Seed uint64
	// Intersect pairs on the questions both systems have under every
	// seed (PairSeeds), dropping the others; without it they are an
	// error.
	Intersect bool
	// NoInterval skips the bootstrap: the comparisons have no interval.
	NoInterval bool
}

// FamilyResult is one member of a family compared with the baseline: the
// pairing and the comparison, or the error that kept it from being
// compared (no question in common, different seeds: see PairSeeds).
type FamilyResult struct {
	Paired     SeedPaired
	Comparison *Comparison
	Err        error
}

// CompareFamily compares every member with the baseline base: ComparePairs
// of the pairs (base, member), in the order of members.
func CompareFamily(base Arm, members []Arm, opt FamilyOptions) ([]FamilyResult, error) {
	pairs := make([][2]Arm, len(members))
	for i, m := range members {
		pairs[i] = [2]Arm{base, m}
	}
	return ComparePairs(pairs, opt)
}

// ComparePairs compares the second system of every pair with the first,
// its baseline (PairSeeds on the questions neither excludes, then
// CompareSeeds with the source PairRand(opt.Seed, baseline.Key,
// system.Key)), and adjusts the p-values of the pairs that were compared
// with Holm (AdjustHolm), the family being those comparisons. It is the
// one comparison every output prints: compare, the run summary, the
// report's tables and plots and the viewer format its results. The results
// are in the order of pairs; a pair that could not be compared has Err set
// and takes no part in the adjustment.
func ComparePairs(pairs [][2]Arm, opt FamilyOptions) ([]FamilyResult, error) {
	return compareFamily(len(pairs), opt, func(i int, seed uint64) (SeedPaired, *Comparison, error) {
		base, m := pairs[i][0], pairs[i][1]
		p, err := PairSeeds(without(base.Outcomes, base.Excluded, m.Excluded), without(m.Outcomes, base.Excluded, m.Excluded), opt.Intersect)
		if err != nil {
			return SeedPaired{}, nil, err
		}
		co := CompareOptions{Test: opt.Test, Level: opt.Level, Resamples: opt.Resamples, CIMethod: opt.CIMethod}
		if !opt.NoInterval {
			co.Rand = PairRand(seed, base.Key, m.Key)
		}
		c, err := CompareSeeds(p, co)
		return p, c, err
	})
}

// compareFamily compares n pairs, pair i by compare (given the bootstrap
// seed, opt.Seed or DefaultSeed), and adjusts the p-values of the pairs
// compared with Holm: ComparePairs and CompareScorePairs. A pair whose
// compare fails has Err set, no pairing, and takes no part in the
// adjustment.
func compareFamily(n int, opt FamilyOptions, compare func(i int, seed uint64) (SeedPaired, *Comparison, error)) ([]FamilyResult, error) {
	seed := opt.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	out := make([]FamilyResult, n)
	var family []*Comparison
	for i := range out {
		p, c, err := compare(i, seed)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Paired, out[i].Comparison = p, c
		family = append(family, c)
	}
	if err := AdjustHolm(family); err != nil {
		return nil, fmt.Errorf("stats: family: %w", err)
	}
	return out, nil
}
