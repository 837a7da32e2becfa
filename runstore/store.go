package runstore

import (
	"database/sql"
	"sync/atomic"
	"time"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
)

// StoreFile is the name of the run database inside a run directory.
const StoreFile = "run.db"

// ModelCacheFile is the model-response cache inside a cache directory.
const ModelCacheFile = "models.db"

// Item statuses.
const (
	// StatusDone: the item ran and was scored (a wrong or failed prediction
	// is still done: it is data). Done items are skipped on resume.
	StatusDone = "done"
	// StatusFailed: the runner failed permanently (a model error that
	// retrying cannot fix, such as an HTTP 400 for a too-long prompt, or
	// the runner's own error), with its class and message. The item is
	// scored with an empty prediction, so it counts as wrong when its gold
	// runs, and it is skipped on resume like a done item.
	StatusFailed = "failed"
	// StatusError: an infrastructure failure (endpoint down after
	// retries, ...) with its class; the item counts as pending and is
	// retried on resume.
	StatusError = "error"
)

// Verdict is the score of one prediction: metrics.Verdict, whose JSON is
// what a store keeps per item.
type Verdict = metrics.Verdict

// Call is one logged model request.
type Call struct {
	Role             string  `json:"role"`
	N                int     `json:"n"`
	Cached           bool    `json:"cached"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LatencyMS        float64 `json:"latency_ms"`
	Error            string  `json:"error,omitempty"`
	// Sent marks a call logged before it was sent whose answer was never
	// recorded: it was in flight when the run was killed.
	Sent bool `json:"sent,omitempty"`
	// CacheKey is the model cache's request key of the call
	// (llm.Response.CacheKey): llm.CacheReader.Call(CacheKey, N) reads its
	// messages and every sample back. "" when no cache answered (no cache
	// configured, or the call failed).
	CacheKey string `json:"cache_key,omitempty"`

	// logged is true when the scheduler wrote the call to the store as it
	// happened (CallStarted, CallFinished); Commit does not write it again.
	logged bool
}

// MarkLogged records that the call was written to the store as it
// happened (CallStarted, CallFinished), so that Commit does not write it
// again.
func (c *Call) MarkLogged() { c.logged = true }

// Item is the record of one (trial, question) work item.
type Item struct {
	TrialID    string          `json:"trial_id"`
	QuestionID string          `json:"question_id"`
	Index      int             `json:"index"`
	Status     string          `json:"status"`
	Verdict    *Verdict        `json:"verdict,omitempty"`
	Result     *runners.Result `json:"result,omitempty"`
	// ErrorClass classifies a runner failure (StatusFailed), an
	// infrastructure failure (StatusError) or a per-item timeout
	// (StatusDone); see bench.Classify and bench.FailureOf.
	ErrorClass string    `json:"error_class,omitempty"`
	Error      string    `json:"error,omitempty"`
	Attempts   int       `json:"attempts"`
	Started    time.Time `json:"started"`
	WallMS     float64   `json:"wall_ms"`
	// Session numbers the invocation of `run` that produced the item.
	Session int    `json:"session"`
	Calls   []Call `json:"calls,omitempty"`
}

// Store is a run directory's SQLite database (WAL mode). Its writes are
// made one at a time, in order, in a transaction that commits the
// finished items and their call log in batches (see BatchItems). The
// SQLite driver must be registered as "sqlite3" by the program
// (cmd/t2sbench imports it).
type Store struct {
	dir     string
	db      *sql.DB
	session int
	lock    *dirLock

	// w is the open batch of writes, which batchItems and batchWait
	// bound (BatchItems, BatchWait); commits counts the batches
	// committed.
	w          batch
	q          writeQueue
	batchItems int
	batchWait  time.Duration
	commits    atomic.Int64
	// beforeCommit, when set, runs before each batch's commit: Run sets
	// it to commit the model caches' batches first, so that every cache
	// key a committed call names is in its cache.
	beforeCommit atomic.Pointer[func() error]
	// notices are what OpenStore has to say that is not an error
	// (Notices).
	notices []string
}

// BeforeCommit sets fn to run before each batch's commit (nil: nothing):
// Run commits the model caches' batches first, so that every cache key a
// committed call names is in its cache.
func (s *Store) BeforeCommit(fn func() error) {
	if fn == nil {
		s.beforeCommit.Store(nil)
		return
	}
	s.beforeCommit.Store(&fn)
}

// Notices returns one-line notices of opening the store that did not fail
// it, such as a vacuum after a migration that could not run.
func (s *Store) Notices() []string { return s.notices }
