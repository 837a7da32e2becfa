package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/datasets"
)

// Status is the outcome class of one scored question.
type Status string

// Verdict statuses. Only StatusOK verdicts can be correct.
const (
	StatusOK          Status = "ok"           // both queries ran and were compared
	StatusPredError   Status = "pred_error"   // the prediction failed (or held a value the mode cannot compare)
	StatusPredTimeout Status = "pred_timeout" // the prediction was interrupted by the timeout
	StatusGoldError   Status = "gold_error"   // the gold failed: counted wrong, never aborts the run
	StatusGoldTimeout Status = "gold_timeout" // the gold was interrupted by the timeout
	StatusMissingDB   Status = "missing_db"   // the example's database is not available
)

// Statuses lists every status in report order.
var Statuses = []Status{StatusOK, StatusPredError, StatusPredTimeout, StatusGoldError, StatusGoldTimeout, StatusMissingDB}

// Verdict is the EX judgement of one prediction: what Scorer.Score
// returns, what a run store keeps per item (runstore.Verdict is this type) and
// what eval writes. Difficulty is left out of the JSON when empty (a
// benchmark without difficulty levels), as run stores always kept it.
type Verdict struct {
	Index      int     `json:"index"`
	QuestionID string  `json:"question_id"`
	DBID       string  `json:"db_id"`
	Difficulty string  `json:"difficulty,omitempty"`
	Status     Status  `json:"status"`
	Correct    bool    `json:"correct"`
	PredMS     float64 `json:"pred_ms"`
	GoldMS     float64 `json:"gold_ms"`
	Error      string  `json:"error,omitempty"`
	// GoldFlags are the gold's flags (see AnalyzeGold): why its result may
	// change between executions. A gold with a nondeterministic flag was
	// executed beside this prediction, never answered from the cache.
	GoldFlags []string `json:"gold_flags,omitempty"`
	// SoftF1 is BIRD's Soft F1 of the prediction (SoftF1), set when the
	// scorer computes it (ScoreOptions.SoftF1): 0 for every status but
	// ok, as the official script scores failures.
	SoftF1 *float64 `json:"soft_f1,omitempty"`
	// Candidates judges the runner's stored candidates, in their order
	// (Scorer.ScoreCandidates), for pass@k and majority@k; empty when the
	// result holds none.
	Candidates []CandidateMark `json:"candidates,omitempty"`
	// RVES is BIRD's R-VES judgement (ScoreOptions.RVES): the reward and
	// the timing behind it, reward 0 for every prediction that is not
	// correct.
	RVES *RVESVerdict `json:"r_ves,omitempty"`
}

// ScoreOptions configures a Scorer.
type ScoreOptions struct {
	// Mode is the comparator; empty means the benchmark's Mode.
	Mode Mode
	// Quirks switches off official rewrites and quirks (zero: official).
	Quirks Quirks
	// Timeout, when positive, bounds each execution (gold and prediction
	// separately) on top of the engine's own timeout.
	Timeout time.Duration
	// TestSuite scores on every database variant of the benchmark's
	// engine (datasets.VariantEngine, the Spider test suite) instead of
	// the one Open returns; see Scorer.Score. Spider modes only.
	TestSuite bool
	// TieAware, beyond the official rules, accepts for a gold
	// "ORDER BY ... LIMIT k" whose boundary rows tie any prediction whose
	// rows are a valid top-k under the gold's ordering (see tieAwareGold).
	// Off (the default), every mode is exactly official.
	TieAware bool
	// SoftF1 also computes each prediction's Soft F1 (Verdict.SoftF1), as
	// BIRD mini-dev's official evaluation does. BIRD modes only.
	SoftF1 bool
	// RVES, when positive, times each correct prediction against its gold
	// that many times, interleaved on one connection, for BIRD's R-VES
	// (Verdict.RVES; RVESIterations is the official count). BIRD modes
	// only.
	RVES int
}

