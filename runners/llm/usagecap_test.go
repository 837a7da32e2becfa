package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
)

// usageChat answers one choice with the raw usage object usage (JSON).
func usageChat(usage string) step {
	return func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":9223372036854775807,"model":"m",
			"choices":[{"index":9223372036854775807,"message":{"role":"assistant","content":"SELECT 1"},"finish_reason":"stop"}],
			"usage":%s}`, usage)
	}
}

// TestOpenAIUsageValidated sends the counts a hostile server may send
// (2^63-1, negative ones) and checks that Complete returns each count
// clamped to [0, MaxTokenCount], the answer kept, and that a request sent
// twice (a server ignoring n) sums without overflowing.
func TestOpenAIUsageValidated(t *testing.T) {
	t.Parallel()
	const huge = "9223372036854775807"
	tests := []struct {
		name  string
		usage string
		n     int
		want  Usage
	}{
		{"max int64", `{"prompt_tokens":` + huge + `,"completion_tokens":` + huge + `,"total_tokens":` + huge + `,"completion_tokens_details":{"reasoning_tokens":` + huge + `}}`, 1,
			Usage{MaxTokenCount, MaxTokenCount, MaxTokenCount}},
		{"negative", `{"prompt_tokens":-5,"completion_tokens":-1,"total_tokens":-6}`, 1, Usage{}},
		// Two requests (one choice each) at the cap: their sum is
		// clamped too, never 2^63-1 or wrapped negative.
		{"sum of two at the cap", `{"prompt_tokens":` + huge + `,"completion_tokens":3}`, 2, Usage{MaxTokenCount, 6, 0}},
		{"honest", `{"prompt_tokens":12,"completion_tokens":3}`, 1, Usage{12, 3, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, usageChat(tt.usage))
			o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.Logf = func(string, ...any) {} })
			req := hello
			req.N = tt.n
			resp, err := o.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v; want an answer", err)
			}
			if resp.Usage != tt.want {
				t.Errorf("usage = %+v; want %+v", resp.Usage, tt.want)
			}
			if len(resp.Choices) != tt.n || resp.Choices[0] != "SELECT 1" {
				t.Errorf("choices = %q; want %d of \"SELECT 1\"", resp.Choices, tt.n)
			}
		})
	}
}

// TestUsageAdd checks Usage.Add at the bounds (the expected values are
// the bounds themselves: MaxTokenCount and 0).
func TestUsageAdd(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b, want Usage }{
		{Usage{1, 2, 0}, Usage{3, 4, 1}, Usage{4, 6, 1}},
		{Usage{math.MaxInt, 0, 0}, Usage{math.MaxInt, 0, 0}, Usage{MaxTokenCount, 0, 0}},
		{Usage{MaxTokenCount, 0, 0}, Usage{1, 0, 0}, Usage{MaxTokenCount, 0, 0}},
		{Usage{math.MinInt, -1, 0}, Usage{-1, -1, 0}, Usage{0, 0, 0}},
	}
	for _, tt := range tests {
		if got := tt.a.Add(tt.b); got != tt.want {
			t.Errorf("%+v.Add(%+v) = %+v; want %+v", tt.a, tt.b, got, tt.want)
		}
	}
}

// funcClient is a Client answering with a function.
type funcClient func(ctx context.Context, req Request) (*Response, error)

func (f funcClient) Complete(ctx context.Context, req Request) (*Response, error) { return f(ctx, req) }

// TestCachedUsageValidated answers through the cache from a client
// reporting counts of 2^63-1 and checks that both the call and the cache
// hit after it return them clamped.
func TestCachedUsageValidated(t *testing.T) {
	t.Parallel()
	c, err := OpenCache(t.TempDir() + "/cache.db")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inner := funcClient(func(ctx context.Context, req Request) (*Response, error) {
		return &Response{Choices: make([]string, req.Samples()), Model: "m", Usage: Usage{PromptTokens: math.MaxInt, CompletionTokens: math.MaxInt}}, nil
	})
	cc := Cached(inner, c, Ident{Backend: "test", Model: "m"})
	req := hello
	req.N = 3
	for i, want := range []bool{false, true} {
		resp, err := cc.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Cached != want || resp.Usage.PromptTokens != MaxTokenCount || resp.Usage.CompletionTokens != MaxTokenCount {
			raw, _ := json.Marshal(resp.Usage)
			t.Errorf("call %d: cached %v, usage %s; want cached %v, counts %d", i, resp.Cached, raw, want, MaxTokenCount)
		}
	}
}

// TestCacheWriteFullIsWriteError fills the cache for real (SQLite's
// max_page_count caps the file at its size, so the next write fails with
// SQLITE_FULL, "database or disk is full", as on a full disk): the call
// fails with a *WriteError naming the cache file, which a run reads as an
// environment failure.
func TestCacheWriteFullIsWriteError(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/cache.db"
	c, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.db.SetMaxOpenConns(1) // the cap below is the connection's
	var pages int
	if err := c.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	// 64 KiB that do not compress: more than the pages free.
	var b strings.Builder
	for x := uint32(1); b.Len() < 64<<10; {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		fmt.Fprintf(&b, "%08x", x)
	}
	big := b.String()
	inner := funcClient(func(ctx context.Context, req Request) (*Response, error) {
		return &Response{Choices: []string{big}, Model: "m"}, nil
	})
	_, err = Cached(inner, c, Ident{Backend: "test", Model: "m"}).Complete(context.Background(), hello)
	var we *WriteError
	if !errors.As(err, &we) || we.Path != path || !strings.Contains(err.Error(), "full") {
		t.Fatalf("err = %v; want a *WriteError naming %s, disk full", err, path)
	}
}

// TestOpenAIUsageNotAnInteger sends counts that are no int64 (1e30,
// 2^64, a fraction): the answer is rejected as malformed, never stored
// with a count made up.
func TestOpenAIUsageNotAnInteger(t *testing.T) {
	t.Parallel()
	for _, usage := range []string{`{"prompt_tokens":1e30}`, `{"prompt_tokens":18446744073709551616}`, `{"completion_tokens":2.5}`} {
		t.Run(usage, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, usageChat(usage))
			o := newTestOpenAI(t, fs.URL, nil)
			_, err := o.Complete(context.Background(), hello)
			if got := ErrorClass(err); got != ClassMalformed {
				t.Errorf("err = %v (class %q); want class %q", err, got, ClassMalformed)
			}
		})
	}
}
