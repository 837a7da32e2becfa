package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/runners"
)

// itemFields are the item columns every read mode scans (scanItemRow),
// followed by the two of itemColumns.
const itemFields = `trial_id, question_id, idx, status, verdict, error_class, error, attempts, started, wall_ms, session, `

// itemColumns returns the result and digest columns a read in mode selects
// after itemFields.
func itemColumns(db *sql.DB, mode ReadMode) (string, error) {
	switch mode {
	case ReadResults:
		cols, err := resultColumn(db, "items")
		if err != nil {
			return "", err
		}
		return cols + `, NULL`, nil
	case ReadReport:
		hasDigest, err := hasColumn(db, "items", "digest")
		if err != nil {
			return "", err
		}
		if hasDigest {
			return `CASE WHEN digest IS NULL THEN result END, digest`, nil
		}
		return `result, NULL`, nil
	}
	return `NULL, NULL`, nil
}

// scanItemRow decodes one row of itemFields and itemColumns as a read in
// mode does; dir names the store in errors.
func scanItemRow(rows *sql.Rows, dir string, mode ReadMode) (Item, error) {
	var it Item
	var verdict, started sql.NullString
	var result []byte
	var digest sql.NullString
	var ec, emsg sql.NullString
	var wall sql.NullFloat64
	if err := rows.Scan(&it.TrialID, &it.QuestionID, &it.Index, &it.Status, &verdict, &ec, &emsg, &it.Attempts, &started, &wall, &it.Session, &result, &digest); err != nil {
		return it, err
	}
	it.ErrorClass, it.Error, it.WallMS = ec.String, emsg.String, wall.Float64
	if started.Valid {
		it.Started, _ = time.Parse(time.RFC3339Nano, started.String)
	}
	if verdict.Valid {
		it.Verdict = &Verdict{}
		if err := json.Unmarshal([]byte(verdict.String), it.Verdict); err != nil {
			return it, fmt.Errorf("store %s: item %s/%s verdict: %w", dir, it.TrialID, it.QuestionID, err)
		}
	}
	switch {
	case digest.Valid:
		var d resultDigest
		if err := json.Unmarshal([]byte(digest.String), &d); err != nil {
			return it, fmt.Errorf("store %s: item %s/%s digest: %w", dir, it.TrialID, it.QuestionID, err)
		}
		it.Result = d.result()
	case result != nil && mode == ReadReport:
		d, err := digestFromResult(result)
		if err != nil {
			return it, fmt.Errorf("store %s: item %s/%s result: %w", dir, it.TrialID, it.QuestionID, err)
		}
		it.Result = d.result()
	case result != nil:
		it.Result = &runners.Result{}
		if err := decodeResult(result, it.Result); err != nil {
			return it, fmt.Errorf("store %s: item %s/%s result: %w", dir, it.TrialID, it.QuestionID, err)
		}
	}
	return it, nil
}

// reportWantsCalls reports whether a read in ReadReport mode attaches the
// call log to it: a done or failed item with a verdict whose result has
// no usage (reports count the usage of the finished, scored items only,
// from the call log when the result has none).
func reportWantsCalls(it *Item) bool {
	return (it.Status == StatusDone || it.Status == StatusFailed) && it.Verdict != nil && (it.Result == nil || len(it.Result.Usage) == 0)
}

// ReadRunStream reads what ReadRunModeWith(dir, ReadReport, o) reads
// besides the items and the call log's totals: the run's meta, trials,
// endpoint counters, bad-count lines and failure classes; CallLog is
// left zero (the report shows no call-log total; SummarizeDir totals
// them). Its trials hold no item; EachItem streams each trial's items
// from the store, which stays open until Close. Memory grows with the
// items of one trial, not with the items stored.
func ReadRunStream(dir string, o ReadOptions) (*RunData, error) {
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	r, idx, err := readRunHead(s.db, dir, o)
	if err != nil {
		s.db.Close()
		return nil, err // it names the store
	}
	st := &itemStream{db: s.db}
	var bad int
	err = s.db.QueryRow(`SELECT count(*) FROM model_calls WHERE ` + badCount("")).Scan(&bad)
	if err == nil {
		err = readRunTail(s.db, r, bad)
	}
	if err == nil {
		err = r.readClasses(s.db, idx)
	}
	if err == nil {
		st.items, err = itemColumns(s.db, ReadReport)
	}
	if err == nil {
		st.calls, err = callColumns(s.db)
	}
	if err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	r.stream = st
	return r, nil
}