// Scorer scores predictions of one benchmark. It is safe for concurrent
// use. The databases it opens belong to the benchmark's Engine (closed by
// Engine.Close), so a Scorer needs no Close.
type Scorer struct {
	b     *datasets.Benchmark
	cache *GoldCache
	opt   ScoreOptions

	mu  sync.Mutex // guards dbs
	dbs map[string]*dbEntry

	amu      sync.Mutex              // guards analyses, apart from mu so that an open does not hold them up
	analyses map[string]GoldAnalysis // by database content, dialect and gold
}

type dbEntry struct {
	db  datasets.Database
	err error
	// done is closed once db and err are set (Scorer.open); canceled
	// marks an opening its ctx canceled, which is not kept.
	done     chan struct{}
	canceled bool
}

// NewScorer returns a scorer for b. cache may be nil (a memory-only cache
// is then used).
func NewScorer(b *datasets.Benchmark, cache *GoldCache, opt ScoreOptions) (*Scorer, error) {
	if b == nil {
		return nil, errors.New("metrics: NewScorer: nil benchmark")
	}
	if opt.Mode == "" {
		if b.Mode == "" {
			return nil, fmt.Errorf("metrics: benchmark %q has no default EX mode; set ScoreOptions.Mode", b.Name)
		}
		opt.Mode = Mode(b.Mode)
	}
	if _, err := ParseMode(string(opt.Mode)); err != nil {
		return nil, err
	}
	if err := checkTestSuite(b, opt); err != nil {
		return nil, err
	}
	if opt.SoftF1 {
		if err := checkBIRDMetric("soft-f1", opt.Mode); err != nil {
			return nil, err
		}
	}
	if opt.RVES < 0 {
		return nil, fmt.Errorf("metrics: R-VES repeats must be >= 0, got %d", opt.RVES)
	}
	if opt.RVES > 0 {
		if err := checkBIRDMetric("r-ves", opt.Mode); err != nil {
			return nil, err
		}
	}
	if cache == nil {
		c, err := NewGoldCache("")
		if err != nil {
			return nil, err
		}
		cache = c
	}
	return &Scorer{b: b, cache: cache, opt: opt, dbs: map[string]*dbEntry{}, analyses: map[string]GoldAnalysis{}}, nil
}

// Mode returns the comparator mode in use.
func (s *Scorer) Mode() Mode { return s.opt.Mode }

// GoldCache returns the cache the scorer reads gold results through.
func (s *Scorer) GoldCache() *GoldCache { return s.cache }

