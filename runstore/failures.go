package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// ErrRejected marks a run stopped because a model endpoint rejected a
// request in a way that every request would share: a failure class of
// outcome llm.OutcomeFatal, llm.ClassAuth (HTTP 401 or 403: the API key)
// or llm.ClassNotFound (HTTP 404: a model name or URL the server does not
// serve). Every item would fail the same way, so the run stops at once;
// the items already committed stay, the others are pending.
var ErrRejected = errors.New("model endpoint rejected the request")

// RejectedError is the error Run returns when an endpoint's answer has a
// class of outcome llm.OutcomeFatal: the class, the server's message, the
// spec's model it came from and what to change.
type RejectedError struct {
	// Trial and Question name the item whose request was rejected.
	Trial, Question string
	// Model is the spec's name of the model (models.<Model>), "" when it
	// cannot be told; Class the failure's class (Classify); Status the
	// HTTP status; Message the server's message, redacted.
	Model   string
	Class   string
	Status  int
	BaseURL string
	Served  string
	Message string
}

func (e *RejectedError) Error() string {
	what := "the model"
	if e.Model != "" {
		what = "model " + e.Model
	}
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	return fmt.Sprintf("%s (%s, model %q) answered HTTP %d (%s) on trial %s question %s: %s\n"+
		"  no retry can help, so the run stopped; the items already finished are kept.\n"+
		"  next: %s; then rerun the same command to resume",
		what, e.BaseURL, e.Served, e.Status, e.Class, e.Trial, e.Question, msg, e.hint())
}

// Is makes errors.Is(err, ErrRejected) true.
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }

func (e *RejectedError) hint() string {
	field := func(f string) string {
		if e.Model == "" {
			return fmt.Sprintf("the %s of the model served at %s", f, e.BaseURL)
		}
		return "models." + e.Model + "." + f
	}
	if e.Class == llm.ClassNotFound {
		return fmt.Sprintf("the server does not serve the model name %q at this URL: set %s to a name the server serves (GET %s/models lists them) and check that %s is the API root (it usually ends in /v1)",
			e.Served, field("model"), strings.TrimSuffix(e.BaseURL, "/"), field("base_url"))
	}
	return fmt.Sprintf("the server refuses the API key: check that %s names the environment variable holding this server's key, and that the variable is set in this shell", field("api_key_env"))
}

// rejected builds the RejectedError of a fatal runner error (FailureFatal)
// of trial t on question q, naming the spec's model whose endpoint
// answered.
func rejected(t *Trial, q string, err error, secrets []string) error {
	e := &RejectedError{Trial: t.Label, Question: q, Class: Classify(err)}
	var se *llm.StatusError
	if errors.As(err, &se) {
		e.Status, e.BaseURL, e.Served, e.Message = se.StatusCode, se.BaseURL, se.Model, redact(se.Message, secrets)
	} else {
		var sc interface{ StatusCode() int }
		if errors.As(err, &sc) {
			e.Status = sc.StatusCode()
		}
		e.Message = redact(err.Error(), secrets)
	}
	if e.Message == "" {
		e.Message = redact(err.Error(), secrets)
	}
	for name, m := range t.Models {
		if m.Model != e.Served && e.Served != "" {
			continue
		}
		urls := []string{m.BaseURL}
		for _, r := range m.Replicas {
			urls = append(urls, r.BaseURL)
		}
		for _, u := range urls {
			if e.BaseURL == "" || strings.TrimSuffix(u, "/") == strings.TrimSuffix(e.BaseURL, "/") {
				e.Model = name
			}
		}
	}
	return e
}

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

// ErrMissingData marks a benchmark whose data folder lacks the databases
// of most of its questions: scoring would leave them all missing_db and
// measure nothing, so run and eval refuse (MissingDataError).
var ErrMissingData = errors.New("most questions' databases are missing")

// MissingDataError says which data folder was searched, how many of the
// questions' databases are missing, and the likely fix.
type MissingDataError struct {
	Benchmark string
	// Dir is the data folder searched ("" for bundled data).
	Dir string
	// Questions counts the questions checked, Missing those whose database
	// is missing; DBs and MissingDBs the same for databases (MissingDBs
	// names them).
	Questions, Missing int
	DBs                int
	MissingDBs         []string
	// Fix is a folder where the databases of more questions are found
	// ("" when none was found), FixMissing the questions still missing
	// there; Use says how to point the command at a folder (DIR stands
	// for it), e.g. "pass --data DIR".
	Fix        string
	FixMissing int
	Use        string
}

