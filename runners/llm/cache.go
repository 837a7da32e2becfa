package llm

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/t2sbench/t2sbench/internal/checksum"
	"github.com/t2sbench/t2sbench/runners/think"
)

// cacheKeyVersion changes whenever the key document below changes, so old
// entries can never answer a request they were not made for.
const cacheKeyVersion = 1

// Ident identifies the backend behind a cached client: two clients with the
// same Ident and the same request give interchangeable answers.
type Ident struct {
	Backend string `json:"backend"`
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	// Options names backend settings that change answers, when they differ
	// from the defaults ("" otherwise, which keeps older keys valid).
	Options string `json:"options,omitempty"`
	// Server is what the server reports about the model: its model list's
	// entry (ServerIdentifier) and the system_fingerprint of its answers
	// ("" when it reports neither, which keeps older keys valid). Answers
	// of another server under the same base URL and model name therefore
	// never answer a request (see CachedClient).
	Server string `json:"server,omitempty"`
}

// ServerIdentifier is implemented by backends that can ask their server
// what it serves under the configured model name (OpenAI: GET /models):
// "" when it reports nothing; known is false when the server could not be
// asked (the cache then trusts the identity it recorded).
type ServerIdentifier interface {
	ServerIdentity(ctx context.Context) (id string, known bool)
}

// Cache is a response cache in one SQLite file (WAL mode), safe for
// concurrent use by many goroutines and by several processes sharing the
// file. Each sample of a request has its own key:
//
//	key(i) = SHA-256( SHA-256(canonical JSON of the request) || i )
//
// where the canonical JSON holds the key version, the backend identity
// (backend, base URL, model, options and, when the server reports one,
// its identity: Ident.Server), the role, the messages, temperature, top_p,
// top_k (when set), max_tokens, stop, seed, answer kind, schema (re-encoded with sorted keys),
// schema name and request kind (Responder), and i is the 0-based sample
// index. A request for n samples therefore reuses the samples an earlier
// request for fewer samples stored, and any change of a sampling parameter
// (temperature above all) misses. The role is part of the key because a backend may
// answer per role (sim's per-role p).
//
// The first answer stored for a sample wins: concurrent misses of one key
// both call the model, and both return the stored answer.
//
// Storage (the compact format). Table samples has a row per request key
// (the SHA-256 above, 32 bytes; Response.CacheKey in hex) and batch of
// samples one call stored: the samples' answers, reasoning, finish
// reasons, usage and latency encoded together and compressed (DEFLATE
// with a preset dictionary of SQL and prompt text, cachecodec.go), since
// the samples of a request are much alike; columns model and n (the
// number of samples) stay plain for counting. The first row of a request
// also keeps, in column p, the request: its key document without messages
// and each message split into paragraphs at blank lines, all as ids into
// table paragraphs, which holds each distinct text once, compressed, or
// stored against an earlier paragraph with the same first line when that
// is shorter (a search's prompts repeat their reasoning one step longer).
// Rows of samples are kept in the order they were written, found through
// a narrow index of their keys' first bytes (cacheSchema). Messages are
// kept with secrets redacted (WithRedact); answers are kept as the server
// sent them.
//
// The first format (until f094e51: table responses with a row per sample
// under its hex sample key, requests as JSON in table requests, paragraphs
// in table texts) is read, never written: a file of that format keeps
// answering from its rows, and what is stored later goes to the compact
// tables. On the quickstart run (7 methods on the mini benchmark) the
// cache takes 1.9 MB instead of 9.9 MB. A cache file made before requests
// were kept has answers whose prompt is unknown. CacheReader reads all of
// these back.
type Cache struct {
	db   *sql.DB
	path string
	old  oldTables
	st   counters
	memo paragraphMemo
	// servers is set once this Cache has made sure table servers exists
	// (setServer), so that it is created once per Cache, not per record.
	servers atomic.Bool
	// b is the open batch of writes of a Cache in group commit
	// (SetBatch).
	b batch
}

// batch is a Cache's group commit (SetBatch): pending holds the puts not
// yet written, in order, and byKey the same by request key; they are
// written together, in one short transaction, once there are items of
// them or wait after the first, by Flush and by Close. gen counts the
// commits, so that the timer of a batch already committed commits
// nothing.
type batch struct {
	mu      sync.Mutex
	on      bool
	items   int
	wait    time.Duration
	pending []*pendingPut
	byKey   map[string][]*pendingPut
	// bytes is the text the pending puts hold (pendingPut.size), at
	// most maxBytes (CacheBatchBytes).
	bytes, maxBytes int
	timer           *time.Timer
	gen             uint64
	// err is the failure of a commit that lost answers whose put had
	// already returned: the next write or Flush returns it (Flush clears
	// it).
	err error
}

// add appends p to the batch; c.b.mu is held.
func (b *batch) add(p *pendingPut) {
	b.pending = append(b.pending, p)
	b.bytes += p.bytes
	if b.byKey == nil {
		b.byKey = map[string][]*pendingPut{}
	}
	b.byKey[p.rk] = append(b.byKey[p.rk], p)
}

// pendingPut is a put (Cache.put) waiting in the batch: its arguments and,
// once written, the entries the file holds and how many it stored.
type pendingPut struct {
	rkb     []byte
	rk      string
	doc     *keyDoc
	keys    []string
	samples []int
	es      []entry
	replace bool
	bytes   int // size, worked out once
	out     []entry
	stored  int
}

// size is the text p holds: its prompt's messages and its answers. A batch
// is written once its puts hold CacheBatchBytes of it, so that the memory
// a batch takes is bounded whatever the prompts' length.
func (p *pendingPut) size() int {
	n := len(p.rkb)
	if p.doc != nil {
		for _, m := range p.doc.Messages {
			n += len(m.Content)
		}
	}
	for _, e := range p.es {
		n += len(e.choice) + len(e.reasoning) + len(e.structured)
	}
	return n
}

// CacheBatchBytes bounds the text a batch keeps in memory (SetBatch): a
// put that would take it past the bound writes the batch. 16 MiB keeps a
// search run's batch (thousands of prompts of several KB in its 2 s) to a
// few tens of MB of memory while still writing thousands of answers per
// transaction.
const CacheBatchBytes = 16 << 20

// SetBatch makes the cache keep its answers in memory and write them in
// batches of at most items answers (and CacheBatchBytes of text), each written at most wait after its
// first (or at Flush or Close), in one transaction, rather than one
// transaction per answer: a page the answers of a batch share (a table's
// tail, an index's inner pages, a leaf two answers' keys fall in) is
// written to the write-ahead log once per batch rather than once per
// answer. This Cache answers from its batch at once; other connections
// see the answers once the batch is written. The file's write lock is
// held only while a batch is written, so another process writing the same
// cache waits for milliseconds, not for wait. A put whose answer must not
// wait (Cache.put's durable, an answer from a model that is not InProcess)
// writes the batch with it. A process killed before a commit loses that
// batch's answers, which are asked again when next needed. items <= 0
// turns batching off, committing the open batch.
func (c *Cache) SetBatch(items int, wait time.Duration) error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if items <= 0 {
		c.b.on = false
		return c.flushLocked()
	}
	c.b.on, c.b.items, c.b.wait, c.b.maxBytes = true, items, wait, CacheBatchBytes
	return nil
}

// Flush commits the open batch of writes (SetBatch): every answer the
// cache was given is then in its file. It returns the failure of an
// earlier commit that lost answers, once.
func (c *Cache) Flush() error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.flushLocked()
}

