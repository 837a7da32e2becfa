package runners

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
)

func TestReaderValues(t *testing.T) {
	r := NewReader(Params{
		"n":     24,
		"f":     float64(3), // YAML numbers may arrive as float64
		"c":     1.5,
		"b":     true,
		"s":     "steiner",
		"d":     "30s",
		"dn":    2,
		"list":  []any{"A1", "A2"},
		"slist": []string{"x"},
	})
	if got := r.Int("n", 0, 1, 100); got != 24 {
		t.Errorf("Int n = %d; want 24", got)
	}
	if got := r.Int("f", 0, 1, 100); got != 3 {
		t.Errorf("Int f = %d; want 3", got)
	}
	if got := r.Float("c", 0, 0, 2); got != 1.5 {
		t.Errorf("Float c = %g; want 1.5", got)
	}
	if got := r.Bool("b", false); !got {
		t.Errorf("Bool b = false; want true")
	}
	if got := r.String("s", "", "steiner", "mst"); got != "steiner" {
		t.Errorf("String s = %q; want steiner", got)
	}
	if got := r.Duration("d", 0); got != 30*time.Second {
		t.Errorf("Duration d = %v; want 30s", got)
	}
	if got := r.Duration("dn", 0); got != 2*time.Second {
		t.Errorf("Duration dn = %v; want 2s", got)
	}
	if got := r.Strings("list", nil); len(got) != 2 || got[1] != "A2" {
		t.Errorf("Strings list = %v; want [A1 A2]", got)
	}
	if got := r.Strings("slist", nil); len(got) != 1 || got[0] != "x" {
		t.Errorf("Strings slist = %v; want [x]", got)
	}
	if got := r.Int("absent", 7, 0, 10); got != 7 {
		t.Errorf("Int absent = %d; want default 7", got)
	}
	if err := r.Err(); err != nil {
		t.Errorf("Err = %v; want nil", err)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		p    Params
		read func(r *Reader)
		want string
	}{
		{"unknown key", Params{"n_rolout": 3}, func(r *Reader) { r.Int("n_rollout", 24, 1, 100) }, "params.n_rolout: unknown parameter (did you mean \"n_rollout\"?) (known: n_rollout)"},
		{"out of range", Params{"n": 0}, func(r *Reader) { r.Int("n", 1, 1, 10) }, "params.n: 0 out of range [1, 10]"},
		{"fractional int", Params{"n": 2.5}, func(r *Reader) { r.Int("n", 1, 1, 10) }, "params.n: want an integer, got 2.5"},
		{"wrong type", Params{"b": "yes"}, func(r *Reader) { r.Bool("b", false) }, "params.b: want true or false"},
		{"not allowed", Params{"s": "dijkstra"}, func(r *Reader) { r.String("s", "", "steiner", "mst") }, `params.s: "dijkstra" is not one of steiner, mst`},
		{"float range", Params{"c": 3.0}, func(r *Reader) { r.Float("c", 1, 0, 2) }, "params.c: 3 out of range [0, 2]"},
		{"bad duration", Params{"d": "soon"}, func(r *Reader) { r.Duration("d", 0) }, `params.d: bad duration "soon"`},
		{"list element", Params{"l": []any{"A1", 2}}, func(r *Reader) { r.Strings("l", nil) }, "params.l[1]: want a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.p)
			tc.read(r)
			err := r.Err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Err = %v; want it to contain %q", err, tc.want)
			}
		})
	}
}

// fakeClient answers every request with one choice and fixed usage.
type fakeClient struct{ cached bool }

func (f fakeClient) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	return &llm.Response{
		Choices: make([]string, req.Samples()),
		Usage:   llm.Usage{PromptTokens: 10, CompletionTokens: 3},
		Cached:  f.cached,
		Latency: time.Millisecond,
	}, nil
}

