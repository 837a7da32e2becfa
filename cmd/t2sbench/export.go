package main

import (
	"bufio"
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
	"github.com/t2sbench/t2sbench/metrics"
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

// Export formats, with the eval format that reads each back.
const (
	// exportSpiderSQL is Spider's prediction file: line i holds question
	// i's SQL on one line, then a TAB and the db_id (the official
	// evaluator keeps the text before the TAB: test-suite-sql-eval
	// evaluation.py, p_str = p[0]). eval reads it as sql-lines.
	exportSpiderSQL = "spider-sql"
	// exportBIRDJSON is BIRD's predict_dev.json: {"0": "SQL\t----- bird
	// -----\tdb_id", ...} in question order (the official scorer takes the
	// values in file order and opens the db_id's database). eval reads it
	// as bird-json.
	exportBIRDJSON = "bird-json"
	// exportJSONL is one {"question_id", "db_id", "sql"} object per line
	// (plus "status" for a question without a prediction); eval reads it
	// as jsonl.
	exportJSONL = "jsonl"
)

// exportFormats maps each export format (and eval's name of the Spider
// one) to the eval format that reads it.
var exportFormats = map[string]metrics.PredFormat{
	exportSpiderSQL: metrics.FormatSQLLines,
	"sql-lines":     metrics.FormatSQLLines,
	exportBIRDJSON:  metrics.FormatBIRDJSON,
	exportJSONL:     metrics.FormatJSONL,
}

// NoPrediction is the SQL written for a question without a prediction (its
// item failed, is pending, or its SQL is empty) in the official formats.
// Those formats cannot leave it out or blank: a blank line ends a session
// in Spider's evaluator and misaligns the rest (test-suite-sql-eval
// evaluation.py l.540 asserts the lengths), and BIRD's scorer would run an
// empty string as SQL, which gives no rows and "matches" every gold with
// an empty result. This query fails on every database (no such table), so
// the official scripts and eval score it wrong (pred_error), as the run
// counted the question.
const NoPrediction = "SELECT * FROM t2sbench_no_prediction"

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
	if _, ok := exportFormats[*format]; !ok {
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
			st.redacted = append(st.redacted, preds[i].ID)
		}
	}

	var buf bytes.Buffer
	switch *format {
	case exportSpiderSQL, "sql-lines":
		err = writeSpiderSQL(&buf, preds, &st)
	case exportBIRDJSON:
		err = writeBIRDJSON(&buf, preds)
	case exportJSONL:
		err = writeExportJSONL(&buf, preds)
	}
	if err != nil {
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
	return st.report(stderr, *format)
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

// exportPred is one question's line of an export.
type exportPred struct {
	ID, DBID string
	Index    int
	// SQL is the scored prediction; Missing says why there is none
	// ("failed", "pending", "empty"), and then SQL is empty.
	SQL     string
	Missing string
}

// exportStats counts what an export wrote.
type exportStats struct {
	failed, pending, empty int
	// quoted lists the questions whose SQL held a line break or TAB inside
	// quoted text, which a one-line format cannot keep.
	quoted []string
	// redacted lists the questions whose SQL held a credential of the
	// run's models, or text that looks like an API key, written as
	// [REDACTED].
	redacted []string
}

// trialPredictions returns, in question order, each question's prediction:
// the SQL that was scored for a done item, nothing for a failed one (it was
// scored as an empty prediction) or a question without a finished item.
func trialPredictions(t *runstore.RunTrial, exs []datasets.Example) ([]exportPred, exportStats) {
	items := make(map[string]*runstore.Item, len(t.Items))
	for i := range t.Items {
		items[t.Items[i].QuestionID] = &t.Items[i]
	}
	var st exportStats
	out := make([]exportPred, len(exs))
	for i, ex := range exs {
		p := exportPred{ID: ex.ID, DBID: ex.DBID, Index: ex.Index}
		it := items[ex.ID]
		switch {
		case it == nil || (it.Status != runstore.StatusDone && it.Status != runstore.StatusFailed):
			p.Missing = "pending"
			st.pending++
		case it.Status == runstore.StatusFailed:
			p.Missing = "failed"
			st.failed++
		case it.Result == nil || strings.TrimSpace(it.Result.SQL) == "":
			p.Missing = "empty"
			st.empty++
		default:
			p.SQL = it.Result.SQL
		}
		out[i] = p
	}
	return out, st
}

// report says on w what stands in for missing predictions; pending items
// make the export incomplete (exit status 3).
func (st exportStats) report(w io.Writer, format string) error {
	if n := st.failed + st.pending + st.empty; n > 0 {
		what := strconv.Quote(NoPrediction)
		if format == exportJSONL {
			what = `an empty "sql" with a "status" field`
		}
		fmt.Fprintf(w, "%d questions without a prediction (%d failed, counted wrong; %d pending; %d with empty SQL) written as %s\n",
			n, st.failed, st.pending, st.empty, what)
	}
	if n := len(st.quoted); n > 0 {
		fmt.Fprintf(w, "warning: %d predictions hold a line break or TAB inside quoted text, written as a space (their results may change): %s\n",
			n, strings.Join(st.quoted, ", "))
	}
	if n := len(st.redacted); n > 0 {
		fmt.Fprintf(w, "warning: %d predictions hold an API key of the run's models or text that looks like one, written as %s (their results may change): %s\n",
			n, llm.Redacted, strings.Join(st.redacted, ", "))
	}
	if st.pending > 0 {
		return fmt.Errorf("%w: %d questions of the trial are pending (not finished); the export scores them wrong", errIncomplete, st.pending)
	}
	return nil
}

func writeSpiderSQL(w io.Writer, preds []exportPred, st *exportStats) error {
	bw := bufio.NewWriter(w)
	for _, p := range preds {
		sql, changed := flattenSQL(p.SQL)
		if changed {
			st.quoted = append(st.quoted, p.ID)
		}
		if sql == "" {
			if p.Missing == "" {
				// Only comments: nothing the evaluator can run.
				st.empty++
			}
			sql = NoPrediction
		}
		fmt.Fprintf(bw, "%s\t%s\n", sql, p.DBID)
	}
	return bw.Flush()
}

func writeBIRDJSON(w io.Writer, preds []exportPred) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n")
	for i, p := range preds {
		sql := p.SQL
		if p.Missing != "" {
			sql = NoPrediction
		}
		v, err := jsonString(sql + metrics.BIRDSeparator + p.DBID)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == len(preds)-1 {
			sep = "\n"
		}
		fmt.Fprintf(bw, "    %q: %s%s", strconv.Itoa(p.Index), v, sep)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeExportJSONL(w io.Writer, preds []exportPred) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, p := range preds {
		rec := struct {
			QuestionID string `json:"question_id"`
			DBID       string `json:"db_id"`
			SQL        string `json:"sql"`
			Status     string `json:"status,omitempty"`
		}{p.ID, p.DBID, p.SQL, p.Missing}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// jsonString encodes s as a JSON string without HTML escapes, so that the
// file reads as the SQL does.
func jsonString(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// flattenSQL puts sql on one line for a line format without changing what
// it means: line breaks and TABs outside quoted text become spaces, and a
// "--" comment, which would swallow the rest of the line, is dropped
// (up to its line break). Quoted text is '...', "...", `...` or [...],
// with doubled quotes as escapes; /* */ comments are kept (their line
// breaks become spaces). A line break or TAB inside quoted text is part of
// a value or a name and cannot be kept on one line: it becomes a space too,
// and changed reports it. The result is trimmed.
func flattenSQL(sql string) (flat string, changed bool) {
	var b strings.Builder
	b.Grow(len(sql))
	space := func(c byte) bool { return c == '\n' || c == '\r' || c == '\t' }
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			b.WriteByte(c)
			for i++; i < len(sql); i++ {
				d := sql[i]
				if d == end {
					if end != ']' && i+1 < len(sql) && sql[i+1] == end {
						b.WriteString(string([]byte{d, d}))
						i++
						continue
					}
					b.WriteByte(d)
					break
				}
				if space(d) {
					changed = true
					d = ' '
				}
				b.WriteByte(d)
			}
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
			b.WriteByte(' ')
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			b.WriteString("/*")
			for i += 2; i < len(sql); i++ {
				if sql[i] == '*' && i+1 < len(sql) && sql[i+1] == '/' {
					b.WriteString("*/")
					i++
					break
				}
				d := sql[i]
				if space(d) {
					d = ' '
				}
				b.WriteByte(d)
			}
		case space(c):
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String()), changed
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
