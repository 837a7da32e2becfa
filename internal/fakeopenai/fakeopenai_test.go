package fakeopenai_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
)

type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
	err    error
}

func post(t *testing.T, url, body string) answer {
	t.Helper()
	hr, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		return answer{err: err}
	}
	defer hr.Body.Close()
	raw, err := io.ReadAll(hr.Body)
	a := answer{status: hr.StatusCode, header: hr.Header, raw: string(raw), err: err}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// contents lists the choices' contents, in order.
func contents(a answer) []string {
	var out []string
	cs, _ := a.body["choices"].([]any)
	for _, c := range cs {
		m, _ := c.(map[string]any)["message"].(map[string]any)
		s, _ := m["content"].(string)
		out = append(out, s)
	}
	return out
}

func TestNAndSeed(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	url := srv.BaseURL() + "/chat/completions"
	a := post(t, url, `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":3,"seed":7}`)
	if got, want := fmt.Sprint(contents(a)), "[sample seed=7 sample seed=8 sample seed=9]"; got != want {
		t.Errorf("n=3 seed=7: got %s; want %s (seed+index, vLLM's convention)", got, want)
	}
	b := post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"seed":8}`)
	if got := fmt.Sprint(contents(b)); got != "[sample seed=8]" {
		t.Errorf("seed=8 on /chat/completions: got %s; want [sample seed=8]", got)
	}
	c := post(t, url, `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`)
	if got := fmt.Sprint(contents(c)); got != "[sample call=2 index=0 sample call=2 index=1]" {
		t.Errorf("unseeded: got %s", got)
	}
	u, _ := a.body["usage"].(map[string]any)
	// "hi" is 2 bytes: 1 prompt token; "sample seed=7" 13 bytes: 4 tokens
	// each, 12 for 3 choices.
	if u["prompt_tokens"] != 1.0 || u["completion_tokens"] != 12.0 {
		t.Errorf("usage = %v; want 1 prompt and 12 completion tokens", u)
	}
	if srv.Calls() != 3 || len(srv.Requests()) != 3 || srv.Requests()[0].N != 3 || *srv.Requests()[0].Seed != 7 {
		t.Errorf("calls %d, requests %+v; want 3 recorded", srv.Calls(), srv.Requests())
	}

	ign := fakeopenai.New(t, fakeopenai.Options{IgnoreN: true})
	d := post(t, ign.BaseURL()+"/chat/completions", `{"model":"m","messages":[],"n":3,"seed":7}`)
	if got := fmt.Sprint(contents(d)); got != "[sample seed=7]" {
		t.Errorf("IgnoreN: got %s; want one choice", got)
	}
}

func TestRejections(t *testing.T) {
	const strictBad = `{"type":"json_schema","json_schema":{"name":"s","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	const strictGood = `{"type":"json_schema","json_schema":{"name":"s","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}}`
	tests := []struct {
		name    string
		opts    fakeopenai.Options
		extra   string
		status  int
		message string
		param   string
	}{
		{"strict schema broken", fakeopenai.Options{}, `"response_format":` + strictBad, 400, "Invalid schema for response_format 's': $: additionalProperties must be supplied and be false; $: required must list every property", "response_format"},
		{"strict schema fine", fakeopenai.Options{}, `"response_format":` + strictGood, 200, "", ""},
		{"strict check off", fakeopenai.Options{NoStrictCheck: true}, `"response_format":` + strictBad, 200, "", ""},
		{"no response_format support", fakeopenai.Options{RejectResponseFormat: true}, `"response_format":{"type":"json_object"}`, 400, "Invalid parameter: 'response_format' of type 'json_object' is not supported with this model.", "response_format"},
		{"json_schema unsupported, json_object fine", fakeopenai.Options{RejectJSONSchema: true}, `"response_format":{"type":"json_object"}`, 200, "", ""},
		{"o-series max_tokens", fakeopenai.Options{RejectMaxTokens: true}, `"max_tokens":10`, 400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens"},
		{"o-series max_completion_tokens", fakeopenai.Options{RejectMaxTokens: true}, `"max_completion_tokens":10`, 200, "", ""},
		{"model not served", fakeopenai.Options{Models: []string{"qwen"}}, `"max_tokens":10`, 404, "model 'm' not found", "model"},
		{"model served", fakeopenai.Options{Models: []string{"qwen", "m"}}, `"max_tokens":10`, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, tt.opts)
			a := post(t, srv.BaseURL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"json"}],`+tt.extra+`}`)
			if a.status != tt.status {
				t.Fatalf("status = %d; want %d (%s)", a.status, tt.status, a.raw)
			}
			if tt.status == 200 {
				return
			}
			e, _ := a.body["error"].(map[string]any)
			if msg, _ := e["message"].(string); !strings.HasPrefix(msg, tt.message) {
				t.Errorf("message = %q; want it to start with %q", msg, tt.message)
			}
			if e["param"] != tt.param || e["type"] != "invalid_request_error" {
				t.Errorf("error = %v; want param %q, type invalid_request_error", e, tt.param)
			}
		})
	}
}

