package reports

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// QuestionLabels are the labels of one benchmark question that breakdowns
// group by.
type QuestionLabels struct {
	Difficulty     string
	ReasoningTypes []string
}

// LabelSource returns the labels of a benchmark's questions by question
// id. The CLI wires it to datasets.Open; when it is nil or fails, the
// difficulty recorded in each verdict is used and reasoning-type
// breakdowns are left out (with a warning).
type LabelSource func(b spec.BenchmarkSpec) (map[string]QuestionLabels, error)

// Options configure Build.
type Options struct {
	// Baseline is the label of the system pairwise tests compare against
	// (default: the first system of each benchmark).
	Baseline string
	// Seed seeds every bootstrap (default 1).
	Seed uint64
	// Resamples is the number of bootstrap resamples
	// (default stats.DefaultResamples).
	Resamples int
	// Level is the confidence level of intervals; significance is judged
	// at alpha = 1 - Level (default stats.DefaultLevel).
	Level float64
	// Prices are USD per million tokens by model name; without a price a
	// role's cost is shown as "-".
	Prices map[string]metrics.Price
	// Labels supplies difficulty and reasoning types; may be nil.
	Labels LabelSource
	// PaperDefaults are each runner's default parameter values (runner ->
	// parameter -> value): sweeps mark the default with a line, simplex
	// grids box the default point and test every other point against it,
	// and a benchmark whose first system is a sweep or grid point takes
	// the default point as the pairwise baseline. May be nil.
	PaperDefaults map[string]map[string]float64
	// Commit is the commit of the code that builds the report (the CLI
	// reads it from its build info); "" is shown as unknown.
	Commit string
}

func (o Options) withDefaults() (Options, error) {
	if o.Seed == 0 {
		o.Seed = stats.DefaultSeed
	}
	if o.Resamples == 0 {
		o.Resamples = stats.DefaultResamples
	}
	if o.Level == 0 {
		o.Level = stats.DefaultLevel
	}
	if o.Resamples < 2 {
		return o, fmt.Errorf("reports: resamples is %d, want at least 2", o.Resamples)
	}
	if !(o.Level > 0 && o.Level < 1) {
		return o, fmt.Errorf("reports: level is %v, want a value in (0, 1)", o.Level)
	}
	return o, nil
}

// system is one configuration of one run (runstore.System): the trials that
// differ only in their seed, which are replicates. With one seed it is
// one trial.
type system struct {
	// name is the trials' label without the seed (runstore.SystemLabel),
	// prefixed by its run's name when two runs share a label.
	name string
	// row is name without the benchmark: the main table's row.
	row string
	// config is name without the varying backbones, benchmark and seed:
	// the entry's name, its variant (spec.Identity.Variant) and the
	// bindings of backbone roles that do not vary.
	config string
	// head is the entry's name (spec.Identity.Name), variant its ablation
	// ("" for the full configuration and for sweep and grid points).
	head, variant string
	// backbone names the varying role bindings of the entry ("reason=local")
	// or the reason model when none vary.
	backbone string
	// entry identifies the runner entry (run index and entry index).
	entry string
	// run is the index of the system's run among those given to Build.
	run   int
	bench string
	// trial is the system's first trial: the configuration its seeds
	// share (runner, parameters, roles, models).
	trial *runstore.RunTrial
	// seeds are the system's trials, one per seed, in plan order.
	seeds []seedRun
	// agg is what the report shows of the done items of every seed: done
	// and failed items whose gold runs (runstore.TrialOutcomes), EX's one
	// denominator, with a verdict (itemAgg; agg.all counts them and the
	// correct ones), accumulated seed after seed, each in question order.
	agg *itemAgg
	// outcomes are the seeds' outcome maps (runstore.TrialOutcomes), which
	// comparisons pair.
	outcomes stats.Replicates
	// tally counts the attempted, correct and failed questions and the
	// excluded ones (gold does not run) over all seeds; pending the
	// unfinished items.
	tally   metrics.Tally
	pending int
	labels  map[string]QuestionLabels
	// acc is EX over the seeds: their mean, standard deviation and
	// interval (accuracyOf).
	acc stats.SeedAccuracy
}

// seedRun is one seed's trial of a system.
type seedRun struct {
	seed  int64
	trial *runstore.RunTrial
	// correct maps the question ids of the seed's done items to their
	// outcome (correct and not failed).
	correct map[string]bool
	tally   metrics.Tally
	pending int
}

// ex returns the system's EX, the mean over seeds of each seed's EX over
// its attempted items (with one seed: correct / attempted), and the counts
// over all seeds; NaN when nothing was attempted.
func (s *system) ex() (acc float64, correct, n int) {
	if s.done() == 0 {
		return math.NaN(), 0, 0
	}
	return s.acc.Mean, s.agg.all.k, s.agg.all.n
}