// itemStream is the open store of a run read by ReadRunStream, with the
// columns its layout reads items (itemColumns) and calls (callColumns)
// by, which cannot change while it is open; db is nil once it is closed.
type itemStream struct {
	db           *sql.DB
	items, calls string
}

// readClasses fills FailedByClass and ErroredByClass in SQL, as
// countClasses does from the items, over the trials of idx.
func (r *RunData) readClasses(db *sql.DB, idx map[string]int) error {
	r.FailedByClass, r.ErroredByClass = map[string]int{}, map[string]int{}
	rows, err := db.Query(`SELECT trial_id, status, coalesce(error_class, ''), count(*) FROM items WHERE status IN (?, ?) GROUP BY trial_id, status, error_class`, StatusFailed, StatusError)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var t, st, class string
		var n int
		if err := rows.Scan(&t, &st, &class, &n); err != nil {
			return err
		}
		if _, ok := idx[t]; !ok {
			continue
		}
		if st == StatusFailed {
			r.FailedByClass[class] += n
		} else {
			r.ErroredByClass[class] += n
		}
	}
	return rows.Err()
}

// open returns an error naming what when the streamed run r was closed.
func (r *RunData) open(what string) error {
	if r.stream.db == nil {
		return fmt.Errorf("store %s: %s read after Close", r.Dir, what)
	}
	return nil
}

// Close closes the store a run read by ReadRunStream keeps open; it does
// nothing for a run read whole.
func (r *RunData) Close() error {
	if r.stream == nil || r.stream.db == nil {
		return nil
	}
	err := r.stream.db.Close()
	r.stream.db = nil
	return err
}

// EachItem calls fn with every item of trial t of the run, in question
// order (index, then question id), stopping at fn's first error. A run
// read by ReadRunStream reads them from its store one trial at a time, as
// ReadRunMode with ReadReport decodes them (the Item is not kept after fn
// returns), and fails once Close closed it; a run read whole gives
// t.Items.
func (r *RunData) EachItem(t *RunTrial, fn func(*Item) error) error {
	if r.stream == nil {
		return eachOf(t.Items, fn)
	}
	items, err := r.streamedItems(t)
	if err != nil {
		return err
	}
	return eachOf(items, fn)
}

// eachOf calls fn with every item of items in turn, stopping at fn's
// first error.
func eachOf(items []Item, fn func(*Item) error) error {
	for i := range items {
		if err := fn(&items[i]); err != nil {
			return err
		}
	}
	return nil
}