func TestFaultsAndCut(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "SELECT name FROM singer", ReasoningContent: "plan"}
	}})
	srv.Fail(fakeopenai.TooManyRequests("2"), fakeopenai.Status(503, "overloaded"), fakeopenai.Malformed(), fakeopenai.Truncated())
	url := srv.BaseURL() + "/chat/completions"
	body := `{"model":"m","messages":[{"role":"user","content":"q"}],"max_tokens":3}`
	if a := post(t, url, body); a.status != 429 || a.header.Get("Retry-After") != "2" {
		t.Errorf("fault 1: status %d, Retry-After %q; want 429, 2", a.status, a.header.Get("Retry-After"))
	}
	if a := post(t, url, body); a.status != 503 || !strings.Contains(a.raw, "overloaded") {
		t.Errorf("fault 2: status %d %s; want 503 overloaded", a.status, a.raw)
	}
	if a := post(t, url, body); a.status != 200 || a.body != nil {
		t.Errorf("fault 3: status %d, decoded %v; want 200 with a body that is not JSON", a.status, a.body)
	}
	if a := post(t, url, body); a.err == nil {
		t.Errorf("fault 4: read the whole body %q; want it cut short", a.raw)
	}
	// 3 tokens = 12 bytes: "plan" (4) then 8 bytes of the answer.
	a := post(t, url, body)
	cs, _ := a.body["choices"].([]any)
	c, _ := cs[0].(map[string]any)
	if got := fmt.Sprintf("%v %v", contents(a), c["finish_reason"]); got != "[SELECT n] length" {
		t.Errorf("cut at max_tokens 3: got %s; want [SELECT n] length", got)
	}
	if srv.Calls() != 5 {
		t.Errorf("calls = %d; want 5", srv.Calls())
	}
	if a := post(t, srv.BaseURL()+"/embeddings", `{}`); a.status != 404 {
		t.Errorf("unknown path: status %d; want 404", a.status)
	}
	if a := post(t, url, `{"model":`); a.status != 400 {
		t.Errorf("bad JSON: status %d; want 400", a.status)
	}
}

// TestModelsAndAPIKey: a server with Models answers 404 for another model
// name and a server with APIKey answers 401 to a request without it, with
// OpenAI's error body; right name and key are answered.
func TestModelsAndAPIKey(t *testing.T) {
	tests := []struct {
		name    string
		opts    fakeopenai.Options
		auth    string
		status  int
		message string
		code    string
	}{
		{"served model", fakeopenai.Options{Models: []string{"m"}}, "", 200, "", ""},
		{"wrong model name", fakeopenai.Options{Models: []string{"qwen"}}, "", 404, "model 'm' not found", "model_not_found"},
		{"no key", fakeopenai.Options{APIKey: "sk-right"}, "", 401, "Incorrect API key provided.", "invalid_api_key"},
		{"wrong key", fakeopenai.Options{APIKey: "sk-right"}, "Bearer sk-wrong", 401, "Incorrect API key provided.", "invalid_api_key"},
		{"right key", fakeopenai.Options{APIKey: "sk-right"}, "Bearer sk-right", 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, tt.opts)
			req, _ := http.NewRequest(http.MethodPost, srv.BaseURL()+"/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			hr, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer hr.Body.Close()
			var body map[string]any
			json.NewDecoder(hr.Body).Decode(&body)
			if hr.StatusCode != tt.status {
				t.Fatalf("status = %d; want %d (%v)", hr.StatusCode, tt.status, body)
			}
			if tt.status == 200 {
				return
			}
			e, _ := body["error"].(map[string]any)
			if msg, _ := e["message"].(string); !strings.HasPrefix(msg, tt.message) {
				t.Errorf("message = %q; want it to start with %q", msg, tt.message)
			}
			if e["code"] != tt.code {
				t.Errorf("code = %v; want %q", e["code"], tt.code)
			}
		})
	}
}