// done is the number of the system's done items over all seeds (itemAgg's
// all.n): EX's denominator.
func (s *system) done() int { return s.agg.all.n }

// multiSeed reports whether the system has more than one seed.
func (s *system) multiSeed() bool { return len(s.seeds) > 1 }

// accuracyOf computes a system's EX over its seeds from its done items:
// with one seed correct / attempted with the Wilson interval (the
// interval every single-seed table shows); with several the mean over
// seeds of each seed's EX, their standard deviation and the cluster
// bootstrap interval over questions (stats.AccuracyOverSeeds, drawn from
// stats.SystemRand(Options.Seed, name)). opt has its defaults
// (Options.withDefaults).
func accuracyOf(s *system, opt Options) (stats.SeedAccuracy, error) {
	r := stats.Replicates{}
	for _, sr := range s.seeds {
		if len(sr.correct) > 0 {
			r[sr.seed] = sr.correct
		}
	}
	if len(r) == 0 {
		return stats.SeedAccuracy{Mean: math.NaN(), SD: math.NaN()}, nil
	}
	if len(s.seeds) == 1 {
		var a stats.SeedAcc
		for _, m := range r {
			for _, ok := range m {
				a.N++
				if ok {
					a.Correct++
				}
			}
		}
		a.Seed, a.Acc = s.seeds[0].seed, float64(a.Correct)/float64(a.N)
		iv, err := stats.Wilson(a.Correct, a.N, opt.Level)
		return stats.SeedAccuracy{PerSeed: []stats.SeedAcc{a}, Mean: a.Acc, SD: math.NaN(), N: a.N, CI: iv}, err
	}
	return stats.AccuracyOverSeeds(r, stats.BootstrapOptions{Resamples: opt.Resamples, Level: opt.Level, Rand: stats.SystemRand(opt.Seed, s.name)})
}

func (s *system) difficulty(id string, it *runstore.Item) string {
	if l, ok := s.labels[id]; ok && l.Difficulty != "" {
		return l.Difficulty
	}
	if it != nil && it.Verdict != nil {
		return it.Verdict.Difficulty
	}
	return ""
}

// corpus is every system of the runs given to Build.
type corpus struct {
	title     string
	simulated bool
	// note is runstore.TitleNote of the runs, ending every title and caption.
	note     string
	systems  []*system
	benches  []string
	warnings []string
	hasTypes map[string]bool // benchmark -> some question has reasoning types
	// runNames name the runs, in the order given (the title's parts).
	runNames []string
	// styles are the systems' colours and markers (reportStyles), by name.
	styles map[string]sysStyle
	// spans are, per run, the first start and the last end of its items
	// (runDates); items count each trial's stored items (trialQuestions).
	spans []span
	items map[*runstore.RunTrial]int
	// ids interns question ids, which the seeds' outcome maps share.
	ids map[string]string
}

// span is when a run's items ran: the first start and the last end (start
// plus wall time); zero when no item records its start.
type span struct{ first, last time.Time }

