package llm

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/internal/checksum"
)

// CacheReader reads a cache file without writing to it: what a viewer of
// a run uses to show each call's request and samples (Response.CacheKey
// names them in the run's call log). It opens the file read-only, so it
// works while a run writes to it. It reads both formats a file may hold
// (see Cache): the compact tables and those of the first format.
type CacheReader struct {
	db   *sql.DB
	path string
	// compact says the file has the compact tables; old, which tables of
	// the first format it has.
	compact bool
	old     oldTables
	// sums says table samples has column sum (rows carry checksums).
	sums bool
	// paras keeps paragraphs read before (ids never change their text):
	// a viewer reads many calls sharing paragraphs and their bases.
	mu         sync.Mutex
	paras      map[int64]string
	parasBytes int
}

// parasMaxBytes bounds CacheReader.paras (emptied when full).
const parasMaxBytes = 32 << 20

// known returns the paragraphs of ids read before, and the ids not.
func (r *CacheReader) known(ids []int64) (map[int64]string, []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := make(map[int64]string, len(ids))
	var need []int64
	for _, id := range ids {
		if t, ok := r.paras[id]; ok {
			text[id] = t
		} else {
			need = append(need, id)
		}
	}
	return text, need
}

// remember adds paragraphs read to r.paras.
func (r *CacheReader) remember(text map[int64]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, t := range text {
		if _, ok := r.paras[id]; ok {
			continue
		}
		if r.paras == nil || r.parasBytes+len(t) > parasMaxBytes {
			r.paras, r.parasBytes = map[int64]string{}, 0
		}
		r.paras[id] = t
		r.parasBytes += len(t)
	}
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
	// Found is false where the cache holds no usable sample; Corrupt is
	// true when it held one in a row that failed its checksum (which a
	// run asks for again).
	Found            bool
	Corrupt          bool
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
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('samples', 'paragraphs')`).Scan(&n)
	if err == nil {
		r.compact = n == 2
		r.old, err = findOldTables(db)
	}
	if err == nil && r.compact {
		r.sums, err = checksum.HasColumn(context.Background(), db, "samples")
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: read cache %s: %w", path, err)
	}
	if !r.compact && !r.old.responses {
		db.Close()
		return nil, fmt.Errorf("llm: cache %s is not a response cache: it has neither table samples nor table responses", path)
	}
	return r, nil
}

// Close closes the file.
func (r *CacheReader) Close() error { return r.db.Close() }

// request returns the request stored under request key reqKey, nil when
// the file does not hold it.
func (r *CacheReader) request(ctx context.Context, reqKey string) (*keyDoc, error) {
	if r.compact {
		rkb, err := hex.DecodeString(reqKey)
		if err != nil {
			return nil, fmt.Errorf("llm: cache key %q is not hex", reqKey)
		}
		var v []byte
		err = r.db.QueryRowContext(ctx, `SELECT p FROM samples WHERE `+rkWhere+` AND p IS NOT NULL LIMIT 1`, rkArgs(rkb)...).Scan(&v)
		switch {
		case err == nil:
			doc, err := r.prompt(ctx, v)
			if err != nil {
				return nil, fmt.Errorf("llm: read cache %s: request %s: %w", r.path, reqKey, err)
			}
			return doc, nil
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		}
	}
	if !r.old.requests {
		return nil, nil
	}
	var raw string
	err := r.db.QueryRowContext(ctx, `SELECT doc FROM requests WHERE key = ?`, reqKey).Scan(&raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
	}
	doc, err := r.oldRequest(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("llm: read cache %s: request %s: %w", r.path, reqKey, err)
	}
	return doc, nil
}

// prompt decodes a request as column p of table samples holds it, its settings and paragraphs read
// from table paragraphs.
func (r *CacheReader) prompt(ctx context.Context, v []byte) (*keyDoc, error) {
	payload, err := unpackValue(v)
	if err != nil {
		return nil, err
	}
	settings, msgs, err := decodePrompt(payload)
	if err != nil {
		return nil, err
	}
	ids := []int64{settings}
	for _, m := range msgs {
		ids = append(ids, m.parts...)
	}
	text, need := r.known(ids)
	if len(need) > 0 {
		got, err := r.texts(ctx, `SELECT id, v FROM paragraphs WHERE id IN `, need, r.paragraph)
		if err != nil {
			return nil, err
		}
		r.remember(got)
		for id, t := range got {
			text[id] = t
		}
	}
	var doc keyDoc
	if err := json.Unmarshal([]byte(text[settings]), &doc); err != nil {
		return nil, fmt.Errorf("settings (paragraph %d): %w", settings, err)
	}
	for _, m := range msgs {
		ps := make([]string, len(m.parts))
		for i, id := range m.parts {
			ps[i] = text[id]
		}
		doc.Messages = append(doc.Messages, Message{Role: m.role, Content: strings.Join(ps, "\n\n")})
	}
	return &doc, nil
}

// texts reads the texts of ids with query (selecting id and value from
// ids given as a list after it), each value turned into text by decode
// (which may use and add to the texts read so far); every id must be
// found.
func (r *CacheReader) texts(ctx context.Context, query string, ids []int64, decode func(context.Context, int64, []byte, map[int64]string) (string, error)) (map[int64]string, error) {
	text := map[int64]string{}
	var args []any
	seen := map[int64]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			args = append(args, id)
		}
	}
	raw := map[int64][]byte{}
	// Some SQLite builds allow at most 999 parameters in a statement.
	for len(args) > 0 {
		chunk := args[:min(len(args), 500)]
		args = args[len(chunk):]
		rows, err := r.db.QueryContext(ctx, query+`(`+strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")+`)`, chunk...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var v []byte
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return nil, err
			}
			raw[id] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for id := range seen {
		v, ok := raw[id]
		if !ok {
			return nil, fmt.Errorf("paragraph %d missing", id)
		}
		if _, ok := text[id]; ok {
			continue // read as the base of another
		}
		t, err := decode(ctx, id, v, text)
		if err != nil {
			return nil, fmt.Errorf("paragraph %d: %w", id, err)
		}
		text[id] = t
	}
	return text, nil
}

// paragraph decodes value v of paragraph id of table paragraphs, reading
// its bases (codecDelta1) from the file unless got holds them, and adding
// them to got.
func (r *CacheReader) paragraph(ctx context.Context, id int64, v []byte, got map[int64]string) (string, error) {
	baseID, err := deltaBase(v)
	if err != nil {
		return "", err
	}
	if baseID == 0 {
		t, err := unpackValue(v)
		return string(t), err
	}
	// A base is stored before the paragraphs stored against it: ids
	// descend along a chain, so it ends.
	if baseID >= id {
		return "", fmt.Errorf("base paragraph %d is not older", baseID)
	}
	base, ok := got[baseID]
	if !ok {
		var known map[int64]string
		known, _ = r.known([]int64{baseID})
		base, ok = known[baseID]
	}
	if !ok {
		var bv []byte
		if err := r.db.QueryRowContext(ctx, `SELECT v FROM paragraphs WHERE id = ?`, baseID).Scan(&bv); err != nil {
			return "", fmt.Errorf("base paragraph %d: %w", baseID, err)
		}
		if base, err = r.paragraph(ctx, baseID, bv, got); err != nil {
			return "", fmt.Errorf("base paragraph %d: %w", baseID, err)
		}
		got[baseID] = base
	}
	t, err := unpackDelta(v, []byte(base))
	return string(t), err
}

// oldRequest decodes a request of the first format (storedRequest), its
// messages' text joined from their paragraphs in table texts.
func (r *CacheReader) oldRequest(ctx context.Context, raw string) (*keyDoc, error) {
	var sr storedRequest
	if err := json.Unmarshal([]byte(raw), &sr); err != nil {
		return nil, err
	}
	var ids []int64
	for _, m := range sr.Messages {
		ids = append(ids, m.Parts...)
	}
	text, err := r.texts(ctx, `SELECT id, text FROM texts WHERE id IN `, ids, func(_ context.Context, _ int64, b []byte, _ map[int64]string) (string, error) {
		return string(b), nil
	})
	if err != nil {
		return nil, err
	}
	doc := sr.Doc
	for _, m := range sr.Messages {
		ps := make([]string, len(m.Parts))
		for i, id := range m.Parts {
			ps[i] = text[id]
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
	doc, err := r.request(ctx, reqKey)
	if err != nil {
		return nil, err
	}
	if doc != nil {
		out.Ident = doc.Ident
		out.Request = &Request{Role: doc.Role, Messages: doc.Messages, Temperature: doc.Temperature, TopP: doc.TopP, TopK: doc.TopK,
			MaxTokens: doc.MaxTokens, Stop: doc.Stop, Seed: doc.Seed, Answer: doc.Answer, Schema: doc.Schema,
			SchemaName: doc.SchemaName, Responder: doc.Responder}
	}
	have, bad, err := r.samples(ctx, reqKey, keys)
	if err != nil {
		return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
	}
	for i := range out.Samples {
		if _, ok := have[i]; !ok && slices.ContainsFunc(bad, func(b badRow) bool { return b.holds(i) }) {
			out.Samples[i].Corrupt = true
		}
	}
	for i, e := range have {
		out.Samples[i] = CachedSample{Found: true, Answer: e.choice, Reasoning: e.reasoning, Finish: e.finish, Structured: e.structured,
			Model: e.model, PromptTokens: e.promptTokens, CompletionTokens: e.completionTokens, ReasoningTokens: e.reasoningTokens, Latency: e.latency}
	}
	return out, nil
}

// samples reads the samples with keys of request reqKey from the tables
// the file has, and the rows that failed their checksum.
func (r *CacheReader) samples(ctx context.Context, reqKey string, keys []string) (map[int]entry, []badRow, error) {
	if r.compact {
		return loadSamples(ctx, r.db, r.old, r.sums, reqKey, len(keys))
	}
	// A file of the first format only: no table samples to read.
	have, err := loadOldSamples(ctx, r.db, keys, map[int]entry{})
	return have, nil, err
}

// SamplesByModel counts the stored samples by the model name their
// answers gave (Response.Model), over both formats.
func (r *CacheReader) SamplesByModel(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	var qs []string
	if r.compact {
		qs = append(qs, `SELECT model, sum(n) FROM samples GROUP BY model`)
	}
	if r.old.responses {
		qs = append(qs, `SELECT model, count(*) FROM responses GROUP BY model`)
	}
	for _, q := range qs {
		rows, err := r.db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		}
		for rows.Next() {
			var m string
			var n int
			if err := rows.Scan(&m, &n); err != nil {
				rows.Close()
				return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
			}
			out[m] += n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("llm: read cache %s: %w", r.path, err)
		}
	}
	return out, nil
}
