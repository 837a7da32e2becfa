package reports

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/internal/satint"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/stats"
)

// hits counts the questions of a group (n) and the correct ones (k:
// verdict correct, item not failed).
type hits struct{ k, n int }

// add counts one question, correct or not.
func (h *hits) add(correct bool) {
	h.n++
	if correct {
		h.k++
	}
}

// acc is k / n, NaN when n is 0 (groupAcc's value).
func (h hits) acc() (float64, int) {
	if h.n == 0 {
		return math.NaN(), 0
	}
	return float64(h.k) / float64(h.n), h.n
}

// counterAgg totals one trace counter over a system's done items: the sum
// of its values in item order and the number of items where it is
// positive.
type counterAgg struct {
	sum float64
	pos int
}

// cellKey is a heat map cell: a difficulty level and a reasoning type.
type cellKey struct{ level, typ string }

// itemAgg is what the report shows of a system's done items (every seed,
// seed after seed, each in question order), accumulated one item at a
// time so that no item is kept: counts by difficulty and reasoning type,
// trace counters, usage, candidate pools, extraction reasons and wall
// times (per item only its wall time, one float, until finish). Sums are
// taken in item order, so that they equal sums over a slice of the items.
type itemAgg struct {
	// all counts every done item (k: the correct ones), byLevel by
	// difficulty ("" included), byType by reasoning type (a question once
	// under each of its types), byCell by both.
	all     hits
	byLevel map[string]*hits
	byType  map[string]*hits
	byCell  map[cellKey]*hits
	// firstLevels and firstTypes count the first seed's done items by
	// difficulty and by reasoning type (each type a question lists).
	firstLevels map[string]int
	firstTypes  map[string]int
	// typed reports whether some done item's question has a reasoning type.
	typed bool
	// turns sums the "turns" counter by difficulty, turnsAll over every
	// item.
	turns    map[string]float64
	turnsAll float64
	counters map[string]*counterAgg
	usage    metrics.UsageAcc
	cands    *metrics.CandidateAcc
	reasons  sqltext.ReasonCounts
	// secs are the wall times of the system's items, kept until lat is
	// computed (finish).
	secs   []float64
	lat    stats.LatencyStats
	hasLat bool
}

func newItemAgg() *itemAgg {
	cands, err := metrics.NewCandidateAcc(candidateKs)
	if err != nil {
		panic(err) // candidateKs are valid
	}
	return &itemAgg{byLevel: map[string]*hits{}, byType: map[string]*hits{}, byCell: map[cellKey]*hits{},
		firstLevels: map[string]int{}, firstTypes: map[string]int{}, turns: map[string]float64{},
		counters: map[string]*counterAgg{}, cands: cands, reasons: sqltext.ReasonCounts{}}
}

// bump adds one question to group key of m, correct or not.
func bump[K comparable](m map[K]*hits, key K, correct bool) {
	h := m[key]
	if h == nil {
		h = &hits{}
		m[key] = h
	}
	h.add(correct)
}

// add counts one done item of the system s (a done or failed item in EX's
// denominator with a verdict); first says whether it is of the first seed.
// The item is correct when its verdict is and it did not fail, as in
// runstore.TrialOutcomes.
func (a *itemAgg) add(s *system, it *runstore.Item, first bool) {
	correct := it.Verdict.Correct && it.Status != runstore.StatusFailed
	level := s.difficulty(it.QuestionID, it)
	types := s.labels[it.QuestionID].ReasoningTypes
	a.all.add(correct)
	bump(a.byLevel, level, correct)
	for i, ty := range types {
		a.typed = true
		if slices.Contains(types[:i], ty) {
			continue
		}
		bump(a.byType, ty, correct)
		bump(a.byCell, cellKey{level, ty}, correct)
	}
	if first {
		a.firstLevels[level]++
		for _, ty := range types {
			a.firstTypes[ty]++
		}
	}
	turns := 0.0
	if it.Result != nil {
		for name, v := range it.Result.Trace.Counters {
			c := a.counters[name]
			if c == nil {
				c = &counterAgg{}
				a.counters[name] = c
			}
			c.sum += v
			if v > 0 {
				c.pos++
			}
		}
		turns = it.Result.Trace.Counters[runners.CounterTurns]
	}
	a.turns[level] += turns
	a.turnsAll += turns
	a.usage.Add(itemUsage(it))
	a.cands.Add(it.Verdict)
	if it.Result != nil {
		a.reasons.Add(it.Result.Extraction)
	}
	a.secs = append(a.secs, it.WallMS/1000)
}