// open returns the database id, opened once per Scorer. s.mu is held only
// to look the id up: a database being opened makes the workers that need
// it wait (on its opening's done), not those that need another one.
func (s *Scorer) open(ctx context.Context, id string) (datasets.Database, error) {
	for {
		s.mu.Lock()
		e, ok := s.dbs[id]
		if !ok {
			e = &dbEntry{done: make(chan struct{})}
			s.dbs[id] = e
		}
		s.mu.Unlock()
		if ok {
			select {
			case <-e.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if e.canceled {
				continue // its opener was canceled: try again
			}
			return e.db, e.err
		}
		if s.b.Engine == nil {
			e.err = fmt.Errorf("no database engine for benchmark %q: %w", s.b.Name, datasets.ErrMissingDB)
		} else {
			e.db, e.err = s.b.Engine.Open(ctx, id)
		}
		if e.err != nil && ctx.Err() != nil {
			// Not kept: a later call may succeed.
			e.db, e.err, e.canceled = nil, ctx.Err(), true
			s.mu.Lock()
			delete(s.dbs, id)
			s.mu.Unlock()
		}
		close(e.done)
		return e.db, e.err
	}
}

func ms(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}

// Score judges predSQL against ex's gold. Every failure is data in the
// verdict; when ctx is canceled the verdict is a pred_error whose Error
// says so, and callers should check ctx.Err() before keeping it. With
// ScoreOptions.TestSuite the prediction is judged on every database
// variant (scoreSuite); otherwise on the one database Engine.Open returns.
// A prediction holding a NUL byte, or anything but white space and
// comments after its first statement's ';', is a pred_error in every mode
// (datasets.CheckPrediction; docs/FIDELITY.md says where the official
// scorers differ).
func (s *Scorer) Score(ctx context.Context, ex datasets.Example, predSQL string) Verdict {
	return s.score(ctx, ex, predSQL, "")
}

// ScoreInvalid judges a question whose prediction file holds no SQL string
// for it (Prediction.Invalid): the gold still runs, so a failing gold
// gives gold_error as for any prediction; otherwise the verdict is
// pred_error with reason as its error.
func (s *Scorer) ScoreInvalid(ctx context.Context, ex datasets.Example, reason string) Verdict {
	return s.score(ctx, ex, "", reason)
}

func (s *Scorer) score(ctx context.Context, ex datasets.Example, predSQL, invalid string) Verdict {
	v, _ := s.score1(ctx, ex, predSQL, invalid)
	return s.finish(ctx, ex, predSQL, v)
}

// finish adds to v, score1's verdict of predSQL, what the scorer's
// options ask beyond EX: soft F1's zero and the R-VES reward.
func (s *Scorer) finish(ctx context.Context, ex datasets.Example, predSQL string, v Verdict) Verdict {
	if s.opt.SoftF1 && v.SoftF1 == nil {
		var zero float64
		v.SoftF1 = &zero
	}
	if s.opt.RVES > 0 {
		v.RVES = s.rves(ctx, ex, predSQL, v)
	}
	return v
}

// rves is the R-VES verdict of a scored prediction: a correct one is timed
// against its gold (timeRVES), any other rewarded 0 (evaluation_ves.py
// l.57 and l.68-69: only a prediction whose result set equals the gold's
// is timed; l.98-103: a failure or timeout scores 0).
func (s *Scorer) rves(ctx context.Context, ex datasets.Example, predSQL string, v Verdict) *RVESVerdict {
	if v.Status != StatusOK || !v.Correct {
		return &RVESVerdict{}
	}
	db, err := s.open(ctx, ex.DBID)
	if err != nil {
		return &RVESVerdict{Error: err.Error()}
	}
	r := timeRVES(ctx, db, PreparePred(s.opt.Mode, s.opt.Quirks, predSQL), PrepareGold(s.opt.Mode, s.opt.Quirks, ex.GoldSQL), s.opt.RVES, s.opt.Timeout)
	return &r
}

// score1 is the EX verdict of predSQL and, when the verdict is ok, the
// prediction's result on the example's database (under the test suite,
// its first variant, <db>.sqlite); nil otherwise.
func (s *Scorer) score1(ctx context.Context, ex datasets.Example, predSQL, invalid string) (Verdict, *datasets.ResultSet) {
	if s.opt.TestSuite {
		return s.scoreSuite(ctx, ex, predSQL, invalid)
	}
	v := Verdict{Index: ex.Index, QuestionID: ex.ID, DBID: ex.DBID, Difficulty: ex.Difficulty}
	db, err := s.open(ctx, ex.DBID)
	if err != nil {
		openFailed(ctx, &v, err)
		return v, nil
	}
	gsql, ok := s.goldSQL(ex, &v)
	if !ok {
		return v, nil
	}
	g, an, ok := s.gold(ctx, db, gsql, &v)
	if !ok {
		return v, nil
	}
	psql, ok := s.predSQL(db.Dialect(), predSQL, invalid, &v)
	if !ok {
		return v, nil
	}
	rs := s.judge(ctx, db, gsql, psql, g, an, &v)
	return v, rs
}

// openFailed records a failure to open the example's database in v.
func openFailed(ctx context.Context, v *Verdict, err error) {
	if errors.Is(err, datasets.ErrMissingDB) {
		v.Status, v.Error = StatusMissingDB, err.Error()
		return
	}
	v.Status, v.Error = StatusPredError, "open database: "+err.Error()
	if ctx.Err() == nil {
		v.Status = StatusGoldError // the database itself is broken
	}
}

// goldSQL returns ex's gold prepared for the mode, or false with v set to
// gold_error when the example has no gold.
func (s *Scorer) goldSQL(ex datasets.Example, v *Verdict) (string, bool) {
	if strings.TrimSpace(ex.GoldSQL) == "" {
		v.Status, v.Error = StatusGoldError, "example has no gold SQL"
		return "", false
	}
	return PrepareGold(s.opt.Mode, s.opt.Quirks, ex.GoldSQL), true
}

// predSQL returns the prediction prepared for the mode, or false with v
// set to pred_error when it is empty or invalid (the file held no SQL
// string; invalid says why), or when the text the mode reads holds a NUL
// byte or anything but white space and comments after its first
// statement (datasets.CheckPrediction, in the dialect of the database it
// runs on). That check comes before the mode's rewrites, so that in the
// Spider modes, whose official evaluator keeps only the first statement,
// a second one is refused too.
func (s *Scorer) predSQL(dialect, predSQL, invalid string, v *Verdict) (string, bool) {
	if invalid != "" {
		v.Status, v.Error = StatusPredError, invalid
		return "", false
	}
	if err := datasets.CheckPrediction(dialect, predText(s.opt.Mode, s.opt.Mode.effective(s.opt.Quirks), predSQL)); err != nil {
		v.Status, v.Error = StatusPredError, err.Error()
		return "", false
	}
	psql := PreparePred(s.opt.Mode, s.opt.Quirks, predSQL)
	if strings.TrimSpace(psql) == "" {
		v.Status, v.Error = StatusPredError, "empty prediction"
		return "", false
	}
	return psql, true
}

// analyze returns AnalyzeGold's findings on gsql, computed once per
// (database content, gold) by this Scorer.
func (s *Scorer) analyze(ctx context.Context, db datasets.Database, gsql string) (GoldAnalysis, error) {
	// What goldKey hashes, unhashed: this map lives only as long as the
	// Scorer, so the key need not be short.
	id := "fp:" + db.Fingerprint()
	if id == "fp:" {
		id = "id:" + db.ID()
	}
	key := id + "\x00" + db.Dialect() + "\x00" + gsql
	s.amu.Lock()
	a, ok := s.analyses[key]
	s.amu.Unlock()
	if ok {
		return a, nil
	}
	a, err := AnalyzeGold(ctx, db, s.cache, gsql, s.opt.Timeout)
	if err != nil {
		return GoldAnalysis{}, err
	}
	s.amu.Lock()
	s.analyses[key] = a
	s.amu.Unlock()
	return a, nil
}

// gold returns the gold result on db, adding its time to v.GoldMS and its
// flags to v.GoldFlags, or false with v's status and error set when the
// gold failed, timed out, was truncated or ctx was canceled. A
// deterministic gold comes through the cache; a nondeterministic one
// (AnalyzeGold) is executed now, beside the prediction, as the official
// scorers execute every gold.
func (s *Scorer) gold(ctx context.Context, db datasets.Database, gsql string, v *Verdict) (*datasets.ResultSet, GoldAnalysis, bool) {
	an, err := s.analyze(ctx, db, gsql)
	if err != nil {
		v.Status, v.Error = StatusPredError, "canceled: "+err.Error()
		return nil, an, false
	}
	for _, f := range an.Flags {
		if !containsStr(v.GoldFlags, f) {
			v.GoldFlags = append(v.GoldFlags, f)
		}
	}
	var g GoldResult
	if an.Nondeterministic() {
		rs, st, msg, elapsed, err := execute(ctx, db, gsql, s.opt.Timeout)
		if err != nil {
			v.Status, v.Error = StatusPredError, "canceled: "+err.Error()
			return nil, an, false
		}
		g = GoldResult{Status: st, Result: rs, Err: msg, Elapsed: elapsed, Timeout: s.opt.Timeout}
	} else if g, err = s.cache.Get(ctx, db, gsql, s.opt.Timeout); err != nil {
		v.Status, v.Error = StatusPredError, "canceled: "+err.Error()
		return nil, an, false
	}
	if g.Unstable && !containsStr(v.GoldFlags, FlagUnstable) {
		// Two executions disagreed (GoldCache): the cache ran it afresh.
		v.GoldFlags = append(v.GoldFlags, FlagUnstable)
	}
	v.GoldMS += ms(g.Elapsed)
	switch g.Status {
	case ExecTimeout:
		v.Status, v.Error = StatusGoldTimeout, g.Err
		return nil, an, false
	case ExecFailed:
		v.Status, v.Error = StatusGoldError, g.Err
		return nil, an, false
	}
	if g.Result.Truncated {
		v.Status, v.Error = StatusGoldError, fmt.Sprintf("gold result truncated by the row cap (%d rows kept)", len(g.Result.Rows))
		return nil, an, false
	}
	return g.Result, an, true
}

// judge runs psql on db (executePred), adds its time to v.PredMS and compares its result
// with gold, setting v's status, correctness and error. It returns the
// prediction's result when v's status is ok, nil otherwise.
func (s *Scorer) judge(ctx context.Context, db datasets.Database, gsql, psql string, gold *datasets.ResultSet, an GoldAnalysis, v *Verdict) *datasets.ResultSet {
	m, q := s.opt.Mode, s.opt.Quirks
	v.Correct = false // a test-suite verdict may hold an earlier variant's
	rs, st, msg, elapsed, err := s.executePred(ctx, db, psql)
	v.PredMS += ms(elapsed)
	if err != nil {
		v.Status, v.Error = StatusPredError, "canceled: "+err.Error()
		return nil
	}
	switch st {
	case ExecTimeout:
		v.Status, v.Error = StatusPredTimeout, msg
		return nil
	case ExecFailed:
		v.Status, v.Error = StatusPredError, msg
		return nil
	}
	if rs.Truncated {
		v.Status, v.Error = StatusPredError, fmt.Sprintf("prediction result truncated by the row cap (%d rows kept)", len(rs.Rows))
		return nil
	}
	official := gold
	if s.opt.TieAware && an.Tie != nil && an.Tie.Tie {
		gold = tieAwareGold(m, an.Tie, gold.Columns, rs)
	}
	ok, err := CompareResults(m, q, gold, rs, OrderMatters(m, gsql))
	if err != nil {
		var ve *ValueError
		if errors.As(err, &ve) && ve.Side == SideGold {
			v.Status = StatusGoldError
		} else {
			v.Status = StatusPredError
		}
		v.Error = err.Error()
		return nil
	}
	v.Status, v.Correct = StatusOK, ok
	if s.opt.SoftF1 {
		// The official gold, not a tie-aware one: Soft F1 has no such
		// extension. Its values converted under the same policy as EX's,
		// so an error here was already EX's.
		if f, err := SoftF1(official, rs); err == nil {
			v.SoftF1 = &f
		}
	}
	return rs
}

// ScoreAll scores the examples whose index is a key of preds, workers at a
// time (workers <= 0 means 1), and returns their verdicts in benchmark
// order. progress, when not nil, is called after each verdict with the
// number done and the total; calls are serialised. ScoreAll returns an
// error only when ctx is canceled.
func (s *Scorer) ScoreAll(ctx context.Context, preds map[int]string, workers int, progress func(done, total int)) ([]Verdict, error) {
	return s.scoreAll(ctx, preds, nil, workers, progress)
}

// ScoreAligned is ScoreAll over a prediction file matched to the
// benchmark: the questions of a.Invalid (values that are not SQL strings)
// are scored with ScoreInvalid, the rest with Score.
func (s *Scorer) ScoreAligned(ctx context.Context, a Aligned, workers int, progress func(done, total int)) ([]Verdict, error) {
	return s.scoreAll(ctx, a.Preds, a.Invalid, workers, progress)
}

func (s *Scorer) scoreAll(ctx context.Context, preds map[int]string, invalid map[int]string, workers int, progress func(done, total int)) ([]Verdict, error) {
	// Positions in s.b.Examples, not copies: memory grows with the
	// questions, and a copy of each Example doubled it.
	var todo []int
	for i := range s.b.Examples {
		if _, ok := preds[s.b.Examples[i].Index]; ok {
			todo = append(todo, i)
		}
	}
	units := sameGoldUnits(s.b.Examples, todo)
	if workers <= 0 {
		workers = 1
	}
	out := make([]Verdict, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	done := 0
	var next atomic.Int64 // the next unit to score
	// workers goroutines that each take the next unit until none is left:
	// one goroutine per question would grow a fresh stack for every one
	// (the SQLite calls go deep).
	for range min(workers, len(units)) {
		g.Go(func() error {
			for {
				u := int(next.Add(1) - 1)
				if u >= len(units) {
					return nil
				}
				for _, i := range units[u] {
					if err := gctx.Err(); err != nil {
						return err
					}
					ex := &s.b.Examples[todo[i]]
					out[i] = s.score(gctx, *ex, preds[ex.Index], invalid[ex.Index])
					if err := gctx.Err(); err != nil {
						return err
					}
					if progress != nil {
						mu.Lock()
						done++
						progress(done, len(todo))
						mu.Unlock()
					}
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("metrics: scoring interrupted: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("metrics: scoring interrupted: %w", err)
	}
	return out, nil
}

// sameGoldUnits splits the positions of todo (indexes into exs) into the
// units scoreAll hands to one worker each: the questions that share a
// database and a gold SQL (paraphrases, often next to each other, as in
// Spider) form one unit, in the order of their first question. One worker
// then executes, analyses and caches their gold once and the others find
// it in the cache; split between two workers, the second sat idle waiting
// for the first one's execution (GoldCache.Get's in-flight wait): about
// a tenth of the workers' time on Spider dev (block profile of
// BenchmarkSpiderEvalVsBareLoop).
func sameGoldUnits(exs []datasets.Example, todo []int) [][]int {
	type key struct{ db, gold string }
	at := make(map[key]int, len(todo))
	units := make([][]int, 0, len(todo))
	for i, e := range todo {
		k := key{exs[e].DBID, exs[e].GoldSQL}
		if u, ok := at[k]; ok {
			units[u] = append(units[u], i)
			continue
		}
		at[k] = len(units)
		units = append(units, []int{i})
	}
	return units
}

// GoldPredictions returns every example's gold SQL as its prediction, for
// checking that gold-vs-gold scores 100% on every runnable question.
func GoldPredictions(b *datasets.Benchmark) map[int]string {
	p := make(map[int]string, len(b.Examples))
	for _, ex := range b.Examples {
		p[ex.Index] = ex.GoldSQL
	}
	return p
}

// EXGroup is the accuracy of a group of verdicts.
type EXGroup struct {
	// Total counts every verdict.
	Total int `json:"total"`
	// Runnable counts the verdicts whose gold runs (GoldRuns: Total minus
	// missing_db, gold_error and gold_timeout), EX's one denominator in
	// every command: EX = Correct / Runnable. The official BIRD and
	// LogicCat scripts divide by Total instead, counting a question whose
	// gold fails as wrong.
	Runnable int     `json:"runnable"`
	Correct  int     `json:"correct"`
	EX       float64 `json:"ex"`
	// SoftF1 is the mean Soft F1 (0 to 1) over the same Runnable
	// questions, present when the verdicts carry it (ScoreOptions.SoftF1).
	SoftF1 *float64 `json:"soft_f1,omitempty"`
	// RVES is R-VES over the same Runnable questions, present when the
	// verdicts carry it (ScoreOptions.RVES).
	RVES *RVESSummary `json:"r_ves,omitempty"`

	softSum float64
	softN   int
	rves    RVESSummary
}

// EXSummary is EX overall and by difficulty, with counts per status.
type EXSummary struct {
	Mode    Mode    `json:"mode"`
	Overall EXGroup `json:"overall"`
	// Difficulties lists the difficulty levels present, in the benchmark's
	// order (easy, medium, hard, extra; simple, moderate, challenging;
	// others alphabetically; "" last as "unknown").
	Difficulties []string           `json:"difficulties"`
	ByDifficulty map[string]EXGroup `json:"by_difficulty"`
	Status       map[Status]int     `json:"status"`
	// Unscored lists the question ids of the benchmark that had no
	// prediction (partial prediction files).
	Unscored []string `json:"unscored,omitempty"`
}

// SummarizeByCategory groups verdicts by the categories of their
// question (categories returns them; a question counts under each of its
// categories, as benchmarks' reasoning types do) and returns the
// categories sorted by name with EX and counts per category. A question
// without a category is left out.
func SummarizeByCategory(verdicts []Verdict, categories func(v Verdict) []string) (names []string, by map[string]EXGroup) {
	by = map[string]EXGroup{}
	for _, v := range verdicts {
		for _, c := range categories(v) {
			g := by[c]
			g.add(v)
			by[c] = g
		}
	}
	for c, g := range by {
		g.finish()
		by[c] = g
		names = append(names, c)
	}
	sort.Strings(names)
	return names, by
}

var difficultyOrder = []string{"easy", "medium", "hard", "extra", "simple", "moderate", "challenging"}

func (g *EXGroup) add(v Verdict) {
	g.Total++
	if !GoldRuns(v.Status) {
		return
	}
	g.Runnable++
	if v.Correct {
		g.Correct++
	}
	if v.SoftF1 != nil {
		g.softSum += *v.SoftF1
		g.softN++
	}
	if v.RVES != nil {
		g.rves.add(v.RVES)
	}
}

func (g *EXGroup) finish() {
	if g.Runnable > 0 {
		g.EX = float64(g.Correct) / float64(g.Runnable)
	}
	if g.softN > 0 && g.softN == g.Runnable {
		f := g.softSum / float64(g.softN)
		g.SoftF1 = &f
	}
	if g.rves.n > 0 && g.rves.n == g.Runnable {
		r := g.rves
		r.finish()
		g.RVES = &r
	}
}

// SummarizeEX summarises verdicts scored under mode m; unscored lists the
// questions left without a prediction.
func SummarizeEX(m Mode, verdicts []Verdict, unscored []string) EXSummary {
	s := EXSummary{Mode: m, Status: map[Status]int{}, Unscored: unscored}
	for _, st := range Statuses {
		s.Status[st] = 0
	}
	for _, v := range verdicts {
		s.Overall.add(v)
		s.Status[v.Status]++
	}
	s.Overall.finish()
	s.Difficulties, s.ByDifficulty = SummarizeByCategory(verdicts, func(v Verdict) []string {
		if v.Difficulty == "" {
			return []string{"unknown"}
		}
		return []string{v.Difficulty}
	})
	rank := func(d string) int {
		for i, x := range difficultyOrder {
			if x == d {
				return i
			}
		}
		if d == "unknown" {
			return len(difficultyOrder) + 1
		}
		return len(difficultyOrder)
	}
	sort.Slice(s.Difficulties, func(i, j int) bool {
		a, b := s.Difficulties[i], s.Difficulties[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a < b
	})
	return s
}