func TestMeterByRole(t *testing.T) {
	m := NewMeter(fakeClient{})
	ctx := context.Background()
	for range 3 {
		if _, err := m.Complete(ctx, llm.Request{Role: "reason", N: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Complete(ctx, llm.Request{Role: "discriminator"}); err != nil {
		t.Fatal(err)
	}
	u := m.Usage()
	if got := u["reason"]; got.Calls != 3 || got.PromptTokens != 30 || got.CompletionTokens != 9 || got.Latency != 3*time.Millisecond {
		t.Errorf("reason usage %+v; want 3 calls, 30 prompt, 9 completion tokens, 3ms", got)
	}
	if got := u["discriminator"].Calls; got != 1 {
		t.Errorf("discriminator calls %d; want 1", got)
	}
	if got := m.Calls(); got != 4 {
		t.Errorf("Calls() = %d; want 4", got)
	}
	hit := NewMeter(fakeClient{cached: true})
	hit.Complete(ctx, llm.Request{Role: "reason"})
	if got := hit.Usage()["reason"]; got.CachedCalls != 1 || got.Calls != 1 {
		t.Errorf("cached usage %+v; want 1 call, 1 cached", got)
	}
}

// registerTestRunner registers the test runner once per process, so the
// test also passes under -count > 1.
var registerTestRunner = sync.OnceFunc(func() {
	Register("test-runner-registry", func(r *Reader) (Runner, error) { return nil, r.Err() })
})

func TestRegistry(t *testing.T) {
	registerTestRunner()
	if _, err := New("test-runner-registry", Params{"x": 1}); err == nil || !strings.Contains(err.Error(), "params.x") {
		t.Errorf("New with unknown param: err = %v; want params.x error", err)
	}
	if _, err := New("no-such-runner", nil); err == nil || !strings.Contains(err.Error(), "test-runner-registry") {
		t.Errorf("New unknown runner: err = %v; want it to list known runners", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("duplicate Register did not panic")
		}
	}()
	Register("test-runner-registry", nil)
}

// TestDescribe: Describe lists what a factory reads through its Reader,
// in order, with defaults and valid values; a parameter the factory takes
// by hand is neither described nor known, nor unknown.
func TestDescribe(t *testing.T) {
	if _, ok := Lookup("describe-test"); !ok { // registered once per test binary (-count=N)
		Register("describe-test", func(r *Reader) (Runner, error) {
			r.Take("by_hand")
			r.Int("k", 8, 1, 128)
			r.String("mode", "a", "a", "b")
			r.Bool("on", true)
			r.Int("k", 8, 1, 128) // read twice, listed once
			return nil, r.Err()
		})
	}
	got, err := Describe("describe-test")
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	want := []ParamInfo{
		{Key: "k", Kind: "integer", Default: 8, Valid: "[1, 128]"},
		{Key: "mode", Kind: "string", Default: "a", Valid: "one of a, b"},
		{Key: "on", Kind: "boolean", Default: true, Valid: "true or false"},
	}
	if len(got) != len(want) {
		t.Fatalf("Describe = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("param %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	if _, err := New("describe-test", Params{"by_hand": []int{1}}); err != nil {
		t.Errorf("New with the parameter taken by hand: %v; want no error", err)
	}
	if _, err := New("describe-test", Params{"zz": 1}); err == nil || !strings.Contains(err.Error(), "known: k, mode, on)") {
		t.Errorf("unknown key error = %v; want the known keys, the one taken by hand left out", err)
	}
	if _, err := Describe("no-such-runner"); err == nil {
		t.Errorf("Describe of an unknown runner: no error")
	}
}

// TestParamErrorKey checks that Reader.Err's error names its parameters as
// data: errors.As finds the first bad one, and the message is unchanged
// ("params.<key>: ...", "; "-joined).
func TestParamErrorKey(t *testing.T) {
	tests := []struct {
		p       Params
		key     string
		message string
	}{
		{Params{"n": 0}, "n", "params.n: 0 out of range [1, 10]"},
		{Params{"n": 2, "zz": 1}, "zz", "params.zz: unknown parameter (known: n, ratio)"},
		{Params{"ratio": "x", "zz": 1}, "ratio", "params.ratio: want a number, got string x; params.zz: unknown parameter (known: n, ratio)"},
	}
	for _, tc := range tests {
		r := NewReader(tc.p)
		r.Int("n", 1, 1, 10)
		r.Float("ratio", 0.5, 0, 1)
		err := fmt.Errorf("wrapped: %w", r.Err())
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Fatalf("%v: errors.As found no ParamError in %v", tc.p, err)
		}
		if pe.Key != tc.key {
			t.Errorf("%v: key = %q; want %q", tc.p, pe.Key, tc.key)
		}
		if got := strings.TrimPrefix(err.Error(), "wrapped: "); got != tc.message {
			t.Errorf("%v: message = %q; want %q", tc.p, got, tc.message)
		}
	}
	r := NewReader(Params{"n": 3})
	r.Int("n", 1, 1, 10)
	if err := r.Err(); err != nil {
		t.Errorf("no bad parameter: err = %v; want nil", err)
	}
}
