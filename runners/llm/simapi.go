package llm

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
)

// SimContext is what a sim responder sees when the sim backend answers one
// sample of a request. The sim backend has found the benchmark question in
// the prompt; runners never see Example.GoldSQL, only the simulator does.
type SimContext struct {
	Request Request
	// Example is the benchmark example found in the prompt, with its gold
	// SQL.
	Example datasets.Example
	// DB is the example's database (may be nil when unavailable).
	DB datasets.Database
	// Sample is the index of this sample within the request (0..N-1).
	Sample int
	// Correct says whether this sample should answer correctly; it was drawn
	// with the role's probability p.
	Correct bool
	// Rand is seeded by (seed, prompt, sample index).
	Rand *rand.Rand
	// Corrupt returns a realistic corruption of a gold SQL (wrong column,
	// dropped predicate, wrong aggregate, wrong join, ...), seeded by Rand.
	Corrupt func(sql string) string
}

// SQL returns the SQL this sample should give: the gold SQL when Correct,
// else a corruption of it.
func (c *SimContext) SQL() string {
	if c.Correct || c.Corrupt == nil {
		return c.Example.GoldSQL
	}
	return c.Corrupt(c.Example.GoldSQL)
}

// Responder produces one sample's answer text for a request kind.
type Responder func(c *SimContext) (string, error)

var (
	respMu     sync.RWMutex
	responders = map[string]Responder{}
)

// RegisterResponder makes the sim backend answer requests whose
// Request.Responder is name. Runner packages register their own answer kinds
// in init. It panics on a duplicate name.
func RegisterResponder(name string, r Responder) {
	respMu.Lock()
	defer respMu.Unlock()
	if _, dup := responders[name]; dup {
		panic("llm: duplicate sim responder " + name)
	}
	responders[name] = r
}

// LookupResponder returns the responder registered under name.
func LookupResponder(name string) (Responder, bool) {
	respMu.RLock()
	defer respMu.RUnlock()
	r, ok := responders[name]
	return r, ok
}

// ResponderNames lists registered responders, sorted.
func ResponderNames() []string {
	respMu.RLock()
	defer respMu.RUnlock()
	out := make([]string, 0, len(responders))
	for n := range responders {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// errNoResponder is returned when a request names an unregistered responder.
func errNoResponder(name string) error {
	return fmt.Errorf("sim: no responder registered for %q (registered: %v)", name, ResponderNames())
}
