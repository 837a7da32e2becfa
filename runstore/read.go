package runstore

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// ReadMode selects how much of each item ReadRunMode decodes.
type ReadMode int

const (
	// ReadVerdicts reads each item's status, verdict, error, attempts and
	// timing: no result, no call.
	ReadVerdicts ReadMode = iota
	// ReadReport adds each item's final SQL, usage by role and trace
	// counters, as an Item.Result holding only those three (no candidate,
	// trace step or trace data), and the calls of the done and failed
	// items with a verdict whose result has no usage (the reports count
	// their usage from the call log): what report tables read, without
	// decoding any trace.
	ReadReport
	// ReadResults adds each item's whole result (SQL, candidates, trace,
	// usage), every call, and the calls of items the store does not hold
	// (RunData.LooseCalls).
	ReadResults
)

// ReadRun reads the trials of the run's spec (in plan order) and their
// items from run directory dir.
// withResults also decodes each item's result (SQL, candidates, trace,
// usage) and call log, which reports of traces need: ReadRunMode with
// ReadResults, else ReadVerdicts. Memory grows with every trace of the
// run; status, summaries, compare and reports use lighter reads
// (SummarizeDir, LoadRunSystems, ReadRunMode with ReadReport) and a
// viewer reads traces one item at a time (OpenItemReader).
func ReadRun(dir string, withResults bool) (*RunData, error) {
	if withResults {
		return ReadRunMode(dir, ReadResults)
	}
	return ReadRunMode(dir, ReadVerdicts)
}

// ReadRunMode reads the trials of the run's spec (in plan order) and
// their items from run directory dir, decoding what mode says.
func ReadRunMode(dir string, mode ReadMode) (*RunData, error) {
	return ReadRunModeWith(dir, mode, ReadOptions{})
}

// ReadRunModeWith is ReadRunMode reading the trials o selects.
func ReadRunModeWith(dir string, mode ReadMode, o ReadOptions) (*RunData, error) {
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	r, idx, err := readRunHead(s.db, dir, o)
	if err != nil {
		return nil, err
	}
	cols, err := itemColumns(s.db, mode)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	irows, err := s.db.Query(`SELECT ` + itemFields + cols + ` FROM items ORDER BY idx, question_id`)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	defer irows.Close()
	for irows.Next() {
		it, err := scanItemRow(irows, dir, mode)
		if err != nil {
			return nil, err
		}
		i, ok := idx[it.TrialID]
		if !ok {
			continue
		}
		r.Trials[i].Items = append(r.Trials[i].Items, it)
	}
	if err := irows.Err(); err != nil {
		return nil, err
	}
	irows.Close()
	r.countClasses()
	switch mode {
	case ReadResults:
		err = readCalls(s.db, r, idx, func(*Item) bool { return true }, true)
	case ReadReport:
		// Reports count the usage of the finished, scored items only.
		err = readCalls(s.db, r, idx, reportWantsCalls, false)
	}
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if _, _, err := trialCallTotals(s.db, &r.CallLog); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if err := readRunTail(s.db, r, r.CallLog.Bad); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return r, nil
}

// countClasses fills FailedByClass and ErroredByClass from the items.
func (r *RunData) countClasses() {
	r.FailedByClass, r.ErroredByClass = map[string]int{}, map[string]int{}
	for _, t := range r.Trials {
		for _, it := range t.Items {
			switch it.Status {
			case StatusFailed:
				r.FailedByClass[it.ErrorClass]++
			case StatusError:
				r.ErroredByClass[it.ErrorClass]++
			}
		}
	}
}

