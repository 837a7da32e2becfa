package runstore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// ClassRunner is the class of a runner's own error: one that is neither a
// model call's nor an infrastructure failure llm.ErrorClass names. Its
// handling is llm.OutcomeUnknown's.
const ClassRunner = "runner"

// ClassError is the first error of one failure class of a run: the items
// of status Status (StatusFailed or StatusError) whose error has class
// Class, how many, and the error of the first of them.
type ClassError struct {
	Status, Class   string
	Count           int
	Trial, Question string
	Error           string
}

// FirstErrors reads, from the store of run directory dir, the first error
// of each failure class (by status, then class), in the order the classes
// are named. Only the items' error columns are read, no result is
// decoded.
func FirstErrors(dir string) ([]ClassError, error) {
	st, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer st.db.Close()
	db, path := st.db, filepath.Join(dir, StoreFile)
	rows, err := db.Query(`SELECT status, class, n, label, question_id, error FROM (
		SELECT i.status, COALESCE(i.error_class, '') AS class, COALESCE(i.error, '') AS error, i.question_id,
			COALESCE(t.label, i.trial_id) AS label,
			COUNT(*) OVER (PARTITION BY i.status, COALESCE(i.error_class, '')) AS n,
			ROW_NUMBER() OVER (PARTITION BY i.status, COALESCE(i.error_class, '') ORDER BY i.session, i.started, t.ord, i.idx) AS rn
		FROM items i LEFT JOIN trials t ON t.id = i.trial_id
		WHERE i.status IN (?, ?))
		WHERE rn = 1 ORDER BY status DESC, class`, StatusFailed, StatusError)
	if err != nil {
		return nil, fmt.Errorf("store %s: first errors: %w", path, err)
	}
	defer rows.Close()
	var out []ClassError
	for rows.Next() {
		var c ClassError
		if err := rows.Scan(&c.Status, &c.Class, &c.Count, &c.Trial, &c.Question, &c.Error); err != nil {
			return nil, fmt.Errorf("store %s: first errors: %w", path, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store %s: first errors: %w", path, err)
	}
	return out, nil
}

// classHints says what to do next about each failure class: the classes
// of llm.ErrorClass (llm.Classes) and ClassRunner. The http_<code>
// classes share one (ClassHint).
var classHints = map[string]string{
	llm.ClassAuth:        "the server refuses the API key: check the model's api_key_env and that the variable is set",
	llm.ClassNotFound:    "the server does not serve this model name or URL: check the model's model and base_url (GET <base_url>/models lists the served names)",
	llm.ClassBadRequest:  "the server refused the request as invalid (often a prompt over the model's context length or an unsupported parameter): read the message; lower max_tokens or the runner's budget, or use a model with a longer context",
	llm.ClassRateLimited: "the server's rate limit: lower workers, or set the model's rpm/tpm to the server's limits",
	llm.ClassServerError: "the server failed (HTTP 5xx): check its log and load; lower workers or the model's concurrency",
	llm.ClassNetwork:     "the server could not be reached or dropped the connection: check base_url and that the server is up",
	llm.ClassTimeout:     "requests ran past their time limit (the model's timeout, or the server's: HTTP 408): raise the model's timeout, or lower workers",
	llm.ClassDeadline:    "the item ran past its time limit: raise the spec's timeout or lower the runner's budget",
	llm.ClassMalformed:   "the server's answer is not OpenAI-compatible JSON, or is over a size cap (the error says which): check that base_url is the API root (it usually ends in /v1), or raise the model's max_response_bytes or max_choice_bytes",
	llm.ClassCanceled:    "the call was canceled before it finished",
	ClassRunner:          "the runner failed on this question: read the message; `t2sbench view` shows the item's trace",
}

// ClassHint is what to do next about a failure of class class (the
// summary's first errors and `t2sbench help errors` print it); "" when
// there is no advice.
func ClassHint(class string) string {
	if h, ok := classHints[class]; ok {
		return h
	}
	if strings.HasPrefix(class, llm.ClassHTTPPrefix) {
		return "the server answered an unexpected HTTP status: read the message"
	}
	return ""
}

// maxErrorText bounds the error text printed per class.
const maxErrorText = 400

// ParseFailure is the count of one parse-failure counter
// (runners.ParseFailedPrefix) of one trial: Count answers did not parse,
// in Items items.
type ParseFailure struct {
	Trial string
	// Counter is the counter's name less the prefix: "<role>.<action>".
	Counter string
	Count   float64
	Items   int
}

// ParseFailures reads, from the store of run directory dir, the
// parse-failure counters of every trial, in plan order. SQLite reads the
// counters out of each item's digest (or, in stores of the older layout,
// its result) with json_each; no result is decoded here.
func ParseFailures(dir string) ([]ParseFailure, error) {
	st, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer st.db.Close()
	db, path := st.db, filepath.Join(dir, StoreFile)
	counters, err := itemCountersSQL(db, "i")
	if err != nil {
		return nil, fmt.Errorf("store %s: parse failures: %w", path, err)
	}
	rows, err := db.Query(`SELECT COALESCE(t.label, i.trial_id), j.key, SUM(j.value), COUNT(*)
		FROM items i LEFT JOIN trials t ON t.id = i.trial_id, json_each(`+counters+`) AS j
		WHERE substr(j.key, 1, ?) = ? AND j.value > 0
		GROUP BY i.trial_id, j.key ORDER BY MIN(t.ord), i.trial_id, j.key`, len(runners.ParseFailedPrefix), runners.ParseFailedPrefix)
	if err != nil {
		return nil, fmt.Errorf("store %s: parse failures: %w", path, err)
	}
	defer rows.Close()
	var out []ParseFailure
	for rows.Next() {
		var p ParseFailure
		if err := rows.Scan(&p.Trial, &p.Counter, &p.Count, &p.Items); err != nil {
			return nil, fmt.Errorf("store %s: parse failures: %w", path, err)
		}
		p.Counter = strings.TrimPrefix(p.Counter, runners.ParseFailedPrefix)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store %s: parse failures: %w", path, err)
	}
	return out, nil
}

// writeFailures prints, at the end of the run summary, the parse failures
// of structured answers per trial and the first error of each failure
// class. A RunData without a store (built in memory) prints nothing.
func writeFailures(w io.Writer, r *RunData) {
	if _, err := os.Stat(filepath.Join(r.Dir, StoreFile)); err != nil {
		return
	}
	writeParseFailures(w, r)
	writeFirstErrors(w, r)
}

// writeParseFailures prints one line per trial with parse failures:
// "<role>.<action> N (in K items)" for each counter.
func writeParseFailures(w io.Writer, r *RunData) {
	pfs, err := ParseFailures(r.Dir)
	if err != nil {
		fmt.Fprintf(w, "parse failures: %v\n", err)
		return
	}
	if len(pfs) == 0 {
		return
	}
	fmt.Fprintln(w, "structured answers that did not parse, by trial (role.action: answers, in how many items; the method went on without them):")
	var line []string
	flush := func(trial string) {
		if len(line) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", trial, strings.Join(line, ", "))
			line = line[:0]
		}
	}
	for i, p := range pfs {
		if i > 0 && p.Trial != pfs[i-1].Trial {
			flush(pfs[i-1].Trial)
		}
		line = append(line, fmt.Sprintf("%s %g (in %s)", p.Counter, p.Count, plural(p.Items, "item")))
	}
	flush(pfs[len(pfs)-1].Trial)
}

// writeFirstErrors prints, under the summary's counts of failed and
// pending items, the first error of each class with what to do next. The
// error texts are redacted for display (RunData.Redactor): the secrets of
// the run's models in this environment and anything that looks like an
// API key.
func writeFirstErrors(w io.Writer, r *RunData) {
	classes, err := FirstErrors(r.Dir)
	if err != nil {
		fmt.Fprintf(w, "first error of each class: %v\n", err)
		return
	}
	if len(classes) == 0 {
		return
	}
	red := r.Redactor()
	fmt.Fprintln(w, "first error of each class:")
	for _, c := range classes {
		kind := "failed"
		if c.Status == StatusError {
			kind = "pending"
		}
		class := c.Class
		if class == "" {
			class = "(unclassified)"
		}
		text := red.Redact(c.Error)
		text = strings.Join(strings.Fields(text), " ")
		if rs := []rune(text); len(rs) > maxErrorText {
			text = string(rs[:maxErrorText]) + "..."
		}
		fmt.Fprintf(w, "  %s %s (%s; first: trial %s question %s): %s\n", kind, class, plural(c.Count, "item"), c.Trial, c.Question, text)
		next := ClassHint(c.Class)
		switch {
		case c.Status == StatusError && next != "":
			next += "; then rerun the same command to retry them"
		case c.Status == StatusError:
			next = "rerun the same command to retry them"
		case next != "":
			next += "; failed items count as wrong and are never retried (`run --fresh` reruns everything)"
		}
		if next != "" {
			fmt.Fprintf(w, "    next: %s\n", next)
		}
	}
}

// plural is n what: "1 item", "2 items".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
