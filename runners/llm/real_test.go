package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// These tests run the OpenAI backend and the cache against
// internal/fakeopenai, which answers the way real servers do.

// logSink collects the backend's log lines.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logSink) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func newClient(t *testing.T, srv *fakeopenai.Server, mod func(*llm.OpenAIConfig)) (*llm.OpenAI, *logSink) {
	t.Helper()
	logs := &logSink{}
	cfg := llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m", Timeout: 5 * time.Second, MaxConcurrency: -1,
		BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logf: logs.logf}
	if mod != nil {
		mod(&cfg)
	}
	o, err := llm.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o, logs
}

func fixed(c fakeopenai.Choice) fakeopenai.Responder {
	return func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice { return c }
}

var ask = llm.Request{Role: "reason", Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "how many singers?"}}, Temperature: 0.7}

// iesrUnderstand is shaped like the schema of runners/iesr/understand.go:
// unit and formula are not in required.
const iesrUnderstand = `{"type":"object","properties":{"subject":{"type":"string"},"unit":{"type":"string"},"formula":{"type":"string"}},"required":["subject"],"additionalProperties":false}`

const validSchema = `{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"],"additionalProperties":false}`

func TestOpenAIReasoningAndFinish(t *testing.T) {
	tests := []struct {
		name                    string
		choice                  fakeopenai.Choice
		maxTokens               int
		answer, reasoning, stop string
		reasoningTokens         int
	}{
		// DeepSeek's API and vLLM's reasoning parsers:
		// message.reasoning_content. 12 bytes = 3 tokens at 4 bytes per
		// token (fakeopenai.bytesPerToken).
		{"reasoning_content", fakeopenai.Choice{Content: "SELECT 1", ReasoningContent: "let me think"}, 0, "SELECT 1", "let me think", "stop", 3},
		// Newer vLLM, Ollama, OpenRouter: message.reasoning.
		{"reasoning field", fakeopenai.Choice{Content: "SELECT 1", Reasoning: "count the rows"}, 0, "SELECT 1", "count the rows", "stop", 4},
		{"inline think with a draft", fakeopenai.Choice{Content: "<think>draft: SELECT 2</think>\n```sql\nSELECT 1\n```"}, 0, "```sql\nSELECT 1\n```", "draft: SELECT 2", "stop", 0},
		// Qwen3 and DeepSeek-R1 templates open <think> in the prompt.
		{"orphan closing tag", fakeopenai.Choice{Content: "the table is singer</think>\nSELECT count(*) FROM singer"}, 0, "SELECT count(*) FROM singer", "the table is singer", "stop", 0},
		{"field and inline", fakeopenai.Choice{Content: "<think>b</think>c", ReasoningContent: "a"}, 0, "c", "a\n\nb", "stop", 1},
		// Cut while thinking: 3 tokens = 12 bytes of reasoning, no answer.
		{"cut while thinking", fakeopenai.Choice{Content: "SELECT 1", ReasoningContent: "first I list the tables"}, 3, "", "first I list", "length", 3},
		// Cut in the answer: 2 tokens = 8 bytes.
		{"cut in the answer", fakeopenai.Choice{Content: "SELECT name FROM singer"}, 2, "SELECT n", "", "length", 0},
		{"plain answer kept as sent", fakeopenai.Choice{Content: "  SELECT 1\n"}, 0, "  SELECT 1\n", "", "stop", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Responder: fixed(tt.choice)})
			o, _ := newClient(t, srv, nil)
			req := ask
			req.N = 2
			req.MaxTokens = tt.maxTokens
			resp, err := o.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if resp.Choices[i] != tt.answer || resp.ReasoningOf(i) != tt.reasoning || resp.Finish(i) != tt.stop {
					t.Errorf("sample %d: got answer %q, reasoning %q, finish %q; want %q, %q, %q", i, resp.Choices[i], resp.ReasoningOf(i), resp.Finish(i), tt.answer, tt.reasoning, tt.stop)
				}
				if got, want := resp.Cut(i), tt.stop == "length"; got != want {
					t.Errorf("sample %d: Cut = %v; want %v", i, got, want)
				}
			}
			if tt.reasoning == "" && resp.Reasoning != nil {
				t.Errorf("Reasoning = %q; want nil when no sample has reasoning", resp.Reasoning)
			}
			if got, want := resp.Usage.ReasoningTokens, 2*tt.reasoningTokens; got != want {
				t.Errorf("reasoning tokens = %d; want %d (2 samples x %d)", got, want, tt.reasoningTokens)
			}
		})
	}
}