// flushLocked is Flush; c.b.mu is held.
func (c *Cache) flushLocked() error {
	if err := c.b.err; err != nil {
		c.b.err = nil
		return err
	}
	return c.commitLocked()
}

// stopTimerLocked stops the open batch's timer; c.b.mu is held.
func (c *Cache) stopTimerLocked() {
	if c.b.timer != nil {
		c.b.timer.Stop()
		c.b.timer = nil
	}
	c.b.gen++
}

// commitLocked writes the pending puts in one transaction; c.b.mu is held.
// When it fails the batch is lost, and with it the paragraphs the memo
// names.
func (c *Cache) commitLocked() error {
	c.stopTimerLocked()
	ps := c.b.pending
	c.b.pending, c.b.byKey, c.b.bytes = nil, nil, 0
	if len(ps) == 0 {
		return nil
	}
	if err := c.writePending(ps); err != nil {
		c.memo.reset()
		return err
	}
	return nil
}

// writePending writes ps in one transaction, first writer wins (putIn):
// each put's out and stored say what the file holds afterwards.
func (c *Cache) writePending(ps []*pendingPut) error {
	// The batch outlives any one request: its transaction is not tied
	// to a request's context, whose end would roll it back. It starts
	// IMMEDIATE (the DSN's _txlock): it holds the write lock from here,
	// so what it reads nobody changes before it commits.
	ctx := context.Background()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.writeError(err)
	}
	defer tx.Rollback()
	if c.b.on {
		// The connection that commits the batches copies the
		// write-ahead log into the file every 128 MiB rather than every
		// 4 MiB (SQLite's default): a page written by several batches is
		// copied once per checkpoint. SQLite copies the rest of the log
		// into the file, and removes it, when the cache's last connection
		// closes.
		if _, err := tx.Exec(`PRAGMA wal_autocheckpoint = 32768`); err != nil {
			return c.writeError(err)
		}
	}
	stored := 0
	for _, p := range ps {
		out, n, added, err := c.putIn(ctx, tx, p.rkb, p.rk, p.doc, p.keys, p.samples, p.es, p.replace)
		if err != nil {
			return err
		}
		// A later paragraph of the batch may be stored against one of
		// these (the memo is reset if the batch is lost).
		c.memo.add(added)
		p.out, p.stored = out, n
		stored += n
	}
	if err := tx.Commit(); err != nil {
		return c.writeError(err)
	}
	c.st.stored.Add(int64(stored))
	return nil
}

// pendingEntries returns the entries of samples 0..n-1 of the request
// with key rk that the batch holds, the first put of a sample winning,
// and whether a put of the batch replaces rk's stored samples
// (WithRefresh), so that the file's samples of rk answer nothing; c.b.mu
// is held.
func (c *Cache) pendingEntries(rk string, n int) (map[int]entry, bool) {
	var out map[int]entry
	replaced := false
	for _, p := range c.b.byKey[rk] {
		if out == nil || p.replace {
			out = map[int]entry{}
			replaced = replaced || p.replace
		}
		for j, i := range p.samples {
			if _, ok := out[i]; !ok && i < n {
				out[i] = p.es[j]
			}
		}
	}
	return out, replaced
}

// paragraphMemo remembers, by first line, the last paragraph this Cache
// stored, as the base of the next new paragraph with that first line
// (codecDelta1): prompts of a search repeat a paragraph one step longer
// or with a value changed.
type paragraphMemo struct {
	mu    sync.Mutex
	m     map[string]memoParagraph
	bytes int // the texts' total
}

// memoParagraph is a stored paragraph: its id, text, and how many bases
// reading it takes.
type memoParagraph struct {
	id    int64
	text  string
	depth int
}

// Bounds of paragraphMemo: paragraphs shorter than memoMinLen are stored
// on their own; the memo keeps texts of at most memoMaxText bytes, and
// memoMaxBytes in all (it is emptied when full).
const (
	memoMinLen   = 128
	memoMaxText  = 32 << 10
	memoMaxBytes = 8 << 20
)

// memoKey is what paragraphs sharing a base have in common: the first
// line (at most 120 bytes).
func memoKey(p string) string {
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		p = p[:i]
	}
	if len(p) > 120 {
		p = p[:120]
	}
	return p
}

func (m *paragraphMemo) base(p string) (memoParagraph, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.m[memoKey(p)]
	return b, ok
}

// reset forgets every paragraph (their batch was lost).
func (m *paragraphMemo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m, m.bytes = nil, 0
}

// add remembers paragraphs once their transaction committed.
func (m *paragraphMemo) add(ps []memoParagraph) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ps {
		if len(p.text) > memoMaxText {
			continue
		}
		if m.m == nil || m.bytes+len(p.text) > memoMaxBytes {
			m.m, m.bytes = map[string]memoParagraph{}, 0
		}
		k := memoKey(p.text)
		m.bytes += len(p.text) - len(m.m[k].text)
		m.m[k] = p
	}
}

// CacheStats counts cache traffic. Hits and Misses count requests (a
// request is a hit when every sample came from the cache); PartialHits
// counts misses that reused some samples; Stored counts samples written.
// Corrupt counts samples asked again because the row that held them
// failed its checksum (or, in a row written before rows had one, did not
// decode): a corrupt entry is a miss, never an answer.
type CacheStats struct {
	Hits, Misses, PartialHits, Stored, Corrupt int64
}

type counters struct{ hits, misses, partial, stored, corrupt atomic.Int64 }

func (c *counters) snapshot() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), PartialHits: c.partial.Load(), Stored: c.stored.Load(), Corrupt: c.corrupt.Load()}
}

// cacheIdleConns is how many connections to its file a Cache keeps open
// between lookups. A run's workers (8 by default) look up at once, and
// database/sql keeps 2 by default, closing the others as they come back:
// a replay from the cache then opened a connection (the file's WAL, its
// shared memory, the pragmas, the statements) for about every fourth
// lookup.
const cacheIdleConns = 32

// OpenCache opens (creating if needed) the cache database at path. The
// SQLite driver "sqlite3" must be registered by the program (its main
// package imports github.com/mattn/go-sqlite3).
func OpenCache(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("llm: cache path is empty")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("llm: cache path %q must not contain '?' or '#'", path)
	}
	// Each connection keeps its last 32 prepared statements
	// (_stmt_cache_size): every lookup and write repeats the same few.
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=30000&_txlock=immediate&_stmt_cache_size=32"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("llm: open cache %s: %w", path, err)
	}
	db.SetMaxIdleConns(cacheIdleConns)
	old, current, err := cacheTablesCurrent(db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: init cache %s: %w", path, err)
	}
	if current {
		return &Cache{db: db, path: path, old: old}, nil
	}
	if err := createCacheTables(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: init cache %s: %w", path, err)
	}
	old, err = findOldTables(db)
	if err == nil && old.responses {
		err = migrateCache(db)
	}
	if err == nil {
		err = checksum.AddColumn(context.Background(), db, "samples")
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: migrate cache %s: %w", path, err)
	}
	return &Cache{db: db, path: path, old: old}, nil
}

