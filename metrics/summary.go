package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/internal/satint"
)

// Usage is model usage of one role on one question. It mirrors the run
// store's per-role usage record (metrics does not import runners).
type Usage struct {
	Calls            int
	CachedCalls      int
	PromptTokens     int
	CompletionTokens int
	// Latency is the summed wall time of the role's model calls.
	Latency time.Duration
	// Samples is the number of answers received (a call with n = 8 gives
	// 8) and Cut the number of them cut at the token limit
	// (finish_reason "length"); both 0 when the record predates them.
	Samples, Cut int
}

// Price is a model's price in USD per million tokens, as a spec's prices
// give it (prices: {gpt: {prompt: 2.5, completion: 10}}; spec.Price is
// this type). Its JSON keys are those run stores have kept the spec's
// prices under (runstore.MetaPrices) since the first version.
type Price struct {
	PromptPerM     float64 `json:"Prompt" yaml:"prompt"`
	CompletionPerM float64 `json:"Completion" yaml:"completion"`
}

// Cost is the price of prompt and completion tokens in USD: the one
// formula of the dry run's estimate and of the report's cost columns.
func (p Price) Cost(prompt, completion float64) float64 {
	return (prompt*p.PromptPerM + completion*p.CompletionPerM) / 1e6
}

// RoleSummary is one role's usage totals and per-question means.
type RoleSummary struct {
	Role                                  string
	Calls, PromptTokens, CompletionTokens int
	Latency                               time.Duration
	// CallsPerQ, PromptPerQ and CompletionPerQ are means over all
	// questions (a question that did not use the role counts as 0).
	CallsPerQ, PromptPerQ, CompletionPerQ float64
	// Samples and Cut total the answers received and those cut at the
	// token limit; SamplesPerQ is Samples over all questions and CutRate
	// Cut/Samples (0 without samples).
	Samples, Cut         int
	SamplesPerQ, CutRate float64
	// TokensPerSecond is completion tokens per second of model-call
	// latency (the client-observed generation rate); 0 without latency.
	TokensPerSecond float64
	// CostPerQ is the mean cost per question in USD, Cost the cost of
	// every question summarized (Price.Cost); Priced says whether a price
	// was found (for the total: for every role).
	CostPerQ, Cost float64
	Priced         bool
}

// UsageSummary is usage by role over a set of questions, plus the total.
type UsageSummary struct {
	Questions int
	Roles     []RoleSummary // sorted by role
	Total     RoleSummary   // Role "total"
	Warnings  []error
}

// SummarizeUsage aggregates per-question usage by role (perQuestion[i] is
// question i's usage, role -> Usage). The price of a role is prices[role],
// else prices[models[role]] (models maps role -> model name and may be nil).
// Cost counts every call, cached or not, at list price, as papers report
// it:
//
//	cost = (prompt tokens * PromptPerM + completion tokens * CompletionPerM) / 1e6
//
// A role without a price gets a warning and no cost.
func SummarizeUsage(perQuestion []map[string]Usage, prices map[string]Price, models map[string]string) (UsageSummary, error) {
	var a UsageAcc
	for _, q := range perQuestion {
		a.Add(q)
	}
	return a.Summary(prices, models)
}

// UsageAcc accumulates SummarizeUsage one question at a time, for a reader
// that streams the questions instead of holding them. The zero value is
// empty.
type UsageAcc struct {
	totals map[string]*RoleSummary
	n      int
	err    error
}

// Add adds the usage of the next question (role -> Usage).
func (a *UsageAcc) Add(q map[string]Usage) {
	i := a.n
	a.n++
	if a.err != nil {
		return
	}
	if a.totals == nil {
		a.totals = map[string]*RoleSummary{}
	}
	for role, u := range q {
		if u.Calls < 0 || u.CachedCalls < 0 || u.PromptTokens < 0 || u.CompletionTokens < 0 || u.Latency < 0 || u.Samples < 0 || u.Cut < 0 {
			a.err = fmt.Errorf("metrics: usage: question %d role %q has a negative count: %+v", i, role, u)
			return
		}
		r := a.totals[role]
		if r == nil {
			r = &RoleSummary{Role: role}
			a.totals[role] = r
		}
		r.Calls += u.Calls
		r.PromptTokens = satint.Add(r.PromptTokens, u.PromptTokens)
		r.CompletionTokens = satint.Add(r.CompletionTokens, u.CompletionTokens)
		r.Latency += u.Latency
		r.Samples += u.Samples
		r.Cut += u.Cut
	}
}

