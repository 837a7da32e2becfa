package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer speaks the OpenAI chat-completions and embeddings protocol,
// answering each request with the next scripted step (the last step
// repeats). It records what it received.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	steps  []step
	reqs   []recorded
	active atomic.Int32
	peak   atomic.Int32
}

type recorded struct {
	at     time.Time
	path   string
	auth   string
	body   map[string]any
	rawLen int
}

// step answers one request; k is the 0-based request number.
type step func(w http.ResponseWriter, r *http.Request, k int, body map[string]any)

func newFakeServer(t testing.TB, steps ...step) *fakeServer {
	t.Helper()
	fs := &fakeServer{steps: steps}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := fs.active.Add(1)
		defer fs.active.Add(-1)
		for {
			p := fs.peak.Load()
			if n <= p || fs.peak.CompareAndSwap(p, n) {
				break
			}
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		fs.mu.Lock()
		k := len(fs.reqs)
		fs.reqs = append(fs.reqs, recorded{at: time.Now(), path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body, rawLen: len(raw)})
		s := fs.steps[min(k, len(fs.steps)-1)]
		fs.mu.Unlock()
		s(w, r, k, body)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) requests() []recorded {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]recorded(nil), fs.reqs...)
}

// okChat answers with n choices (the request's n, or fixed when > 0).
func okChat(fixed int) step {
	return func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		n := fixed
		if n == 0 {
			n = 1
			if v, ok := body["n"].(float64); ok {
				n = int(v)
			}
		}
		var choices []map[string]any
		for i := n - 1; i >= 0; i-- { // reversed: the client must sort by index
			choices = append(choices, map[string]any{
				"index":         i,
				"message":       map[string]any{"role": "assistant", "content": fmt.Sprintf("answer r%d c%d", k, i)},
				"finish_reason": "stop",
			})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "served-model",
			"choices": choices,
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5 * n, "total_tokens": 10 + 5*n},
		})
	}
}

func status(code int, retryAfter, msg string) step {
	return func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "error"}})
	}
}

func newTestOpenAI(t testing.TB, url string, mod func(*OpenAIConfig)) *OpenAI {
	t.Helper()
	cfg := OpenAIConfig{
		BaseURL: url + "/v1", Model: "test-model", Timeout: 2 * time.Second,
		BackoffBase: 10 * time.Millisecond, BackoffMax: 40 * time.Millisecond,
		MaxConcurrency: -1, WaitScale: 1,
	}
	if mod != nil {
		mod(&cfg)
	}
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var hello = Request{Role: "reason", Messages: []Message{{Role: "user", Content: "hello"}}, Temperature: 0.7}

func TestOpenAIRetryAfter429(t *testing.T) {
	fs := newFakeServer(t, status(429, "1", "slow down"), okChat(0))
	// WaitScale 0.05 turns the server's 1 s into 50 ms.
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.WaitScale = 0.05 })
	resp, err := o.Complete(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	reqs := fs.requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests; want 2", len(reqs))
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < 45*time.Millisecond || gap > time.Second {
		t.Errorf("gap between 429 and retry = %v; want about 50ms (Retry-After 1s x WaitScale 0.05)", gap)
	}
	if len(resp.Choices) != 1 || resp.Choices[0] != "answer r1 c0" {
		t.Errorf("choices = %q; want [answer r1 c0]", resp.Choices)
	}
	if resp.Usage != (Usage{PromptTokens: 10, CompletionTokens: 5}) {
		t.Errorf("usage = %+v; want {10 5}", resp.Usage)
	}
}

func TestOpenAIRetryAfterZeroUsesBackoff(t *testing.T) {
	fs := newFakeServer(t, status(429, "0", "slow down"), okChat(0))
	o := newTestOpenAI(t, fs.URL, nil)
	if _, err := o.Complete(context.Background(), hello); err != nil {
		t.Fatal(err)
	}
	reqs := fs.requests()
	// Backoff for attempt 0 is in [BackoffBase/2, BackoffBase) = [5ms, 10ms).
	if gap := reqs[1].at.Sub(reqs[0].at); gap < 4*time.Millisecond || gap > 500*time.Millisecond {
		t.Errorf("gap = %v; want within [5ms, 10ms) plus scheduling", gap)
	}
}