// cacheTablesCurrent reads, in one query, which tables db has: current
// is true when it has every table and column this version writes and no
// table of the first format to migrate (the file of every open but the
// first, which then writes nothing); old says which tables of the first
// format it has.
func cacheTablesCurrent(db *sql.DB) (old oldTables, current bool, err error) {
	rows, err := db.Query(`SELECT name, name = 'samples' AND EXISTS (SELECT 1 FROM pragma_table_info('samples') WHERE name = '` + checksum.Column + `')
		FROM sqlite_master WHERE type = 'table' AND name IN ('samples', 'paragraphs', 'responses', 'requests', 'texts')`)
	if err != nil {
		return old, false, err
	}
	defer rows.Close()
	var samples, sums, paragraphs bool
	var seen oldTablesSeen
	for rows.Next() {
		var name string
		var hasSum bool
		if err := rows.Scan(&name, &hasSum); err != nil {
			return old, false, err
		}
		switch name {
		case "samples":
			samples, sums = true, hasSum
		case "paragraphs":
			paragraphs = true
		default:
			seen.see(name)
		}
	}
	old = seen.tables()
	return old, samples && sums && paragraphs && !old.responses, rows.Err()
}

// cacheSchema creates the tables a new cache file holds (see Cache).
//
// Table samples is a rowid table: its rows are appended in the order they
// are written, and only the narrow index samples_rk8, of each row's first 8
// bytes of request key, is ordered by key. A batch of answers, whose keys
// are hashes, then rewrites the file's tail and the pages of that small
// index, rather than nearly every page of a table ordered by key (the
// layout files written before have: samples WITHOUT ROWID, keyed by (rk,
// first), which is read and written as it is). Every query of a request's
// rows names both its prefix and its key (rkWhere), which either layout
// finds by index.
const cacheSchema = `CREATE TABLE samples (
		rk BLOB NOT NULL,
		first INTEGER NOT NULL,
		model TEXT NOT NULL,
		n INTEGER NOT NULL,
		v BLOB NOT NULL,
		p BLOB,
		sum INTEGER
	);
	CREATE INDEX samples_rk8 ON samples (substr(rk, 1, 8))`

// paragraphsSchema creates table paragraphs (see Cache).
const paragraphsSchema = `CREATE TABLE IF NOT EXISTS paragraphs (
		id INTEGER PRIMARY KEY,
		hash BLOB NOT NULL UNIQUE,
		v BLOB NOT NULL
	)`

// createCacheTables creates the tables a cache writes that db lacks, in one
// transaction (another process may be creating them too). A file that has
// them, as every open but the first finds, is only read: its open takes
// no write lock, for which it would wait while another run commits.
func createCacheTables(db *sql.DB) error {
	var have int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('samples', 'paragraphs')`).Scan(&have); err != nil {
		return err
	}
	if have == 2 {
		return nil
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'samples'`).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := tx.Exec(cacheSchema); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(paragraphsSchema); err != nil {
		return err
	}
	return tx.Commit()
}

// rkWhere selects the rows of table samples of one request key, by index
// in either layout (cacheSchema); its arguments are rkArgs.
const rkWhere = `substr(rk, 1, 8) = ? AND rk = ?`

// rkArgs returns the arguments of rkWhere for request key rkb.
func rkArgs(rkb []byte) []any { return []any{rkb[:min(len(rkb), 8)], rkb} }

// serversSchema creates the table of server identities (CachedClient),
// made by the first client that has one to record: a file that never
// records a server has no such table.
const serversSchema = `CREATE TABLE IF NOT EXISTS servers (
		ident TEXT PRIMARY KEY,
		server TEXT NOT NULL,
		updated INTEGER NOT NULL
	) WITHOUT ROWID`

// serverOf returns the server identity last recorded for ident (its
// Server ignored), "" when none.
func (c *Cache) serverOf(ctx context.Context, ident Ident) (string, error) {
	ident.Server = ""
	k, _ := json.Marshal(ident)
	var s string
	err := c.db.QueryRowContext(ctx, `SELECT server FROM servers WHERE ident = ?`, string(k)).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) || (err != nil && strings.Contains(err.Error(), "no such table")) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("llm: read cache %s: %w", c.path, err)
	}
	return s, nil
}

// setServer records ident.Server as the identity of ident's server.
func (c *Cache) setServer(ctx context.Context, ident Ident) error {
	server := ident.Server
	ident.Server = ""
	k, _ := json.Marshal(ident)
	if !c.servers.Load() {
		if _, err := c.db.ExecContext(ctx, serversSchema); err != nil {
			return c.writeError(err)
		}
		c.servers.Store(true)
	}
	if _, err := c.db.ExecContext(ctx, `INSERT INTO servers (ident, server, updated) VALUES (?, ?, ?)
		ON CONFLICT(ident) DO UPDATE SET server = excluded.server, updated = excluded.updated`, string(k), server, time.Now().Unix()); err != nil {
		return c.writeError(err)
	}
	return nil
}

// oldTables says which tables of the first cache format (responses,
// requests and texts, one row per sample keyed by its hex sample key) a
// file holds; they are read, never written.
type oldTables struct{ responses, requests bool }

