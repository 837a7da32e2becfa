package runstore

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/t2sbench/t2sbench/internal/satint"
)

// SummarizeDir reads what the run summary of run directory dir needs and
// returns it with Summarize's rows: the run's meta, trials (without
// items), call-log totals, endpoint counters and failure classes. It
// streams: the items of one trial at a time, one row at a time, reading
// only statuses, verdicts and error classes; the calls are totalled by
// SQL. Memory grows with the attempted items (one outcome each, which the
// comparisons pair), not with the results, calls or traces stored. Its
// rows equal Summarize(ReadRun(dir, true)).
//
// The trials are those of the run's spec (RunData.Stale are the others).
func SummarizeDir(dir string) (*RunData, []TrialSummary, error) {
	return SummarizeDirWith(dir, ReadOptions{})
}

// SummarizeDirWith is SummarizeDir over the trials o selects.
func SummarizeDirWith(dir string, o ReadOptions) (*RunData, []TrialSummary, error) {
	return summarizeDir(dir, o, true)
}

// SummarizeDirTrials is SummarizeDir without the comparisons, for a
// reader that needs only the counts and EX of the trials.
func SummarizeDirTrials(dir string) (*RunData, []TrialSummary, error) {
	return summarizeDir(dir, ReadOptions{}, false)
}

// summarizeDir summarizes the trials o selects, comparing each trial's
// system with its baseline when compare is set.
func summarizeDir(dir string, o ReadOptions, compare bool) (*RunData, []TrialSummary, error) {
	s, err := openDB(dir, true)
	if err != nil {
		return nil, nil, err
	}
	defer s.db.Close()
	r, _, err := readRunHead(s.db, dir, o)
	if err != nil {
		return nil, nil, err
	}
	calls, tokens, err := trialCallTotals(s.db, &r.CallLog)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if r.BadCounts, err = readBadCounts(s.db, r.CallLog.Bad); err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	r.FailedByClass, r.ErroredByClass = map[string]int{}, map[string]int{}
	out := make([]TrialSummary, 0, len(r.Trials))
	outcomes := make([]map[string]bool, len(r.Trials))
	for i := range r.Trials {
		t := &r.Trials[i]
		a := NewOutcomeAcc(false)
		if err := eachTrialItem(s.db, t.ID, func(it *Item) {
			a.Add(it)
			switch it.Status {
			case StatusFailed:
				r.FailedByClass[it.ErrorClass]++
			case StatusError:
				r.ErroredByClass[it.ErrorClass]++
			}
		}); err != nil {
			return nil, nil, fmt.Errorf("store %s: %w", dir, err)
		}
		o := a.Outcomes(r.Totals[t.ID])
		out = append(out, trialSummary(t.Label, a, o, calls[t.ID], tokens[t.ID]))
		outcomes[i] = o.Correct
	}
	if compare {
		compareTrials(r.Trials, outcomes, out)
	}
	if r.Endpoints, err = readEndpointStats(s.db); err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return r, out, nil
}

// eachTrialItem calls fn with every item of trial trialID: its question,
// status, verdict and error class only (no result, no call). The Item is
// reused between calls.
func eachTrialItem(db *sql.DB, trialID string, fn func(*Item)) error {
	rows, err := db.Query(`SELECT question_id, idx, status, verdict, error_class FROM items WHERE trial_id = ?`, trialID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var it Item
	var v Verdict
	for rows.Next() {
		var verdict []byte
		var ec sql.NullString
		it = Item{TrialID: trialID}
		if err := rows.Scan(&it.QuestionID, &it.Index, &it.Status, &verdict, &ec); err != nil {
			return err
		}
		it.ErrorClass = ec.String
		if verdict != nil {
			v = Verdict{}
			if err := json.Unmarshal(verdict, &v); err != nil {
				return fmt.Errorf("item %s/%s verdict: %w", trialID, it.QuestionID, err)
			}
			it.Verdict = &v
		}
		fn(&it)
	}
	return rows.Err()
}

// trialCallTotals totals the whole call log into t and counts, by trial
// id, the calls of the items the store holds and their prompt plus
// completion tokens, in one SQL aggregation: one pass over model_calls.
func trialCallTotals(db *sql.DB, t *CallTotals) (calls, tokens map[string]int, err error) {
	state, err := callState(db, "c.")
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.Query(`SELECT c.trial_id, i.trial_id IS NOT NULL, count(*), coalesce(sum(c.cached), 0), coalesce(sum(` + state + ` = 'sent'), 0),
		` + tokenSums("c.") + `, coalesce(sum(` + badCount("c.") + `), 0)
		FROM model_calls c LEFT JOIN items i ON i.trial_id = c.trial_id AND i.question_id = c.question_id GROUP BY 1, 2`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	calls, tokens = map[string]int{}, map[string]int{}
	*t = CallTotals{}
	for rows.Next() {
		var id string
		var held bool
		var n, cached, sent, pt, ct, bad int
		if err := rows.Scan(&id, &held, &n, &cached, &sent, &pt, &ct, &bad); err != nil {
			return nil, nil, err
		}
		t.Calls += n
		t.Cached += cached
		t.Sent += sent
		t.Bad += bad
		t.PromptTokens = satint.Add(t.PromptTokens, pt)
		t.CompletionTokens = satint.Add(t.CompletionTokens, ct)
		if !held {
			t.Loose += n
			continue
		}
		calls[id] += n
		tokens[id] = satint.Add(tokens[id], satint.Add(pt, ct))
	}
	return calls, tokens, rows.Err()
}
