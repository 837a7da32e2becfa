package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
)

// Call states in model_calls.state.
const (
	callSent = "sent" // written before the request is sent
	callDone = "done" // the answer or error is recorded
)

// CallStarted writes a model call of item (trialID, questionID) to the
// call log before it is sent, marked sent, and returns its row id for
// CallFinished. A call whose row stays sent was in flight when the run
// stopped: the server may have answered (and billed) it, the run never
// saw the answer. The row joins the open batch (see BatchItems); the run
// flushes the batch before a request leaves for a server (the model
// cache's llm.WithBeforeSend hook), so that a call a server may bill is
// on disk before it is sent, while a call the cache answers costs no
// commit. A call that sends nothing is written once, complete, when it
// returns (CallDone).
func (s *Store) CallStarted(trialID, questionID string, c Call) (int64, error) {
	var id int64
	err := s.writeOne(func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state)
			VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0, '', ?)`, trialID, questionID, s.session, c.Role, c.N, callSent)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// CallFinished completes the row CallStarted wrote with the call's
// outcome: cached or not, tokens, latency, error and cache key.
func (s *Store) CallFinished(id int64, c Call) error {
	return s.writeOne(func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE model_calls SET cached = ?, prompt_tokens = ?, completion_tokens = ?, latency_ms = ?, error = ?, state = ?, cache_key = ?
			WHERE id = ?`, boolInt(c.Cached), c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Error, callDone, storedKey(c.CacheKey), id)
		return err
	})
}

// CallDone writes a model call of item (trialID, questionID) that sent
// no request (the model cache answered it, or a model in the process did)
// to the call log once it returned, complete: one row in the open batch,
// where a call to a server takes CallStarted and CallFinished.
func (s *Store) CallDone(trialID, questionID string, c Call) error {
	return s.writeOne(func(tx *sql.Tx) error {
		return insertCall(tx, trialID, questionID, s.session, c)
	})
}

// Dir returns the run directory.
func (s *Store) Dir() string { return s.dir }

// Session returns the number of this invocation's session.
func (s *Store) Session() int { return s.session }

// MetaRunOptions is the meta key of the options `run` was given that
// change results or resources (--limit, --workers, --shard, --models,
// --set, --backbone, ...): a JSON list with one string per session whose
// options differed from the session before (AddRunOptions).
const MetaRunOptions = "run_options"

// AddRunOptions appends one session's options (as the command line gave
// them, secrets redacted) to the run's list (MetaRunOptions) when they
// differ from the last session's; restart (--fresh) starts the list again.
// A list that does not decode is started again.
func (s *Store) AddRunOptions(opts string, secrets []string, restart bool) error {
	opts = llm.NewRedactor(secrets...).Redact(opts)
	var list []string
	if !restart {
		var raw string
		err := s.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, MetaRunOptions).Scan(&raw)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store: read meta %s: %w", MetaRunOptions, err)
		default:
			if json.Unmarshal([]byte(raw), &list) != nil {
				list = nil
			}
		}
	}
	if len(list) > 0 && list[len(list)-1] == opts {
		return nil
	}
	raw, err := json.Marshal(append(list, opts))
	if err != nil {
		return err
	}
	return s.SetMeta(map[string]string{MetaRunOptions: string(raw)})
}

// SetMeta records run-level facts (name, simulated, spec).
func (s *Store) SetMeta(kv map[string]string) error {
	return s.write(func(tx *sql.Tx) error { return putMeta(tx, kv) })
}

// putMeta sets the meta keys of kv in transaction tx.
func putMeta(tx *sql.Tx, kv map[string]string) error {
	for k, v := range kv {
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return err
		}
	}
	return nil
}