func findOldTables(db *sql.DB) (oldTables, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('responses', 'requests', 'texts')`)
	if err != nil {
		return oldTables{}, err
	}
	defer rows.Close()
	var seen oldTablesSeen
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return oldTables{}, err
		}
		seen.see(name)
	}
	return seen.tables(), rows.Err()
}

// oldTablesSeen gathers, table by table, the oldTables of a file: its
// requests are read only with the texts they name.
type oldTablesSeen struct {
	oldTables
	texts bool
}

// see notes the table named name, when it is one of the first format.
func (s *oldTablesSeen) see(name string) {
	switch name {
	case "responses":
		s.responses = true
	case "requests":
		s.requests = true
	case "texts":
		s.texts = true
	}
}

// tables returns the first format's tables seen that a reader uses.
func (s *oldTablesSeen) tables() oldTables {
	o := s.oldTables
	o.requests = o.requests && s.texts
	return o
}

// addedColumns are the columns later versions added to responses; rows
// written before read their defaults (no reasoning, finish reason unknown).
var addedColumns = []struct{ name, def string }{
	{"reasoning", "TEXT NOT NULL DEFAULT ''"},
	{"finish", "TEXT NOT NULL DEFAULT ''"},
	{"structured", "TEXT NOT NULL DEFAULT ''"},
	{"reasoning_tokens", "INTEGER NOT NULL DEFAULT 0"},
}

// migrateCache adds the columns a cache file made by an older version
// lacks. Another process may add them at the same time: a duplicate
// column is not an error.
func migrateCache(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info('responses')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range addedColumns {
		if have[c.name] {
			continue
		}
		if _, err := db.Exec("ALTER TABLE responses ADD COLUMN " + c.name + " " + c.def); err != nil && !strings.Contains(err.Error(), "duplicate column") {
			return err
		}
	}
	return nil
}

// Close closes the database.
func (c *Cache) Close() error {
	err := c.Flush()
	if cerr := c.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stats returns the traffic counts of all clients using this cache.
func (c *Cache) Stats() CacheStats { return c.st.snapshot() }

// entry is one cached sample.
type entry struct {
	choice           string
	reasoning        string
	finish           string
	structured       string
	model            string
	promptTokens     int
	completionTokens int
	reasoningTokens  int
	latency          time.Duration
}

// entryColumns are the columns of an entry, in the order scan reads them.
const entryColumns = "choice, reasoning, finish, structured, model, prompt_tokens, completion_tokens, reasoning_tokens, latency_ns"

// scan reads an entry from a row of entryColumns (after any leading
// columns in lead). A row stored before reasoning was split off (its
// choice holding a <think> block) is split on the way out.
func scanEntry(sc interface{ Scan(...any) error }, lead ...any) (entry, error) {
	var e entry
	var lat int64
	dest := append(lead, &e.choice, &e.reasoning, &e.finish, &e.structured, &e.model, &e.promptTokens, &e.completionTokens, &e.reasoningTokens, &lat)
	if err := sc.Scan(dest...); err != nil {
		return e, err
	}
	e.latency = time.Duration(lat)
	if e.reasoning == "" && think.Has(e.choice) {
		e.choice, e.reasoning = SplitReasoning(e.choice)
	}
	return e, nil
}

// keyDoc is the canonical document a request's key hashes (see Cache).
type keyDoc struct {
	V           int             `json:"v"`
	Ident       Ident           `json:"ident"`
	Role        string          `json:"role"`
	Messages    []Message       `json:"messages"`
	Temperature float64         `json:"temperature"`
	TopP        float64         `json:"top_p"`
	TopK        int             `json:"top_k,omitempty"` // omitted at 0: keys made before it are unchanged
	MaxTokens   int             `json:"max_tokens"`
	Stop        []string        `json:"stop"`
	Seed        *int64          `json:"seed"`
	Answer      AnswerKind      `json:"answer"`
	Schema      json.RawMessage `json:"schema"`
	SchemaName  string          `json:"schema_name"`
	Responder   string          `json:"responder"`
}

func newKeyDoc(id Ident, req Request) (keyDoc, error) {
	doc := keyDoc{
		V: cacheKeyVersion, Ident: id, Role: req.Role, Messages: req.Messages,
		Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK, MaxTokens: req.MaxTokens, Stop: req.Stop,
		Seed: req.Seed, Answer: req.Answer, SchemaName: req.SchemaName, Responder: req.Responder,
	}
	if doc.Answer == "" {
		doc.Answer = AnswerText
	}
	if len(doc.Stop) == 0 {
		doc.Stop = nil
	}
	if len(req.Schema) > 0 {
		var v any
		if err := json.Unmarshal(req.Schema, &v); err != nil {
			return doc, fmt.Errorf("llm: cache key: schema %q is not valid JSON: %w", req.SchemaName, err)
		}
		b, _ := json.Marshal(v) // maps marshal with sorted keys
		doc.Schema = b
	}
	return doc, nil
}

// requestKey returns the request key of req (hex SHA-256 of its canonical
// JSON) and its canonical document.
func requestKey(id Ident, req Request) (string, keyDoc, error) {
	doc, err := newKeyDoc(id, req)
	if err != nil {
		return "", doc, err
	}
	bp := keyBufs.Get().(*[]byte)
	canon, ok := appendKeyJSON((*bp)[:0], &doc)
	if !ok {
		// json.Marshal reports what appendKeyJSON cannot write.
		if canon, err = json.Marshal(doc); err != nil {
			keyBufs.Put(bp)
			return "", doc, fmt.Errorf("llm: cache key: %w", err)
		}
	}
	base := sha256.Sum256(canon)
	if ok && cap(canon) <= maxKeyBuf {
		*bp = canon
	}
	keyBufs.Put(bp)
	return hex.EncodeToString(base[:]), doc, nil
}

// keyBufs holds the buffers requestKey writes key documents in; one
// larger than maxKeyBuf is not kept.
var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxKeyBuf = 256 << 10

// SampleKeys returns the keys samples 0..n-1 of the request with request
// key reqKey (Response.CacheKey) are stored under:
// SHA-256(request hash || big-endian uint64 i).
func SampleKeys(reqKey string, n int) ([]string, error) {
	base, err := hex.DecodeString(reqKey)
	if err != nil || len(base) != sha256.Size {
		return nil, fmt.Errorf("llm: cache key %q is not a hex SHA-256", reqKey)
	}
	keys := make([]string, n)
	var buf [sha256.Size + 8]byte
	copy(buf[:], base)
	for i := range n {
		binary.BigEndian.PutUint64(buf[sha256.Size:], uint64(i))
		k := sha256.Sum256(buf[:])
		keys[i] = hex.EncodeToString(k[:])
	}
	return keys, nil
}

// requestKeys returns the per-sample keys of req for samples 0..n-1.
func requestKeys(id Ident, req Request, n int) ([]string, error) {
	rk, _, err := requestKey(id, req)
	if err != nil {
		return nil, err
	}
	return SampleKeys(rk, n)
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// get returns the cached entries of samples 0..n-1 of the request with
// key rk, by position. Rows that fail their checksum or do not decode are
// left out (their samples are missing, so asked again) and returned in
// bad.
func (c *Cache) get(ctx context.Context, rk string, n int) (map[int]entry, []badRow, error) {
	c.b.mu.Lock()
	pend, replaced := c.pendingEntries(rk, n)
	if len(pend) == n || replaced {
		c.b.mu.Unlock()
		return pend, nil, nil
	}
	if len(c.b.pending) > 0 {
		// A commit moving the batch's answers into the file waits
		// until the file is read, so that no answer is in neither.
		defer c.b.mu.Unlock()
	} else {
		c.b.mu.Unlock()
	}
	out, bad, err := loadSamples(ctx, c.db, c.old, true, rk, n)
	if err != nil {
		return nil, nil, fmt.Errorf("llm: read cache %s: %w", c.path, err)
	}
	// A sample the file holds was stored first; the batch's answer of
	// it loses when the batch is written.
	for i, e := range pend {
		if _, ok := out[i]; !ok {
			out[i] = e
		}
	}
	return out, bad, nil
}

// badRow is a row of table samples that failed its checksum (or, written
// before rows had one, did not decode): its first sample and how many
// samples it says it holds.
type badRow struct {
	first, n int
	err      error
}

// holds reports whether the bad row could have held sample i.
func (b badRow) holds(i int) bool { return i >= b.first && i < b.first+max(b.n, 1) }

// loadSamples reads the stored samples 0..n-1 of the request with key rk
// from table samples, then those still missing from table responses of
// the first format when the file has it (under their sample keys,
// SampleKeys, worked out only then). sums says table
// samples has column sum (a file written before checksums, opened
// read-only, may lack it). A row whose checksum does not match, or that
// does not decode, answers nothing: it is returned in bad, never an error.
func loadSamples(ctx context.Context, q querier, old oldTables, sums bool, rk string, n int) (map[int]entry, []badRow, error) {
	rkb, err := hex.DecodeString(rk)
	if err != nil {
		return nil, nil, fmt.Errorf("request key %q is not hex", rk)
	}
	out := make(map[int]entry, n)
	query := selectSamples
	if !sums {
		query = selectSamplesNoSum
	}
	rows, err := q.QueryContext(ctx, query, rkArgs(rkb)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var bad []badRow
	// A row's values are read in place (sql.RawBytes, valid until the
	// next row): decoding copies the samples' texts.
	var v, p sql.RawBytes
	for rows.Next() {
		var r sampleRow
		var sum sql.NullInt64
		if err := rows.Scan(&r.first, &r.model, &r.n, &v, &p, &sum); err != nil {
			return nil, nil, err
		}
		r.rk, r.v, r.p = rkb, v, p
		if sum.Valid && sum.Int64 != r.sum() {
			bad = append(bad, badRow{first: r.first, n: r.n, err: errChecksum})
			continue
		}
		idx, es, err := r.decode()
		if err != nil {
			bad = append(bad, badRow{first: r.first, n: r.n, err: err})
			continue
		}
		for j, i := range idx {
			if i < n {
				out[i] = es[j]
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close()
	if !old.responses || len(out) == n {
		return out, bad, nil
	}
	keys, err := SampleKeys(rk, n)
	if err != nil {
		return nil, nil, err
	}
	out, err = loadOldSamples(ctx, q, keys, out)
	return out, bad, err
}

// The queries of loadSamples, by whether table samples has column sum
// (checksum.Selected), put together once.
var (
	selectSamples      = `SELECT first, model, n, v, p, ` + checksum.Selected(true) + ` FROM samples WHERE ` + rkWhere
	selectSamplesNoSum = `SELECT first, model, n, v, p, ` + checksum.Selected(false) + ` FROM samples WHERE ` + rkWhere
)

// loadOldSamples adds to have the samples with keys it lacks that table
// responses (first format) holds.
func loadOldSamples(ctx context.Context, q querier, keys []string, have map[int]entry) (map[int]entry, error) {
	pos := make(map[string]int, len(keys))
	var args []any
	for i, k := range keys {
		if _, ok := have[i]; !ok {
			pos[k] = i
			args = append(args, k)
		}
	}
	q1 := "SELECT key, " + entryColumns + " FROM responses WHERE key IN (" +
		strings.TrimSuffix(strings.Repeat("?,", len(args)), ",") + ")"
	rows, err := q.QueryContext(ctx, q1, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		e, err := scanEntry(rows, &k)
		if err != nil {
			return nil, err
		}
		have[pos[k]] = e
	}
	return have, rows.Err()
}

// put stores entries es of samples (indices into keys, the request's
// sample keys) of the request with key rk, unless a sample is stored
// already (the first writer wins), and the request's document doc when it
// is not nil and not stored yet. It returns the entries the cache holds
// afterwards, which differ from es only where another caller stored the
// sample first, and how many samples it stored. The samples one call
// stores share a row of table samples per model, compressed together.
// With replace, the samples of rk stored before are dropped first and es
// stored in their place (CachedClient's refresh). The write is tied to no
// request's context: an answer that arrived is stored even when its
// request was cancelled.
//
// In batch mode (SetBatch) put adds the answers to the open batch and
// returns at once, unless durable is set or the batch is full: it then
// writes the batch. From the batch, the entries returned are those of
// the batch (first put wins); a sample another process stores before the
// batch is written keeps that process's answer in the file.
func (c *Cache) put(rk string, doc *keyDoc, keys []string, samples []int, es []entry, replace, durable bool) ([]entry, int, error) {
	rkb, err := hex.DecodeString(rk)
	if err != nil {
		return nil, 0, fmt.Errorf("llm: cache key %q is not hex", rk)
	}
	p := &pendingPut{rkb: rkb, rk: rk, doc: doc, keys: keys, samples: samples, es: es, replace: replace}
	p.bytes = p.size()
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if err := c.b.err; err != nil {
		return nil, 0, err
	}
	if !c.b.on || durable || len(c.b.pending)+1 >= c.b.items || c.b.bytes+p.bytes >= c.b.maxBytes {
		others := len(c.b.pending) > 0
		c.b.add(p)
		if err := c.commitLocked(); err != nil {
			if others {
				// The batch held answers whose puts returned: the
				// store that names their keys learns at its Flush.
				c.b.err = err
			}
			return nil, 0, err
		}
		return p.out, p.stored, nil
	}
	out, stored := make([]entry, len(es)), 0
	var have map[int]entry // none for a put that replaces rk's samples
	if !replace {
		have, _ = c.pendingEntries(rk, len(keys))
	}
	for j, i := range samples {
		if e, ok := have[i]; ok {
			out[j] = e
			continue
		}
		out[j] = es[j]
		stored++
	}
	c.b.add(p)
	if len(c.b.pending) == 1 {
		gen := c.b.gen
		c.b.timer = time.AfterFunc(c.b.wait, func() {
			c.b.mu.Lock()
			defer c.b.mu.Unlock()
			if c.b.gen == gen {
				if err := c.commitLocked(); err != nil && c.b.err == nil {
					c.b.err = err
				}
			}
		})
	}
	return out, stored, nil
}

// putIn writes the answers of put in transaction tx, and returns them
// with how many it stored and the paragraphs it added.
func (c *Cache) putIn(ctx context.Context, tx *sql.Tx, rkb []byte, rk string, doc *keyDoc, keys []string, samples []int, es []entry, replace bool) ([]entry, int, []memoParagraph, error) {
	var err error
	now := time.Now().UTC()
	// Answers of the first format's table are not deleted when replacing,
	// but replaced here: none of them is read.
	have, bad := map[int]entry{}, []badRow(nil)
	if replace {
		if _, err := tx.ExecContext(ctx, `DELETE FROM samples WHERE `+rkWhere, rkArgs(rkb)...); err != nil {
			return nil, 0, nil, c.writeError(err)
		}
	} else if have, bad, err = loadSamples(ctx, tx, c.old, true, rk, len(keys)); err != nil {
		return nil, 0, nil, fmt.Errorf("llm: read cache %s: %w", c.path, err)
	}
	// A row that failed its checksum is replaced by the samples asked
	// again (its samples not asked again are lost: they are asked when
	// next needed).
	for _, b := range bad {
		if _, err := tx.ExecContext(ctx, `DELETE FROM samples WHERE `+rkWhere+` AND first = ?`, append(rkArgs(rkb), b.first)...); err != nil {
			return nil, 0, nil, c.writeError(err)
		}
	}
	var prompt []byte // the request, for the first row written, unless kept
	var added []memoParagraph
	if doc != nil {
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM samples WHERE `+rkWhere+` AND p IS NOT NULL LIMIT 1`, rkArgs(rkb)...).Scan(&one); {
		case errors.Is(err, sql.ErrNoRows):
			prompt = []byte{} // decided below, once a row is written
		case err != nil:
			return nil, 0, nil, fmt.Errorf("llm: read cache %s: %w", c.path, err)
		}
	}
	out := make([]entry, len(es))
	// New samples by model. A row's first is its lowest sample; no other
	// row of rk holds it, so no other row starts with it.
	type group struct {
		first int
		idx   []int
		es    []entry
	}
	var models []string
	groups := map[string]*group{}
	for j, i := range samples {
		if e, ok := have[i]; ok {
			out[j] = e
			continue
		}
		out[j] = es[j]
		g := groups[es[j].model]
		if g == nil {
			g = &group{first: i}
			groups[es[j].model] = g
			models = append(models, es[j].model)
		}
		g.idx = append(g.idx, i)
		g.es = append(g.es, es[j])
		g.first = min(g.first, i)
	}
	stored := 0
	for _, m := range models {
		g := groups[m]
		v := packValue(encodeSamples(g.idx, g.es, now.Unix()))
		var p []byte // NULL
		if prompt != nil {
			if p, err = c.putRequest(ctx, tx, doc, now.Unix(), &added); err != nil {
				return nil, 0, nil, c.writeError(err)
			}
			prompt = nil
		}
		row := sampleRow{rk: rkb, first: g.first, model: m, n: len(g.idx), v: v, p: p}
		if _, err := tx.ExecContext(ctx, `INSERT INTO samples (rk, first, model, n, v, p, sum) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			rkb, g.first, m, len(g.idx), v, p, row.sum()); err != nil {
			return nil, 0, nil, c.writeError(err)
		}
		stored += len(g.idx)
	}
	return out, stored, added, nil
}

// writeError is a failed write of the cache file: a *WriteError, which a
// run reads as an environment failure.
func (c *Cache) writeError(err error) error {
	return &WriteError{Op: "llm: write cache", Path: c.path, Err: err}
}

// storedRequest is a request as table requests of the first format holds
// it: the key document without its messages, and each message as the ids
// of its paragraphs (its text split at "\n\n") in table texts.
type storedRequest struct {
	Doc      keyDoc          `json:"doc"`
	Messages []storedMessage `json:"messages"`
}

type storedMessage struct {
	Role  string  `json:"role"`
	Parts []int64 `json:"parts"`
}

// putRequest stores doc's settings (doc without messages, as JSON) and
// each distinct paragraph of its messages once in table paragraphs, and
// returns the request as column p of table samples holds it: their ids.
// It appends the paragraphs it stored to added.
func (c *Cache) putRequest(ctx context.Context, tx *sql.Tx, doc *keyDoc, created int64, added *[]memoParagraph) ([]byte, error) {
	settings := *doc
	settings.Messages = nil
	raw, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	ids := map[string]int64{}
	sid, err := c.putParagraph(ctx, tx, string(raw), ids, added)
	if err != nil {
		return nil, err
	}
	msgs := make([]promptMessage, len(doc.Messages))
	for i, m := range doc.Messages {
		msgs[i].role = m.Role
		for _, p := range strings.Split(m.Content, "\n\n") {
			id, err := c.putParagraph(ctx, tx, p, ids, added)
			if err != nil {
				return nil, err
			}
			msgs[i].parts = append(msgs[i].parts, id)
		}
	}
	return packValue(encodePrompt(created, sid, msgs)), nil
}

// putParagraph returns the id of text p in table paragraphs, storing it
// when it is new (against a base from the memo when that is shorter, and
// appended to added); ids remembers the ids of this transaction.
func (c *Cache) putParagraph(ctx context.Context, tx *sql.Tx, p string, ids map[string]int64, added *[]memoParagraph) (int64, error) {
	if id, ok := ids[p]; ok {
		return id, nil
	}
	h := sha256.Sum256([]byte(p))
	hash := h[:paragraphHashLen]
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM paragraphs WHERE hash = ?`, hash).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		v := packValue([]byte(p))
		depth := 0
		if len(p) >= memoMinLen {
			if b, ok := c.memo.base(p); ok && b.depth+1 < maxDeltaChain {
				if d := packDelta([]byte(p), b.id, []byte(b.text)); len(d) < len(v) {
					v, depth = d, b.depth+1
				}
			}
		}
		var res sql.Result
		res, err = tx.ExecContext(ctx, `INSERT INTO paragraphs (hash, v) VALUES (?, ?)`, hash, v)
		if err == nil {
			id, err = res.LastInsertId()
		}
		if err == nil && len(p) >= memoMinLen {
			*added = append(*added, memoParagraph{id: id, text: p, depth: depth})
		}
	}
	if err != nil {
		return 0, err
	}
	ids[p] = id
	return id, nil
}