// addTrial reads the items of trial t, seed seed of system s, of run r
// (the run's index ri), one at a time (runstore.RunData.EachItem): its
// outcomes, and its done items into s's counts and aggregates.
func (c *corpus) addTrial(s *system, r *runstore.RunData, ri int, t *runstore.RunTrial, seed int64) error {
	oa := runstore.NewOutcomeAcc(false)
	sr := seedRun{seed: seed, trial: t}
	first := len(s.seeds) == 0
	var noVerdict []string
	sp := &c.spans[ri]
	err := r.EachItem(t, func(it *runstore.Item) error {
		c.items[t]++
		if !it.Started.IsZero() {
			end := it.Started.Add(time.Duration(it.WallMS * float64(time.Millisecond)))
			if sp.first.IsZero() || it.Started.Before(sp.first) {
				sp.first = it.Started
			}
			if end.After(sp.last) {
				sp.last = end
			}
		}
		id, ok := c.ids[it.QuestionID]
		if !ok {
			id = strings.Clone(it.QuestionID)
			c.ids[id] = id
		}
		it.QuestionID = id
		if !oa.Add(it) {
			return nil
		}
		if it.Verdict == nil {
			noVerdict = append(noVerdict, id)
			return nil
		}
		s.agg.add(s, it, first)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	o := oa.Outcomes(r.Totals[t.ID])
	sr.tally, sr.pending, sr.correct = o.Tally, o.Pending, o.Correct
	if len(noVerdict) > 0 {
		// A question without a verdict is paired but is no done item.
		sr.correct = maps.Clone(o.Correct)
		for _, id := range noVerdict {
			delete(sr.correct, id)
		}
	}
	s.outcomes[sr.seed] = o.Correct
	s.pending += o.Pending
	s.tally.Merge(o.Tally)
	s.seeds = append(s.seeds, sr)
	return nil
}

// load reads the runs into a corpus: one system per configuration of
// each run (runstore.Systems), in run and plan order, each read one trial's
// items at a time (addTrial).
func load(runs []*runstore.RunData, opt Options) (*corpus, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("reports: no runs")
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &corpus{hasTypes: map[string]bool{}, spans: make([]span, len(runs)), items: map[*runstore.RunTrial]int{}, ids: map[string]string{}}
	labelCount := c.nameRuns(runs)
	labels := newLabelCache(opt.Labels)
	for ri, r := range runs {
		runstore.DeriveIdentities(r.Trials)
		varying := varyingRoles(r.Trials)
		for _, sys := range runstore.Systems(r.Trials) {
			s := newSystem(r, ri, sys, c.runNames, varying, labelCount)
			// The labels are read before the items, whose difficulty they
			// give; their warning follows those of EX, as it always has.
			var labelWarn string
			s.labels, labelWarn = labels.labelsFor(s.trial.Benchmark, s.bench)
			if err := c.readSystem(s, r, ri, sys, opt); err != nil {
				return nil, err
			}
			for _, w := range s.acc.Warnings {
				c.warnings = append(c.warnings, s.name+": "+w)
			}
			if labelWarn != "" {
				c.warnings = append(c.warnings, labelWarn)
			}
			c.addSystem(s)
		}
	}
	var order []string
	for _, s := range c.systems {
		order = append(order, s.name)
	}
	c.styles = reportStyles(order)
	return c, nil
}

// nameRuns names the runs (a run's name, with its directory when two runs
// share the name) and sets the corpus's title, run names, note and
// whether some run is simulated. It returns how many trials of all the
// runs have each label.
func (c *corpus) nameRuns(runs []*runstore.RunData) (labelCount map[string]int) {
	nameCount := map[string]int{}
	for _, r := range runs {
		nameCount[r.Name()]++
	}
	labelCount = map[string]int{}
	for _, r := range runs {
		n := r.Name()
		if nameCount[n] > 1 {
			n += " (" + r.Dir + ")"
		}
		c.runNames = append(c.runNames, n)
		c.simulated = c.simulated || r.Simulated
		for _, t := range r.Trials {
			labelCount[t.Label]++
		}
	}
	c.title = strings.Join(c.runNames, " + ")
	c.note = runstore.TitleNote(runs...)
	return labelCount
}

// varyingRoles returns, per runner entry of trials, the roles whose model
// varies within the entry: its backbones.
func varyingRoles(trials []runstore.RunTrial) map[int]map[string]bool {
	varying := map[int]map[string]bool{}
	seen := map[int]map[string]string{}
	for _, t := range trials {
		if seen[t.Entry] == nil {
			seen[t.Entry], varying[t.Entry] = map[string]string{}, map[string]bool{}
		}
		for role, m := range t.Roles {
			if prev, ok := seen[t.Entry][role]; ok && prev != m {
				varying[t.Entry][role] = true
			}
			seen[t.Entry][role] = m
		}
	}
	return varying
}

// newSystem names system sys of run r (the run's index ri) before its
// items are read: its name (prefixed by the run's name, names[ri], when
// a label is shared by several runs' trials, labelCount), row, config,
// head, variant and backbone. varying are the roles that vary within each
// entry of the run (varyingRoles).
func newSystem(r *runstore.RunData, ri int, sys runstore.System, names []string, varying map[int]map[string]bool, labelCount map[string]int) *system {
	t := &r.Trials[sys.Trials[0]]
	s := &system{trial: t, bench: sys.Benchmark, entry: fmt.Sprintf("%d/%d", ri, t.Entry), run: ri, outcomes: stats.Replicates{}}
	s.name = sys.Label
	if labelCount[t.Label] > 1 && len(names) > 1 {
		s.name = names[ri] + ": " + sys.Label
	}
	s.backbone = backboneOf(t, varying[t.Entry])
	s.head, s.variant = t.Identity.Name, t.Identity.Ablation
	row := *t.Identity
	row.Bench, row.Seed = false, false
	cfg := append([]string{t.Identity.Name}, t.Identity.Variant()...)
	for _, b := range t.Identity.Backbone {
		if !varying[t.Entry][b.Key] {
			cfg = append(cfg, b.String())
		}
	}
	s.row, s.config = row.Label(t.Benchmark.Name, t.Seed), strings.Join(cfg, " ")
	if s.name != sys.Label {
		s.row, s.config = names[ri]+": "+s.row, names[ri]+": "+s.config
	}
	return s
}

// backboneOf names the backbone of trial t: the bindings of the roles
// that vary within its entry ("reason=local"), else its reason model,
// else the models of all its roles, sorted and joined by "+".
func backboneOf(t *runstore.RunTrial, varying map[string]bool) string {
	var bb []string
	for _, role := range slices.Sorted(maps.Keys(varying)) {
		bb = append(bb, role+"="+trialModel(t, role))
	}
	if len(bb) > 0 {
		return strings.Join(bb, " ")
	}
	if m := trialModel(t, runners.RoleReason); m != "" {
		return m
	}
	var all []string
	for role := range t.Roles {
		all = append(all, trialModel(t, role))
	}
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(all))), "+")
}