// PutTrials records the trials of a plan; trials already stored (same id)
// are kept. Any simulated trial marks the run simulated. It does not
// record them as the run's spec (MetaPlan): Run does, with PutPlan.
func (s *Store) PutTrials(trials []*spec.Trial) error {
	return s.write(func(tx *sql.Tx) error {
		if err := putTrials(tx, trials); err != nil {
			return err
		}
		for _, t := range trials {
			if t.Simulated() {
				_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('simulated', '1') ON CONFLICT(key) DO UPDATE SET value = '1'`)
				return err
			}
		}
		return nil
	})
}

// putTrials inserts trials; a trial already stored (same id, so the same
// identity) takes the new configuration: its label, plan position and
// the settings that are not part of its identity.
func putTrials(tx *sql.Tx, trials []*spec.Trial) error {
	for _, t := range trials {
		cfg, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("trial %s: %w", t.Label, err)
		}
		if _, err := tx.Exec(`INSERT INTO trials (id, label, runner, benchmark, seed, ord, simulated, config, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, ord = excluded.ord, config = excluded.config`,
			t.ID, t.Label, t.Runner, t.Benchmark.Name, t.Seed, t.Order, boolInt(t.Simulated()), string(cfg),
			time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}

// ErrAlreadyDone is returned by Commit for an item the store holds as done:
// a finished item is never redone.
var ErrAlreadyDone = errors.New("item already done")

// Commit stores one finished item and its model-call log in the open
// batch of writes (see BatchItems): a later commit of the batch, Flush or
// Close makes it durable, all at once. An error item replaces an earlier
// error record; a done item replaces an error record; nothing replaces a
// done item. The item's verdict, result and digest are encoded before its
// write is made (Store.locked), which then only runs the statements.
func (s *Store) Commit(it *Item) error {
	if it.Session == 0 {
		it.Session = s.session
	}
	e, err := encodeItem(it)
	if err != nil {
		return fmt.Errorf("store %s: item %s/%s: %w", s.dir, it.TrialID, it.QuestionID, err)
	}
	return s.writeItem(func(tx *sql.Tx) error { return insertItemRow(tx, it, e.verdict, e.result, e.digest, e.correct) })
}

// encodedItem is the stored form of an item's verdict, result and digest
// (insertItemRow).
type encodedItem struct {
	verdict, digest []byte
	result, correct any
}

// encodeItem returns the stored form of it's verdict, result and digest.
func encodeItem(it *Item) (encodedItem, error) {
	var e encodedItem
	var err error
	if it.Verdict != nil {
		if e.verdict, err = json.Marshal(it.Verdict); err != nil {
			return e, err
		}
		e.correct = boolInt(it.Verdict.Correct)
	}
	if it.Result != nil {
		if e.result, err = encodeResult(it.Result); err != nil {
			return e, err
		}
		if e.digest, err = json.Marshal(digestOf(it.Result)); err != nil {
			return e, err
		}
	}
	return e, nil
}

// insertItemRow writes item it with its verdict, result (stored form: see
// encodeResult) and digest already encoded.
//
// The result goes to table results, not to items.result (where stores
// written before kept it): a row of items stays a few hundred bytes, so
// that reading statuses and verdicts (SummarizeDir) never pages through
// the results, which SQLite stores inline or in the row's overflow pages.
func insertItemRow(tx *sql.Tx, it *Item, verdict []byte, result any, digest []byte, correct any) error {
	res, err := tx.Exec(`INSERT INTO items (trial_id, question_id, idx, status, correct, verdict, result, error_class, error, attempts, started, wall_ms, session, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(trial_id, question_id) DO UPDATE SET status = excluded.status, correct = excluded.correct,
			verdict = excluded.verdict, result = excluded.result, error_class = excluded.error_class, error = excluded.error,
			attempts = items.attempts + excluded.attempts, started = excluded.started, wall_ms = excluded.wall_ms, session = excluded.session,
			digest = excluded.digest
		WHERE items.status NOT IN ('done', 'failed')`,
		it.TrialID, it.QuestionID, it.Index, it.Status, correct, nullStr(verdict), nil, it.ErrorClass, it.Error,
		it.Attempts, it.Started.UTC().Format(time.RFC3339Nano), it.WallMS, it.Session, nullStr(digest))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("trial %s question %s: %w", it.TrialID, it.QuestionID, ErrAlreadyDone)
	}
	if result == nil {
		_, err = tx.Exec(`DELETE FROM results WHERE trial_id = ? AND question_id = ?`, it.TrialID, it.QuestionID)
	} else {
		// The row's checksum covers the item's whole stored outcome
		// (itemSum), verified before a run resumes.
		raw, _ := result.([]byte)
		sum := itemSum(it.TrialID, it.QuestionID, it.Status, correct, verdict, digest, raw)
		_, err = tx.Exec(`INSERT INTO results (trial_id, question_id, result, sum) VALUES (?, ?, ?, ?)
			ON CONFLICT(trial_id, question_id) DO UPDATE SET result = excluded.result, sum = excluded.sum`, it.TrialID, it.QuestionID, result, sum)
	}
	if err != nil {
		return err
	}
	for _, c := range it.Calls {
		if c.logged {
			continue
		}
		if err := insertCall(tx, it.TrialID, it.QuestionID, it.Session, c); err != nil {
			return err
		}
	}
	return nil
}

// insertCall writes one complete (or, when c.Sent, unanswered) call row.
func insertCall(tx *sql.Tx, trialID, questionID string, session int, c Call) error {
	state := callDone
	if c.Sent {
		state = callSent
	}
	_, err := tx.Exec(`INSERT INTO model_calls (trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, state, cache_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, trialID, questionID, session, c.Role, c.N, boolInt(c.Cached),
		c.PromptTokens, c.CompletionTokens, c.LatencyMS, c.Error, state, storedKey(c.CacheKey))
	return err
}

func nullStr(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ResumeState reads, in one pass over the items, what Run resumes from:
// the keys (ItemKey) of the finished items (done or failed), which resume
// never redoes, and the pending items left by an infrastructure error
// (StatusError), item key -> trial id, retried by the next run that
// selects them. A finished item whose stored outcome fails its checksum
// is made pending first (redoDamaged) and is errored, not done.
func (s *Store) ResumeState(ctx context.Context) (done map[string]bool, errored map[string]string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+outcomeColumns+` FROM items i
		LEFT JOIN results r ON r.trial_id = i.trial_id AND r.question_id = i.question_id
		WHERE i.status IN (?, ?, ?)`, StatusDone, StatusFailed, StatusError)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
	}
	done, errored = map[string]bool{}, map[string]string{}
	var bad [][2]string
	for rows.Next() {
		var o storedOutcome
		if err := o.scan(rows); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
		}
		k := ItemKey(o.trial, o.question)
		switch ok, _ := o.ok(); {
		case o.status == StatusError:
			errored[k] = o.trial
		case !ok:
			bad = append(bad, [2]string{o.trial, o.question})
			errored[k] = o.trial
		default:
			done[k] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", s.dir, err)
	}
	if err := s.redoDamaged(bad); err != nil {
		return nil, nil, err
	}
	return done, errored, nil
}

// Reset deletes every item and call of the run (for --fresh).
func (s *Store) Reset() error {
	return s.write(func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM items`, `DELETE FROM results`, `DELETE FROM model_calls`, `DELETE FROM trials`, `DELETE FROM meta`} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
}

func ItemKey(trialID, questionID string) string { return trialID + "\x00" + questionID }

// LimitPages caps the store's database at its present size plus extra
// pages (SQLite's max_page_count) for the rest of the session, on the
// store's one connection: a later write that needs more fails with
// SQLITE_FULL ("database or disk is full"), as on a full disk. Tests of
// how a run meets a full disk use it.
func (s *Store) LimitPages(extra int) error {
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		return err
	}
	_, err := s.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+extra))
	return err
}

// SessionCount returns how many sessions (invocations) the store has seen.
func (s *Store) SessionCount() (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n)
	return n, err
}