// RoleNames lists the roles some question added has usage of, sorted.
func (a *UsageAcc) RoleNames() []string {
	out := make([]string, 0, len(a.totals))
	for r := range a.totals {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// Summary is SummarizeUsage of the questions added.
func (a *UsageAcc) Summary(prices map[string]Price, models map[string]string) (UsageSummary, error) {
	if a.n == 0 {
		return UsageSummary{}, fmt.Errorf("metrics: usage: no questions")
	}
	if a.err != nil {
		return UsageSummary{}, a.err
	}
	nq := float64(a.n)
	s := UsageSummary{Questions: a.n, Total: RoleSummary{Role: "total", Priced: true}}
	// The roles are taken in sorted order, so that the float sums of the
	// total are the same on every call.
	for _, role := range a.RoleNames() {
		r := *a.totals[role]
		price, ok := prices[r.Role]
		if !ok && models != nil {
			price, ok = prices[models[r.Role]]
		}
		r.Priced = ok
		if ok {
			r.Cost = price.Cost(float64(r.PromptTokens), float64(r.CompletionTokens))
			r.CostPerQ = r.Cost / nq
		} else {
			s.Warnings = append(s.Warnings, fmt.Errorf("metrics: usage: no price for role %q (model %q); its cost is left out", r.Role, models[r.Role]))
			s.Total.Priced = false
		}
		s.Roles = append(s.Roles, r)
		s.Total.Calls += r.Calls
		s.Total.PromptTokens = satint.Add(s.Total.PromptTokens, r.PromptTokens)
		s.Total.CompletionTokens = satint.Add(s.Total.CompletionTokens, r.CompletionTokens)
		s.Total.Latency += r.Latency
		s.Total.Samples += r.Samples
		s.Total.Cut += r.Cut
		s.Total.CostPerQ += r.CostPerQ
		s.Total.Cost += r.Cost
	}
	slices.SortFunc(s.Warnings, func(x, y error) int { return cmp.Compare(x.Error(), y.Error()) })
	for i := range s.Roles {
		perQuestionRates(&s.Roles[i], nq)
	}
	perQuestionRates(&s.Total, nq)
	return s, nil
}

func perQuestionRates(r *RoleSummary, nq float64) {
	r.CallsPerQ = float64(r.Calls) / nq
	r.PromptPerQ = float64(r.PromptTokens) / nq
	r.CompletionPerQ = float64(r.CompletionTokens) / nq
	r.SamplesPerQ = float64(r.Samples) / nq
	if r.Samples > 0 {
		r.CutRate = float64(r.Cut) / float64(r.Samples)
	}
	if sec := r.Latency.Seconds(); sec > 0 {
		r.TokensPerSecond = float64(r.CompletionTokens) / sec
	}
}

// GoldRuns reports whether a verdict of status st is in EX's denominator:
// every status except missing_db, gold_error and gold_timeout, the
// questions whose gold does not run. EX has this one denominator in
// eval, compare, the run summary and every report table:
//
//	EX = correct / attempted
//	attempted = questions whose gold runs (failed runners included, as wrong)
//
// An unknown status counts as a gold that runs.
func GoldRuns(st Status) bool {
	switch st {
	case StatusMissingDB, StatusGoldError, StatusGoldTimeout:
		return false
	}
	return true
}

// GoldFailures lists the statuses of questions whose gold does not run,
// in the order tallies print them.
var GoldFailures = []Status{StatusMissingDB, StatusGoldError, StatusGoldTimeout}

// Tally counts one system's outcomes on EX's one denominator (see
// GoldRuns).
type Tally struct {
	// Attempted counts the questions whose gold runs; Correct those
	// answered correctly; Failed those whose runner failed (each counted
	// wrong, and included in Attempted).
	Attempted int `json:"attempted"`
	Correct   int `json:"correct"`
	Failed    int `json:"failed"`
	// Excluded counts, by status, the questions whose gold does not run;
	// they are never in the denominator.
	Excluded map[Status]int `json:"excluded,omitempty"`
	// Nondet counts the attempted questions whose gold is nondeterministic
	// (Nondeterministic of its flags) and NondetCorrect those of them
	// answered correctly; DeterministicEX leaves them out.
	Nondet        int `json:"nondeterministic,omitempty"`
	NondetCorrect int `json:"nondeterministic_correct,omitempty"`
}

// AddFlagged is Add for a question whose gold carries flags (the
// verdict's GoldFlags): a nondeterministic gold is also counted in Nondet.
func (t *Tally) AddFlagged(st Status, correct, failed bool, flags []string) {
	t.Add(st, correct, failed)
	if GoldRuns(st) && Nondeterministic(flags) {
		t.Nondet++
		if correct && !failed {
			t.NondetCorrect++
		}
	}
}

// DeterministicEX is EX over the attempted questions whose gold is
// deterministic, with its numerator and denominator; NaN when there are
// none.
func (t Tally) DeterministicEX() (ex float64, correct, attempted int) {
	correct, attempted = t.Correct-t.NondetCorrect, t.Attempted-t.Nondet
	if attempted == 0 {
		return math.NaN(), correct, attempted
	}
	return float64(correct) / float64(attempted), correct, attempted
}

// Add counts one question: its verdict status, whether it was correct and
// whether the system failed on it.
func (t *Tally) Add(st Status, correct, failed bool) {
	if !GoldRuns(st) {
		if t.Excluded == nil {
			t.Excluded = map[Status]int{}
		}
		t.Excluded[st]++
		return
	}
	t.Attempted++
	if failed {
		t.Failed++
	} else if correct {
		t.Correct++
	}
}

// Merge adds the counts of o to t: the tally of the questions of both (a
// system's seeds, say).
func (t *Tally) Merge(o Tally) {
	t.Attempted += o.Attempted
	t.Correct += o.Correct
	t.Failed += o.Failed
	t.Nondet += o.Nondet
	t.NondetCorrect += o.NondetCorrect
	for st, n := range o.Excluded {
		if t.Excluded == nil {
			t.Excluded = map[Status]int{}
		}
		t.Excluded[st] += n
	}
}

// EX is Correct / Attempted, NaN when nothing was attempted.
func (t Tally) EX() float64 {
	if t.Attempted == 0 {
		return math.NaN()
	}
	return float64(t.Correct) / float64(t.Attempted)
}

// ExcludedText lists the questions left out of the denominator, as
// "missing_db 62, gold_error 3", in GoldFailures order; "" when none.
func (t Tally) ExcludedText() string {
	return ExcludedText(t.Excluded)
}

// ExcludedText formats counts of questions whose gold does not run, by
// status, as Tally.ExcludedText does.
func ExcludedText(excluded map[Status]int) string {
	var parts []string
	for _, st := range GoldFailures {
		if n := excluded[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	return strings.Join(parts, ", ")
}