func TestOpenAIMaxCompletionTokensSwitch(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{RejectMaxTokens: true})
	o, logs := newClient(t, srv, nil)
	req := ask
	req.MaxTokens = 64
	if _, err := o.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var got []string
	for _, r := range reqs {
		got = append(got, fmt.Sprintf("%s=%d", r.MaxTokensParam, r.MaxTokens))
	}
	// One rejected request, its retry, then the second request sent with
	// max_completion_tokens at once.
	want := []string{"max_tokens=64", "max_completion_tokens=64", "max_completion_tokens=64"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests sent %v; want %v", got, want)
	}
	st := o.Stats()
	if st.ParamSwitches != 1 || st.MaxTokensParam != llm.MaxCompletionTokensParam {
		t.Errorf("stats = %+v; want 1 switch to max_completion_tokens", st)
	}
	if !strings.Contains(logs.text(), "sending max_completion_tokens from now on") {
		t.Errorf("log = %q; want the switch logged", logs.text())
	}
}

func TestOpenAIMaxTokensSwitchOncePerEndpoint(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{RejectMaxTokens: true})
	o, _ := newClient(t, srv, nil)
	req := ask
	req.MaxTokens = 32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := o.Complete(context.Background(), req); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if st := o.Stats(); st.ParamSwitches != 1 {
		t.Errorf("switches = %d after 8 concurrent requests; want 1", st.ParamSwitches)
	}
}

func TestOpenAIMaxTokensOptions(t *testing.T) {
	tests := []struct {
		name      string
		cfg       llm.OpenAIConfig
		reqTokens int
		want      string
	}{
		{"default param", llm.OpenAIConfig{}, 100, "max_tokens=100"},
		{"completion param", llm.OpenAIConfig{MaxTokensParam: llm.MaxCompletionTokensParam}, 100, "max_completion_tokens=100"},
		{"model default when the request sets none", llm.OpenAIConfig{MaxTokens: 4096}, 0, "max_tokens=4096"},
		{"request value wins", llm.OpenAIConfig{MaxTokens: 4096}, 512, "max_tokens=512"},
		{"none at all", llm.OpenAIConfig{}, 0, "=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{})
			o, _ := newClient(t, srv, func(c *llm.OpenAIConfig) {
				c.MaxTokensParam, c.MaxTokens = tt.cfg.MaxTokensParam, tt.cfg.MaxTokens
			})
			req := ask
			req.MaxTokens = tt.reqTokens
			if _, err := o.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if got := fmt.Sprintf("%s=%d", r.MaxTokensParam, r.MaxTokens); got != tt.want {
				t.Errorf("sent %s; want %s", got, tt.want)
			}
		})
	}
	if _, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://x/v1", Model: "m", MaxTokensParam: "max_new_tokens"}); err == nil || !strings.Contains(err.Error(), "max_tokens_param") {
		t.Errorf("bad max_tokens_param: err = %v; want an error naming max_tokens_param", err)
	}
	if _, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://x/v1", Model: "m", Structured: "loose"}); err == nil || !strings.Contains(err.Error(), "structured") {
		t.Errorf("bad structured: err = %v; want an error naming structured", err)
	}
}

func jsonReq(schema string) llm.Request {
	r := ask
	r.Answer = llm.AnswerJSON
	r.Schema = json.RawMessage(schema)
	r.SchemaName = "plan"
	return r
}

