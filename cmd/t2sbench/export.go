package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/export"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a trial's predictions in a benchmark's official format (Spider SQL lines, BIRD JSON, jsonl)",
		run:     runExport,
	})
}

func runExport(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("export", "RUN_DIR --trial LABEL --format spider-sql|bird-json|jsonl [--out FILE]\n       t2sbench export RUN_DIR --trial LABEL --question ID [--out FILE]", stderr)
	trial := fs.String("trial", "", "label of the trial to export (as `t2sbench status` lists them), or its id; may be left out when the run has one trial")
	format := fs.String("format", "", "spider-sql (one SQL per line, TAB, db_id), bird-json ({\"0\": \"SQL\\t----- bird -----\\tdb_id\", ...}) or jsonl")
	out := fs.String("out", "", "output file (default: stdout)")
	data := fs.String("data", "", "benchmark data directory (default: the one the run used)")
	question := fs.String("question", "", "write the trial's item of this question id whole, as JSON (status, error, verdict, SQL, note, candidates, trace, calls; credentials hidden), instead of the predictions: the texts the viewer shows truncated")
	dir, err := parseOne(fs, args, "export takes one run directory")
	if err != nil {
		return err
	}
	if *question != "" {
		if *format != "" {
			return fmt.Errorf("%w: export: --question writes one item as JSON; leave out --format", errUsage)
		}
		return exportItem(stdout, stderr, dir, *trial, *question, *out)
	}
	if _, ok := export.Formats[*format]; !ok {
		return fmt.Errorf("%w: export: --format must be spider-sql, bird-json or jsonl, got %q", errUsage, *format)
	}
	r, t, err := readTrial(dir, *trial, true)
	if err != nil {
		return err
	}
	for _, l := range r.BadCounts {
		fmt.Fprintf(stderr, "export: warning: %s\n", l)
	}
	if isStale(r, t) {
		fmt.Fprintf(stderr, "export: note: trial %q (id %s) is not in the run's spec; %s\n", t.Label, t.ID, r.StaleNote(true))
	}
	exs, err := exportQuestions(r, t, *data)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	preds, st := trialPredictions(t, exs)
	// The store keeps each answer as the model gave it (it was scored so);
	// a credential a model echoed is hidden in what leaves the run.
	red := r.Redactor()
	for i := range preds {
		if sql := red.Redact(preds[i].SQL); sql != preds[i].SQL {
			preds[i].SQL = sql
			st.Redacted = append(st.Redacted, preds[i].ID)
		}
	}

	var buf bytes.Buffer
	if err := export.Write(&buf, *format, preds, &st); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := writeExport(stdout, *out, buf.Bytes()); err != nil {
		return err
	}
	dest := *out
	if dest == "" {
		dest = "stdout"
	}
	fmt.Fprintf(stderr, "exported trial %q: %d questions of %s in %s to %s\n", t.Label, len(preds), t.Benchmark.DatasetName(), *format, dest)
	return reportExport(stderr, st, *format)
}

// readTrial reads the head of run directory dir (its meta and trials, no
// item) and picks its trial labelled label (pickTrial). Every trial is
// read, so that a label two trials share is an error naming both, never
// a silent pick of one. With items, the picked trial's items are read as
// ReadRunMode with ReadReport reads them; the other trials' items are
// never read, so that memory grows with one trial, not with the run.
func readTrial(dir, label string, items bool) (*runstore.RunData, *runstore.RunTrial, error) {
	r, err := runstore.ReadRunStream(dir, runstore.ReadOptions{AllTrials: true})
	if err != nil {
		return nil, nil, fmt.Errorf("export: %w", err)
	}
	defer r.Close()
	t, err := pickTrial(r, label)
	if err != nil {
		return nil, nil, err
	}
	if items {
		if err := r.LoadItems(t); err != nil {
			return nil, nil, fmt.Errorf("export: %w", err)
		}
	}
	return r, t, nil
}