// trialItems reads the items of one trial as ReadRunMode with ReadReport
// does, in question order, with the calls reportWantsCalls selects. Its
// errors name the store.
func (r *RunData) trialItems(trialID string) ([]Item, error) {
	db := r.stream.db
	fail := func(err error) ([]Item, error) { return nil, fmt.Errorf("store %s: %w", r.Dir, err) }
	rows, err := db.Query(`SELECT `+itemFields+r.stream.items+` FROM items WHERE trial_id = ? ORDER BY idx, question_id`, trialID)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	var items []Item
	pos := map[string]int{}
	for rows.Next() {
		it, err := scanItemRow(rows, r.Dir, ReadReport)
		if err != nil {
			return nil, err // it names the store
		}
		items = append(items, it)
		if reportWantsCalls(&it) {
			pos[it.QuestionID] = len(items) - 1
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	rows.Close()
	if len(pos) == 0 {
		return items, nil
	}
	crows, err := db.Query(`SELECT `+r.stream.calls+` FROM model_calls WHERE trial_id = ? ORDER BY id`, trialID)
	if err != nil {
		return fail(err)
	}
	defer crows.Close()
	for crows.Next() {
		_, q, _, c, err := scanCallRow(crows)
		if err != nil {
			return fail(err)
		}
		if j, ok := pos[q]; ok {
			items[j].Calls = append(items[j].Calls, c)
		}
	}
	if err := crows.Err(); err != nil {
		return fail(err)
	}
	return items, nil
}

// EachVerdict calls fn with every item of trial t of the run as
// ReadRunMode with ReadVerdicts decodes it (status, verdict, error,
// attempts and timing: no result, no call), in question order (index,
// then question id), stopping at fn's first error. A run read by
// ReadRunStream reads them from its store one row at a time (the Item is
// not kept after fn returns); a run read whole gives t.Items.
func (r *RunData) EachVerdict(t *RunTrial, fn func(*Item) error) error {
	if r.stream == nil {
		return eachOf(t.Items, fn)
	}
	if err := r.open("verdicts of trial " + t.ID); err != nil {
		return err
	}
	cols, err := itemColumns(r.stream.db, ReadVerdicts)
	if err != nil {
		return fmt.Errorf("store %s: %w", r.Dir, err)
	}
	rows, err := r.stream.db.Query(`SELECT `+itemFields+cols+` FROM items WHERE trial_id = ? ORDER BY idx, question_id`, t.ID)
	if err != nil {
		return fmt.Errorf("store %s: %w", r.Dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := scanItemRow(rows, r.Dir, ReadVerdicts)
		if err != nil {
			return err
		}
		if err := fn(&it); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store %s: %w", r.Dir, err)
	}
	return nil
}

// ReadCallLog fills CallLog, the call log's totals, as ReadRunMode does,
// for a run read by ReadRunStream (which leaves CallLog zero, and has
// read BadCounts and Endpoints already); a run read whole has them.
func (r *RunData) ReadCallLog() error {
	if r.stream == nil {
		return nil
	}
	if err := r.open("call log"); err != nil {
		return err
	}
	if _, _, err := trialCallTotals(r.stream.db, &r.CallLog); err != nil {
		return fmt.Errorf("store %s: %w", r.Dir, err)
	}
	return nil
}

// LoadItems reads the items of trial t into t.Items as ReadRunMode with
// ReadReport reads them (EachItem), for a reader that needs one trial of
// a run read by ReadRunStream whole: memory grows with that trial's items
// only.
func (r *RunData) LoadItems(t *RunTrial) error {
	if r.stream == nil {
		return nil
	}
	items, err := r.streamedItems(t)
	if err != nil {
		return err
	}
	t.Items = items
	return nil
}

// streamedItems reads the items of trial t of a run read by ReadRunStream
// (trialItems), or fails once Close closed it.
func (r *RunData) streamedItems(t *RunTrial) ([]Item, error) {
	if err := r.open("items of trial " + t.ID); err != nil {
		return nil, err
	}
	return r.trialItems(t.ID)
}

// Summary returns the summary row (Summarize's, without the comparison:
// Baseline "" and P -1, and no call counted) of a trial labelled label
// whose items were added, with o its Outcomes.
func (a *OutcomeAcc) Summary(label string, o Outcomes) TrialSummary {
	return trialSummary(label, a, o, 0, 0)
}

// EachCallOf is EachCall over the calls of the questions ids only: one
// pass over the call log, filtered in SQL, for a reader that takes the
// log a few questions at a time.
func (r *ItemReader) EachCallOf(ctx context.Context, ids []string, fn func(ItemCall) error) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return r.eachCall(ctx, `question_id IN (?`+strings.Repeat(`, ?`, len(ids)-1)+`)`, args, fn)
}
