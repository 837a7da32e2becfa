// Command simablate tabulates the simulator's behaviour model under the
// ablations that remove information from the prompt: for each pair (a
// runner and its ablation) of a run of experiments/sim-ablations.yaml, the
// EX change on the mini questions that need the removed information, with
// McNemar's test (stats.McNemar, exact below 25 discordant pairs), and
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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/sim"
	"github.com/t2sbench/t2sbench/stats"
)

// need names the information an ablation removes and says which
// questions need it, given the full trial's item for the question.
type need struct {
	name string
	of   func(q *question, full *runstore.Item) bool
}

var (
	// needValues: the gold compares a column with a value that neither
	// the question, the evidence nor the schema's default value examples
	// show (the model must learn its spelling from retrieved values or
	// observations).
	needValues = need{"a value not in the question, evidence or default value examples", func(q *question, _ *runstore.Item) bool {
		shown := sim.ParseText(q.ex.Question + "\n" + q.ex.Evidence + "\n" + datasets.RenderDDL(q.schema, datasets.RenderOptions{}))
		for _, v := range q.needs.Values {
			if !shown.HasValue(v) {
				return true
			}
		}
		return false
	}}
	// needLinked: the gold reads a table or column that the full run's
	// compressed schema (the linked tables and columns, rendered as the
	// runner does) does not show.
	needLinked = need{"a table or column the linked schema drops", func(q *question, full *runstore.Item) bool {
		var l struct {
			Tables   map[string][]string `json:"tables"`
			Fallback bool                `json:"fallback"`
		}
		if !traceData(full, "linking", &l) || l.Fallback {
			return false
		}
		return q.lacks(datasets.RenderMSchema(q.schema, datasets.RenderOptions{Tables: l.Tables}))
	}}
	// needScaffold: the gold reads a table that the full run's scaffold
	// leaves out of the prompt's schema.
	needScaffold = need{"a table the scaffold leaves out", func(q *question, full *runstore.Item) bool {
		var sc struct {
			Tables []string `json:"tables"`
		}
		if !traceData(full, "scaffold", &sc) || len(sc.Tables) == 0 {
			return false
		}
		opt := datasets.RenderOptions{Tables: map[string][]string{}}
		for _, t := range sc.Tables {
			opt.Tables[t] = nil
		}
		return q.lacks(datasets.RenderDDL(q.schema, opt))
	}}
)

// traceData decodes the full trial's trace data key into v.
func traceData(it *runstore.Item, key string, v any) bool {
	if it == nil || it.Result == nil || it.Result.Trace.Data == nil {
		return false
	}
	raw, ok := it.Result.Trace.Data[key]
	if !ok {
		return false
	}
	b, err := json.Marshal(raw)
	return err == nil && json.Unmarshal(b, v) == nil
}

// pairs are the ablations of experiments/sim-ablations.yaml, by trial
// label.
var pairs = []struct {
	what, full, ablated string
	need                need
}{
	{"Alpha-SQL without value retrieval", "alphasql", "alphasql wo-value-retrieval", needValues},
	{"IESR without schema linking", "iesr", "iesr wo-linking", needLinked},
	{"IESR without schema compression", "iesr", "iesr wo-compression", needLinked},
	{"SteinerSQL without navigation", "steinersql", "steinersql wo-navigation", needScaffold},
	{"ReAct (DSL loop) without observations", "react-dsl", "react-dsl wo-observations", needValues},
	{"ReAct (SQL loop) without observations", "react-dsl iterate-sql", "react-dsl wo-observations", needValues},
}

// question is a mini question, its schema and what its gold needs.
type question struct {
	ex     datasets.Example
	schema *datasets.Schema
	needs  sim.Needs
}

