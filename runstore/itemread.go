package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/t2sbench/t2sbench/runners"
)

// ItemReader reads a run directory's items one at a time, each with its
// result (SQL, candidates, trace, usage), and its call log by question:
// what a trace viewer needs without loading every trace of the run at
// once (ReadRun with results does). It opens the store read-only and takes
// no lock, so it works while a run is going.
type ItemReader struct {
	dir   string
	db    *sql.DB
	state string // SQL expression of a call's state
	key   string // SQL expression of a call's cache key
	// result is the SQL expression of an item's stored result; sum that
	// of its checksum (NULL in stores made before checksums).
	result, sum string
}

// OpenItemReader opens the store of run directory dir for reading items.
func OpenItemReader(dir string) (*ItemReader, error) {
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	r, err := newItemReader(dir, s.db)
	if err != nil {
		s.db.Close()
		return nil, err
	}
	return r, nil
}

// newItemReader is an ItemReader of the store db of run directory dir,
// its SQL expressions those of the store's format.
func newItemReader(dir string, db *sql.DB) (*ItemReader, error) {
	r := &ItemReader{dir: dir, db: db}
	var err error
	if r.state, err = callState(db, ""); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if r.result, err = resultColumn(db, "items"); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if r.sum, err = sumColumn(db, "items"); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if r.key, err = callCacheKey(db); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return r, nil
}

// Close closes the store.
func (r *ItemReader) Close() error { return r.db.Close() }

// Item returns item (trialID, questionID) with its verdict and result, but
// without its calls (see QuestionCalls); ok is false when the store has no
// such item. An item whose stored outcome fails its checksum is returned
// without verdict or result, with error class ClassChecksum: a run
// redoes it.
func (r *ItemReader) Item(ctx context.Context, trialID, questionID string) (it *Item, ok bool, err error) {
	digest := `NULL`
	if r.sum != `NULL` {
		digest = `digest`
	}
	row := r.db.QueryRowContext(ctx, `SELECT trial_id, question_id, idx, status, verdict, error_class, error, attempts, started, wall_ms, session, `+r.result+`,
		correct, `+digest+`, `+r.sum+` FROM items WHERE trial_id = ? AND question_id = ?`, trialID, questionID)
	it = &Item{}
	var verdict, started, ec, emsg sql.NullString
	var result, digestText []byte
	var wall sql.NullFloat64
	var correct, sum sql.NullInt64
	err = row.Scan(&it.TrialID, &it.QuestionID, &it.Index, &it.Status, &verdict, &ec, &emsg, &it.Attempts, &started, &wall, &it.Session, &result,
		&correct, &digestText, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store %s: item %s/%s: %w", r.dir, trialID, questionID, err)
	}
	it.ErrorClass, it.Error, it.WallMS = ec.String, emsg.String, wall.Float64
	var verdictText []byte
	if verdict.Valid {
		verdictText = []byte(verdict.String)
	}
	o := storedOutcome{trial: it.TrialID, question: it.QuestionID, status: it.Status, correct: correct, verdict: verdictText, digest: digestText, result: result, sum: sum}
	if ok, _ := o.ok(); !ok {
		it.ErrorClass, it.Error = ClassChecksum, "the stored result failed its checksum; rerun the run to redo the item"
		return it, true, nil
	}
	if started.Valid {
		it.Started, _ = time.Parse(time.RFC3339Nano, started.String)
	}
	if verdict.Valid {
		it.Verdict = &Verdict{}
		if err := json.Unmarshal([]byte(verdict.String), it.Verdict); err != nil {
			return nil, false, fmt.Errorf("store %s: item %s/%s verdict: %w", r.dir, trialID, questionID, err)
		}
	}
	if result != nil {
		it.Result = &runners.Result{}
		if err := decodeResult(result, it.Result); err != nil {
			return nil, false, fmt.Errorf("store %s: item %s/%s result: %w", r.dir, trialID, questionID, err)
		}
	}
	return it, true, nil
}