// labelCache reads each benchmark's question labels from a LabelSource
// once, and remembers the benchmarks whose labels failed to read.
type labelCache struct {
	src    LabelSource
	got    map[string]map[string]QuestionLabels
	failed map[string]bool
}

func newLabelCache(src LabelSource) *labelCache {
	return &labelCache{src: src, got: map[string]map[string]QuestionLabels{}, failed: map[string]bool{}}
}

// labelsFor returns the labels of benchmark b (named name in the report)
// and, the first time they fail to read, a warning; nil labels without a
// source or when they failed.
func (lc *labelCache) labelsFor(b spec.BenchmarkSpec, name string) (map[string]QuestionLabels, string) {
	if lc.src == nil {
		return nil, ""
	}
	k, _ := json.Marshal(b)
	key := string(k)
	if l, ok := lc.got[key]; ok {
		return l, ""
	}
	if lc.failed[key] {
		return nil, ""
	}
	l, err := lc.src(b)
	if err != nil {
		lc.failed[key] = true
		return nil, fmt.Sprintf("labels of benchmark %s unavailable (%v); difficulty comes from the verdicts and reasoning types are left out", name, err)
	}
	lc.got[key] = l
	return l, ""
}

// readSystem reads the trials of system sys of run r (the run's index ri)
// into s, seed after seed (addTrial), and computes its EX (accuracyOf).
func (c *corpus) readSystem(s *system, r *runstore.RunData, ri int, sys runstore.System, opt Options) error {
	s.agg = newItemAgg()
	for k, ti := range sys.Trials {
		if err := c.addTrial(s, r, ri, &r.Trials[ti], sys.Seeds[k]); err != nil {
			return err
		}
	}
	s.agg.finish()
	if len(sys.Trials) == 1 {
		s.tally = s.seeds[0].tally
	}
	var err error
	if s.acc, err = accuracyOf(s, opt); err != nil {
		return fmt.Errorf("reports: EX of %s: %w", s.name, err)
	}
	return nil
}

// addSystem adds a read system to the corpus, with its benchmark.
func (c *corpus) addSystem(s *system) {
	for _, l := range s.labels {
		if len(l.ReasoningTypes) > 0 {
			c.hasTypes[s.bench] = true
			break
		}
	}
	if !slices.Contains(c.benches, s.bench) {
		c.benches = append(c.benches, s.bench)
	}
	c.systems = append(c.systems, s)
}

// caption appends runstore.TitleNote of the runs: "(simulated model)" for sim
// runs, and the profiles the runs ran through: "(simulated model, quick
// profile: n_rollout 4 (was 32), limit 12)".
func (c *corpus) caption(s string) string {
	return s + c.note
}

func (c *corpus) onBench(b string) []*system {
	var out []*system
	for _, s := range c.systems {
		if s.bench == b && s.done() > 0 {
			out = append(out, s)
		}
	}
	return out
}

// difficultyOrder lists the difficulty levels of the benchmarks in their
// official order (BIRD: simple, moderate, challenging; Spider: easy,
// medium, hard, extra); other levels follow sorted.
var difficultyOrder = []string{"simple", "moderate", "challenging", "easy", "medium", "hard", "extra"}

// trialModel names the model a trial binds to role as its label does: the
// label's backbone setting for the role, else spec.ModelLabel of the
// bound model ("" when the role is unbound).
func trialModel(t *runstore.RunTrial, role string) string {
	if t.Identity != nil {
		for _, b := range t.Identity.Backbone {
			if b.Key == role {
				return b.Value
			}
		}
	}
	name := t.Roles[role]
	if name == "" {
		return ""
	}
	return spec.ModelLabel(name, t.Models[name])
}
