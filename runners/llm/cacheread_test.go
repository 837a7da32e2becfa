package llm

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// finishClient answers each sample with a fixed answer, reasoning and
// finish reason: sample 1 is cut at the token limit.
type finishClient struct{}

func (finishClient) Complete(_ context.Context, req Request) (*Response, error) {
	r := &Response{Model: "m", Usage: Usage{PromptTokens: 40, CompletionTokens: 10 * req.Samples()}, Latency: 25 * time.Millisecond}
	for i := range req.Samples() {
		r.Choices = append(r.Choices, []string{"SELECT 1", "SELECT na", "SELECT 3"}[i])
		r.Reasoning = append(r.Reasoning, []string{"think 0", "think 1 sk-SECRET", "think 2"}[i])
		r.FinishReasons = append(r.FinishReasons, []string{FinishStop, FinishLength, FinishStop}[i])
	}
	return r, nil
}

// TestCacheReaderReadsCall checks that Response.CacheKey names, in a
// read-only CacheReader, the request as sent (secrets redacted) and every
// sample as the client returned it (answers are never redacted), for a
// miss and a hit alike.
func TestCacheReaderReadsCall(t *testing.T) {
	cache, path := openTestCache(t)
	cc := Cached(finishClient{}, cache, testIdent, WithRedact("sk-SECRET"))
	ctx := context.Background()
	req := Request{Role: "reason", Temperature: 0.7, MaxTokens: 64, N: 3, Messages: []Message{
		{Role: "system", Content: "You write SQLite."}, {Role: "user", Content: "key sk-SECRET; how many singers?"}}}
	miss, err := cc.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	hit, err := cc.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if miss.CacheKey == "" || hit.CacheKey != miss.CacheKey || !hit.Cached {
		t.Fatalf("cache keys: miss %q, hit %q (cached %v); want one non-empty key", miss.CacheKey, hit.CacheKey, hit.Cached)
	}
	want, _ := requestKeys(testIdent, req, 3)
	sk, err := SampleKeys(miss.CacheKey, 3)
	if err != nil || sk[2] != want[2] {
		t.Fatalf("SampleKeys(CacheKey): %v, %v; want requestKeys' %v", sk, err, want)
	}
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got, err := rd.Call(ctx, miss.CacheKey, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Request == nil {
		t.Fatal("request not kept")
	}
	if got.Ident != testIdent || got.Request.Role != "reason" || got.Request.Temperature != 0.7 || got.Request.MaxTokens != 64 {
		t.Errorf("request: %+v %+v; want ident %+v, role reason, T 0.7, max_tokens 64", got.Ident, got.Request, testIdent)
	}
	if len(got.Request.Messages) != 2 || got.Request.Messages[1].Content != "key [REDACTED]; how many singers?" || got.Request.Messages[0].Role != "system" {
		t.Errorf("messages: %+v; want system + user with the key redacted", got.Request.Messages)
	}
	for i, s := range got.Samples {
		if !s.Found || s.Answer != hit.Choices[i] || s.Reasoning != hit.ReasoningOf(i) || s.Finish != hit.Finish(i) || s.Latency != 25*time.Millisecond {
			t.Errorf("sample %d: got %+v; want the hit's %q / %q / %q, 25ms", i, s, hit.Choices[i], hit.ReasoningOf(i), hit.Finish(i))
		}
	}
	if got.Samples[1].Finish != FinishLength || got.Samples[1].Reasoning != "think 1 sk-SECRET" {
		t.Errorf("sample 1: got %+v; want finish length and the reasoning as the model wrote it", got.Samples[1])
	}
	// A fourth sample was never asked for.
	more, err := rd.Call(ctx, miss.CacheKey, 4)
	if err != nil || more.Samples[3].Found || !more.Samples[0].Found {
		t.Errorf("Call(n=4): %+v, %v; want sample 3 missing, 0 found", more, err)
	}
	if _, err := rd.Call(ctx, "not-a-key", 1); err == nil {
		t.Error("Call(not-a-key): got no error; want one")
	}
}

// TestCacheReaderParagraphs: messages come back byte for byte (blank
// lines, empty texts, trailing newlines), and a paragraph two requests
// share is stored once.
func TestCacheReaderParagraphs(t *testing.T) {
	cache, path := openTestCache(t)
	cc := Cached(finishClient{}, cache, testIdent)
	ctx := context.Background()
	schema := "CREATE TABLE singer (id INTEGER);\n\nCREATE TABLE concert (id INTEGER, singer_id INTEGER);"
	msgs := [][]Message{
		{{Role: "system", Content: "Answer in SQL."}, {Role: "user", Content: schema + "\n\nHow many singers?"}},
		{{Role: "system", Content: "Answer in SQL."}, {Role: "user", Content: schema + "\n\n\n\nHow many concerts?\n\n"}, {Role: "assistant", Content: ""}},
	}
	var keys []string
	for _, m := range msgs {
		resp, err := cc.Complete(ctx, Request{Role: "reason", Messages: m})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, resp.CacheKey)
	}
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i, k := range keys {
		got, err := rd.Call(ctx, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Request == nil || len(got.Request.Messages) != len(msgs[i]) {
			t.Fatalf("request %d: %+v; want %d messages", i, got.Request, len(msgs[i]))
		}
		for j, m := range got.Request.Messages {
			if m != msgs[i][j] {
				t.Errorf("request %d message %d: got %q; want %q", i, j, m, msgs[i][j])
			}
		}
	}
	// Distinct paragraphs: the instruction, two CREATE TABLEs, two
	// questions, "" (from the blank lines and the empty message), and the
	// settings both requests share (the key document without messages).
	var n int
	if err := rd.db.QueryRow(`SELECT count(*) FROM paragraphs`).Scan(&n); err != nil || n != 7 {
		t.Errorf("paragraphs holds %d texts (%v); want 7", n, err)
	}
}

// TestCacheReaderOldFile reads a cache file of the first format made
// before requests were kept: samples are found, the request is unknown.
func TestCacheReaderOldFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db := openFirstFormat(t, path)
	if _, err := db.Exec(`DROP TABLE requests; DROP TABLE texts`); err != nil {
		t.Fatal(err)
	}
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}}
	rk, _, err := requestKey(testIdent, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := putFirstFormat(ctx, db, rk, nil, []entry{{choice: "SELECT 1", model: "m", latency: time.Second}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got, err := rd.Call(ctx, rk, 2)
	if err != nil || got.Request != nil || !got.Samples[0].Found || got.Samples[0].Answer != "SELECT 1" || got.Samples[0].Latency != time.Second || got.Samples[1].Found {
		t.Errorf("old file: %+v, %v; want no request, sample 0 %q (1s), no sample 1", got, err, "SELECT 1")
	}
	byModel, err := rd.SamplesByModel(ctx)
	if err != nil || fmt.Sprint(byModel) != "map[m:1]" {
		t.Errorf("SamplesByModel: %v, %v; want map[m:1]", byModel, err)
	}
	if _, err := OpenCacheReader(filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("OpenCacheReader(missing file): got no error; want one")
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	edb, err := sql.Open("sqlite3", empty)
	if err == nil {
		_, err = edb.Exec(`CREATE TABLE other (x)`)
		edb.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCacheReader(empty); err == nil || !strings.Contains(err.Error(), "not a response cache") {
		t.Errorf("OpenCacheReader(a database without cache tables): got %v; want \"not a response cache\"", err)
	}
}