func (e *MissingDataError) Error() string {
	where := "the bundled data"
	if e.Dir != "" {
		where = "the data folder " + e.Dir
	}
	names := strings.Join(e.MissingDBs, ", ")
	if len(e.MissingDBs) > 5 {
		names = strings.Join(e.MissingDBs[:5], ", ") + ", ..."
	}
	use := e.Use
	if use == "" {
		use = "pass --data DIR"
	}
	var b strings.Builder
	cover := "no question"
	if left := e.Questions - e.Missing; left == 1 {
		cover = "only the other question"
	} else if left > 1 {
		cover = fmt.Sprintf("only the other %d questions", left)
	}
	fmt.Fprintf(&b, "benchmark %s: the databases of %d of %d questions are missing in %s (%d of %d databases missing: %s); they would score missing_db and EX would cover %s, so the benchmark is not scored",
		e.Benchmark, e.Missing, e.Questions, where, len(e.MissingDBs), e.DBs, names, cover)
	switch {
	case e.Fix != "" && e.FixMissing == 0:
		fmt.Fprintf(&b, "\n  likely fix: %s (that folder holds the databases of all %d questions)", strings.ReplaceAll(use, "DIR", e.Fix), e.Questions)
	case e.Fix != "":
		fmt.Fprintf(&b, "\n  likely fix: %s (that folder holds the databases of %d of the %d questions)", strings.ReplaceAll(use, "DIR", e.Fix), e.Questions-e.FixMissing, e.Questions)
	default:
		fmt.Fprintf(&b, "\n  next: %s, with DIR the benchmark's root folder (the one that holds its databases), or fetch the missing databases (`t2sbench datasets list` says how)", use)
	}
	b.WriteString("\n  to score only the questions whose database is present, pass --allow-missing-db")
	return b.String()
}

// Is makes errors.Is(err, ErrMissingData) true.
func (e *MissingDataError) Is(target error) bool { return target == ErrMissingData }

// fixLevels is how many folders up from a benchmark's data folder
// CheckDatabases looks for the databases.
const fixLevels = 2

// CheckDatabases returns a *MissingDataError when the databases of more
// than half of b's questions are missing (datasets.Benchmark.MissingDBs),
// else nil. name is the benchmark's name as the user gave it. To find the
// likely fix it reopens the benchmark from the folders above b.Dir (up to
// fixLevels) with reopen and names the first whose engine has the
// databases of more questions; use says how to point the command at a
// folder ("pass --data DIR"). reopen may be nil (no fix is looked for).
func CheckDatabases(b *datasets.Benchmark, name string, reopen func(dir string) (*datasets.Benchmark, error), use string) error {
	missing := map[string]bool{}
	for _, id := range b.MissingDBs() {
		missing[id] = true
	}
	dbs := map[string]bool{}
	n := 0
	for _, ex := range b.Examples {
		dbs[ex.DBID] = true
		if missing[ex.DBID] {
			n++
		}
	}
	if len(b.Examples) == 0 || 2*n <= len(b.Examples) {
		return nil
	}
	e := &MissingDataError{Benchmark: name, Dir: b.Dir, Questions: len(b.Examples), Missing: n, DBs: len(dbs), Use: use}
	for id := range missing {
		e.MissingDBs = append(e.MissingDBs, id)
	}
	slices.Sort(e.MissingDBs)
	if reopen == nil || b.Dir == "" {
		return e
	}
	dir := filepath.Clean(b.Dir)
	for range fixLevels {
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		nb, err := reopen(dir)
		if err != nil || nb == nil {
			continue
		}
		// The same questions, against the other folder's databases.
		still := 0
		gone := (&datasets.Benchmark{Examples: b.Examples, Engine: nb.Engine}).MissingDBs()
		for _, ex := range b.Examples {
			if slices.Contains(gone, ex.DBID) {
				still++
			}
		}
		if nb.Engine != nil {
			nb.Engine.Close()
		}
		if still < n {
			e.Fix, e.FixMissing = dir, still
			break
		}
	}
	return e
}

// plural is n what: "1 item", "2 items".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
