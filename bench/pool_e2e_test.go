package bench_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/reports"
	"github.com/t2sbench/t2sbench/runstore"
)

// front serves a fakeopenai server after a fixed latency on an address
// that survives kill and restart, as a crashing vLLM replica would.
type front struct {
	addr    string
	latency time.Duration
	proxy   *httputil.ReverseProxy
	mu      sync.Mutex
	srv     *http.Server
	ln      net.Listener
}

func newFront(t *testing.T, fake *fakeopenai.Server, latency time.Duration) *front {
	u, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	f := &front{latency: latency, proxy: httputil.NewSingleHostReverseProxy(u)}
	f.proxy.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	f.serve(ln)
	t.Cleanup(f.kill)
	return f
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-time.After(f.latency):
		f.proxy.ServeHTTP(w, r)
	case <-r.Context().Done():
	}
}

func (f *front) serve(ln net.Listener) {
	srv := &http.Server{Handler: f, ErrorLog: log.New(io.Discard, "", 0)}
	f.mu.Lock()
	f.srv, f.ln = srv, ln
	f.mu.Unlock()
	go srv.Serve(ln)
}

func (f *front) kill() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv != nil {
		f.ln.Close()
		f.srv.Close()
		f.srv = nil
	}
}

func (f *front) restart(t *testing.T) {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		t.Errorf("restart on %s: %v", f.addr, err)
		return
	}
	f.serve(ln)
}

// TestRunSurvivesKilledReplica: a real run (DefaultEnv, the bundled mini
// benchmark, the direct and cot runners) of a model served by three
// replicas, one of which is killed mid-run and restarted: every item
// finishes (none is left pending by an infrastructure error), and the
// report's efficiency-endpoints table shows the killed replica's errors and
// ejection beside the others' calls.
func TestRunSurvivesKilledReplica(t *testing.T) {
	answer := func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "```sql\nSELECT 1\n```"}
	}
	var fronts []*front
	var fakes []*fakeopenai.Server
	for _, l := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
		fk := fakeopenai.New(t, fakeopenai.Options{Responder: answer})
		fakes = append(fakes, fk)
		fronts = append(fronts, newFront(t, fk, l))
	}
	url := func(i int) string { return "http://" + fronts[i].addr + "/v1" }
	spec := fmt.Sprintf(`name: replicas
benchmarks: [{name: mini}]
models:
  l:
    backend: openai
    base_url: %s
    model: m
    concurrency: 2
    replicas: [{base_url: %s}, {base_url: %s}]
roles: {reason: l}
workers: 6
runners: [{name: direct}, {name: cot}]
`, url(0), url(1), url(2))
	p := benchkit.Plan(t, benchkit.Spec(t, spec, "replicas.yaml"))
	dir := t.TempDir()

	// Kill replica 1 once it has served some calls; restart it 100 ms on.
	done := make(chan struct{})
	go func() {
		for fakes[1].Calls() < 5 {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		fronts[1].kill()
		time.Sleep(100 * time.Millisecond)
		fronts[1].restart(t)
	}()
	sum, err := benchkit.Run(t, dir, p, bench.Options{})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errored != 0 || sum.Failed != 0 || sum.Done != sum.Total || sum.Total < 80 {
		t.Fatalf("items: %d done, %d failed, %d errored of %d; want all of >= 80 done", sum.Done, sum.Failed, sum.Errored, sum.Total)
	}
	run, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	for _, e := range run.Endpoints {
		calls += e.Calls - e.Errors
	}
	if calls != int64(sum.Total) {
		t.Errorf("answered calls over the endpoints: got %d; want %d (one per item)", calls, sum.Total)
	}
	killed := run.Endpoints[0]
	for _, e := range run.Endpoints {
		if e.Endpoint == url(1) {
			killed = e
		}
	}
	if killed.Errors == 0 || killed.Ejections == 0 {
		t.Errorf("killed replica: got %+v; want errors and an ejection", killed)
	}
	r, err := reports.Build([]*runstore.RunData{run}, reports.Options{Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteTerminal(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	i := strings.Index(out, "Model endpoints")
	if i < 0 {
		t.Fatalf("report lacks the endpoints table:\n%s", out)
	}
	table := out[i:]
	t.Logf("%s", table[:strings.Index(table, "calls: attempts")])
	for k := range 3 {
		if !strings.Contains(table, url(k)) {
			t.Errorf("endpoints table lacks %s", url(k))
		}
	}
}
