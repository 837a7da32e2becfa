package llm_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// switchable serves one base URL from whichever fake server is current;
// with busyList, its model list answers 503.
type switchable struct {
	cur      atomic.Pointer[fakeopenai.Server]
	busyList atomic.Bool
}

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.busyList.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		fakeopenai.Status(http.StatusServiceUnavailable, "busy")(w)
		return
	}
	s.cur.Load().ServeHTTP(w, r)
}

// notices collects a CachedClient's notices.
type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) add(m string) { n.mu.Lock(); n.msgs = append(n.msgs, m); n.mu.Unlock() }

func (n *notices) text() string { n.mu.Lock(); defer n.mu.Unlock(); return strings.Join(n.msgs, "\n") }

// TestCachedServerIdentity: the cache key holds what the server reports
// about the model (its model list's entry and the answers'
// system_fingerprint). Each case opens a new client (a new run) on the
// same cache, base URL and model name, against the server of the case,
// and asks the requests listed; the fake answers every request anew.
func TestCachedServerIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sw := &switchable{}
	hs := httptest.NewServer(sw)
	t.Cleanup(hs.Close)
	cache := openCache(t)
	server := func(root, fp string) *fakeopenai.Server {
		return fakeopenai.NewUnstarted(fakeopenai.Options{Model: "m", ListModels: root != "", Root: root, SystemFingerprint: fp})
	}
	req := func(q string) llm.Request {
		return llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: q}}}
	}
	for _, tc := range []struct {
		name      string
		server    *fakeopenai.Server
		refresh   bool
		busyList  bool // the model list answers 503: the identity is unknown
		asks      []string
		wantCalls int
		wantText  string // in the notices ("" none expected)
	}{
		{name: "first", server: server("/w/a", ""), asks: []string{"q1", "q2"}, wantCalls: 2},
		{name: "same identity", server: server("/w/a", ""), asks: []string{"q1", "q2"}, wantCalls: 0},
		{name: "other weights", server: server("/w/b", ""), asks: []string{"q1", "q2"}, wantCalls: 2,
			wantText: "model identity changed since cached answers: was id=m root=/w/a owned_by=fakeopenai, now id=m root=/w/b owned_by=fakeopenai; cached answers for the old identity are not used"},
		{name: "first fingerprint", server: server("/w/b", "fp_1"), asks: []string{"q3", "q1"}, wantCalls: 2},
		{name: "same fingerprint", server: server("/w/b", "fp_1"), asks: []string{"q3", "q1"}, wantCalls: 0},
		// A fingerprint is known only from an answer: the first request
		// that misses reveals the new one, after which the answers of the
		// old one are not used.
		{name: "new fingerprint", server: server("/w/b", "fp_2"), asks: []string{"q4", "q3"}, wantCalls: 2,
			wantText: "was id=m root=/w/b owned_by=fakeopenai system_fingerprint=fp_1, now id=m root=/w/b owned_by=fakeopenai system_fingerprint=fp_2"},
		{name: "refresh", server: server("/w/b", "fp_2"), refresh: true, asks: []string{"q4", "q3"}, wantCalls: 2},
		{name: "refreshed answers cached", server: server("/w/b", "fp_2"), asks: []string{"q4", "q3"}, wantCalls: 0},
		// A model list that cannot be read is no evidence of another
		// server: the recorded identity answers.
		{name: "model list busy", server: server("/w/b", "fp_2"), busyList: true, asks: []string{"q4", "q3"}, wantCalls: 0},
		{name: "server without a model list", server: server("", ""), asks: []string{"q1"}, wantCalls: 1,
			wantText: "was id=m root=/w/b owned_by=fakeopenai system_fingerprint=fp_2, now (nothing reported)"},
	} {
		sw.cur.Store(tc.server)
		sw.busyList.Store(tc.busyList)
		o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: hs.URL + "/v1", Model: "m", MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		var n notices
		opts := []llm.CacheOption{llm.WithNotify(n.add)}
		if tc.refresh {
			opts = append(opts, llm.WithRefresh())
		}
		c := llm.Cached(o, cache, o.Ident(), opts...)
		for _, q := range tc.asks {
			resp, err := c.Complete(ctx, req(q))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if tc.refresh && resp.Cached {
				t.Errorf("%s: a refreshed request was answered from the cache", tc.name)
			}
		}
		if got := tc.server.Calls(); got != tc.wantCalls {
			t.Errorf("%s: %d chat calls reached the server; want %d", tc.name, got, tc.wantCalls)
		}
		got := n.text()
		switch {
		case tc.wantText == "" && got != "":
			t.Errorf("%s: notices %q; want none", tc.name, got)
		case tc.wantText != "" && !strings.Contains(got, tc.wantText):
			t.Errorf("%s: notices %q; want one holding %q", tc.name, got, tc.wantText)
		}
	}
}

// TestIdentityAskedAgainAfterFailure: a client whose first request fails
// before the server's identity is settled (its context cancelled) asks
// again on the next request instead of failing every later one with the
// first error.
func TestIdentityAskedAgainAfterFailure(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.NewUnstarted(fakeopenai.Options{Model: "m", ListModels: true, Root: "/w/a"})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cache := openCache(t)
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: hs.URL + "/v1", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := llm.Cached(o, cache, o.Ident())
	req := llm.Request{Role: "reason", Messages: []llm.Message{{Role: "user", Content: "q"}}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(cancelled, req); err == nil {
		t.Fatal("request with a cancelled context: no error; want one")
	}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("next request: %v; want an answer", err)
	}
	if resp.Cached || srv.Calls() != 1 {
		t.Errorf("next request: cached %v, %d chat calls; want an answer from the server, 1 call", resp.Cached, srv.Calls())
	}
}

// TestServerIdentityListCapped: a model list over 4 MiB (a hostile or
// broken server) is read no further than the cap and gives an identity
// not known, which keeps the recorded one; a small list names the model.
func TestServerIdentityListCapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		pad       int // bytes of padding in the model's owned_by
		wantKnown bool
		wantID    string
	}{
		{name: "small list", pad: 10, wantKnown: true, wantID: "id=m owned_by=" + strings.Repeat("x", 10)},
		{name: "list over the cap", pad: 5 << 20, wantKnown: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				body := `{"object":"list","data":[{"id":"m","object":"model","owned_by":"` + strings.Repeat("x", tc.pad) + `"}]}`
				io.WriteString(w, body)
			}))
			t.Cleanup(hs.Close)
			o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: hs.URL + "/v1", Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			id, known := o.ServerIdentity(context.Background())
			if known != tc.wantKnown || id != tc.wantID {
				t.Errorf("ServerIdentity = %.80q (%d bytes), known %v; want %q, known %v", id, len(id), known, tc.wantID, tc.wantKnown)
			}
		})
	}
}