// formats lists the response_format type of each request ("-" for none).
func formats(reqs []fakeopenai.Request) string {
	var out []string
	for _, r := range reqs {
		if r.ResponseFormat == nil {
			out = append(out, "-")
		} else {
			out = append(out, r.ResponseFormat.Type)
		}
	}
	return strings.Join(out, " ")
}

func TestOpenAIStructuredDegrade(t *testing.T) {
	tests := []struct {
		name           string
		opts           fakeopenai.Options
		cfg            string
		schema         string
		wantMode       string
		wantSent       string // response_format types of the first and second request's tries
		wantDegrades   int64
		wantInstructed bool // the schema stated in the last user message
	}{
		{"strict accepted", fakeopenai.Options{}, "", validSchema, "strict", "json_schema json_schema", 0, false},
		{"json_schema unsupported", fakeopenai.Options{RejectJSONSchema: true}, "", validSchema, "json_object", "json_schema json_object json_object", 1, true},
		{"response_format unsupported", fakeopenai.Options{RejectResponseFormat: true}, "", validSchema, "none", "json_schema json_object - -", 2, true},
		{"configured json_object", fakeopenai.Options{}, "json_object", validSchema, "json_object", "json_object json_object", 0, true},
		{"configured none", fakeopenai.Options{}, "none", validSchema, "none", "- -", 0, true},
		{"no schema: json_object", fakeopenai.Options{}, "", "", "json_object", "json_object json_object", 0, false},
		{"no schema, json_object unsupported", fakeopenai.Options{RejectResponseFormat: true}, "", "", "none", "json_object - -", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, tt.opts)
			o, logs := newClient(t, srv, func(c *llm.OpenAIConfig) { c.Structured = tt.cfg })
			req := jsonReq(tt.schema)
			for k := range 2 {
				resp, err := o.Complete(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Structured != tt.wantMode {
					t.Errorf("request %d: Structured = %q; want %q", k, resp.Structured, tt.wantMode)
				}
			}
			reqs := srv.Requests()
			if got := formats(reqs); got != tt.wantSent {
				t.Errorf("response_format sent: %s; want %s", got, tt.wantSent)
			}
			st := o.Stats()
			if st.StructuredDegrades != tt.wantDegrades {
				t.Errorf("degrades = %d; want %d", st.StructuredDegrades, tt.wantDegrades)
			}
			if tt.wantDegrades > 0 && !strings.Contains(logs.text(), "structured output degraded to") {
				t.Errorf("log = %q; want the degrade logged", logs.text())
			}
			last := reqs[len(reqs)-1].Messages
			gotInstr := strings.Contains(last[len(last)-1].Content, "conforms to this JSON schema")
			if gotInstr != tt.wantInstructed {
				t.Errorf("schema in the last user message: %v; want %v (%q)", gotInstr, tt.wantInstructed, last[len(last)-1].Content)
			}
			if last[0].Content != "be brief" {
				t.Errorf("system message changed to %q", last[0].Content)
			}
		})
	}
}

func TestOpenAIStructuredTextRequest(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{RejectResponseFormat: true})
	o, _ := newClient(t, srv, nil)
	resp, err := o.Complete(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Structured != "" || srv.Calls() != 1 || formats(srv.Requests()) != "-" {
		t.Errorf("text request: Structured %q, %d calls, formats %q; want \"\", 1, -", resp.Structured, srv.Calls(), formats(srv.Requests()))
	}
}