// paragraphHashLen is how many bytes of a paragraph's SHA-256 table
// paragraphs keeps to find it: 128 bits, so that two distinct paragraphs
// sharing one is out of reach (about n²/2¹²⁹ for n paragraphs).
const paragraphHashLen = 16

// OffsetClient is implemented by backends whose samples are a function of
// their index (sim): CompleteFrom answers samples first..first+N-1 of req.
// The cache uses it to ask only for the samples it lacks.
type OffsetClient interface {
	Client
	CompleteFrom(ctx context.Context, req Request, first int) (*Response, error)
}

// CallRecord describes one real model call (not a cache hit), for the run
// store's model-call log.
type CallRecord struct {
	Start   time.Time
	Role    string
	Ident   Ident
	Samples int
	Latency time.Duration
	Usage   Usage
	// ErrorClass is "" on success, else ErrorClass(err).
	ErrorClass string
	Error      string
}

// CacheOption configures Cached.
type CacheOption func(*CachedClient)

// beforeSendKey is the context key of WithBeforeSend's function.
type beforeSendKey struct{}

// WithBeforeSend returns a copy of ctx carrying fn, which a CachedClient
// calls before each request it sends to its inner client (each call for
// samples the cache lacks; never on a hit), unless the inner client runs
// in this process (InProcess). When fn fails the request is not sent and
// Complete returns fn's error. A caller that logs calls in batches uses it
// to make its record of a call durable before a server can bill it.
func WithBeforeSend(ctx context.Context, fn func() error) context.Context {
	return context.WithValue(ctx, beforeSendKey{}, fn)
}

