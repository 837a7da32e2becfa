package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
)

// secondGoldFlags are --gold-version and --gold-overlay, the second gold
// eval and report score under beside the benchmark's own.
type secondGoldFlags struct {
	version, overlay *string
}

// secondGoldHelp ends the usage of eval and report: what a second gold is
// and the overlay file's format.
const secondGoldHelp = `
A second gold (--gold-version NAME or --gold-overlay FILE) scores the same
predictions under both golds: EX and rank of every system under each, the
rank change, Kendall's tau-b between the two rankings, and the questions
whose verdict flips. Only the questions whose gold SQL differs (white space
ignored) are scored again; the others keep their verdict. An overlay file
is JSON lines, one corrected gold a line:
  {"question_id": 1471, "sql": "SELECT ...", "note": "why (optional)"}
question_id is the benchmark's question id (string or integer); a bad line,
an id given twice or an id the benchmark does not have is an error naming
the file and line.
`

// addSecondGoldFlags defines --gold-version and --gold-overlay on fs and
// ends its usage, written to stderr, with secondGoldHelp.
func addSecondGoldFlags(fs *flag.FlagSet, stderr io.Writer) *secondGoldFlags {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, secondGoldHelp)
	}
	return &secondGoldFlags{
		version: fs.String("gold-version", "", "second gold: another version of the benchmark, read from the benchmark's data folder (bird-dev-2023-05 for bird, bird for bird-dev-2023-05, or \"previous\": the earlier release datasets check compares with); EX, ranks, Kendall's tau and the flipped verdicts are printed under both golds"),
		overlay: fs.String("gold-overlay", "", "second gold: the benchmark with corrected gold SQL from FILE (JSON lines {\"question_id\": ID, \"sql\": \"...\", \"note\": \"...\"}); EX, ranks, Kendall's tau and the flipped verdicts are printed under both golds"),
	}
}

func (f *secondGoldFlags) set() bool { return *f.version != "" || *f.overlay != "" }

func (f *secondGoldFlags) check(cmd string) error {
	if *f.version != "" && *f.overlay != "" {
		return fmt.Errorf("%w: %s: give one second gold: --gold-version or --gold-overlay", errUsage, cmd)
	}
	return nil
}

// secondGold is an opened second gold.
type secondGold struct {
	b *datasets.Benchmark
	// name labels the gold in the table; changed lists the questions
	// whose gold differs from the first's.
	name    string
	changed []string
	// rescore holds the changed questions in the second gold's order,
	// each with its Example.Index in both benchmarks.
	rescore []rescoreAt
	// own is set when b has an engine of its own to close.
	own bool
}

// rescoreAt is a question whose gold changed: its id and its
// Example.Index in the first benchmark (a) and in the second gold (b).
type rescoreAt struct {
	id   string
	a, b int
}

func (g *secondGold) Close() {
	if g != nil && g.own && g.b.Engine != nil {
		g.b.Engine.Close()
	}
}

// open opens the second gold of b, read from data with opt (a version of
// the benchmark) or b with the overlay applied.
func (f *secondGoldFlags) open(cmd string, b *datasets.Benchmark, data string, opt datasets.LoadOptions) (*secondGold, error) {
	g := &secondGold{}
	if *f.overlay != "" {
		o, err := datasets.ReadGoldOverlay(*f.overlay)
		if err != nil {
			return nil, asUsage(fmt.Errorf("%s: --gold-overlay: %w", cmd, err))
		}
		skipped := 0
		if g.b, skipped, err = o.ApplyTo(b, opt.Limit > 0); err != nil {
			return nil, asUsage(fmt.Errorf("%s: --gold-overlay: %w", cmd, err))
		}
		g.name = "overlay " + *f.overlay
		if skipped > 0 {
			g.name += fmt.Sprintf(" (%d of its questions beyond the limit of %d)", skipped, opt.Limit)
		}
	} else {
		name := *f.version
		if name == "previous" {
			prev, _ := datasets.PreviousVersion(b.Name + versionSuffix(b))
			if prev == "" {
				return nil, fmt.Errorf("%w: %s: --gold-version previous: %s has no earlier version at hand; name one", errUsage, cmd, b.Name)
			}
			name = prev
		}
		var err error
		if g.b, err = openBenchmark(cmd, name, data, opt); err != nil {
			return nil, err
		}
		g.name, g.own = name, true
	}
	var err error
	if g.changed, err = datasets.CheckSecondGold(b, g.b); err != nil {
		g.Close()
		return nil, asUsage(fmt.Errorf("%s: %w", cmd, err))
	}
	indexA := make(map[string]int, len(b.Examples))
	for _, e := range b.Examples {
		indexA[e.ID] = e.Index
	}
	changed := make(map[string]bool, len(g.changed))
	for _, id := range g.changed {
		changed[id] = true
	}
	for _, e := range g.b.Examples {
		if changed[e.ID] {
			g.rescore = append(g.rescore, rescoreAt{id: e.ID, a: indexA[e.ID], b: e.Index})
		}
	}
	return g, nil
}