// TestStrictRejectionBody checks the fake's answer to a schema that breaks
// strict mode against the shape of OpenAI's real error body, and that the
// backend answers that one request as json_object without degrading the
// endpoint.
func TestStrictRejectionBody(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"q"}],"response_format":{"type":"json_schema","json_schema":{"name":"understanding","strict":true,"schema":%s}}}`, iesrUnderstand)
	hr, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Body.Close()
	var e struct {
		Error map[string]any `json:"error"`
	}
	if err := json.NewDecoder(hr.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if hr.StatusCode != 400 {
		t.Errorf("status = %d; want 400", hr.StatusCode)
	}
	msg, _ := e.Error["message"].(string)
	wantMsg := `Invalid schema for response_format 'understanding': $: required must list every property (optional fields are nullable); missing "formula", "unit"`
	if msg != wantMsg {
		t.Errorf("message = %q; want %q", msg, wantMsg)
	}
	if code, has := e.Error["code"]; e.Error["type"] != "invalid_request_error" || e.Error["param"] != "response_format" || !has || code != nil {
		t.Errorf("error = %v; want type invalid_request_error, param response_format, code null", e.Error)
	}

	o, logs := newClient(t, srv, nil)
	resp, err := o.Complete(context.Background(), jsonReq(iesrUnderstand))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Structured != llm.StructuredJSONObject {
		t.Errorf("Structured = %q; want json_object for the rejected schema", resp.Structured)
	}
	resp, err = o.Complete(context.Background(), jsonReq(validSchema))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Structured != llm.StructuredStrict {
		t.Errorf("next valid schema: Structured = %q; want strict (the endpoint is not degraded)", resp.Structured)
	}
	st := o.Stats()
	if st.SchemaFallbacks != 1 || st.StructuredDegrades != 0 || st.Structured != llm.StructuredStrict {
		t.Errorf("stats = %+v; want 1 schema fallback, endpoint strict", st)
	}
	if !strings.Contains(logs.text(), "Invalid schema for response_format 'plan'") {
		t.Errorf("log = %q; want the server's message", logs.text())
	}
}

// TestOpenAIRejectionMessages checks that the rejection messages of real
// servers (quoted in rejectionOf's doc) are adapted to.
func TestOpenAIRejectionMessages(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		mode   string // Structured of the answer
		param  string // token parameter of the last request
	}{
		{"llama.cpp 500", 500, `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`, "json_object", "max_tokens"},
		{"vLLM xgrammar", 400, `{"object":"error","message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}`, "json_object", "max_tokens"},
		{"Ollama", 500, `{"error":"invalid JSON schema in format"}`, "json_object", "max_tokens"},
		{"OpenAI o-series", 400, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`, "strict", "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{})
			srv.Fail(func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			o, _ := newClient(t, srv, nil)
			req := jsonReq(validSchema)
			req.MaxTokens = 100
			resp, err := o.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if srv.Calls() != 2 || resp.Structured != tt.mode || reqs[len(reqs)-1].MaxTokensParam != tt.param {
				t.Errorf("got %d calls, mode %q, param %q; want 2, %q, %q", srv.Calls(), resp.Structured, reqs[len(reqs)-1].MaxTokensParam, tt.mode, tt.param)
			}
		})
	}
	// "max_tokens is too large" names the parameter but does not refuse it.
	srv := fakeopenai.New(t, fakeopenai.Options{})
	srv.Fail(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error":{"message":"max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}`)
	})
	o, _ := newClient(t, srv, nil)
	if _, err := o.Complete(context.Background(), ask); err == nil || srv.Calls() != 1 || o.Stats().ParamSwitches != 0 {
		t.Errorf("too large: err %v, %d calls, %d switches; want an error, 1 call, no switch", err, srv.Calls(), o.Stats().ParamSwitches)
	}
}

