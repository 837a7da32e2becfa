// Package export writes a trial's predictions in a benchmark's official
// prediction formats (Spider's SQL lines, BIRD's predict_dev.json) and as
// JSON lines, each a format that eval reads back.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/sqllex"
)

// Export formats, with the eval format that reads each back.
const (
	// SpiderSQL is Spider's prediction file: line i holds question i's
	// SQL on one line, then a TAB and the db_id (the official evaluator
	// keeps the text before the TAB: test-suite-sql-eval evaluation.py,
	// p_str = p[0]). eval reads it as sql-lines.
	SpiderSQL = "spider-sql"
	// BIRDJSON is BIRD's predict_dev.json: {"0": "SQL\t----- bird
	// -----\tdb_id", ...} in question order (the official scorer takes the
	// values in file order and opens the db_id's database). eval reads it
	// as bird-json.
	BIRDJSON = "bird-json"
	// JSONL is one {"question_id", "db_id", "sql"} object per line (plus
	// "status" for a question without a prediction); eval reads it as
	// jsonl.
	JSONL = "jsonl"
)

// Formats maps each export format (and eval's name of the Spider one) to
// the eval format that reads it.
var Formats = map[string]metrics.PredFormat{
	SpiderSQL:   metrics.FormatSQLLines,
	"sql-lines": metrics.FormatSQLLines,
	BIRDJSON:    metrics.FormatBIRDJSON,
	JSONL:       metrics.FormatJSONL,
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

// Pred is one question's line of an export.
type Pred struct {
	ID, DBID string
	Index    int
	// SQL is the scored prediction; Missing says why there is none
	// ("failed", "pending", "empty"), and then SQL is empty.
	SQL     string
	Missing string
}

// Stats counts what an export wrote.
type Stats struct {
	Failed, Pending, Empty int
	// Quoted lists the questions whose SQL held a line break or TAB inside
	// quoted text, which a one-line format cannot keep.
	Quoted []string
	// Redacted lists the questions whose SQL held a credential of the
	// run's models, or text that looks like an API key, written as
	// [REDACTED].
	Redacted []string
}

// Write writes preds to w in format (a key of Formats, "sql-lines" being
// SpiderSQL's other name), counting in st what the format changed.
func Write(w io.Writer, format string, preds []Pred, st *Stats) error {
	switch format {
	case SpiderSQL, "sql-lines":
		return writeSpiderSQL(w, preds, st)
	case BIRDJSON:
		return writeBIRDJSON(w, preds)
	case JSONL:
		return writeJSONL(w, preds)
	}
	return fmt.Errorf("unknown export format %q", format)
}

// writeSpiderSQL writes preds as Spider's SQL lines, each SQL put on one
// line (Flatten; a SQL with quoted line breaks or TABs is listed in
// st.Quoted) and NoPrediction for a question without one.
func writeSpiderSQL(w io.Writer, preds []Pred, st *Stats) error {
	bw := bufio.NewWriter(w)
	for _, p := range preds {
		sql, changed := Flatten(p.SQL)
		if changed {
			st.Quoted = append(st.Quoted, p.ID)
		}
		if sql == "" {
			if p.Missing == "" {
				// Only comments: nothing the evaluator can run.
				st.Empty++
			}
			sql = NoPrediction
		}
		fmt.Fprintf(bw, "%s\t%s\n", sql, p.DBID)
	}
	return bw.Flush()
}

// writeBIRDJSON writes preds as BIRD's predict_dev.json.
func writeBIRDJSON(w io.Writer, preds []Pred) error {
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

// writeJSONL writes preds as JSON lines.
func writeJSONL(w io.Writer, preds []Pred) error {
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

// Flatten puts sql on one line for a line format without changing what
// it means: line breaks and TABs outside quoted text become spaces, and a
// "--" comment, which would swallow the rest of the line, is dropped
// (up to its line break). Quoted text is '...', "...", `...` or [...],
// with doubled quotes as escapes (sqllex's tokens); /* */ comments are
// kept (their line breaks become spaces). A line break or TAB inside
// quoted text is part of a value or a name and cannot be kept on one line:
// it becomes a space too, and changed reports it. The result is trimmed.
func Flatten(sql string) (flat string, changed bool) {
	// sqllex ends a "--" comment at a line feed; a carriage return ends
	// it too here. Every other carriage return becomes a space as a line
	// feed does, so reading each as a line feed changes nothing else.
	s := strings.ReplaceAll(sql, "\r", "\n")
	toks, _ := sqllex.Lex(s, sqllex.Options{Comments: true})
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, t := range toks {
		b.WriteString(oneLine(s[at:t.Start])) // the white space before t
		at = t.End
		text := s[t.Start:t.End]
		switch {
		case t.Kind == sqllex.Comment && strings.HasPrefix(text, "--"):
			// Dropped: the line break after it becomes the space.
		case t.Kind == sqllex.Ident || t.Kind == sqllex.String:
			f := oneLine(text)
			changed = changed || f != text
			b.WriteString(f)
		default:
			b.WriteString(oneLine(text))
		}
	}
	b.WriteString(oneLine(s[at:]))
	return strings.TrimSpace(b.String()), changed
}

// oneLine is s with each line feed and TAB written as a space.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\t' {
			b[i] = ' '
		}
	}
	return string(b)
}