func TestOpenAI500Then200(t *testing.T) {
	fs := newFakeServer(t, status(500, "", "boom"), status(502, "", "bad gateway"), okChat(0))
	o := newTestOpenAI(t, fs.URL, nil)
	resp, err := o.Complete(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fs.requests()); n != 3 {
		t.Errorf("got %d requests; want 3", n)
	}
	if resp.Choices[0] != "answer r2 c0" {
		t.Errorf("choice = %q; want answer r2 c0", resp.Choices[0])
	}
}

func TestOpenAI500GivesUp(t *testing.T) {
	fs := newFakeServer(t, status(503, "", "overloaded"))
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.MaxRetries = 2 })
	_, err := o.Complete(context.Background(), hello)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("err = %v; want a *StatusError 503", err)
	}
	if n := len(fs.requests()); n != 3 {
		t.Errorf("got %d requests; want 3 (1 + MaxRetries 2)", n)
	}
	if !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Errorf("err = %v; want it to say it gave up after 3 attempts", err)
	}
}

func TestOpenAIMalformedJSON(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [ this is not json }`)
	})
	o := newTestOpenAI(t, fs.URL, nil)
	_, err := o.Complete(context.Background(), hello)
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v; want ErrMalformed", err)
	}
	if n := len(fs.requests()); n != 1 {
		t.Errorf("got %d requests; want 1 (malformed JSON is not retried)", n)
	}
	if got := ErrorClass(err); got != "malformed" {
		t.Errorf("ErrorClass = %q; want malformed", got)
	}
}

// truncated promises a longer body than it sends, then closes the
// connection.
func truncated(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("no hijacker")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	part := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"par`
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(part)+500, part)
	buf.Flush()
}

func TestOpenAITruncatedBody(t *testing.T) {
	fs := newFakeServer(t, truncated, okChat(0))
	o := newTestOpenAI(t, fs.URL, nil)
	resp, err := o.Complete(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fs.requests()); n != 2 {
		t.Errorf("got %d requests; want 2", n)
	}
	if resp.Choices[0] != "answer r1 c0" {
		t.Errorf("choice = %q", resp.Choices[0])
	}

	fs2 := newFakeServer(t, truncated)
	o2 := newTestOpenAI(t, fs2.URL, func(c *OpenAIConfig) { c.MaxRetries = 1 })
	_, err = o2.Complete(context.Background(), hello)
	if !errors.Is(err, ErrNetwork) {
		t.Fatalf("err = %v; want ErrNetwork", err)
	}
	if n := len(fs2.requests()); n != 2 {
		t.Errorf("got %d requests; want 2", n)
	}
}

func TestOpenAITimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}
	fs := newFakeServer(t, slow, okChat(0))
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.Timeout = 50 * time.Millisecond })
	start := time.Now()
	if _, err := o.Complete(context.Background(), hello); err != nil {
		t.Fatal(err)
	}
	if n := len(fs.requests()); n != 2 {
		t.Errorf("got %d requests; want 2", n)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v; the 50ms timeout was not enforced", el)
	}

	fs2 := newFakeServer(t, slow)
	o2 := newTestOpenAI(t, fs2.URL, func(c *OpenAIConfig) { c.Timeout = 30 * time.Millisecond; c.MaxRetries = 1 })
	_, err := o2.Complete(context.Background(), hello)
	if !errors.Is(err, ErrTimeout) || ErrorClass(err) != "timeout" {
		t.Fatalf("err = %v (class %q); want ErrTimeout", err, ErrorClass(err))
	}
}

func TestOpenAIAuthFailsFastWithoutKey(t *testing.T) {
	const secret = "sk-test-SECRET-0123456789"
	t.Setenv("T2S_TEST_API_KEY", secret)
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		status(401, "", "Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))(w, r, k, body)
	})
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.APIKeyEnv = "T2S_TEST_API_KEY" })
	_, err := o.Complete(context.Background(), hello)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 401 {
		t.Fatalf("err = %v; want *StatusError 401", err)
	}
	reqs := fs.requests()
	if len(reqs) != 1 {
		t.Errorf("got %d requests; want exactly 1 (401 is not retried)", len(reqs))
	}
	if reqs[0].auth != "Bearer "+secret {
		t.Errorf("Authorization = %q; want the bearer key", reqs[0].auth)
	}
	msg := err.Error()
	if strings.Contains(msg, secret) || strings.Contains(fmt.Sprintf("%+v", se), secret) {
		t.Errorf("error leaks the API key: %s", msg)
	}
	for _, want := range []string{fs.URL + "/v1", "test-model", "401"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	if ErrorClass(err) != "auth" {
		t.Errorf("ErrorClass = %q; want auth", ErrorClass(err))
	}
}