// QuestionCalls returns the call log of every item of question questionID,
// by trial id, in the order the calls were made. Calls of items the store
// does not hold (in flight when a session stopped) are included.
func (r *ItemReader) QuestionCalls(ctx context.Context, questionID string) (map[string][]Call, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT trial_id, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, `+r.state+`, `+r.key+`
		FROM model_calls WHERE question_id = ? ORDER BY id`, questionID)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", r.dir, err)
	}
	defer rows.Close()
	out := map[string][]Call{}
	for rows.Next() {
		var t string
		c, err := scanCall(rows, &t)
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", r.dir, err)
		}
		out[t] = append(out[t], c)
	}
	return out, rows.Err()
}

// EachCall calls fn for every row of the call log in the order the calls
// were made, streaming: one pass, one row in memory at a time.
func (r *ItemReader) EachCall(ctx context.Context, fn func(ItemCall) error) error {
	return r.eachCall(ctx, "", nil, fn)
}

// eachCall is EachCall over the rows of the call log that the SQL
// condition where (with args; "" for every row) selects.
func (r *ItemReader) eachCall(ctx context.Context, where string, args []any, fn func(ItemCall) error) error {
	if where != "" {
		where = " WHERE " + where
	}
	rows, err := r.db.QueryContext(ctx, `SELECT trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, `+r.state+`, `+r.key+`
		FROM model_calls`+where+` ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("store %s: %w", r.dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ic ItemCall
		var cached int
		var e, role sql.NullString
		var st string
		if err := rows.Scan(&ic.TrialID, &ic.QuestionID, &ic.Session, &role, &ic.N, &cached, &ic.PromptTokens, &ic.CompletionTokens, &ic.LatencyMS, &e, &st, &ic.CacheKey); err != nil {
			return fmt.Errorf("store %s: %w", r.dir, err)
		}
		ic.Role, ic.Cached, ic.Error, ic.Sent = role.String, cached == 1, e.String, st == callSent
		if err := fn(ic); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RoleCalls totals the call log of one trial and role.
type RoleCalls struct {
	Calls, Cached, Sent            int
	PromptTokens, CompletionTokens int
	LatencyMS                      float64
}

// CallUsage totals the call log by trial id and role, in one SQL
// aggregation (no call is held in memory).
func (r *ItemReader) CallUsage(ctx context.Context) (map[string]map[string]RoleCalls, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT trial_id, coalesce(role, ''), count(*), coalesce(sum(cached), 0), coalesce(sum(`+r.state+` = 'sent'), 0),
		`+tokenSums("")+`, coalesce(sum(latency_ms), 0)
		FROM model_calls GROUP BY trial_id, role ORDER BY trial_id, role`)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", r.dir, err)
	}
	defer rows.Close()
	out := map[string]map[string]RoleCalls{}
	for rows.Next() {
		var t, role string
		var c RoleCalls
		if err := rows.Scan(&t, &role, &c.Calls, &c.Cached, &c.Sent, &c.PromptTokens, &c.CompletionTokens, &c.LatencyMS); err != nil {
			return nil, fmt.Errorf("store %s: %w", r.dir, err)
		}
		if out[t] == nil {
			out[t] = map[string]RoleCalls{}
		}
		out[t][role] = c
	}
	return out, rows.Err()
}

func scanCall(rows *sql.Rows, trialID *string) (Call, error) {
	var c Call
	var cached int
	var e, role sql.NullString
	var st string
	if err := rows.Scan(trialID, &role, &c.N, &cached, &c.PromptTokens, &c.CompletionTokens, &c.LatencyMS, &e, &st, &c.CacheKey); err != nil {
		return c, err
	}
	c.PromptTokens, c.CompletionTokens = clampTokens(c.PromptTokens), clampTokens(c.CompletionTokens)
	c.Role, c.Cached, c.Error, c.Sent = role.String, cached == 1, e.String, st == callSent
	return c, nil
}
