package bench

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
