package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// reportTwoGold scores the systems of the runs under their benchmark's gold
// and under the second gold of flags, and returns their two-gold table
// (metrics.TwoGoldEX): a system's verdicts under the first gold are those
// the run stored; under the second, the items of the questions whose gold
// changed are scored again from their stored final SQL, with the run's EX
// mode (failed items stay wrong, but leave EX's denominator when the new
// gold fails). Every system must be on one benchmark; a system with
// several seeds keeps them (EX is the mean over seeds).
func reportTwoGold(ctx context.Context, runs []*runstore.RunData, flags *secondGoldFlags) (*metrics.TwoGold, error) {
	type sys struct {
		name   string
		run    *runstore.RunData
		trials []*runstore.RunTrial
	}
	var systems []sys
	var sp *spec.BenchmarkSpec
	var specDir string
	for _, r := range runs {
		for _, s := range runstore.Systems(r.Trials) {
			first := &r.Trials[s.Trials[0]]
			if sp == nil {
				sp, specDir = &first.Benchmark, r.Dir
			} else if first.Benchmark.Key() != sp.Key() || first.Benchmark.Data != sp.Data || first.Benchmark.Limit != sp.Limit {
				return nil, fmt.Errorf("%w: report: a second gold applies to one benchmark; the runs score %s and %s (report them separately)", errUsage, sp.Key(), first.Benchmark.Key())
			}
			name := s.Label
			if len(runs) > 1 {
				name = filepath.Base(r.Dir) + ": " + s.Label
			}
			one := sys{name: name, run: r}
			for _, i := range s.Trials {
				one.trials = append(one.trials, &r.Trials[i])
			}
			systems = append(systems, one)
		}
	}
	if sp == nil {
		return nil, fmt.Errorf("report: the runs have no trial to score under a second gold")
	}
	opt := datasets.LoadOptions{Limit: sp.Limit, CacheDir: filepath.Join(specDir, "cache", "datasets", sp.Name),
		SQLite: datasets.SQLiteOptions{Timeout: defaultEvalTimeout, MaxBytes: sp.MaxResultMB << 20}}
	b, err := openBenchmark("report", sp.DatasetName(), sp.Data, opt)
	if err != nil {
		return nil, err
	}
	if b.Engine != nil {
		defer b.Engine.Close()
	}
	g, err := flags.open("report", b, sp.Data, opt)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	cache, err := openGoldCache("")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer cache.Close()
	sc, err := metrics.NewScorer(g.b, cache, metrics.ScoreOptions{Mode: metrics.Mode(sp.Mode), Timeout: defaultEvalTimeout, TieAware: sp.TieAware})
	if err != nil {
		return nil, fmt.Errorf("report: second gold: %w", err)
	}
	index := make(map[string]int, len(b.Examples))
	for _, e := range b.Examples {
		index[e.ID] = e.Index
	}
	var out []metrics.GoldSystem
	for _, s := range systems {
		gs := metrics.GoldSystem{Name: s.name}
		for _, t := range s.trials {
			al, va, err := storedAligned(s.run, t, index)
			if err != nil {
				return nil, fmt.Errorf("report: second gold: %w", err)
			}
			ma, mb, err := outcomesUnder(ctx, sc, g, al.Preds, al.Invalid, va, 1)
			if err != nil {
				return nil, fmt.Errorf("report: second gold: %w", err)
			}
			gs.A, gs.B = append(gs.A, ma), append(gs.B, mb)
		}
		out = append(out, gs)
	}
	if err := cache.Flush(); err != nil {
		return nil, fmt.Errorf("report: gold cache: %w", err)
	}
	t, err := metrics.TwoGoldEX(goldName(b), g.name, g.changed, out)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return t, nil
}

// storedAligned returns a trial's finished items (done or failed, with a
// verdict) as eval holds a prediction file: the verdicts the run stored,
// a failed item's counted wrong, and each item's final SQL keyed by
// index (question id -> Example.Index), a failed item or one without a
// stored result invalid.
func storedAligned(r *runstore.RunData, t *runstore.RunTrial, index map[string]int) (metrics.Aligned, []metrics.Verdict, error) {
	al := metrics.Aligned{Preds: map[int]string{}, Invalid: map[int]string{}}
	var va []metrics.Verdict
	err := r.EachItem(t, func(it *runstore.Item) error {
		if (it.Status != runstore.StatusDone && it.Status != runstore.StatusFailed) || it.Verdict == nil {
			return nil
		}
		v := *it.Verdict
		v.QuestionID, v.Correct = it.QuestionID, v.Correct && it.Status == runstore.StatusDone
		va = append(va, v)
		k, ok := index[it.QuestionID]
		if !ok {
			return nil
		}
		switch {
		case it.Status == runstore.StatusFailed:
			al.Preds[k], al.Invalid[k] = "", "the runner failed"
		case it.Result != nil:
			al.Preds[k] = it.Result.SQL
		default:
			al.Preds[k], al.Invalid[k] = "", "no stored result"
		}
		return nil
	})
	return al, va, err
}