// InProcess marks the inner client as one that computes its answers in
// this process (a simulator): its calls send nothing and bill nothing, so
// the WithBeforeSend function is not called for them.
func InProcess() CacheOption {
	return func(c *CachedClient) { c.inProcess = true }
}

// WithCallLog calls fn after every real call the client makes (hits make
// none). fn must be safe for concurrent use.
func WithCallLog(fn func(CallRecord)) CacheOption {
	return func(c *CachedClient) { c.onCall = fn }
}

// WithRefresh makes the client ask its backend for every request, never
// answering from the cache, and replace the cached samples with the new
// answers.
func WithRefresh() CacheOption {
	return func(c *CachedClient) { c.refresh = true }
}

// WithNotify calls fn with a one-line notice when the server's identity
// differs from the one the cache recorded for the same backend, base URL
// and model (see CachedClient); fn must be safe for concurrent use.
func WithNotify(fn func(string)) CacheOption {
	return func(c *CachedClient) { c.notify = fn }
}

// WithRedact replaces each secret (an API key, a password) in the
// request messages the cache keeps for display (Cache, CacheReader) with
// Redacted; secrets IsSecret rejects (shorter than MinSecretLen, a
// placeholder such as EMPTY) are ignored. Answers and reasoning are never
// redacted: the cache stores and returns them as the server sent them,
// since a rewritten answer would be scored as something the model did not
// say. A secret a model echoes is hidden where answers are displayed
// (NewDisplayRedactor).
func WithRedact(secrets ...string) CacheOption {
	return func(c *CachedClient) { c.redactor = NewRedactor(secrets...) }
}

// CachedClient is a Client answering from a Cache and calling its inner
// client only for missing samples.
type CachedClient struct {
	inner    Client
	cache    *Cache
	onCall   func(CallRecord)
	redactor *Redactor
	st       counters
	refresh  bool
	notify   func(string)
	// inProcess is set by InProcess.
	inProcess bool

	// identMu serialises asking the server for its identity before the
	// first request; identified is set once that succeeded (a failure,
	// such as the first request's context cancelled, is asked again by
	// the next request). mu guards ident, whose Server changes when an
	// answer carries a new system_fingerprint.
	identMu    sync.Mutex
	identified bool
	mu         sync.Mutex
	ident      Ident
}