// finish computes the latency statistics of the wall times added and
// drops them.
func (a *itemAgg) finish() {
	if l, err := stats.Latency(a.secs, math.Inf(1)); err == nil {
		a.lat, a.hasLat = l, true
	}
	a.secs = nil
}

// itemUsage is an item's usage by role: its result's usage records, else
// its calls.
func itemUsage(it *runstore.Item) map[string]metrics.Usage {
	q := map[string]metrics.Usage{}
	if it.Result != nil && len(it.Result.Usage) > 0 {
		for role, u := range it.Result.Usage {
			// A count below 0 (a store written before servers'
			// counts were validated) reads 0.
			q[role] = metrics.Usage{Calls: u.Calls, CachedCalls: u.CachedCalls, PromptTokens: max(u.PromptTokens, 0),
				CompletionTokens: max(u.CompletionTokens, 0), Latency: u.Latency, Samples: u.Samples, Cut: u.Cut}
		}
		return q
	}
	for _, call := range it.Calls {
		u := q[call.Role]
		u.Calls++
		if call.Cached {
			u.CachedCalls++
		}
		u.PromptTokens = satint.Add(u.PromptTokens, call.PromptTokens)
		u.CompletionTokens = satint.Add(u.CompletionTokens, call.CompletionTokens)
		u.Latency += time.Duration(call.LatencyMS * float64(time.Millisecond))
		q[call.Role] = u
	}
	return q
}

// models returns the system's role -> model binding: the trial's, and for
// a role some item used that the trial does not bind, its "reason" model
// (the scheduler's fallback, so that the role is priced as that model).
func (s *system) models() map[string]string {
	models := map[string]string{}
	for role, m := range s.trial.Roles {
		models[role] = m
	}
	if reason, ok := models[runners.RoleReason]; ok {
		for _, role := range s.agg.usage.RoleNames() {
			if _, bound := models[role]; !bound {
				models[role] = reason
			}
		}
	}
	return models
}

// counter returns the total of a trace counter over the system's done
// items, the number of items where it is positive, and whether any item
// has it.
func (s *system) counter(name string) (sum float64, positive int, has bool) {
	c, ok := s.agg.counters[name]
	if !ok {
		return 0, 0, false
	}
	return c.sum, c.pos, true
}

// counterNames lists the trace counters of the system's items with the
// given prefix, sorted.
func (s *system) counterNames(prefix string) []string {
	var out []string
	for k := range s.agg.counters {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// levelAcc is EX over the system's done items of difficulty level
// (groupAcc's accuracy and count).
func (s *system) levelAcc(level string) (float64, int) {
	if h := s.agg.byLevel[level]; h != nil {
		return h.acc()
	}
	return math.NaN(), 0
}

// typeAcc is EX over the system's done items whose question has
// reasoning type ty.
func (s *system) typeAcc(ty string) (float64, int) {
	if h := s.agg.byType[ty]; h != nil {
		return h.acc()
	}
	return math.NaN(), 0
}

// cellAcc is EX over the system's done items of difficulty level whose
// question has reasoning type ty.
func (s *system) cellAcc(level, ty string) (float64, int) {
	if h := s.agg.byCell[cellKey{level, ty}]; h != nil {
		return h.acc()
	}
	return math.NaN(), 0
}

// typesSeen lists the reasoning types of the system's done items.
func (s *system) typesSeen() []string {
	return slices.Collect(maps.Keys(s.agg.byType))
}
