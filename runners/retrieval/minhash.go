package retrieval

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// mersenne61 is the prime 2^61 - 1 of the universal hash family
// h(x) = (a*x + b) mod p used for the permutations (as datasketch does with
// 2^61 - 1).
const mersenne61 = (1 << 61) - 1

// MinHasher computes MinHash signatures with a fixed family of hash
// permutations. Two signatures agree at a position with probability equal
// to the Jaccard similarity of their sets.
type MinHasher struct {
	a, b []uint64
}

// NewMinHasher returns a MinHasher with perms permutations drawn from a
// source seeded with seed.
func NewMinHasher(perms int, seed uint64) *MinHasher {
	rng := rand.New(rand.NewPCG(seed, 0x6d696e68617368))
	m := &MinHasher{a: make([]uint64, perms), b: make([]uint64, perms)}
	for i := range m.a {
		m.a[i] = 1 + rng.Uint64N(mersenne61-1)
		m.b[i] = rng.Uint64N(mersenne61)
	}
	return m
}

// Perms is the signature length.
func (m *MinHasher) Perms() int { return len(m.a) }

// mulmod61 returns a*b mod 2^61-1 for a, b < 2^61.
func mulmod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a*b = hi*2^64 + lo; 2^64 = 8 mod p (2^61 = 1 mod p).
	r := (lo & mersenne61) + (lo >> 61) + (hi << 3)
	r = (r & mersenne61) + (r >> 61)
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

// Signature returns the MinHash signature of a set of shingles. An empty
// set gives a signature of all math.MaxUint64.
func (m *MinHasher) Signature(shingles []string) []uint64 {
	sig := make([]uint64, len(m.a))
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	for _, s := range shingles {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64() & mersenne61
		for i := range sig {
			v := mulmod61(m.a[i], x) + m.b[i]
			if v >= mersenne61 {
				v -= mersenne61
			}
			if v < sig[i] {
				sig[i] = v
			}
		}
	}
	return sig
}

// EstimateJaccard is the share of equal positions of two signatures, the
// MinHash estimate of the Jaccard similarity of their sets.
func EstimateJaccard(a, b []uint64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// OptimalBands chooses the LSH banding (bands b, rows r, b*r <= perms) for
// a Jaccard threshold the way datasketch's MinHashLSH does with equal
// weights: it minimises
//
//	0.5 * ∫_0^t 1-(1-s^r)^b ds  +  0.5 * ∫_t^1 (1-s^r)^b ds
//
// (the false-positive and false-negative areas under the S-curve), with
// Simpson's rule on 1000 intervals. For t = 0.5 and 128 permutations it
// gives b = 25, r = 5 (the S-curve's midpoint (1/b)^(1/r) = 0.525).
func OptimalBands(threshold float64, perms int) (bands, rows int) {
	key := bandsKey{threshold, perms}
	bandsMu.Lock()
	defer bandsMu.Unlock()
	if v, ok := bandsMemo[key]; ok {
		return v[0], v[1]
	}
	defer func() { bandsMemo[key] = [2]int{bands, rows} }()
	best := math.Inf(1)
	for b := 1; b <= perms; b++ {
		for r := 1; r <= perms/b; r++ {
			bf, rf := float64(b), float64(r)
			fp := simpson(func(s float64) float64 { return 1 - math.Pow(1-math.Pow(s, rf), bf) }, 0, threshold)
			fn := simpson(func(s float64) float64 { return math.Pow(1-math.Pow(s, rf), bf) }, threshold, 1)
			if e := 0.5*fp + 0.5*fn; e < best {
				best, bands, rows = e, b, r
			}
		}
	}
	return bands, rows
}

type bandsKey struct {
	t float64
	n int
}

var (
	bandsMu   sync.Mutex
	bandsMemo = map[bandsKey][2]int{}
)

func simpson(f func(float64) float64, a, b float64) float64 {
	const n = 1000
	h := (b - a) / n
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// bandKey hashes rows [lo, hi) of a signature.
func bandKey(sig []uint64, lo, hi int) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range sig[lo:hi] {
		for k := 0; k < 8; k++ {
			h ^= (v >> (8 * k)) & 0xff
			h *= 1099511628211
		}
	}
	return h
}
