package runstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
)

// RunData is a run directory's content, as reports and compare read it.
type RunData struct {
	Dir  string
	Meta map[string]string
	// Simulated is true when any trial used the sim backend; reports then
	// title the run "simulated model".
	Simulated bool
	// Trials are the trials of the run's spec, in plan order (read with
	// ReadOptions.AllTrials: then the stale ones too).
	Trials []RunTrial
	// Stale are the trials the store holds that are not in the run's
	// spec: only a store written before a run directory held one spec
	// has any (see splitStale). StaleNote describes them.
	Stale []spec.Trial
	// Totals is the number of items each trial (by id) had in its last
	// run, for pending counts.
	Totals map[string]int
	// CallLog counts every model call of the call log, those of items
	// never committed included.
	CallLog CallTotals
	// LooseCalls are, when read withResults, the calls of items the store
	// does not hold (in flight or canceled when a session stopped); Merge
	// copies them.
	LooseCalls []ItemCall
	// FailedByClass and ErroredByClass count the failed items
	// (StatusFailed) and those left by an infrastructure error
	// (StatusError) by error class, over every trial.
	FailedByClass, ErroredByClass map[string]int
	// Endpoints are the per-endpoint counters of the models served by
	// several endpoints (ModelSpec.Replicas), summed over sessions and
	// merged shards, sorted by model and endpoint.
	Endpoints []EndpointStat
	// Integrity counts the damaged entries of the run's stores that were
	// replaced (model samples asked again, golds executed again, items
	// redone), from the meta.
	Integrity Integrity
	// BadCounts name the call-log rows whose token counts are outside [0,
	// llm.MaxTokenCount], each with its item (a store written before
	// servers' counts were validated). The run's totals count them
	// clamped; status, report, view and run print these lines.
	BadCounts []string
	// stream, for a run read by ReadRunStream, whose trials hold no
	// item, is its open store: EachItem reads them from it.
	stream *itemStream
}

// EndpointStat counts one endpoint's traffic for one model of a run (see
// llm.EndpointStats): attempts sent (Calls), failed (Errors), ejections,
// and latency (sum and maximum, over answered attempts) and tokens of the
// answered attempts.
type EndpointStat struct {
	Model            string  `json:"model"`
	Endpoint         string  `json:"endpoint"`
	Calls            int64   `json:"calls"`
	Errors           int64   `json:"errors"`
	Ejections        int64   `json:"ejections"`
	LatencyMSSum     float64 `json:"latency_ms_sum"`
	LatencyMSMax     float64 `json:"latency_ms_max"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
}

// MeanLatencyMS is the mean latency of the answered attempts (0: none).
func (e EndpointStat) MeanLatencyMS() float64 {
	if ok := e.Calls - e.Errors; ok > 0 {
		return e.LatencyMSSum / float64(ok)
	}
	return 0
}

// AddEndpointStats adds counters to the store's endpoint_stats: counts and
// sums add up, maxima take the larger, so that a resumed run, periodic
// writes of the increments and merged shards all total correctly. They are
// committed (with the open batch) before it returns, so that a kill loses
// none of the calls they count.
func (s *Store) AddEndpointStats(stats []EndpointStat) error {
	if len(stats) == 0 {
		return nil
	}
	return s.write(func(tx *sql.Tx) error { return addEndpointStats(tx, stats) })
}

func addEndpointStats(tx *sql.Tx, stats []EndpointStat) error {
	for _, e := range stats {
		if _, err := tx.Exec(`INSERT INTO endpoint_stats (model, endpoint, calls, errors, ejections, latency_ms_sum, latency_ms_max, prompt_tokens, completion_tokens)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(model, endpoint) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
			ejections = ejections + excluded.ejections, latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum,
			latency_ms_max = max(latency_ms_max, excluded.latency_ms_max), prompt_tokens = `+satSQL("prompt_tokens", "excluded.prompt_tokens")+`,
			completion_tokens = `+satSQL("completion_tokens", "excluded.completion_tokens")+``,
			e.Model, e.Endpoint, e.Calls, e.Errors, e.Ejections, e.LatencyMSSum, e.LatencyMSMax, e.PromptTokens, e.CompletionTokens); err != nil {
			return fmt.Errorf("endpoint_stats: %w", err)
		}
	}
	return nil
}

// readEndpointStats reads endpoint_stats (absent from stores made before
// it existed: none).
func readEndpointStats(db *sql.DB) ([]EndpointStat, error) {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'endpoint_stats'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := db.Query(`SELECT model, endpoint, calls, errors, ejections, latency_ms_sum, latency_ms_max, prompt_tokens, completion_tokens
		FROM endpoint_stats ORDER BY model, endpoint`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EndpointStat
	for rows.Next() {
		var e EndpointStat
		if err := rows.Scan(&e.Model, &e.Endpoint, &e.Calls, &e.Errors, &e.Ejections, &e.LatencyMSSum, &e.LatencyMSMax, &e.PromptTokens, &e.CompletionTokens); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// CallTotals counts the rows of a run's call log. Every call is written
// before it is sent, so Calls is what the servers were asked, including
// calls of items that were never committed (Loose) and calls whose answer
// never came back because the run was killed (Sent, their tokens unknown
// and counted as 0).
type CallTotals struct {
	Calls, Cached, Sent, Loose     int
	PromptTokens, CompletionTokens int
	// Bad is the number of calls whose token counts are outside [0,
	// llm.MaxTokenCount] (counted clamped; RunData.BadCounts names them).
	Bad int
}

// ItemCall is a call with the item it belongs to.
type ItemCall struct {
	TrialID, QuestionID string
	Session             int
	Call
}

// MetaPrices is the meta key holding the spec's price table (JSON of
// model name -> Price, USD per million tokens).
const MetaPrices = "prices"

// MetaSpec is the meta key holding the text of the spec file the last
// `run` read (SetSpecText); MetaCacheDir the absolute cache directory the
// run's clients used (its model cache is ModelCacheFile inside).
const (
	MetaSpec     = "spec"
	MetaCacheDir = "cache_dir"
)

// SetSpecText records the spec file's text in the meta (MetaSpec), each
// of secrets that could be a secret (llm.IsSecret: at least
// llm.MinSecretLen characters, not a placeholder) replaced by
// "[REDACTED]".
func (s *Store) SetSpecText(text string, secrets []string) error {
	return s.SetMeta(map[string]string{MetaSpec: llm.NewRedactor(secrets...).Redact(text)})
}

// Name is the run's name: the spec's, else the run directory's base name.
func (r *RunData) Name() string {
	if n := r.Meta["name"]; n != "" {
		return n
	}
	return filepath.Base(r.Dir)
}

// Prices returns the price table the run's spec gave (model name -> USD per
// million prompt and completion tokens), or nil when it gave none.
func (r *RunData) Prices() (map[string]spec.Price, error) {
	raw := r.Meta[MetaPrices]
	if raw == "" {
		return nil, nil
	}
	var p map[string]spec.Price
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, fmt.Errorf("%s: meta %q: %w", r.Dir, MetaPrices, err)
	}
	return p, nil
}

// RunTrial is one trial with its items, sorted by question index.
type RunTrial struct {
	spec.Trial
	Items []Item
}

// Status counts a trial's items: done, failed (StatusFailed), and pending
// out of total (items not yet run and items left by an infrastructure
// error, which resume retries).
func (t *RunTrial) Status(total int) (done, failed, pending int) {
	for _, it := range t.Items {
		switch it.Status {
		case StatusDone:
			done++
		case StatusFailed:
			failed++
		}
	}
	return done, failed, max(0, total-done-failed)
}
