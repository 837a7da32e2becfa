package metrics

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/t2sbench/t2sbench/datasets"
)

// SupportsTestSuite reports whether test-suite scoring
// (ScoreOptions.TestSuite) applies to mode m: the Spider modes, whose
// official evaluator defines it.
func (m Mode) SupportsTestSuite() bool { return m.spiderFamily() }

// checkTestSuite validates ScoreOptions.TestSuite against the mode and the
// benchmark's engine (opt.Mode already resolved).
func checkTestSuite(b *datasets.Benchmark, opt ScoreOptions) error {
	if !opt.TestSuite {
		return nil
	}
	if !opt.Mode.SupportsTestSuite() {
		return fmt.Errorf("metrics: test-suite scoring is defined for the spider modes only, not %q", opt.Mode)
	}
	if b.Engine == nil {
		return nil // every example scores missing_db
	}
	if _, ok := b.Engine.(datasets.VariantEngine); !ok {
		return fmt.Errorf("metrics: benchmark %q: its database engine has no test-suite variants (datasets.VariantEngine)", b.Name)
	}
	return nil
}

// variants returns the database variants of id, primary first.
func (s *Scorer) variants(ctx context.Context, id string) ([]datasets.Database, error) {
	if s.b.Engine == nil {
		return nil, fmt.Errorf("no database engine for benchmark %q: %w", s.b.Name, datasets.ErrMissingDB)
	}
	ve, ok := s.b.Engine.(datasets.VariantEngine)
	if !ok {
		return nil, fmt.Errorf("benchmark %q: engine has no test-suite variants", s.b.Name)
	}
	dbs, err := ve.Variants(ctx, id)
	if err == nil && len(dbs) == 0 {
		err = fmt.Errorf("database %q: no test-suite variants", id)
	}
	return dbs, err
}

// scoreSuite is Score under ScoreOptions.TestSuite, the Spider test-suite
// rule of taoyds/test-suite-sql-eval@e97acc5 exec_eval.py eval_exec_match
// (l.184-245): the prediction is correct only if, on every database file
// of the example's directory, its result equals the gold's under the
// mode's comparator; the official loop returns 0 at the first file where
// the prediction raises or differs. Here:
//
//   - the variants come from datasets.VariantEngine, <db>.sqlite first and
//     the rest sorted by name (the verdict does not depend on the order);
//   - the gold runs on every variant first (through the gold cache, keyed by
//     each file's fingerprint); a gold failure on any of them makes the
//     verdict gold_error (gold_timeout for a timeout), whatever the
//     prediction, so the runnable set is the same for every system (the
//     official code aborts the whole run with an assertion instead);
//   - the prediction then runs variant by variant and the first variant
//     where it fails (pred_error, pred_timeout) or differs (ok, wrong)
//     decides; later variants are not run;
//   - pred_ms and gold_ms sum over the variants executed;
//   - with more than one variant, Error names the deciding file ("on
//     test-suite database b.sqlite (2 of 3): ...").
//
// With a single file per database (the original Spider release) the
// verdict equals plain Score's.
func (s *Scorer) scoreSuite(ctx context.Context, ex datasets.Example, predSQL, invalid string) (Verdict, *datasets.ResultSet) {
	v := Verdict{Index: ex.Index, QuestionID: ex.ID, DBID: ex.DBID, Difficulty: ex.Difficulty}
	dbs, err := s.variants(ctx, ex.DBID)
	if err != nil {
		openFailed(ctx, &v, err)
		return v, nil
	}
	gsql, ok := s.goldSQL(ex, &v)
	if !ok {
		return v, nil
	}
	golds := make([]*datasets.ResultSet, len(dbs))
	ans := make([]GoldAnalysis, len(dbs))
	for i, db := range dbs {
		g, an, ok := s.gold(ctx, db, gsql, &v)
		if !ok {
			s.nameVariant(ctx, &v, dbs, i)
			return v, nil
		}
		golds[i], ans[i] = g, an
	}
	psql, ok := s.predSQL(dbs[0].Dialect(), predSQL, invalid, &v)
	if !ok {
		return v, nil
	}
	var first *datasets.ResultSet
	for i, db := range dbs {
		rs := s.judge(ctx, db, gsql, psql, golds[i], ans[i], &v)
		if i == 0 {
			first = rs
		}
		if v.Status != StatusOK || !v.Correct {
			s.nameVariant(ctx, &v, dbs, i)
			break
		}
	}
	if v.Status != StatusOK {
		return v, nil
	}
	return v, first
}

// nameVariant prefixes v.Error with the variant that decided the verdict,
// when there are several and ctx is live; a wrong result gets a message of
// its own.
func (s *Scorer) nameVariant(ctx context.Context, v *Verdict, dbs []datasets.Database, i int) {
	if len(dbs) < 2 || ctx.Err() != nil {
		return
	}
	name := fmt.Sprintf("variant %d", i+1)
	if p, ok := dbs[i].(interface{ Path() string }); ok {
		name = filepath.Base(p.Path())
	}
	where := fmt.Sprintf("test-suite database %s (%d of %d)", name, i+1, len(dbs))
	if v.Error == "" {
		v.Error = "result differs from the gold on " + where
		return
	}
	v.Error = "on " + where + ": " + v.Error
}
