package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// redirect sends every request to the fake server, whatever its host, so
// that a client configured for a hosted API can be observed.
type redirect struct{ to *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

// TestTopKExtraBody: Request.TopK goes out as the body field "top_k" (an
// extra field vLLM, SGLang and llama.cpp server read) when it is set, and
// is absent when it is 0, when the endpoint omits it (OmitTopK), and for
// api.openai.com, which rejects fields outside its schema. At temperature
// 0 the body also gets "temperature":0, which go-openai omits.
func TestTopKExtraBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		topK    int
		hosted  bool // base URL api.openai.com, redirected to the fake
		omit    bool
		greedy  bool // temperature 0
		wantK   string
		present bool
	}{
		{name: "set", topK: 40, wantK: "40", present: true},
		{name: "set at temperature 0", topK: 40, greedy: true, wantK: "40", present: true},
		{name: "unset", topK: 0},
		{name: "omitted for the endpoint", topK: 40, omit: true},
		{name: "hosted OpenAI", topK: 40, hosted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Options{})
			o, _ := newClient(t, srv, func(c *llm.OpenAIConfig) {
				c.OmitTopK = tt.omit
				if tt.hosted {
					u, _ := url.Parse(srv.URL)
					c.BaseURL = "https://api.openai.com/v1"
					c.HTTPClient = &http.Client{Transport: redirect{to: u}}
				}
			})
			req := ask
			req.TopP, req.TopK = 0.95, tt.topK
			wantTemp := "0.7"
			if tt.greedy {
				req.Temperature, wantTemp = 0, "0"
			}
			if _, err := o.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests; want 1", len(reqs))
			}
			body := reqs[0].Body
			k, ok := body["top_k"]
			if ok != tt.present || ok && fmt.Sprint(k) != tt.wantK {
				t.Errorf("top_k = %v (present %v); want %v (present %v)", k, ok, tt.wantK, tt.present)
			}
			if fmt.Sprint(body["top_p"]) != "0.95" || fmt.Sprint(body["temperature"]) != wantTemp {
				t.Errorf("top_p, temperature = %v, %v; want 0.95, %s (unchanged by top_k)", body["top_p"], body["temperature"], wantTemp)
			}
		})
	}
}

// TestTopKRejectedTurnsOff: a server that rejects the extra field top_k
// (OpenAI's "Unrecognized request argument supplied: top_k", as any API
// that holds to OpenAI's schema answers) gets the request again without
// it, and every later request of the endpoint leaves it out; the switch
// is logged once. A server that takes top_k keeps getting it.
func TestTopKRejectedTurnsOff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		reject   bool
		wantSent []bool // top_k present in each request the server got
		wantLog  bool
	}{
		{name: "rejected", reject: true, wantSent: []bool{true, false, false}, wantLog: true},
		{name: "taken", reject: false, wantSent: []bool{true, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Options{RejectTopK: tt.reject})
			o, logs := newClient(t, srv, nil)
			req := ask
			req.TopK = 40
			for i := 0; i < 2; i++ {
				if _, err := o.Complete(context.Background(), req); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			var sent []bool
			for _, r := range srv.Requests() {
				_, ok := r.Body["top_k"]
				sent = append(sent, ok)
			}
			if fmt.Sprint(sent) != fmt.Sprint(tt.wantSent) {
				t.Errorf("top_k sent in the server's requests: %v; want %v", sent, tt.wantSent)
			}
			if got := strings.Count(logs.text(), "rejects top_k"); got != map[bool]int{true: 1}[tt.wantLog] {
				t.Errorf("log %q holds %d switch lines; want %d", logs.text(), got, map[bool]int{true: 1}[tt.wantLog])
			}
		})
	}
}