// Cached wraps inner with cache. ident names the backend behind inner; it
// is part of every key. A nil cache disables caching but keeps the call
// log.
//
// A hit sets Response.Cached, makes no call, and reports the original
// call's model, latency (the largest of its samples' calls) and usage
// (prompt tokens of the first sample's call plus the samples' completion
// and reasoning tokens), so that token counts do not depend on the cache
// state. A partial hit calls for the missing samples only and reports those
// calls' usage. Each sample's answer, reasoning, finish reason and
// structured mode are stored and returned; an answer whose inner client
// left a <think> block in it is split (SplitReasoning) before it is stored,
// so Choices always hold the answer only.
//
// Samples are stored by index, so a request for n samples reuses the first
// k < n an earlier request stored. When the request carries a seed, the
// missing samples first..first+m-1 are asked for with seed
// SampleSeed(seed, first) (one call per contiguous run of missing
// samples): a server that honours seeds then returns new samples, never
// copies of the cached ones, and on vLLM exactly the samples a request for
// all n would have had.
//
// The server's identity is part of the key (Ident.Server). Before its
// first request the client asks an inner ServerIdentifier what the server
// serves under the model name, and each answer's system_fingerprint is
// noted; the cache records both per backend, base URL and model. When they
// differ from what was recorded, the notice function (WithNotify) says so
// ("model identity changed since cached answers: was X, now Y; ...") and
// the answers cached for the old identity no longer answer: the same base
// URL and model name on another server asks again. WithRefresh asks again
// in any case and replaces the cached answers; a nil cache neither reads
// nor writes.
func Cached(inner Client, cache *Cache, ident Ident, opts ...CacheOption) *CachedClient {
	c := &CachedClient{inner: inner, cache: cache, ident: ident}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Stats returns this client's cache traffic.
func (c *CachedClient) Stats() CacheStats { return c.st.snapshot() }

// Ident returns the identity the client keys requests by now.
func (c *CachedClient) Ident() Ident {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ident
}

// fingerprintMark separates the model list's part of Ident.Server from
// the system_fingerprint part.
const fingerprintMark = "system_fingerprint="

// splitServer splits an Ident.Server into the model list's part and the
// fingerprint.
func splitServer(s string) (list, fp string) {
	if i := strings.Index(s, fingerprintMark); i >= 0 {
		return strings.TrimSpace(s[:i]), s[i+len(fingerprintMark):]
	}
	return s, ""
}

// joinServer is the inverse of splitServer.
func joinServer(list, fp string) string {
	if fp == "" {
		return list
	}
	return strings.TrimSpace(list + " " + fingerprintMark + fp)
}

// identifyOnce runs identify until it has succeeded once.
func (c *CachedClient) identifyOnce(ctx context.Context) error {
	c.identMu.Lock()
	defer c.identMu.Unlock()
	if c.identified {
		return nil
	}
	if err := c.identify(ctx); err != nil {
		return err
	}
	c.identified = true
	return nil
}

// identify asks the server for its identity and compares it with the one
// the cache recorded: the same model list entry keeps the recorded
// fingerprint (the answers cached under it answer again); another one is
// reported and recorded; an unknown one (the list could not be read)
// keeps the recorded identity.
func (c *CachedClient) identify(ctx context.Context) error {
	si, ok := c.inner.(ServerIdentifier)
	if !ok {
		return nil
	}
	list, known := si.ServerIdentity(ctx)
	rec, err := c.cache.serverOf(ctx, c.ident)
	if err != nil {
		return err
	}
	recList, _ := splitServer(rec)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !known || (rec != "" && recList == list):
		// A model list that could not be read (a busy server) is no
		// evidence of another server.
		c.ident.Server = rec
		return nil
	case rec != "":
		c.changed(rec, list)
	}
	c.ident.Server = list
	if list == "" && rec == "" {
		return nil
	}
	return c.cache.setServer(ctx, c.ident)
}

// noteFingerprint takes a new system_fingerprint of the server into the
// identity and records it; it returns the identity then current.
func (c *CachedClient) noteFingerprint(ctx context.Context, fp string) (Ident, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	list, old := splitServer(c.ident.Server)
	if fp == "" || fp == old {
		return c.ident, nil
	}
	next := joinServer(list, fp)
	if old != "" {
		c.changed(c.ident.Server, next)
	}
	c.ident.Server = next
	return c.ident, c.cache.setServer(ctx, c.ident)
}

// changed reports a change of the server's identity (c.mu held).
func (c *CachedClient) changed(was, now string) {
	if c.notify == nil {
		return
	}
	show := func(s string) string {
		if s == "" {
			return "(nothing reported)"
		}
		return s
	}
	c.notify(fmt.Sprintf("%s %s model %s: model identity changed since cached answers: was %s, now %s; cached answers for the old identity are not used",
		c.ident.Backend, c.ident.BaseURL, c.ident.Model, show(was), show(now)))
}

// Cache returns the cache c answers from (nil when caching is off).
func (c *CachedClient) Cache() *Cache { return c.cache }

// subCall is one call for missing samples: samples[j] of the request is
// choice pick[j] of the answer to req (for an OffsetClient, from sample
// first on).
type subCall struct {
	req     Request
	first   int
	samples []int
	pick    []int
}

// Complete answers req from the cache, calling the inner client for the
// samples the cache lacks.
func (c *CachedClient) Complete(ctx context.Context, req Request) (*Response, error) {
	n := req.Samples()
	if c.cache == nil {
		resp, err := c.call(ctx, req, 0)
		if err != nil {
			return nil, err
		}
		c.clean(resp)
		return resp, nil
	}
	if err := c.identifyOnce(ctx); err != nil {
		return nil, err
	}
	rk, doc, err := requestKey(c.Ident(), req)
	if err != nil {
		return nil, err
	}
	have, bad := map[int]entry{}, []badRow(nil)
	if !c.refresh {
		if have, bad, err = c.cache.get(ctx, rk, n); err != nil {
			return nil, err
		}
	}
	if len(have) == n {
		c.st.hits.Add(1)
		c.cache.st.hits.Add(1)
		// Counts are added without overflow and clamped (Usage.Add): a
		// cache written before answers were validated may hold any.
		resp := &Response{Cached: true, Model: have[0].model, CacheKey: rk}
		resp.Usage = resp.Usage.Add(Usage{PromptTokens: have[0].promptTokens})
		for i := range n {
			e := have[i]
			resp.Usage = resp.Usage.Add(Usage{CompletionTokens: e.completionTokens, ReasoningTokens: e.reasoningTokens})
			resp.Latency = max(resp.Latency, e.latency)
		}
		c.fill(resp, have, n)
		return resp, nil
	}
	c.st.misses.Add(1)
	c.cache.st.misses.Add(1)
	if len(have) > 0 {
		c.st.partial.Add(1)
		c.cache.st.partial.Add(1)
	}
	var missing []int
	corrupt := 0
	for i := range n {
		if _, ok := have[i]; !ok {
			missing = append(missing, i)
			if slices.ContainsFunc(bad, func(b badRow) bool { return b.holds(i) }) {
				corrupt++
			}
		}
	}
	if corrupt > 0 {
		c.st.corrupt.Add(int64(corrupt))
		c.cache.st.corrupt.Add(int64(corrupt))
	}
	keys, err := SampleKeys(rk, n)
	if err != nil {
		return nil, err
	}
	out := &Response{CacheKey: rk}
	var es []entry
	var idx []int // the sample of each entry of es
	for _, sc := range c.plan(req, missing) {
		resp, err := c.call(ctx, sc.req, sc.first)
		if err != nil {
			return nil, err
		}
		if resp.SystemFingerprint != "" {
			out.SystemFingerprint = resp.SystemFingerprint
		}
		if len(resp.Choices) < sc.req.Samples() {
			return nil, fmt.Errorf("llm: %s %s: got %d choices for %d samples", c.ident.Backend, c.ident.Model, len(resp.Choices), sc.req.Samples())
		}
		c.clean(resp)
		resp.Usage, _ = resp.Usage.Clamp() // any inner client's counts
		m := len(sc.samples)
		ct, rt := spread(resp.Usage.CompletionTokens, m), spread(resp.Usage.ReasoningTokens, m)
		for j, i := range sc.samples {
			k := sc.pick[j]
			idx = append(idx, i)
			es = append(es, entry{
				choice: resp.Choices[k], reasoning: resp.ReasoningOf(k), finish: resp.Finish(k), structured: resp.Structured,
				model: resp.Model, promptTokens: resp.Usage.PromptTokens, completionTokens: ct[j], reasoningTokens: rt[j],
				latency: resp.Latency,
			})
		}
		if out.Model == "" {
			out.Model = resp.Model
		}
		out.Usage = out.Usage.Add(resp.Usage)
		out.Latency = max(out.Latency, resp.Latency)
	}
	if out.SystemFingerprint != "" {
		// An answer under a new fingerprint is stored under the key of
		// the identity it came from.
		id, err := c.noteFingerprint(ctx, out.SystemFingerprint)
		if err != nil {
			return nil, err
		}
		if id != doc.Ident {
			if rk, doc, err = requestKey(id, req); err != nil {
				return nil, err
			}
			if keys, err = SampleKeys(rk, n); err != nil {
				return nil, err
			}
			// Samples this request read under the old identity still
			// answer it, but are not stored under the new one.
			out.CacheKey = rk
		}
	}
	// An answer a server sent (and billed) is written at once; a batch
	// holds only the answers of a model in this process (InProcess).
	stored, nstored, err := c.cache.put(rk, c.storedDoc(doc), keys, idx, es, c.refresh, !c.inProcess)
	if err != nil {
		return nil, err
	}
	c.st.stored.Add(int64(nstored))
	for j, i := range idx {
		have[i] = stored[j]
	}
	c.fill(out, have, n)
	return out, nil
}

