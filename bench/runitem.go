package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// runItem runs and scores one item. ok is false when ctx was canceled and
// the item must not be committed; fatal is an error that stops the run
// (the item is not committed either).
func runItem(ctx context.Context, t *spec.Trial, r runners.Runner, ex datasets.Example, dbs *dbCache, client llm.Client, sc Scorer, timeout time.Duration, opt Options) (it *runstore.Item, ok bool, fatal error) {
	it = &runstore.Item{TrialID: t.ID, QuestionID: ex.ID, Index: ex.Index, Started: time.Now()}
	wait := opt.RetryWait
	for attempt := 0; ; attempt++ {
		it.Attempts++
		a, fatal := runAttempt(ctx, t, r, ex, dbs, client, timeout, opt)
		if fatal != nil {
			return nil, false, fatal
		}
		if ctx.Err() != nil {
			return nil, false, nil
		}
		it.Calls = a.log.calls() // their errors redacted as logged (callLog.Complete)
		if a.err == nil || a.timedOut {
			if !scoreDone(ctx, it, r, ex, sc, &a, timeout, opt.Secrets) {
				return nil, false, nil
			}
			return it, true, nil
		}
		it.ErrorClass = Classify(a.err)
		it.Error = redact(a.err.Error(), opt.Secrets)
		kind := FailureOf(a.err)
		// One retry loop: a model call's failure has used the
		// backend's retries already; only what no layer below retried
		// (a database that did not open, a runner's own error) is
		// run again.
		last := attempt >= opt.Retries || llm.IsCallError(a.err)
		switch {
		case kind == FailureFatal:
			return nil, false, rejected(t, ex.ID, a.err, opt.Secrets)
		case kind == FailurePermanent || (kind == FailureUnknown && last):
			if !scoreFailed(ctx, it, ex, sc, a.res) {
				return nil, false, nil
			}
			return it, true, nil
		case last:
			it.Status = runstore.StatusError
			it.WallMS = msSince(it.Started)
			return it, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, nil
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// attempt is what one run of an item's runner left: its result or error,
// whether the item's timeout cut it, the database it ran on (nil when
// none opened), the statements it executed and its calls.
type attempt struct {
	res      runners.Result
	err      error
	timedOut bool
	db       datasets.Database
	execs    *execRecorder
	log      *callLog
}

// runAttempt runs the item's runner once, under the item's timeout when
// it has one. fatal is an environment failure or a lost batch of the
// store's writes met on the way, which stops the run whatever the runner
// made of it.
func runAttempt(ctx context.Context, t *spec.Trial, r runners.Runner, ex datasets.Example, dbs *dbCache, client llm.Client, timeout time.Duration, opt Options) (a attempt, fatal error) {
	a.log = &callLog{Client: client, store: opt.store, trialID: t.ID, questionID: ex.ID, secrets: opt.Secrets}
	ictx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		ictx, cancel = context.WithTimeout(ctx, timeout)
	}
	db, dbErr := dbs.open(ictx, ex.DBID)
	a.db = db
	if dbErr != nil && errors.Is(dbErr, datasets.ErrMissingDB) {
		a.res = runners.Result{Note: "database unavailable: " + dbErr.Error()}
	} else if dbErr != nil {
		a.err = &dbOpenError{err: dbErr}
	} else {
		a.execs = &execRecorder{Database: db}
		a.res, a.err = r.Run(ictx, runners.Task{Example: ex.WithoutGold(), DB: a.execs, LLM: a.log, Seed: t.Seed})
	}
	a.timedOut = ictx.Err() != nil && ctx.Err() == nil
	cancel()
	// A full disk, a read-only filesystem or an I/O error under a
	// write of the cache, the call log or the runner's own files
	// stops the run, whatever the runner made of it: the item is
	// not committed, so it stays pending for the resume.
	envErr := a.log.environment()
	if envErr == nil {
		envErr = a.err
	}
	if e := environmentFailure(envErr, opt.storeFile()); e != nil {
		return a, e
	}
	if errors.Is(envErr, runstore.ErrBatchLost) {
		// The store lost a batch of writes: every later write
		// fails, so the run stops and says why.
		return a, envErr
	}
	return a, nil
}

// scoreDone scores the result of an attempt that ended without an error,
// or that the item's timeout cut (a wrong prediction, noted in the
// result), and records it in it as done. It returns false when ctx was
// canceled while scoring: the item must not be committed.
func scoreDone(ctx context.Context, it *runstore.Item, r runners.Runner, ex datasets.Example, sc Scorer, a *attempt, timeout time.Duration, secrets []string) bool {
	res := &a.res
	if a.timedOut {
		it.ErrorClass = "timeout"
		it.Error = fmt.Sprintf("item exceeded the %s timeout", timeout)
		if a.err != nil {
			it.Error += ": " + redact(a.err.Error(), secrets)
		}
		res.Note = strings.TrimSpace(res.Note + " " + it.Error)
	}
	if ga, ok := r.(runners.GoldAnalyzer); ok && a.db != nil {
		// After Run, with the gold: the runner's analysis table.
		if err := ga.AnalyzeGold(ctx, ex, a.db, res); err != nil {
			if res.Trace.Data == nil {
				res.Trace.Data = map[string]any{}
			}
			res.Trace.Data["gold_analysis_error"] = redact(err.Error(), secrets)
		}
	}
	// The answer is scored and stored as the model gave it:
	// redaction is for error text and display (redact).
	sctx := ctx
	if a.execs != nil {
		// The statements the runner executed are not run again
		// to score the same texts (metrics.WithExecuted).
		sctx = metrics.WithExecuted(ctx, a.execs.lookup)
	}
	v := scoreResult(sctx, sc, ex, res)
	if ctx.Err() != nil {
		return false
	}
	it.Status = runstore.StatusDone
	it.Verdict = &v
	it.Result = res
	it.WallMS = msSince(it.Started)
	return true
}

// scoreFailed records in it an item whose runner failed on its question
// for good (it.ErrorClass and it.Error say how): the item is scored with
// an empty prediction, so it is wrong when its gold runs and its gold's
// status is known when not. It returns false when ctx was canceled while
// scoring: the item must not be committed.
func scoreFailed(ctx context.Context, it *runstore.Item, ex datasets.Example, sc Scorer, res runners.Result) bool {
	v := sc.Score(ctx, ex, "")
	if ctx.Err() != nil {
		return false
	}
	v.Correct = false
	if metrics.GoldRuns(metrics.Status(v.Status)) {
		v.Status = metrics.StatusPredError
		v.Error = "runner failed (" + it.ErrorClass + "): " + it.Error
	}
	res.Note = strings.TrimSpace(res.Note + " runner failed (" + it.ErrorClass + "): " + it.Error)
	it.Status = runstore.StatusFailed
	it.Verdict = &v
	it.Result = &res
	it.WallMS = msSince(it.Started)
	return true
}

// scoreResult is the verdict of res's SQL, with the marks of its
// candidates when sc is a CandidateScorer and the gold runs.
func scoreResult(ctx context.Context, sc Scorer, ex datasets.Example, res *runners.Result) runstore.Verdict {
	if cs, ok := sc.(CandidateScorer); ok {
		sqls := make([]string, len(res.Candidates))
		for i, c := range res.Candidates {
			sqls[i] = c.SQL
		}
		v, marks := cs.ScoreWithCandidates(ctx, ex, res.SQL, sqls)
		v.Candidates = marks
		return v
	}
	return sc.Score(ctx, ex, res.SQL)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