func TestOpenAIMissingKeyEnv(t *testing.T) {
	t.Setenv("T2S_TEST_EMPTY_KEY", "")
	_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://localhost:1/v1", Model: "m", APIKeyEnv: "T2S_TEST_EMPTY_KEY"})
	if err == nil || !strings.Contains(err.Error(), "T2S_TEST_EMPTY_KEY") {
		t.Fatalf("err = %v; want an error naming the env var", err)
	}
}

func TestOpenAIBadRequestFailsFast(t *testing.T) {
	for _, code := range []int{400, 403, 404} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			fs := newFakeServer(t, status(code, "", "nope"), okChat(0))
			o := newTestOpenAI(t, fs.URL, nil)
			_, err := o.Complete(context.Background(), hello)
			var se *StatusError
			if !errors.As(err, &se) || se.StatusCode != code || se.Message != "nope" {
				t.Fatalf("err = %v; want *StatusError %d nope", err, code)
			}
			if n := len(fs.requests()); n != 1 {
				t.Errorf("got %d requests; want 1", n)
			}
		})
	}
}

func TestOpenAICancelDuringBackoff(t *testing.T) {
	fs := newFakeServer(t, status(503, "30", "busy"))
	o := newTestOpenAI(t, fs.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := o.Complete(ctx, hello)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("returned after %v; the backoff did not watch ctx", el)
	}
	if n := len(fs.requests()); n != 1 {
		t.Errorf("got %d requests; want 1", n)
	}
}

func TestOpenAIFillsUpN(t *testing.T) {
	fs := newFakeServer(t, okChat(1)) // a server that ignores n
	o := newTestOpenAI(t, fs.URL, nil)
	seed := int64(7)
	req := hello
	req.N = 3
	req.Seed = &seed
	resp, err := o.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"answer r0 c0", "answer r1 c0", "answer r2 c0"}
	if fmt.Sprint(resp.Choices) != fmt.Sprint(want) {
		t.Errorf("choices = %q; want %q", resp.Choices, want)
	}
	reqs := fs.requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests; want 3", len(reqs))
	}
	for i, r := range reqs {
		wantN := 3 - i
		gotN, _ := r.body["n"].(float64)
		if wantN == 1 {
			if _, has := r.body["n"]; has && gotN != 1 {
				t.Errorf("request %d: n = %v; want 1 or absent", i, r.body["n"])
			}
		} else if int(gotN) != wantN {
			t.Errorf("request %d: n = %v; want %d", i, r.body["n"], wantN)
		}
		if s, _ := r.body["seed"].(float64); int(s) != 7+i {
			t.Errorf("request %d: seed = %v; want %d", i, r.body["seed"], 7+i)
		}
	}
	if resp.Usage != (Usage{PromptTokens: 30, CompletionTokens: 15}) {
		t.Errorf("usage = %+v; want {30 15} summed over 3 requests", resp.Usage)
	}
}

func TestOpenAINativeN(t *testing.T) {
	fs := newFakeServer(t, okChat(0))
	o := newTestOpenAI(t, fs.URL, nil)
	req := hello
	req.N = 3
	resp, err := o.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"answer r0 c0", "answer r0 c1", "answer r0 c2"}
	if fmt.Sprint(resp.Choices) != fmt.Sprint(want) {
		t.Errorf("choices = %q; want %q (sorted by index)", resp.Choices, want)
	}
	if n := len(fs.requests()); n != 1 {
		t.Errorf("got %d requests; want 1", n)
	}
}