// plan splits the missing samples of req into calls (see Cached).
func (c *CachedClient) plan(req Request, missing []int) []subCall {
	seq := func(m int) []int {
		p := make([]int, m)
		for i := range p {
			p[i] = i
		}
		return p
	}
	_, offsets := c.inner.(OffsetClient)
	contiguous := missing[len(missing)-1]-missing[0] == len(missing)-1
	sub := req
	sub.N = len(missing)
	switch {
	case offsets && contiguous:
		return []subCall{{req: sub, first: missing[0], samples: missing, pick: seq(len(missing))}}
	case offsets:
		sub.N = req.Samples()
		return []subCall{{req: sub, samples: missing, pick: missing}}
	case req.Seed == nil:
		return []subCall{{req: sub, samples: missing, pick: seq(len(missing))}}
	}
	var calls []subCall
	for lo := 0; lo < len(missing); {
		hi := lo + 1
		for hi < len(missing) && missing[hi] == missing[hi-1]+1 {
			hi++
		}
		run := missing[lo:hi]
		sub := req
		sub.N = len(run)
		seed := SampleSeed(*req.Seed, run[0])
		sub.Seed = &seed
		calls = append(calls, subCall{req: sub, samples: run, pick: seq(len(run))})
		lo = hi
	}
	return calls
}

// spread divides total over m samples, the remainder going to the first.
func spread(total, m int) []int {
	out := make([]int, m)
	for j := range out {
		out[j] = total / m
		if j < total%m {
			out[j]++
		}
	}
	return out
}

// fill sets the samples of resp from the entries 0..n-1.
func (c *CachedClient) fill(resp *Response, es map[int]entry, n int) {
	var anyReasoning, anyFinish bool
	for i := range n {
		e := es[i]
		anyReasoning = anyReasoning || e.reasoning != ""
		anyFinish = anyFinish || e.finish != ""
	}
	resp.Choices = slices.Grow(resp.Choices, n)
	if anyReasoning {
		resp.Reasoning = slices.Grow(resp.Reasoning, n)
	} else {
		resp.Reasoning = nil
	}
	if anyFinish {
		resp.FinishReasons = slices.Grow(resp.FinishReasons, n)
	} else {
		resp.FinishReasons = nil
	}
	for i := range n {
		e := es[i]
		resp.Choices = append(resp.Choices, e.choice)
		if anyReasoning {
			resp.Reasoning = append(resp.Reasoning, e.reasoning)
		}
		if anyFinish {
			resp.FinishReasons = append(resp.FinishReasons, e.finish)
		}
		if resp.Structured == "" {
			resp.Structured = e.structured
		}
	}
}

// clean makes a fresh response what the cache stores: answers without
// inline reasoning (answers and reasoning otherwise as the server sent
// them).
func (c *CachedClient) clean(resp *Response) {
	var reasoning []string
	anyReasoning := false
	for i, ch := range resp.Choices {
		r := resp.ReasoningOf(i)
		if think.Has(ch) {
			var inline string
			ch, inline = SplitReasoning(ch)
			if r == "" {
				r = inline
			} else if inline != "" {
				r += "\n\n" + inline
			}
		}
		resp.Choices[i] = ch
		reasoning = append(reasoning, r)
		anyReasoning = anyReasoning || r != ""
	}
	resp.Reasoning = nil
	if anyReasoning {
		resp.Reasoning = reasoning
	}
}

// storedDoc is the request document the cache keeps: doc with its
// messages' text redacted (WithRedact).
func (c *CachedClient) storedDoc(doc keyDoc) *keyDoc {
	if c.redactor.Active() {
		msgs := make([]Message, len(doc.Messages))
		for i, m := range doc.Messages {
			msgs[i] = Message{Role: m.Role, Content: c.redactor.Redact(m.Content)}
		}
		doc.Messages = msgs
	}
	return &doc
}

// call makes one real call (samples first.. for offset clients) and logs it.
func (c *CachedClient) call(ctx context.Context, req Request, first int) (*Response, error) {
	if fn, _ := ctx.Value(beforeSendKey{}).(func() error); fn != nil && !c.inProcess {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var resp *Response
	var err error
	if oc, ok := c.inner.(OffsetClient); ok && first > 0 {
		resp, err = oc.CompleteFrom(ctx, req, first)
	} else {
		resp, err = c.inner.Complete(ctx, req)
	}
	if c.onCall != nil {
		rec := CallRecord{Start: start, Role: req.Role, Ident: c.Ident(), Samples: req.Samples(), Latency: time.Since(start)}
		if err != nil {
			rec.ErrorClass = ErrorClass(err)
			rec.Error = err.Error()
		} else {
			rec.Usage = resp.Usage
			if resp.Latency > 0 {
				rec.Latency = resp.Latency
			}
		}
		c.onCall(rec)
	}
	return resp, err
}

// Embed forwards to the inner client when it is an Embedder (embeddings are
// not cached).
func (c *CachedClient) Embed(ctx context.Context, role string, texts []string) ([][]float32, Usage, error) {
	e, ok := c.inner.(Embedder)
	if !ok {
		return nil, Usage{}, fmt.Errorf("llm: %s %s (role %q) does not compute embeddings", c.ident.Backend, c.ident.Model, role)
	}
	return e.Embed(ctx, role, texts)
}