// readRunHead reads the meta and the trials of a run (no item), and
// returns the trials' positions by id. The trials are those of the run's
// spec, in plan order; the others are RunData.Stale, and with o.AllTrials
// they follow the spec's in RunData.Trials too (see splitStale).
func readRunHead(db *sql.DB, dir string, o ReadOptions) (*RunData, map[string]int, error) {
	r := &RunData{Dir: dir, Meta: map[string]string{}}
	rows, err := db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, nil, err
		}
		r.Meta[k] = v
	}
	rows.Close()
	r.Simulated = r.Meta["simulated"] == "1"
	r.Integrity = integrityOf(r.Meta)
	r.Totals = map[string]int{}
	for k, v := range r.Meta {
		if id, ok := strings.CutPrefix(k, "items:"); ok {
			n, _ := strconv.Atoi(v)
			r.Totals[id] = n
		}
	}
	stored, err := readTrials(db)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	// Identities are derived over every stored trial: they group the
	// trials of one entry, whichever spec they came from.
	all := make([]RunTrial, len(stored))
	for i := range stored {
		all[i] = RunTrial{Trial: stored[i].Trial}
	}
	DeriveIdentities(all)
	cur, stale, err := splitStale(r.Meta, stored)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", dir, err)
	}
	for _, i := range cur {
		r.Trials = append(r.Trials, all[i])
	}
	for _, i := range stale {
		r.Stale = append(r.Stale, all[i].Trial)
		if o.AllTrials {
			r.Trials = append(r.Trials, all[i])
		}
	}
	idx := map[string]int{}
	for i := range r.Trials {
		idx[r.Trials[i].ID] = i
	}
	return r, idx, nil
}

// readRunTail reads the lines of the bad call-log counts, of which there
// are bad, and the endpoint counters.
func readRunTail(db *sql.DB, r *RunData, bad int) error {
	var err error
	if r.BadCounts, err = readBadCounts(db, bad); err != nil {
		return err
	}
	r.Endpoints, err = readEndpointStats(db)
	return err
}

// callColumns returns the columns of model_calls that scanCallRow decodes,
// for db's layout (callState, callCacheKey).
func callColumns(db *sql.DB) (string, error) {
	state, err := callState(db, "")
	if err != nil {
		return "", err
	}
	ck, err := callCacheKey(db)
	if err != nil {
		return "", err
	}
	return `trial_id, question_id, session, role, n, cached, prompt_tokens, completion_tokens, latency_ms, error, ` + state + `, ` + ck, nil
}

// scanCallRow decodes one row of callColumns: the call's trial, question
// and session, and the call, its token counts clamped.
func scanCallRow(rows *sql.Rows) (trial, question string, session int, c Call, err error) {
	var st string
	var cached int
	var e sql.NullString
	if err := rows.Scan(&trial, &question, &session, &c.Role, &c.N, &cached, &c.PromptTokens, &c.CompletionTokens, &c.LatencyMS, &e, &st, &c.CacheKey); err != nil {
		return "", "", 0, Call{}, err
	}
	c.Cached, c.Error, c.Sent = cached == 1, e.String, st == callSent
	c.PromptTokens, c.CompletionTokens = clampTokens(c.PromptTokens), clampTokens(c.CompletionTokens)
	return trial, question, session, c, nil
}

// readCalls attaches the call log to the items want selects and, when
// loose, collects the other calls (want must then select every item, so
// that these are the calls of items the store does not hold).
func readCalls(db *sql.DB, r *RunData, idx map[string]int, want func(*Item) bool, loose bool) error {
	pos := map[string]int{}
	for _, t := range r.Trials {
		for j := range t.Items {
			if it := &t.Items[j]; want(it) {
				pos[ItemKey(it.TrialID, it.QuestionID)] = j
			}
		}
	}
	if len(pos) == 0 && !loose {
		return nil // no call wanted: no pass over the call log
	}
	cols, err := callColumns(db)
	if err != nil {
		return err
	}
	rows, err := db.Query(`SELECT ` + cols + ` FROM model_calls ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t, q, session, c, err := scanCallRow(rows)
		if err != nil {
			return err
		}
		i, ok := idx[t]
		j, ok2 := pos[ItemKey(t, q)]
		switch {
		case ok && ok2:
			r.Trials[i].Items[j].Calls = append(r.Trials[i].Items[j].Calls, c)
		case loose:
			r.LooseCalls = append(r.LooseCalls, ItemCall{TrialID: t, QuestionID: q, Session: session, Call: c})
		}
	}
	return rows.Err()
}
