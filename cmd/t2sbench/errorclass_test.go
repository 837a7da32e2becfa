package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// otherClientError is an HTTP error of a client other than runners/llm's:
// an error with a StatusCode() int method, which a run classes by its
// status as it classes the llm backend's.
type otherClientError struct {
	code int
	msg  string
}

func (e *otherClientError) Error() string   { return fmt.Sprintf("client: HTTP %d: %s", e.code, e.msg) }
func (e *otherClientError) StatusCode() int { return e.code }

// soonRetried answers code with OpenAI's error body holding message and a
// Retry-After of 1 ms, so that a retried status is retried at once.
func soonRetried(code int, message string) fakeopenai.Fault {
	return func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "0.001")
		fakeopenai.Status(code, message)(w)
	}
}

// slow answers after d, past a client's timeout shorter than d.
func slow(d time.Duration) fakeopenai.Fault {
	return func(w http.ResponseWriter) {
		time.Sleep(d)
		fakeopenai.Status(http.StatusServiceUnavailable, "late")(w)
	}
}

// classRow is one row of the status-to-class table: what the server
// answers and the class, retry and outcome every surface must agree on.
type classRow struct {
	name   string
	status int    // the HTTP status (0: none, a transport failure)
	body   string // the server's error message
	fault  fakeopenai.Fault
	// model is the model name the client asks for ("served" unless the
	// row is the server's own 404 for an unknown name).
	model   string
	class   string
	retried bool
	stops   bool // the run stops (else the item is left: failed or pending)
	fails   bool // the item fails, counted wrong (else it is pending)
	// cli is false for rows the CLI part leaves out (see
	// TestErrorClassTable).
	cli bool
}