func TestOpenAIRequestBody(t *testing.T) {
	fs := newFakeServer(t, okChat(0))
	o := newTestOpenAI(t, fs.URL, nil)
	seed := int64(42)
	schema := json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"],"additionalProperties":false}`)
	reqs := []Request{
		{Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}, Temperature: 0, TopP: 0.8,
			MaxTokens: 64, Stop: []string{"\n\n"}, N: 2, Seed: &seed, Answer: AnswerJSON, Schema: schema, SchemaName: "plan"},
		{Messages: []Message{{Role: "user", Content: "u"}}, Temperature: 0.5, Answer: AnswerJSON},
		{Messages: []Message{{Role: "user", Content: "u"}}, Temperature: 1, Answer: AnswerSQL},
	}
	for _, r := range reqs {
		if _, err := o.Complete(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	got := fs.requests()
	b := got[0].body
	checks := map[string]any{"model": "test-model", "temperature": 0.0, "top_p": 0.8, "max_tokens": 64.0, "n": 2.0, "seed": 42.0}
	for k, want := range checks {
		if b[k] != want {
			t.Errorf("body[%s] = %v; want %v", k, b[k], want)
		}
	}
	if fmt.Sprint(b["stop"]) != "[\n\n]" {
		t.Errorf("stop = %q", b["stop"])
	}
	rf, _ := b["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "plan" || js["strict"] != true {
		t.Errorf("response_format = %v; want json_schema named plan, strict", rf)
	}
	sch, _ := json.Marshal(js["schema"])
	var a, w any
	json.Unmarshal(sch, &a)
	json.Unmarshal(schema, &w)
	if fmt.Sprint(a) != fmt.Sprint(w) {
		t.Errorf("schema sent = %s; want %s", sch, schema)
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 2 {
		t.Errorf("messages = %v; want 2", msgs)
	}
	if rf, _ := got[1].body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format without schema = %v; want json_object", rf)
	}
	if _, has := got[2].body["response_format"]; has {
		t.Errorf("sql request carries response_format %v; want none", got[2].body["response_format"])
	}
	if got[2].body["temperature"] != 1.0 {
		t.Errorf("temperature = %v; want 1", got[2].body["temperature"])
	}
}

func TestOpenAIEmbed(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		in, _ := body["input"].([]any)
		var data []map[string]any
		for i := len(in) - 1; i >= 0; i-- {
			s, _ := in[i].(string)
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(s)), float32(k)}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "emb", "usage": map[string]any{"prompt_tokens": len(in), "total_tokens": len(in)}})
	})
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.EmbedBatch = 2 })
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, usage, err := o.Embed(context.Background(), "retrieval", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 5 {
		t.Fatalf("got %d vectors; want 5", len(vecs))
	}
	for i, v := range vecs {
		if int(v[0]) != i+1 || int(v[1]) != i/2 {
			t.Errorf("vector %d = %v; want [%d %d]", i, v, i+1, i/2)
		}
	}
	if n := len(fs.requests()); n != 3 {
		t.Errorf("got %d requests; want 3 batches of <= 2", n)
	}
	if usage.PromptTokens != 5 {
		t.Errorf("usage = %+v; want 5 prompt tokens", usage)
	}
	if fs.requests()[0].path != "/v1/embeddings" {
		t.Errorf("path = %s", fs.requests()[0].path)
	}
}

func TestOpenAIMaxConcurrency(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, k int, body map[string]any) {
		time.Sleep(20 * time.Millisecond)
		okChat(0)(w, r, k, body)
	})
	o := newTestOpenAI(t, fs.URL, func(c *OpenAIConfig) { c.MaxConcurrency = 2 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := o.Complete(context.Background(), hello); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := fs.peak.Load(); p != 2 {
		t.Errorf("peak in-flight = %d; want 2 (MaxConcurrency)", p)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"1", time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"Thu, 02 Jan 2025 03:04:15 GMT", 10 * time.Second},
		{"Thu, 02 Jan 2025 03:04:00 GMT", 0}, // in the past
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestBucket(t *testing.T) {
	now := time.Unix(0, 0)
	b := newBucket(60, func() time.Time { return now }) // 60/min = 1 token/s, capacity 60
	if d := b.reserve(60); d != 0 {
		t.Fatalf("first 60 tokens wait %v; want 0 (bucket starts full)", d)
	}
	if d := b.reserve(2); d != 2*time.Second {
		t.Errorf("2 more tokens wait %v; want 2s at 1 token/s", d)
	}
	now = now.Add(10 * time.Second) // level -2 + 10 = 8
	if d := b.reserve(8); d != 0 {
		t.Errorf("after 10s, 8 tokens wait %v; want 0", d)
	}
	b.give(100)
	if b.level != 60 {
		t.Errorf("level after give = %v; want capped at 60", b.level)
	}
}

func TestLimiterRPMWaitsAndCancels(t *testing.T) {
	l := NewLimiter(0, 60, 0) // 1 request/s after a burst of 60
	ctx := context.Background()
	for range 60 {
		rel, err := l.Acquire(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		rel(0)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(cctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("61st request within a minute: err = %v; want to wait and then DeadlineExceeded", err)
	}
}