func openCache(t *testing.T) *llm.Cache {
	t.Helper()
	c, err := llm.OpenCache(filepath.Join(t.TempDir(), "models.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCachedReasoningRoundTrip(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(_ *fakeopenai.Request, s fakeopenai.Sample) fakeopenai.Choice {
		if s.Index == 1 {
			return fakeopenai.Choice{Content: "SELECT", ReasoningContent: "cut here", FinishReason: "length"}
		}
		return fakeopenai.Choice{Content: "<think>draft</think>SELECT 1", Reasoning: "plan"}
	}, RejectJSONSchema: true})
	o, _ := newClient(t, srv, nil)
	cc := llm.Cached(o, openCache(t), o.Ident())
	req := jsonReq(validSchema)
	req.N = 2
	first, err := cc.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cc.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || first.Cached {
		t.Fatalf("Cached = %v, %v; want false, true", first.Cached, second.Cached)
	}
	want := fmt.Sprint([]string{"SELECT 1", "SELECT"}, []string{"plan\n\ndraft", "cut here"}, []string{"stop", "length"}, "json_object")
	for _, r := range []*llm.Response{first, second} {
		if got := fmt.Sprint(r.Choices, r.Reasoning, r.FinishReasons, r.Structured); got != want {
			t.Errorf("cached=%v: got %s; want %s", r.Cached, got, want)
		}
	}
	if first.Usage != second.Usage || second.Usage.ReasoningTokens == 0 {
		t.Errorf("usage: fresh %+v, hit %+v; want equal, with reasoning tokens", first.Usage, second.Usage)
	}
}

// TestCachedSampleSeeds guards against duplicate samples: n = 4 then
// n = 8 against a server that honours seeds must give 8 distinct samples,
// the first 4 reused, and the same 8 a fresh n = 8 request gives.
func TestCachedSampleSeeds(t *testing.T) {
	for _, ignoreN := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignoreN=%v", ignoreN), func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{IgnoreN: ignoreN})
			o, _ := newClient(t, srv, nil)
			seed := int64(1000)
			req := ask
			req.Seed = &seed
			req.N = 4
			cc := llm.Cached(o, openCache(t), o.Ident())
			four, err := cc.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			req.N = 8
			eight, err := cc.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, c := range eight.Choices {
				seen[c] = true
			}
			if len(seen) != 8 {
				t.Errorf("n=8 after n=4: %d distinct samples %q; want 8", len(seen), eight.Choices)
			}
			if fmt.Sprint(eight.Choices[:4]) != fmt.Sprint(four.Choices) {
				t.Errorf("samples 0-3 = %q; want the cached %q", eight.Choices[:4], four.Choices)
			}
			fresh, err := llm.Cached(o, openCache(t), o.Ident()).Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(fresh.Choices) != fmt.Sprint(eight.Choices) {
				t.Errorf("fresh n=8 = %q; want the same samples as n=4 then n=8 %q", fresh.Choices, eight.Choices)
			}
		})
	}
}

// TestCachedRedact: WithRedact hides a secret in the request messages the
// cache keeps, never in an answer. A model that echoes its key gets the
// answer it wrote scored and stored: the client returns it and the cache
// keeps it as the server sent it, and only display redaction
// (llm.NewDisplayRedactor, what the commands apply) hides it. Until
// answers were kept whole, both responses held "[REDACTED]" in place of
// the key.
func TestCachedRedact(t *testing.T) {
	const secret = "sk-proj-SECRET0123456789"
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: fixed(fakeopenai.Choice{
		Content: "SELECT 1 -- key " + secret, ReasoningContent: "the key is " + secret + ".",
	})})
	o, _ := newClient(t, srv, nil)
	cache := openCache(t)
	resp, err := llm.Cached(o, cache, o.Ident(), llm.WithRedact(secret, "")).Complete(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	// A client without redaction reads what was stored.
	stored, err := llm.Cached(o, cache, o.Ident()).Complete(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.Cached {
		t.Fatal("second client missed the cache")
	}
	display := llm.NewDisplayRedactor(secret)
	for _, r := range []*llm.Response{resp, stored} {
		if r.Choices[0] != "SELECT 1 -- key "+secret || r.ReasoningOf(0) != "the key is "+secret+"." {
			t.Errorf("cached=%v: got %q / %q; want the answer as the server sent it", r.Cached, r.Choices[0], r.ReasoningOf(0))
		}
		if got := display.Redact(r.Choices[0]); got != "SELECT 1 -- key [REDACTED]" {
			t.Errorf("cached=%v: displayed %q; want the key redacted", r.Cached, got)
		}
	}
}