// classRows is the status-to-class table. The expected classes are those
// the llm package documents (the Class constants); the bodies are the
// messages of the servers named.
var classRows = []classRow{
	{name: "400", status: 400, body: "We could not parse the JSON body of your request.", class: "bad_request", fails: true, cli: true},
	{name: "400 context length (vLLM)", status: 400, body: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", class: "bad_request", fails: true, cli: true},
	{name: "401", status: 401, body: "Incorrect API key provided.", class: "auth", stops: true, cli: true},
	{name: "403", status: 403, body: "You are not allowed to use this model.", class: "auth", stops: true, cli: true},
	{name: "404 unknown model", status: 404, body: "model 'nosuch' not found", model: "nosuch", class: "not_found", stops: true, cli: true},
	{name: "408", status: 408, body: "Request timed out.", class: "timeout", retried: true, cli: true},
	{name: "409", status: 409, body: "Conflict: the request collides with another.", class: "http_409", fails: true, cli: true},
	{name: "422", status: 422, body: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096.", class: "bad_request", fails: true, cli: true},
	{name: "429", status: 429, body: "Rate limit reached for requests", class: "rate_limited", retried: true, cli: true},
	{name: "500", status: 500, body: "internal error", class: "server_error", retried: true, cli: true},
	{name: "500 refusing response_format (llama.cpp)", status: 500, body: `response_format type must be one of "text" or "json_object", but got: json_schema`, class: "bad_request", fails: true, cli: true},
	{name: "502", status: 502, body: "Bad Gateway", class: "server_error", retried: true, cli: true},
	{name: "503", status: 503, body: "The server is overloaded.", class: "server_error", retried: true, cli: true},
	{name: "504", status: 504, body: "Gateway Timeout", class: "server_error", retried: true, cli: true},
	{name: "malformed JSON", fault: fakeopenai.Malformed(), class: "malformed", cli: true},
	{name: "truncated body", fault: fakeopenai.Truncated(), class: "network", retried: true},
	{name: "connection reset", fault: fakeopenai.Reset(), class: "network", retried: true},
	{name: "connection refused", class: "network", retried: true},
	{name: "attempt timeout", fault: slow(300 * time.Millisecond), class: "timeout", retried: true},
	{name: "caller's deadline", fault: slow(300 * time.Millisecond), class: "deadline"},
}

// wantFailure is the scheduler's decision a row calls for.
func (r classRow) wantFailure() bench.Failure {
	switch {
	case r.stops:
		return bench.FailureFatal
	case r.fails:
		return bench.FailurePermanent
	}
	return bench.FailureInfra
}

// requests is the number of requests a call sends for the row's failure
// with max_retries 1.
func (r classRow) requests() int {
	if r.retried {
		return 2
	}
	return 1
}

// serverFault is what the fake server answers for the row: its fault, or
// its status and body with a Retry-After of 1 ms; nil for a row whose
// failure needs none (the server's own 404 for an unknown model name, a
// refused connection).
func (r classRow) serverFault() fakeopenai.Fault {
	if r.fault == nil && r.status != 0 && r.model == "" {
		return soonRetried(r.status, r.body)
	}
	return r.fault
}

// servedModel is the model name the row's requests ask for.
func (r classRow) servedModel() string {
	if r.model == "" {
		return "served"
	}
	return r.model
}

// classSpec writes a spec that runs direct on mini against the model
// served at baseURL under the name model, with one retry.
func classSpec(t *testing.T, baseURL, model string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	text := fmt.Sprintf("name: classes\nbenchmarks: [{name: mini}]\nmodels:\n  m: {backend: openai, base_url: %q, model: %q, max_retries: 1}\nroles: {reason: m}\nrunners:\n  - name: direct\nworkers: 1\n", baseURL, model)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestErrorClassTable checks that every surface agrees on the class of
// each HTTP status (400, 401, 403, 404, 408, 409, 422, 429, 500, 502,
// 503, 504, and bodies that decide a status's class) and transport
// failure (malformed JSON, a cut body, a reset or refused connection, an
// attempt's timeout, the caller's deadline), on whether it is retried and
// on whether it stops the run:
//   - client: llm.Classify of the status and message; the class,
//     Retryable and attempts of the error the OpenAI backend returns
//     against a fake OpenAI server (max_retries 1: a retried failure sends
//     2 requests); llm.HandlingOf of the class;
//   - client: the bench decision, bench.Classify (the class an item
//     records) and bench.FailureOf, of that error and of the same status
//     in another client's error type;
//   - run: the statuses that do not stop a run, one item each, in one run
//     through the CLI against a fake server: exit status 3, each item's
//     status (failed or pending) and class, and the failure report of
//     status and of the run's summary (the count by class, the first
//     error of the class with the client's "HTTP <code>: <message>" and
//     what to do next);
//   - run stops: each status that stops a run (401, 403, the server's own
//     404 for an unknown model name), in a run of its own: exit status 2,
//     the error naming the status, the class and the client's message,
//     nothing committed.
//
// The CLI parts leave out the cut body and the reset connection (the
// client's real backoff would slow the run by seconds), the refused
// connection (a spec's model has one URL, which the run's other calls
// need), the attempt's timeout and the caller's deadline (a spec sets no
// attempt timeout under a second nor a deadline on one call): their
// outcome, transient, is the one the 408, 429, 5xx and malformed rows
// check through the CLI.
func TestErrorClassTable(t *testing.T) {
	clientErrs := make([]error, len(classRows))
	t.Run("client", func(t *testing.T) {
		for i, row := range classRows {
			t.Run(row.name, func(t *testing.T) {
				t.Parallel()
				srv := fakeopenai.New(t, fakeopenai.Options{Models: []string{"served"}, Responder: sqlAnswer})
				if f := row.serverFault(); f != nil {
					srv.FailN(f, row.requests())
				}
				baseURL := srv.BaseURL()
				if row.name == "connection refused" {
					ln, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					baseURL = "http://" + ln.Addr().String() + "/v1"
					ln.Close()
				}
				if row.status != 0 {
					if got := llm.Classify(row.status, row.body, nil); got != row.class {
						t.Errorf("llm.Classify(%d, %q) = %q; want %q", row.status, row.body, got, row.class)
					}
				}
				h := llm.HandlingOf(row.class)
				if h.Retried != row.retried || (h.Outcome == llm.OutcomeFatal) != row.stops || (h.Outcome == llm.OutcomeRefused) != row.fails {
					t.Errorf("llm.HandlingOf(%q) = %+v; want retried %v, stops %v, fails %v", row.class, h, row.retried, row.stops, row.fails)
				}
				cfg := llm.OpenAIConfig{BaseURL: baseURL, Model: row.servedModel(), MaxRetries: 1, WaitScale: 0.001, Logf: t.Logf}
				ctx := context.Background()
				switch row.name {
				case "attempt timeout":
					cfg.Timeout = 100 * time.Millisecond
				case "caller's deadline":
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
					defer cancel()
				}
				o, err := llm.NewOpenAI(cfg)
				if err != nil {
					t.Fatal(err)
				}
				_, callErr := o.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
				clientErrs[i] = callErr
				if got := llm.ErrorClass(callErr); got != row.class {
					t.Errorf("client: class %q (err %v); want %q", got, callErr, row.class)
				}
				var e *llm.Error
				switch {
				case errors.As(callErr, &e):
					if e.Retryable != row.retried || e.Attempts != row.requests() {
						t.Errorf("client: retryable %v after %d attempts; want %v after %d", e.Retryable, e.Attempts, row.retried, row.requests())
					}
				case row.class != "deadline":
					t.Errorf("client: err %v (%T); want an *llm.Error", callErr, callErr)
				}

				if got := bench.Classify(callErr); got != row.class {
					t.Errorf("bench.Classify(client error) = %q; want %q", got, row.class)
				}
				if got := bench.FailureOf(callErr); got != row.wantFailure() {
					t.Errorf("bench.FailureOf(client error) = %d; want %d", got, row.wantFailure())
				}
				if row.status != 0 {
					other := &otherClientError{row.status, row.body}
					if got := bench.Classify(other); got != row.class {
						t.Errorf("bench.Classify(another client's HTTP %d) = %q; want %q", row.status, got, row.class)
					}
					if got := bench.FailureOf(other); got != row.wantFailure() {
						t.Errorf("bench.FailureOf(another client's HTTP %d) = %d; want %d", row.status, got, row.wantFailure())
					}
				}
			})
		}
	})
	// clientText is how the client's error shows the server's answer:
	// "HTTP <code>: <message>" ("" without a status).
	clientText := func(t *testing.T, i int) string {
		t.Helper()
		var se *llm.StatusError
		switch {
		case clientErrs[i] == nil:
			t.Fatalf("%s: no client error to compare with (the client subtests did not run)", classRows[i].name)
		case !errors.As(clientErrs[i], &se):
			return ""
		}
		return fmt.Sprintf("HTTP %d: %s", se.StatusCode, se.Message)
	}

	t.Run("run", func(t *testing.T) {
		srv := fakeopenai.New(t, fakeopenai.Options{Models: []string{"served"}, Responder: sqlAnswer})
		var idx []int // the rows, in the order of the run's items
		for i, row := range classRows {
			if row.cli && !row.stops {
				idx = append(idx, i)
				srv.FailN(row.serverFault(), row.requests())
			}
		}
		dir := filepath.Join(t.TempDir(), "run")
		var out, errb strings.Builder
		err := run(&out, &errb, []string{"run", classSpec(t, srv.BaseURL(), "served"), "--out", dir, "--quiet", "--limit", itoa(len(idx))})
		if got := exitCode(err); got != exitIncomplete {
			t.Fatalf("exit status %d (err %v); want %d\n%s", got, err, exitIncomplete, errb.String())
		}
		var status strings.Builder
		if err := run(&status, &status, []string{"status", dir}); err != nil {
			t.Fatalf("status: %v", err)
		}
		r, err := runstore.ReadRun(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trials) != 1 || len(r.Trials[0].Items) != len(idx) {
			t.Fatalf("run: %d trials; want 1 with %d items", len(r.Trials), len(idx))
		}
		items := r.Trials[0].Items
		slices.SortFunc(items, func(a, b runstore.Item) int { return a.Index - b.Index })
		failed, pending := map[string]int{}, map[string]int{}
		for k, i := range idx {
			row, it := classRows[i], items[k]
			wantStatus := runstore.StatusError
			if row.fails {
				wantStatus = runstore.StatusFailed
				failed[row.class]++
			} else {
				pending[row.class]++
			}
			if text := clientText(t, i); it.Status != wantStatus || it.ErrorClass != row.class || !strings.Contains(it.Error, text) {
				t.Errorf("%s: item %s: status %q class %q error %q; want %q %q with the client's %q",
					row.name, it.QuestionID, it.Status, it.ErrorClass, it.Error, wantStatus, row.class, text)
			}
		}
		var want []string
		for _, c := range [...]struct {
			kind, line string
			n          map[string]int
		}{{"failed", "failed items by class: ", failed}, {"pending", "pending after an infrastructure error, by class: ", pending}} {
			var counts []string
			for _, class := range slices.Sorted(maps.Keys(c.n)) {
				counts = append(counts, fmt.Sprintf("%s=%d", class, c.n[class]))
				items := "1 item"
				if c.n[class] > 1 {
					items = itoa(c.n[class]) + " items"
				}
				want = append(want, fmt.Sprintf("  %s %s (%s; first: trial direct question ", c.kind, class, items), "    next: "+runstore.ClassHint(class))
			}
			want = append(want, c.line+strings.Join(counts, ", ")+" (")
		}
		for _, w := range want {
			if !strings.Contains(status.String(), w) {
				t.Errorf("status lacks %q:\n%s", w, status.String())
			}
			if !strings.Contains(out.String(), w) {
				t.Errorf("the run's summary lacks %q:\n%s", w, out.String())
			}
		}
	})

	for i, row := range classRows {
		if !row.cli || !row.stops {
			continue
		}
		t.Run("run stops/"+row.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Options{Models: []string{"served"}, Responder: sqlAnswer})
			if f := row.serverFault(); f != nil {
				srv.FailN(f, row.requests())
			}
			dir := filepath.Join(t.TempDir(), "run")
			var out, errb strings.Builder
			err := run(&out, &errb, []string{"run", classSpec(t, srv.BaseURL(), row.servedModel()), "--out", dir, "--quiet", "--limit", "3"})
			if got := exitCode(err); got != exitUsage {
				t.Fatalf("exit status %d (err %v); want %d\n%s", got, err, exitUsage, errb.String())
			}
			if got := srv.Calls(); got != row.requests() {
				t.Errorf("requests: %d; want %d (the run stops at the first)", got, row.requests())
			}
			head := fmt.Sprintf("answered HTTP %d (%s) on trial direct question ", row.status, row.class)
			_, msg, _ := strings.Cut(clientText(t, i), ": ")
			if !errors.Is(err, bench.ErrRejected) || !strings.Contains(err.Error(), head) || !strings.Contains(err.Error(), msg) {
				t.Errorf("err %v; want bench.ErrRejected with %q and the client's message %q", err, head, msg)
			}
			var status strings.Builder
			if err := run(&status, &status, []string{"status", dir}); err != nil {
				t.Fatalf("status: %v", err)
			}
			if strings.Contains(status.String(), "by class") {
				t.Errorf("status lists a class after a stopped run; want the item left pending, uncommitted:\n%s", status.String())
			}
		})
	}
}
