package spec

import (
	"fmt"
	"hash/fnv"
)

// Shard selects a deterministic slice of the work items: item k belongs to
// shard I of N when fnv64a(trial id, question id) mod N == I.
type Shard struct{ I, N int }

// Has reports whether the shard holds an item.
func (s Shard) Has(trialID, questionID string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(trialID))
	h.Write([]byte{0})
	h.Write([]byte(questionID))
	return int(h.Sum64()%uint64(s.N)) == s.I
}

// ParseShard reads "i/n", 1 <= i <= n, numbered from 1 as --shard 1/2 and
// --shard 2/2 name the two halves of a run (as Jest and Playwright number
// shards). The returned Shard's I counts from 0.
func ParseShard(s string) (Shard, error) {
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n || fmt.Sprintf("%d/%d", i, n) != s {
		return Shard{}, fmt.Errorf("bad shard %q: want i/n with 1 <= i <= n (e.g. 1/2 and 2/2)", s)
	}
	return Shard{I: i - 1, N: n}, nil
}

// String names the shard as --shard does; a whole run is "1/1".
func (s Shard) String() string {
	if s.N <= 1 {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.I+1, s.N)
}

// Overlaps reports whether some item belongs to both shards: item hash h
// is in shard I of N and J of M when h = I mod N and h = J mod M, which
// some h satisfies exactly when I = J mod gcd(N, M).
func (s Shard) Overlaps(o Shard) bool {
	n, m := max(s.N, 1), max(o.N, 1)
	a, b := n, m
	for b != 0 {
		a, b = b, a%b
	}
	return s.I%a == o.I%a
}
