package llm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// CacheReader reads a cache file without writing to it: what a viewer of
// a run uses to show each call's request and samples (Response.CacheKey
// names them in the run's call log). It opens the file read-only, so it
// works while a run writes to it.
type CacheReader struct {
	db          *sql.DB
	path        string
	hasRequests bool
}

// CachedCall is what a cache holds of one request.
type CachedCall struct {
	// Ident and Request are the request as its key hashed it (messages
	// redacted as stored; Request.N is 0); Request is nil when the cache
	// did not keep it (a file made before requests were kept).
	Ident   Ident
	Request *Request
	// Samples are samples 0..n-1; Found is false where the cache has none.
	Samples []CachedSample
}

// CachedSample is one stored sample.
type CachedSample struct {
	Found            bool
	Answer           string
	Reasoning        string
	Finish           string
	Structured       string
	Model            string
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int
	// Latency is the latency of the call that produced the sample.
	Latency time.Duration
}

// OpenCacheReader opens the cache file at path read-only; the file must
// exist.
func OpenCacheReader(path string) (*CacheReader, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("llm: cache path %q must not contain '?' or '#'", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("llm: cache: %w", err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return nil, fmt.Errorf("llm: open cache %s: %w", path, err)
	}
	r := &CacheReader{db: db, path: path}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'responses'`).Scan(&n); err != nil || n == 0 {
		db.Close()
		if err == nil {
			err = errors.New("no responses table")
		}
		return nil, fmt.Errorf("llm: cache %s is not a response cache: %w", path, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'requests'`).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: read cache %s: %w", path, err)
	}
	r.hasRequests = n > 0
	return r, nil
}

// Close closes the file.
func (r *CacheReader) Close() error { return r.db.Close() }

// request decodes a stored request (storedRequest), its messages' text
// joined from their paragraphs.
func (r *CacheReader) request(ctx context.Context, reqKey, raw string) (*keyDoc, error) {
	var sr storedRequest
	if err := json.Unmarshal([]byte(raw), &sr); err != nil {
		return nil, fmt.Errorf("llm: read cache %s: request %s: %w", r.path, reqKey, err)
	}
	var ids []any
	for _, m := range sr.Messages {
		for _, id := range m.Parts {
			ids = append(ids, id)
		}
	}
	text := map[int64]string{}
	if len(ids) > 0 {
		rows, err := r.db.QueryContext(ctx, `SELECT id, text FROM texts WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`)`, ids...)
		if err != nil {
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var t string
			if err := rows.Scan(&id, &t); err != nil {
				return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
			}
			text[id] = t
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		}
	}
	doc := sr.Doc
	for _, m := range sr.Messages {
		ps := make([]string, len(m.Parts))
		for i, id := range m.Parts {
			t, ok := text[id]
			if !ok {
				return nil, fmt.Errorf("llm: read cache %s: request %s: paragraph %d missing", r.path, reqKey, id)
			}
			ps[i] = t
		}
		doc.Messages = append(doc.Messages, Message{Role: m.Role, Content: strings.Join(ps, "\n\n")})
	}
	return &doc, nil
}

// Call returns the request stored under request key reqKey and its samples
// 0..n-1.
func (r *CacheReader) Call(ctx context.Context, reqKey string, n int) (*CachedCall, error) {
	if n < 1 {
		n = 1
	}
	keys, err := SampleKeys(reqKey, n)
	if err != nil {
		return nil, err
	}
	out := &CachedCall{Samples: make([]CachedSample, n)}
	if r.hasRequests {
		var raw string
		err := r.db.QueryRowContext(ctx, `SELECT doc FROM requests WHERE key = ?`, reqKey).Scan(&raw)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		default:
			doc, err := r.request(ctx, reqKey, raw)
			if err != nil {
				return nil, err
			}
			out.Ident = doc.Ident
			out.Request = &Request{Role: doc.Role, Messages: doc.Messages, Temperature: doc.Temperature, TopP: doc.TopP,
				MaxTokens: doc.MaxTokens, Stop: doc.Stop, Seed: doc.Seed, Answer: doc.Answer, Schema: doc.Schema,
				SchemaName: doc.SchemaName, Responder: doc.Responder}
		}
	}
	c := &Cache{db: r.db, path: r.path}
	have, err := c.get(ctx, keys)
	if err != nil {
		return nil, err
	}
	for i, e := range have {
		out.Samples[i] = CachedSample{Found: true, Answer: e.choice, Reasoning: e.reasoning, Finish: e.finish, Structured: e.structured,
			Model: e.model, PromptTokens: e.promptTokens, CompletionTokens: e.completionTokens, ReasoningTokens: e.reasoningTokens, Latency: e.latency}
	}
	return out, nil
}
