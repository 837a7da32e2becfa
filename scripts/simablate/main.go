// Command simablate tabulates the simulator's behaviour model under the
// ablations that remove information from the prompt: for each pair (a
// runner and its ablation) of a run of experiments/sim-ablations.yaml, the
// EX change on the mini questions that need the removed information, with
// McNemar's test (metrics.McNemar, exact below 25 discordant pairs), and
// the change on the other questions. Pairs are (seed, question): both
// trials of a seed answer the same questions.
//
//	go run ./scripts/simablate [RUN_DIR]     (default runs/sim-ablations)
//
// The numbers describe the behaviour model of package sim, not the
// methods.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/sim"
)

// need names the information an ablation removes and says which questions
// need it.
type need struct {
	name string
	of   func(q question) bool
}

var (
	// needValues: the gold compares a column with a value that neither
	// the question nor the evidence shows (the model must learn its
	// spelling from retrieved values, value examples or observations).
	needValues = need{"a value not in the question or evidence", func(q question) bool { return q.hiddenValues > 0 }}
	// needJoins: the gold reads two tables or more (a schema narrowed to
	// linked or scaffold tables can drop one).
	needJoins = need{"two tables or more", func(q question) bool { return q.tables >= 2 }}
)

// pairs are the ablations of experiments/sim-ablations.yaml, by trial
// label.
var pairs = []struct {
	what, full, ablated string
	need                need
}{
	{"Alpha-SQL without value retrieval", "alphasql", "alphasql wo-value-retrieval", needValues},
	{"IESR without schema linking", "iesr", "iesr wo-linking", needJoins},
	{"IESR without schema compression", "iesr", "iesr wo-compression", needJoins},
	{"SteinerSQL without navigation", "steinersql", "steinersql wo-navigation", needJoins},
	{"ReAct (DSL loop) without observations", "react-dsl", "react-dsl wo-observations", needValues},
	{"ReAct (SQL loop) without observations", "react-dsl iterate-sql", "react-dsl wo-observations", needValues},
}

// question is what a mini question's gold needs.
type question struct {
	tables, hiddenValues int
}

func main() {
	dir := "runs/sim-ablations"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(context.Background(), os.Stdout, dir); err != nil {
		fmt.Fprintln(os.Stderr, "simablate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, dir string) error {
	r, err := bench.ReadRun(dir, false)
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp("", "simablate")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	b, err := datasets.LoadMini("", datasets.LoadOptions{CacheDir: cache})
	if err != nil {
		return err
	}
	defer b.Engine.Close()
	qs := map[string]question{}
	for _, ex := range b.Examples {
		db, err := b.Engine.Open(ctx, ex.DBID)
		if err != nil {
			return err
		}
		s, err := db.Schema(ctx)
		if err != nil {
			return err
		}
		n := sim.Analyse(ex.GoldSQL, s)
		shown := sim.ParseText(ex.Question + "\n" + ex.Evidence)
		q := question{tables: len(n.Tables)}
		for _, v := range n.Values {
			if !shown.HasValue(v) {
				q.hiddenValues++
			}
		}
		qs[ex.ID] = q
	}
	// outcome[label][seed][question] = correct
	outcome := map[string]map[int64]map[string]bool{}
	for _, t := range r.Trials {
		label := t.Label
		if outcome[label] == nil {
			outcome[label] = map[int64]map[string]bool{}
		}
		m := map[string]bool{}
		for _, it := range t.Items {
			m[it.QuestionID] = it.Verdict != nil && it.Verdict.Correct
		}
		outcome[label][t.Seed] = m
	}
	fmt.Fprintf(w, "Behaviour model of the simulated model (package sim), not the methods: %s, p = 0.6\n\n", dir)
	fmt.Fprintln(w, "| ablation | questions that need it | pairs | EX full | EX ablated | change | b | c | McNemar p | change on the other questions (pairs, p) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range pairs {
		full, abl := outcome[p.full], outcome[p.ablated]
		if full == nil || abl == nil {
			return fmt.Errorf("run %s has no trial %q or %q", dir, p.full, p.ablated)
		}
		var in, out [2][]bool
		for seed, fm := range full {
			am, ok := abl[seed]
			if !ok {
				continue
			}
			for id, fc := range fm {
				ac, ok := am[id]
				if !ok {
					continue
				}
				k := &out
				if p.need.of(qs[id]) {
					k = &in
				}
				k[0] = append(k[0], fc)
				k[1] = append(k[1], ac)
			}
		}
		mi, err := metrics.McNemar(in[0], in[1], metrics.McNemarAuto)
		if err != nil {
			return fmt.Errorf("%s: %w", p.what, err)
		}
		mo, err := metrics.McNemar(out[0], out[1], metrics.McNemarAuto)
		if err != nil {
			return fmt.Errorf("%s: %w", p.what, err)
		}
		fi, ai := share(in[0]), share(in[1])
		fmt.Fprintf(w, "| %s | %s | %d | %.1f%% | %.1f%% | %+.1f | %d | %d | %s | %+.1f (%d, %s) |\n", p.what, p.need.name, len(in[0]),
			100*fi, 100*ai, 100*(ai-fi), mi.B, mi.C, pval(mi.P), 100*(share(out[1])-share(out[0])), len(out[0]), pval(mo.P))
	}
	return nil
}

func share(xs []bool) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for _, x := range xs {
		if x {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

func pval(p float64) string {
	s := fmt.Sprintf("%.3g", p)
	if p < 0.001 {
		s = fmt.Sprintf("%.1e", p)
	}
	return strings.TrimSpace(s)
}
