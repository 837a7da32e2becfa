package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
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
func rejected(t *spec.Trial, q string, err error, secrets []string) error {
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
