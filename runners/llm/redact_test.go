package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners/llm"
)

func TestIsSecret(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"", false},
		{"a", false},
		{"sk-1234", false}, // 7 characters
		{"12345678", true}, // 8
		{"EMPTY", false},
		{"empty", false},
		{"None", false},
		{"null", false},
		{"sk-no-key-required", false},
		{"SK-NO-KEY-REQUIRED", false},
		{"  lm-studio\n", false},
		{"not-needed", false},
		{"ollama", false},
		{"sk-proj-abcdefghijklmnop", true},
		{"        ", false}, // white space only
		{"hunter22", true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := llm.IsSecret(tt.key); got != tt.want {
				t.Errorf("IsSecret(%q) = %v; want %v", tt.key, got, tt.want)
			}
		})
	}
}

func TestRedactor(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	tests := []struct {
		name    string
		r       *llm.Redactor
		in      string
		want    string
		display bool
	}{
		{"one-letter key", llm.NewRedactor("a"), "SELECT department FROM dept", "SELECT department FROM dept", false},
		{"placeholder key", llm.NewRedactor("EMPTY"), "SELECT 'EMPTY'", "SELECT 'EMPTY'", false},
		{"real key", llm.NewRedactor(key), "echo " + key + " and " + key, "echo [REDACTED] and [REDACTED]", false},
		{"longest first", llm.NewRedactor("secret-value", "secret-value-longer"), "secret-value-longer", "[REDACTED]", false},
		{"nil redactor", nil, "x " + key, "x " + key, false},
		{"plain redactor leaves key-like text", llm.NewRedactor(), "sk-abcdefghijklmnopqrst", "sk-abcdefghijklmnopqrst", false},
		{"display: key-like text", llm.NewDisplayRedactor(), "key sk-abcdefghijklmnopqrst here", "key [REDACTED] here", true},
		{"display: bearer token", llm.NewDisplayRedactor(), "Authorization: Bearer abcdefghijklmnop", "Authorization: [REDACTED]", true},
		{"display: placeholder stays", llm.NewDisplayRedactor("EMPTY"), "api_key sk-no-key-required EMPTY", "api_key sk-no-key-required EMPTY", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestRedactorValue: Value reaches every string of a nested value
// (struct fields, pointers, slices, maps of any, interfaces) and leaves
// other values alone.
func TestRedactorValue(t *testing.T) {
	const k = "secret-0123456789"
	type inner struct {
		S    string
		Any  any
		List []string
	}
	type outer struct {
		A     string
		P     *inner
		M     map[string]any
		N     int
		Bytes []byte
		hid   string
	}
	v := outer{
		A:     "a " + k,
		P:     &inner{S: k, Any: "any " + k, List: []string{k, "plain"}},
		M:     map[string]any{"x": k, "nested": map[string]any{"y": []any{k, 3.0}}, "z": []string{k}},
		N:     7,
		Bytes: []byte(k),
		hid:   k,
	}
	llm.NewRedactor(k).Value(&v)
	checks := []struct{ name, got, want string }{
		{"A", v.A, "a [REDACTED]"},
		{"P.S", v.P.S, "[REDACTED]"},
		{"P.Any", v.P.Any.(string), "any [REDACTED]"},
		{"P.List[0]", v.P.List[0], "[REDACTED]"},
		{"P.List[1]", v.P.List[1], "plain"},
		{"M.x", v.M["x"].(string), "[REDACTED]"},
		{"M.nested.y[0]", v.M["nested"].(map[string]any)["y"].([]any)[0].(string), "[REDACTED]"},
		{"M.z[0]", v.M["z"].([]string)[0], "[REDACTED]"},
		{"Bytes", string(v.Bytes), k},
		{"hid (unexported)", v.hid, k},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q; want %q", c.name, c.got, c.want)
		}
	}
	if v.N != 7 || v.M["nested"].(map[string]any)["y"].([]any)[1] != 3.0 {
		t.Errorf("non-strings changed: %+v", v)
	}
}

// TestRedactorValueReadsOnly: Value writes nothing where there is nothing
// to redact, so values that share a map (a package's table, such as the
// viewer's code names) may be redacted at once from several goroutines.
// Before, every map entry was written back, unchanged: under -race this
// test reported the writes, and without it the runtime could stop on
// concurrent map writes.
func TestRedactorValueReadsOnly(t *testing.T) {
	shared := map[string]string{"a": "plain", "b": "text"}
	type view struct{ Codes map[string]string }
	r := llm.NewRedactor("secret-0123456789")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				r.Value(&view{Codes: shared})
			}
		})
	}
	wg.Wait()
	if shared["a"] != "plain" || shared["b"] != "text" || len(shared) != 2 {
		t.Errorf("shared map = %v; want it unchanged", shared)
	}
	// A map that does hold the secret is still redacted.
	own := map[string]string{"k": "secret-0123456789"}
	r.Value(&view{Codes: own})
	if own["k"] != "[REDACTED]" {
		t.Errorf("own map = %v; want the secret redacted", own)
	}
}

// TestOpenAIRedactsOnlySecrets: the client's error text keeps what only
// looks like its key when the key is no secret (a one-letter key, the
// placeholder EMPTY), and hides a real key. Before keys were checked
// (IsSecret), a key "x" made "does not exist" read "does not e[REDACTED]ist"
// and EMPTY was replaced in every error.
func TestOpenAIRedactsOnlySecrets(t *testing.T) {
	tests := []struct {
		name, key, msg, want, hidden string
	}{
		{"one-letter key", "x", "column x does not exist", "column x does not exist", ""},
		{"placeholder EMPTY", "EMPTY", "value 'EMPTY' rejected", "value 'EMPTY' rejected", ""},
		{"real key", "sk-live-0123456789abcdef", "bad key sk-live-0123456789abcdef", "bad key [REDACTED]", "sk-live-0123456789abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("T2SBENCH_TEST_REDACT_OPENAI", tt.key)
			srv := fakeopenai.New(t, fakeopenai.Options{})
			srv.FailN(fakeopenai.Status(400, tt.msg), 1)
			o, _ := newClient(t, srv, func(c *llm.OpenAIConfig) { c.APIKeyEnv = "T2SBENCH_TEST_REDACT_OPENAI" })
			_, err := o.Complete(context.Background(), ask)
			var se *llm.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v; want a *llm.StatusError", err)
			}
			if !strings.Contains(err.Error(), tt.want) || se.Message != tt.want {
				t.Errorf("error %q (message %q); want it to hold %q", err, se.Message, tt.want)
			}
			if tt.hidden != "" && strings.Contains(err.Error(), tt.hidden) {
				t.Errorf("error %q holds the key", err)
			}
		})
	}
}
