package metrics

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/datasets"
)

// GoldCheck is the health of one gold query (CheckGolds).
type GoldCheck struct {
	Index      int    `json:"index"`
	QuestionID string `json:"question_id"`
	DBID       string `json:"db_id"`
	// Status is StatusOK, StatusGoldError, StatusGoldTimeout or
	// StatusMissingDB.
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	Rows   int    `json:"rows"`
	// Empty: the gold returns no row; AllNull: every value it returns is
	// NULL; Truncated: the row cap cut its result.
	Empty     bool `json:"empty,omitempty"`
	AllNull   bool `json:"all_null,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// Flags are AnalyzeGold's flags, plus FlagGroupPick and FlagUnstable.
	Flags []string `json:"flags,omitempty"`
	// Unchecked lists LIMIT clauses that could not be probed.
	Unchecked []string `json:"unchecked,omitempty"`
	// DuplicateOf is the id of an earlier question with the same database
	// and question text; SameGoldAsDuplicate says whether the golds agree.
	DuplicateOf         string `json:"duplicate_of,omitempty"`
	SameGoldAsDuplicate bool   `json:"same_gold_as_duplicate,omitempty"`
	// ChangedSince names the earlier version whose gold SQL differs.
	ChangedSince string `json:"changed_since,omitempty"`
}

// Nondeterministic reports whether the gold has a nondeterministic flag.
func (c GoldCheck) Nondeterministic() bool { return Nondeterministic(c.Flags) }

// GoldCheckOptions configures CheckGolds.
type GoldCheckOptions struct {
	// Mode decides the gold rewrites and when two executions agree
	// (empty: the benchmark's).
	Mode    Mode
	Timeout time.Duration
	Workers int
	// Progress, when set, is called after each question (serialised).
	Progress func(done, total int)
}

// CheckGolds runs every gold of b and reports its health: whether it runs
// (error, timeout, missing database), an empty or all-NULL result, and the
// reasons it may be nondeterministic: AnalyzeGold's static and LIMIT
// flags; FlagGroupPick where the database is a datasets.GroupByChecker
// (MySQL/MariaDB); and FlagUnstable when a second execution's result
// differs from the first under the mode's comparator. Golds run directly,
// never from a cache; the LIMIT probes share one in-memory cache. It
// returns an error only when ctx is canceled.
func CheckGolds(ctx context.Context, b *datasets.Benchmark, opt GoldCheckOptions) ([]GoldCheck, error) {
	m := opt.Mode
	if m == "" {
		m = Mode(b.Mode)
	}
	if _, err := ParseMode(string(m)); err != nil {
		return nil, err
	}
	cache, err := NewGoldCache("")
	if err != nil {
		return nil, err
	}
	workers := max(opt.Workers, 1)
	out := make([]GoldCheck, len(b.Examples))
	var (
		mu    sync.Mutex
		dbs   = map[string]dbEntry{}
		done  int
		group errgroup.Group
	)
	open := func(id string) (datasets.Database, error) {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := dbs[id]; ok {
			return e.db, e.err
		}
		if b.Engine == nil {
			return nil, fmt.Errorf("no database engine for %s: %w", b.Name, datasets.ErrMissingDB)
		}
		db, err := b.Engine.Open(ctx, id)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dbs[id] = dbEntry{db: db, err: err}
		return db, err
	}
	group.SetLimit(workers)
	for i, ex := range b.Examples {
		if ctx.Err() != nil {
			break
		}
		group.Go(func() error {
			c, err := checkGold(ctx, m, opt.Timeout, cache, open, ex)
			if err != nil {
				return err
			}
			out[i] = c
			if opt.Progress != nil {
				mu.Lock()
				done++
				opt.Progress(done, len(b.Examples))
				mu.Unlock()
			}
			return nil
		})
	}
	if err := group.Wait(); err != nil {
		return nil, fmt.Errorf("metrics: gold check interrupted: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("metrics: gold check interrupted: %w", err)
	}
	byID := map[string]int{}
	for i, c := range out {
		byID[c.QuestionID] = i
	}
	for _, d := range datasets.DuplicateQuestions(b) {
		if i, ok := byID[d.ID]; ok {
			out[i].DuplicateOf, out[i].SameGoldAsDuplicate = d.FirstID, d.SameGold
		}
	}
	return out, nil
}

func checkGold(ctx context.Context, m Mode, timeout time.Duration, cache *GoldCache, open func(string) (datasets.Database, error), ex datasets.Example) (GoldCheck, error) {
	c := GoldCheck{Index: ex.Index, QuestionID: ex.ID, DBID: ex.DBID}
	db, err := open(ex.DBID)
	if err != nil {
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
		var v Verdict
		openFailed(ctx, &v, err)
		c.Status, c.Error = v.Status, v.Error
		return c, nil
	}
	gsql := PrepareGold(m, Quirks{}, ex.GoldSQL)
	c.Flags = append(StaticFlags(gsql), RowOrderFlags(gsql)...)
	run := func() (*datasets.ResultSet, bool, error) {
		rs, st, msg, _, err := execute(ctx, db, gsql, timeout)
		if err != nil {
			return nil, false, err
		}
		switch st {
		case ExecTimeout:
			c.Status, c.Error = StatusGoldTimeout, msg
			return nil, false, nil
		case ExecFailed:
			c.Status, c.Error = StatusGoldError, msg
			return nil, false, nil
		}
		return rs, true, nil
	}
	first, ok, err := run()
	if err != nil || !ok {
		return c, err
	}
	c.Status, c.Rows, c.Truncated = StatusOK, len(first.Rows), first.Truncated
	c.Empty = len(first.Rows) == 0
	c.AllNull = !c.Empty
	for _, row := range first.Rows {
		for _, v := range row {
			if v != nil {
				c.AllNull = false
			}
		}
	}
	an, err := AnalyzeGold(ctx, db, cache, gsql, timeout)
	if err != nil {
		return c, err
	}
	c.Flags, c.Unchecked = an.Flags, an.Unchecked
	if g, ok := db.(datasets.GroupByChecker); ok {
		picks, err := g.PicksFromGroup(ctx, gsql)
		switch {
		case ctx.Err() != nil:
			return c, ctx.Err()
		case err != nil:
			c.Unchecked = append(c.Unchecked, err.Error())
		case picks:
			c.Flags = append(c.Flags, FlagGroupPick)
		}
	}
	second, ok, err := run()
	if err != nil {
		return c, err
	}
	if !ok {
		c.Flags = append(c.Flags, FlagUnstable)
		c.Status, c.Error = StatusOK, "" // the first run succeeded; the second's failure is the instability
		c.Unchecked = append(c.Unchecked, "second execution failed")
		return c, nil
	}
	same, err := CompareResults(m, Quirks{}, first, second, OrderMatters(m, gsql))
	var ve *ValueError
	if err != nil && !errors.As(err, &ve) {
		return c, err
	}
	if err == nil && !same {
		c.Flags = append(c.Flags, FlagUnstable)
	}
	return c, nil
}

// GoldTotals sums CheckGolds' findings.
type GoldTotals struct {
	Questions   int `json:"questions"`
	Runnable    int `json:"runnable"`
	GoldError   int `json:"gold_error"`
	GoldTimeout int `json:"gold_timeout"`
	MissingDB   int `json:"missing_db"`
	Empty       int `json:"empty"`
	AllNull     int `json:"all_null"`
	Truncated   int `json:"truncated"`
	// Nondeterministic counts the runnable golds with a nondeterministic
	// flag (what the scorer runs beside each prediction, plus unstable
	// ones); ByFlag counts each flag of runnable golds (static flags by
	// function).
	Nondeterministic int            `json:"nondeterministic"`
	ByFlag           map[string]int `json:"by_flag"`
	// GroupPick counts runnable golds MariaDB's ONLY_FULL_GROUP_BY refuses.
	GroupPick int `json:"group_pick"`
	// Unchecked counts golds with a LIMIT that could not be probed.
	Unchecked int `json:"unchecked"`
	// Duplicates counts questions repeating an earlier one (same db and
	// text); DuplicatesDiffGold those whose gold differs from it.
	Duplicates         int `json:"duplicates"`
	DuplicatesDiffGold int `json:"duplicates_different_gold"`
	// GoldChanged counts questions whose gold differs from the previous
	// version's.
	GoldChanged int `json:"gold_changed"`
}

// SumGoldChecks totals checks.
func SumGoldChecks(checks []GoldCheck) GoldTotals {
	t := GoldTotals{ByFlag: map[string]int{}}
	for _, c := range checks {
		t.Questions++
		switch c.Status {
		case StatusOK:
			t.Runnable++
		case StatusGoldError:
			t.GoldError++
		case StatusGoldTimeout:
			t.GoldTimeout++
		case StatusMissingDB:
			t.MissingDB++
		}
		if c.Empty {
			t.Empty++
		}
		if c.AllNull {
			t.AllNull++
		}
		if c.Truncated {
			t.Truncated++
		}
		if c.Status == StatusOK && c.Nondeterministic() {
			t.Nondeterministic++
		}
		for _, f := range c.Flags {
			if c.Status != StatusOK {
				continue
			}
			t.ByFlag[f]++
			if f == FlagGroupPick {
				t.GroupPick++
			}
		}
		if len(c.Unchecked) > 0 {
			t.Unchecked++
		}
		if c.DuplicateOf != "" {
			t.Duplicates++
			if !c.SameGoldAsDuplicate {
				t.DuplicatesDiffGold++
			}
		}
		if c.ChangedSince != "" {
			t.GoldChanged++
		}
	}
	return t
}

// SortedFlags returns the keys of t.ByFlag, sorted.
func (t GoldTotals) SortedFlags() []string {
	keys := make([]string, 0, len(t.ByFlag))
	for k := range t.ByFlag {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
