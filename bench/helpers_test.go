package bench

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/metrics"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// fakeBenchmark has n questions over one database "db"; question i's gold
// SQL is "SELECT i".
func fakeBenchmark(n int) *datasets.Benchmark {
	b := &datasets.Benchmark{Name: "fake", Engine: fakeEngine{}}
	for i := 0; i < n; i++ {
		b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprintf("q%03d", i), Index: i, DBID: "db",
			Question: fmt.Sprintf("question number %d?", i), GoldSQL: fmt.Sprintf("SELECT %d", i)})
	}
	return b
}

type fakeEngine struct{}

func (fakeEngine) Open(_ context.Context, id string) (datasets.Database, error) {
	if id != "db" {
		return nil, fmt.Errorf("%s: %w", id, datasets.ErrMissingDB)
	}
	return fakeDB{}, nil
}
func (fakeEngine) Dialect() string { return "sqlite" }
func (fakeEngine) Close() error    { return nil }

// fakeDB executes "SELECT <n>" as one row holding n.
type fakeDB struct{}

func (fakeDB) ID() string      { return "db" }
func (fakeDB) Dialect() string { return "sqlite" }
func (fakeDB) Execute(_ context.Context, sql string) (*datasets.ResultSet, error) {
	var n int64
	if _, err := fmt.Sscanf(sql, "SELECT %d", &n); err != nil {
		return nil, &datasets.ExecError{Kind: datasets.ExecErrorKind, Msg: "syntax error"}
	}
	return &datasets.ResultSet{Columns: []string{"n"}, Rows: [][]any{{n}}}, nil
}
func (fakeDB) Schema(context.Context) (*datasets.Schema, error) {
	return &datasets.Schema{DBID: "db", Tables: []datasets.Table{{Name: "t", Columns: []datasets.Column{{Name: "n", Type: "INTEGER"}}}}}, nil
}
func (fakeDB) Fingerprint() string { return "fake" }
func (fakeDB) Close() error        { return nil }

// fakeModel answers the gold SQL of the question in the prompt with a
// probability decided by a hash of (seed, question, sample), else a wrong
// one; deterministic like sim.
type fakeModel struct {
	b     *datasets.Benchmark
	p     float64
	calls atomic.Int64
}

func (m *fakeModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.calls.Add(1)
	prompt := req.Messages[len(req.Messages)-1].Content
	var gold string
	for _, e := range m.b.Examples {
		if strings.Contains(prompt, e.Question) {
			gold = e.GoldSQL
		}
	}
	if gold == "" {
		return nil, errors.New("fake model: question not found in prompt")
	}
	resp := &llm.Response{Usage: llm.Usage{PromptTokens: len(prompt) / 4, CompletionTokens: 12}, Model: "fake"}
	for i := 0; i < req.Samples(); i++ {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s|%d", prompt, i)
		sql := gold
		if float64(mix(h.Sum64())%1000)/1000 >= m.p {
			sql = "SELECT 999999"
		}
		resp.Choices = append(resp.Choices, "```sql\n"+sql+"\n```")
	}
	return resp, nil
}

// faultyClient fails a share of requests (decided by a counter-free hash
// of the prompt and an attempt number) with a 500-class or network error.
type faultyClient struct {
	llm.Client
	rate   float64
	secret string
	mu     sync.Mutex
	tries  map[string]int
	faults atomic.Int64
}

type statusErr struct{ code int }

func (e *statusErr) Error() string   { return fmt.Sprintf("openai: status %d: upstream failure", e.code) }
func (e *statusErr) StatusCode() int { return e.code }

func (f *faultyClient) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	f.mu.Lock()
	f.tries[prompt]++
	n := f.tries[prompt]
	f.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d", prompt, n)
	x := mix(h.Sum64()) % 1000
	if float64(x)/1000 < f.rate {
		f.faults.Add(1)
		switch x % 3 {
		case 0:
			return nil, &statusErr{code: 503}
		case 1:
			return nil, &statusErr{code: 429}
		default:
			// An error that echoes the key must be redacted.
			return nil, fmt.Errorf("read tcp (key %s): %w", f.secret, syscall.ECONNRESET)
		}
	}
	return f.Client.Complete(ctx, req)
}

// exactScorer marks a prediction correct when it equals the gold SQL.
type exactScorer struct{}

func (exactScorer) Score(_ context.Context, ex datasets.Example, pred string) runstore.Verdict {
	ok := sqltext.Normalise(pred) == sqltext.Normalise(ex.GoldSQL)
	st := "wrong"
	if ok {
		st = "correct"
	}
	return runstore.Verdict{Index: ex.Index, QuestionID: ex.ID, DBID: ex.DBID, Status: metrics.Status(st), Correct: ok}
}

// testEnv returns an Env over a fake benchmark of n questions; wrap, when
// set, wraps each model client.
func testEnv(n int, p float64, wrap func(llm.Client) llm.Client) (Env, *fakeModel) {
	b := fakeBenchmark(n)
	m := &fakeModel{b: b, p: p}
	return Env{
		OpenBenchmark: func(_ context.Context, bs spec.BenchmarkSpec, _ string) (*datasets.Benchmark, error) {
			cp := *b
			cp.Examples = append([]datasets.Example(nil), b.Examples...)
			if bs.Limit > 0 && bs.Limit < len(cp.Examples) {
				cp.Examples = cp.Examples[:bs.Limit]
			}
			return &cp, nil
		},
		NewClient: func(_ context.Context, _ string, _ spec.ModelSpec, _ *datasets.Benchmark, _ string) (llm.Client, error) {
			if wrap != nil {
				return wrap(m), nil
			}
			return m, nil
		},
		NewScorer: func(*datasets.Benchmark, spec.BenchmarkSpec, string) (Scorer, error) { return exactScorer{}, nil },
	}, m
}

// mix is splitmix64's finaliser; it decorrelates hashes of similar strings.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