// lacks reports whether a schema text lacks a table or column the gold
// reads.
func (q *question) lacks(schemaText string) bool {
	p := sim.ParseText(schemaText)
	for _, t := range q.needs.Tables {
		if _, ok := p.Table(t); !ok {
			return true
		}
	}
	for _, c := range q.needs.Columns {
		t, col, _ := strings.Cut(c, ".")
		if !p.HasColumn(t, col) {
			return true
		}
	}
	return false
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
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp("", "simablate")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	// qs[benchmark][question id]
	qs := map[string]map[string]*question{}
	var benches []string
	for _, t := range r.Trials {
		spec := t.Benchmark
		if qs[spec.Name] != nil {
			continue
		}
		b, err := datasets.Open(spec.Name, spec.Data, datasets.LoadOptions{CacheDir: cache})
		if err != nil {
			return fmt.Errorf("benchmark %s: %w", spec.Name, err)
		}
		defer b.Engine.Close()
		m := map[string]*question{}
		for _, ex := range b.Examples {
			db, err := b.Engine.Open(ctx, ex.DBID)
			if err != nil {
				continue // a database the data directory lacks: no item of it ran
			}
			s, err := db.Schema(ctx)
			if err != nil {
				return err
			}
			m[ex.ID] = &question{ex: ex, schema: s, needs: sim.Analyse(ex.GoldSQL, s)}
		}
		qs[spec.Name] = m
		benches = append(benches, spec.Name)
	}
	// outcome[benchmark|label][seed][question] = correct; items the same
	// key's item
	outcome := map[string]map[int64]map[string]bool{}
	items := map[string]*runstore.Item{}
	for _, t := range r.Trials {
		label, _, _ := strings.Cut(t.Label, " seed=")
		label, _, _ = strings.Cut(label, " @")
		label = t.Benchmark.Name + "|" + label
		if outcome[label] == nil {
			outcome[label] = map[int64]map[string]bool{}
		}
		m := map[string]bool{}
		for i, it := range t.Items {
			m[it.QuestionID] = it.Verdict != nil && it.Verdict.Correct
			items[fmt.Sprintf("%s|%d|%s", label, t.Seed, it.QuestionID)] = &t.Items[i]
		}
		outcome[label][t.Seed] = m
	}
	fmt.Fprintf(w, "Behaviour model of the simulated model (package sim), not the methods: %s, p = 0.6\n\n", dir)
	fmt.Fprintln(w, "| benchmark | ablation | questions that need it | pairs | EX full | EX ablated | change | b | c | McNemar p | change on the other questions (pairs, p) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, bn := range benches {
		for _, p := range pairs {
			if err := row(w, bn, p.what, p.need, outcome[bn+"|"+p.full], outcome[bn+"|"+p.ablated], qs[bn], items, bn+"|"+p.full); err != nil {
				return err
			}
		}
	}
	return nil
}

// row prints one pair's line: the full and ablated trials' outcomes over
// the (seed, question) pairs both answered, split by the need.
func row(w io.Writer, bn, what string, nd need, full, abl map[int64]map[string]bool, qs map[string]*question, items map[string]*runstore.Item, fullKey string) error {
	{
		if full == nil || abl == nil {
			return fmt.Errorf("benchmark %s: no trials for %s", bn, what)
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
				q := qs[id]
				if q == nil {
					return fmt.Errorf("benchmark %s: question %s not found", bn, id)
				}
				if nd.of(q, items[fmt.Sprintf("%s|%d|%s", fullKey, seed, id)]) {
					k = &in
				}
				k[0] = append(k[0], fc)
				k[1] = append(k[1], ac)
			}
		}
		others := fmt.Sprintf("%+.1f (%d, %s)", 100*(share(out[1])-share(out[0])), len(out[0]), mcnemarP(out))
		if len(in[0]) == 0 {
			fmt.Fprintf(w, "| %s | %s | %s | 0 | | | | | | | %s |\n", bn, what, nd.name, others)
			return nil
		}
		mi, err := stats.McNemar(in[0], in[1], stats.McNemarAuto)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		fi, ai := share(in[0]), share(in[1])
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.1f%% | %.1f%% | %+.1f | %d | %d | %s | %s |\n", bn, what, nd.name, len(in[0]),
			100*fi, 100*ai, 100*(ai-fi), mi.B, mi.C, pval(mi.P), others)
	}
	return nil
}

// mcnemarP is McNemar's p over a pair of outcome vectors ("" when empty).
func mcnemarP(v [2][]bool) string {
	m, err := stats.McNemar(v[0], v[1], stats.McNemarAuto)
	if err != nil {
		return ""
	}
	return pval(m.P)
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
