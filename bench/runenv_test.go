package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
)

// closeLog records what was closed, in order.
type closeLog struct {
	mu     sync.Mutex
	closed []string
}

func (l *closeLog) add(what string) {
	l.mu.Lock()
	l.closed = append(l.closed, what)
	l.mu.Unlock()
}

type closingScorer struct {
	exactScorer
	log *closeLog
}

func (s closingScorer) Close() error { s.log.add("scorer"); return nil }

type closingClient struct {
	llm.Client
	name string
	log  *closeLog
}

func (c closingClient) Close() error { c.log.add("client " + c.name); return nil }

// Two trials of one benchmark binding two models: the benchmark loads
// once, each model's client is built once, and close releases them in
// the reverse order of their opening; a client that cannot be built
// stops the setup with an error naming its model, its secret redacted,
// and what was opened is closed.
func TestOpenRunEnv(t *testing.T) {
	const specText = `benchmarks: [{name: fake}]
models:
  m: {backend: sim}
  n: {backend: sim}
roles: {reason: m, understand: n}
runners: [{name: direct}, {name: cot}]
`
	const secret = "sk-test-0123456789abcdef"
	for _, tc := range []struct {
		name       string
		failModel  string
		wantClosed []string
		wantErr    string
	}{
		{name: "ok", wantClosed: []string{"client n", "client m", "scorer"}},
		{name: "client fails", failModel: "n", wantClosed: []string{"client m", "scorer"}, wantErr: "model n: no such key [REDACTED]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, specText)
			base, _ := testEnv(10, 1, nil)
			log := &closeLog{}
			var opened, built []string
			env := base
			env.OpenBenchmark = func(ctx context.Context, bs spec.BenchmarkSpec, dir string) (*datasets.Benchmark, error) {
				opened = append(opened, bs.Name)
				return base.OpenBenchmark(ctx, bs, dir)
			}
			env.NewScorer = func(*datasets.Benchmark, spec.BenchmarkSpec, string) (Scorer, error) {
				return closingScorer{log: log}, nil
			}
			env.NewClient = func(ctx context.Context, name string, m spec.ModelSpec, b *datasets.Benchmark, dir string) (llm.Client, error) {
				built = append(built, name)
				if name == tc.failModel {
					return nil, errors.New("no such key " + secret)
				}
				c, err := base.NewClient(ctx, name, m, b, dir)
				return closingClient{Client: c, name: name, log: log}, err
			}
			e, err := openRunEnv(context.Background(), p, env, Options{Limit: 3, Secrets: []string{secret}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), secret) {
					t.Fatalf("err = %v; want one containing %q, without the secret", err, tc.wantErr)
				}
				if !slices.Equal(log.closed, tc.wantClosed) {
					t.Errorf("closed on failure %q; want %q", log.closed, tc.wantClosed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"fake"}; !slices.Equal(opened, want) {
				t.Errorf("benchmarks opened %q; want %q (once for both trials)", opened, want)
			}
			if want := []string{"m", "n"}; !slices.Equal(built, want) {
				t.Errorf("clients built %q; want %q (once per model, by name)", built, want)
			}
			be := e.bench(p.Trials[0].Benchmark)
			if be == nil || e.bench(p.Trials[1].Benchmark) != be {
				t.Fatalf("trials do not share their benchmark's environment")
			}
			if len(be.b.Examples) != 3 {
				t.Errorf("%d questions; want 3 (Options.Limit)", len(be.b.Examples))
			}
			if len(be.clients) != 2 || be.scorer == nil || be.dbs == nil {
				t.Errorf("environment has %d clients, scorer %v, databases %v; want 2 clients, a scorer and databases", len(be.clients), be.scorer, be.dbs)
			}
			if len(log.closed) != 0 {
				t.Errorf("closed %q before close", log.closed)
			}
			e.close()
			if !slices.Equal(log.closed, tc.wantClosed) {
				t.Errorf("closed %q; want %q", log.closed, tc.wantClosed)
			}
		})
	}
}

// A benchmark that does not load stops the setup with an error naming it.
func TestOpenRunEnvBenchmarkFails(t *testing.T) {
	env, _ := testEnv(4, 1, nil)
	env.OpenBenchmark = func(context.Context, spec.BenchmarkSpec, string) (*datasets.Benchmark, error) {
		return nil, errors.New("no questions file")
	}
	_, err := openRunEnv(context.Background(), mustPlan(t, runSpec), env, Options{})
	if want := "benchmark fake: no questions file"; err == nil || err.Error() != want {
		t.Errorf("err = %v; want %q", err, want)
	}
}