// versionSuffix is the part of a benchmark's registry name its split
// adds (bird's initial release is bird-dev-2023-05).
func versionSuffix(b *datasets.Benchmark) string {
	if b.Name == "bird" && b.Split == "dev-2023-05" {
		return "-dev-2023-05"
	}
	return ""
}

// goldName labels a benchmark's own gold in the two-gold table.
func goldName(b *datasets.Benchmark) string {
	if b.Split == "" {
		return b.Name
	}
	return b.Name + " (" + b.Split + ")"
}

// outcomesUnder returns a system's outcomes under the first gold (its
// verdicts va) and under the second: the same, but for the questions
// whose gold changed, scored again by sc (the second gold's scorer) from
// preds and invalid (keyed by the first benchmark's Example.Index).
func outcomesUnder(ctx context.Context, sc *metrics.Scorer, g *secondGold, preds, invalid map[int]string, va []metrics.Verdict, workers int) (ma, mb map[string]metrics.GoldOutcome, err error) {
	ma = make(map[string]metrics.GoldOutcome, len(va))
	for _, v := range va {
		ma[v.QuestionID] = metrics.OutcomeOf(v)
	}
	mb = maps.Clone(ma)
	sub := metrics.Aligned{Preds: map[int]string{}, Invalid: map[int]string{}}
	for _, q := range g.rescore {
		if _, scored := ma[q.id]; !scored {
			continue
		}
		if p, ok := preds[q.a]; ok {
			sub.Preds[q.b] = p
		}
		if r, ok := invalid[q.a]; ok {
			sub.Invalid[q.b] = r
		}
	}
	vb, err := sc.ScoreAligned(ctx, sub, workers, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range vb {
		mb[v.QuestionID] = metrics.OutcomeOf(v)
	}
	return ma, mb, nil
}

// printTwoGold prints the two-gold table: EX and rank under each gold, the
// rank change, the flip counts, Kendall's tau-b, and each system's flipped
// questions.
func printTwoGold(w io.Writer, t *metrics.TwoGold) {
	fmt.Fprintf(w, "\nEX under two golds: A = %s, B = %s; %d questions' gold SQL differs (only they are scored again)\n", t.GoldA, t.GoldB, len(t.Changed))
	tab := textable.New(2, textable.Column{Name: "system"},
		textable.Column{Name: "EX A", Align: textable.Right, MinWidth: 7}, textable.Column{Name: "rank A", Align: textable.Right},
		textable.Column{Name: "EX B", Align: textable.Right, MinWidth: 7}, textable.Column{Name: "rank B", Align: textable.Right},
		textable.Column{Name: "change", Align: textable.Right}, textable.Column{Name: "flips", Align: textable.Right},
		textable.Column{Name: "to correct", Align: textable.Right}, textable.Column{Name: "to wrong", Align: textable.Right})
	ex := func(g metrics.GoldEX) string {
		if math.IsNaN(g.EX) {
			return "-"
		}
		return fmt.Sprintf("%.2f%%", 100*g.EX)
	}
	rank := func(r int) string {
		if r == 0 {
			return "-"
		}
		return fmt.Sprint(r)
	}
	for _, r := range t.Rows {
		change := "0"
		if r.Change != 0 {
			change = fmt.Sprintf("%+d", r.Change)
		}
		tab.Row(r.System, ex(r.A), rank(r.RankA), ex(r.B), rank(r.RankB), change, fmt.Sprint(len(r.Flips)), fmt.Sprint(r.ToCorrect), fmt.Sprint(r.ToWrong))
	}
	tab.Write(w)
	if t.Tau != nil {
		fmt.Fprintf(w, "Kendall's tau-b between the rankings under A and B: %.3f (%d systems; 1: the same order)\n", *t.Tau, len(t.Rows))
	} else {
		fmt.Fprintf(w, "Kendall's tau-b between the rankings: - (undefined: %d systems, or all tied under one gold)\n", len(t.Rows))
	}
	for _, r := range t.Rows {
		if len(r.Flips) == 0 {
			continue
		}
		parts, more := metrics.ListFlips(r.Flips)
		if more > 0 {
			parts = append(parts, fmt.Sprintf("... and %d more (--json lists them all)", more))
		}
		fmt.Fprintf(w, "flipped (A->B) %s: %s\n", r.System, strings.Join(parts, ", "))
	}
}
