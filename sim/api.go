package sim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Sample is what a responder sees when the simulator answers one sample of
// a request: the request, the prompt as the model reads it, and, for the
// final SQL only, the benchmark example found in the prompt. Responders
// build intermediate answers (keywords, schema selections,
// decompositions, DSL programs) from Prompt and Question alone; the gold
// SQL is read only through SQL, which applies the behaviour model.
type Sample struct {
	Request llm.Request
	// Prompt is the request's text and the schema it shows.
	Prompt *Prompt
	// Question is the benchmark question found in the prompt, and
	// Evidence the example's evidence when the prompt carries it ("" when
	// it does not).
	Question, Evidence string
	// Index is the index of this sample within the request (0..N-1).
	Index int
	// P is the probability p of the request's role.
	P float64
	// Rand is seeded by (seed, prompt, sample index).
	Rand *rand.Rand

	example datasets.Example
	schema  *datasets.Schema
	model   *Model
	// base is the request's draw key (Model.requestHash).
	base    [32]byte
	correct bool
	chRand  *rand.Rand
	out     *Outcome
}

// Responder produces one sample's answer text for a request kind.
type Responder func(c *Sample) (string, error)

// SQL returns the SQL this sample gives as its final query, decided by the
// behaviour model (see the package documentation): the gold SQL, or a
// mistake whose kind depends on what the prompt lacks. It is drawn once
// per sample; later calls return the same query.
func (c *Sample) SQL() string {
	return c.Outcome().SQL
}

// Outcome returns the behaviour model's decision for this sample's final
// SQL, with the reason for a mistake.
func (c *Sample) Outcome() Outcome {
	if c.out == nil {
		o := c.model.decide(c)
		c.out = &o
	}
	return *c.out
}

// responders maps a request kind (llm.Request.Responder, the strings the
// runners set) to its responder. Requests with no kind get
// defaultResponder for SQL and text answers.
var responders = map[string]Responder{}

// register adds the responders of one method (called from init).
func register(m map[string]Responder) {
	for k, r := range m {
		if _, dup := responders[k]; dup {
			panic("sim: duplicate responder " + k)
		}
		responders[k] = r
	}
}

// Kinds lists the request kinds the simulator answers, sorted.
func Kinds() []string { return slices.Sorted(maps.Keys(responders)) }

// errNoResponder is returned when a request names an unknown kind.
func errNoResponder(name string) error {
	return fmt.Errorf("sim: no responder for request kind %q (known: %v)", name, Kinds())
}