// writeExport writes data to the file out, or to stdout when out is "".
func writeExport(stdout io.Writer, out string, data []byte) error {
	if out == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// pickTrial returns the trial labelled label or of id label, or the only
// trial of the run's spec when label is empty. An unknown label is an
// error listing the labels of the run's spec; a label that several trials
// carry (only a store written before a run directory held one spec has
// such) is an error naming each of them by id.
func pickTrial(r *runstore.RunData, label string) (*runstore.RunTrial, error) {
	var spec, match []*runstore.RunTrial
	for i := range r.Trials {
		t := &r.Trials[i]
		if !isStale(r, t) {
			spec = append(spec, t)
		}
		if label != "" && (t.Label == label || t.ID == label) {
			match = append(match, t)
		}
	}
	if label == "" && len(spec) == 1 {
		return spec[0], nil
	}
	if len(match) == 1 {
		return match[0], nil
	}
	if len(match) > 1 {
		names := make([]string, len(match))
		for i, t := range match {
			where := "in the run's spec"
			if isStale(r, t) {
				where = "not in the run's spec"
			}
			params, _ := json.Marshal(t.Params)
			names[i] = fmt.Sprintf("id %s (runner %s, params %s, seed %d, benchmark %s; %s)", t.ID, t.Runner, params, t.Seed, t.Benchmark.Key(), where)
		}
		return nil, fmt.Errorf("%w: export: %s holds %d trials labelled %q: %s; choose one with --trial ID", errUsage, r.Dir, len(match), label, strings.Join(names, ", "))
	}
	labels := make([]string, len(spec))
	for i, t := range spec {
		labels[i] = strconv.Quote(t.Label)
	}
	if len(spec) == 0 {
		return nil, fmt.Errorf("export: %s holds no trial", r.Dir)
	}
	if label == "" {
		return nil, fmt.Errorf("%w: export: %s holds %d trials; choose one with --trial: %s", errUsage, r.Dir, len(spec), strings.Join(labels, ", "))
	}
	return nil, fmt.Errorf("%w: export: no trial %q in %s; its trials are: %s", errUsage, label, r.Dir, strings.Join(labels, ", "))
}

// isStale reports whether trial t of run r is not in the run's spec
// (runstore.RunData.Stale).
func isStale(r *runstore.RunData, t *runstore.RunTrial) bool {
	for _, s := range r.Stale {
		if s.ID == t.ID {
			return true
		}
	}
	return false
}

// exportQuestions loads the trial's benchmark (as report does) and returns
// the questions the run covered: the first n, where n is the item count the
// run recorded for the trial (its --limit).
func exportQuestions(r *runstore.RunData, t *runstore.RunTrial, data string) ([]datasets.Example, error) {
	bs := t.Benchmark
	if data == "" {
		data = bs.Data
	}
	b, err := datasets.Open(bs.DatasetName(), data, datasets.LoadOptions{Limit: bs.Limit,
		CacheDir: filepath.Join(r.Dir, "cache", "datasets", bs.Name)})
	if err != nil {
		return nil, fmt.Errorf("benchmark of trial %q (--data DIR when its data moved): %w", t.Label, err)
	}
	if b.Engine != nil {
		b.Engine.Close()
	}
	exs := b.Examples
	if n := r.Totals[t.ID]; n > 0 && n < len(exs) {
		exs = exs[:n]
	}
	in := make(map[string]bool, len(exs))
	for i, ex := range exs {
		if ex.Index != i {
			return nil, fmt.Errorf("benchmark %s: question %s is at position %d but has index %d; the official formats number questions by position", b.Name, ex.ID, i, ex.Index)
		}
		in[ex.ID] = true
	}
	for _, it := range t.Items {
		if !in[it.QuestionID] {
			return nil, fmt.Errorf("%s holds question %s of trial %q, beyond the %d questions the run recorded: a shard's directory? export the merged run (t2sbench merge)", r.Dir, it.QuestionID, t.Label, len(exs))
		}
	}
	return exs, nil
}

// trialPredictions returns, in question order, each question's prediction:
// the SQL that was scored for a done item, nothing for a failed one (it was
// scored as an empty prediction) or a question without a finished item.
func trialPredictions(t *runstore.RunTrial, exs []datasets.Example) ([]export.Pred, export.Stats) {
	items := make(map[string]*runstore.Item, len(t.Items))
	for i := range t.Items {
		items[t.Items[i].QuestionID] = &t.Items[i]
	}
	var st export.Stats
	out := make([]export.Pred, len(exs))
	for i, ex := range exs {
		p := export.Pred{ID: ex.ID, DBID: ex.DBID, Index: ex.Index}
		it := items[ex.ID]
		switch {
		case it == nil || (it.Status != runstore.StatusDone && it.Status != runstore.StatusFailed):
			p.Missing = "pending"
			st.Pending++
		case it.Status == runstore.StatusFailed:
			p.Missing = "failed"
			st.Failed++
		case it.Result == nil || strings.TrimSpace(it.Result.SQL) == "":
			p.Missing = "empty"
			st.Empty++
		default:
			p.SQL = it.Result.SQL
		}
		out[i] = p
	}
	return out, st
}

// reportExport says on w what stands in for missing predictions in an
// export of format; pending items make the export incomplete (exit status
// 3).
func reportExport(w io.Writer, st export.Stats, format string) error {
	if n := st.Failed + st.Pending + st.Empty; n > 0 {
		what := strconv.Quote(export.NoPrediction)
		if format == export.JSONL {
			what = `an empty "sql" with a "status" field`
		}
		fmt.Fprintf(w, "%d questions without a prediction (%d failed, counted wrong; %d pending; %d with empty SQL) written as %s\n",
			n, st.Failed, st.Pending, st.Empty, what)
	}
	if n := len(st.Quoted); n > 0 {
		fmt.Fprintf(w, "warning: %d predictions hold a line break or TAB inside quoted text, written as a space (their results may change): %s\n",
			n, strings.Join(st.Quoted, ", "))
	}
	if n := len(st.Redacted); n > 0 {
		fmt.Fprintf(w, "warning: %d predictions hold an API key of the run's models or text that looks like one, written as %s (their results may change): %s\n",
			n, llm.Redacted, strings.Join(st.Redacted, ", "))
	}
	if st.Pending > 0 {
		return fmt.Errorf("%w: %d questions of the trial are pending (not finished); the export scores them wrong", errIncomplete, st.Pending)
	}
	return nil
}

// exportItem writes the item of trial label and question qid of run dir
// whole, as indented JSON, with the item's calls from the call log:
// every text as the store holds it, credentials hidden (the viewer caps
// its texts and names this command for the full ones).
func exportItem(stdout, stderr io.Writer, dir, label, qid, out string) error {
	// The item is read whole below; the run's trials suffice to pick the
	// trial and its credentials.
	r, t, err := readTrial(dir, label, false)
	if err != nil {
		return err
	}
	rd, err := runstore.OpenItemReader(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rd.Close()
	ctx := context.Background()
	it, ok, err := rd.Item(ctx, t.ID, qid)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !ok {
		return fmt.Errorf("%w: export: trial %q of %s has no item for question %q", errUsage, t.Label, dir, qid)
	}
	calls, err := rd.QuestionCalls(ctx, qid)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	it.Calls = calls[t.ID]
	r.Redactor().Value(it)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(it); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	// Written to stdout, the item is the whole output.
	if err := writeExport(stdout, out, buf.Bytes()); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(stderr, "exported item %s of trial %q to %s\n", qid, t.Label, out)
	return nil
}
