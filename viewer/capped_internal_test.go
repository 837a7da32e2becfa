package viewer

import (
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestCapperValue: every string of a decoded JSON value is capped once,
// keys included, with the marker giving the original length.
func TestCapperValue(t *testing.T) {
	long := strings.Repeat("y", 100)
	c := capper{max: 10, cmd: "CMD"}
	v := c.value(map[string]any{long: long, "k": []any{long, 1.0, map[string]any{"s": "short"}}}).(map[string]any)
	want := strings.Repeat("y", 10) + truncMarker(100, "CMD")
	if len(v) != 2 || v[want] != want {
		t.Errorf("got %q; want the long key and its value capped once to %q", v, want)
	}
	k := v["k"].([]any)
	if k[0] != want || k[1] != 1.0 || k[2].(map[string]any)["s"] != "short" {
		t.Errorf("got %q; want [%q 1 {s: short}]", k, want)
	}
	if n, ok := Truncated(want); !ok || n != 100 {
		t.Errorf("Truncated(%q) = %d, %v; want 100, true", want, n, ok)
	}
}

// TestCapperHidesCutCredential: a credential that the cap cuts in two is
// hidden whole before the cut, so no part of it shows.
func TestCapperHidesCutCredential(t *testing.T) {
	const key = "sk-t2sbench-cap-0123456789abcdef"
	c := capper{max: 20, red: llm.NewDisplayRedactor(key)}
	for _, pre := range []int{5, 10, 19} {
		s := strings.Repeat("a", pre) + key + strings.Repeat("b", 100)
		got := c.text(s)
		head, _, _ := strings.Cut(got, "\n… [truncated")
		want := (strings.Repeat("a", pre) + llm.Redacted + strings.Repeat("b", 100))[:20]
		if head != want {
			t.Errorf("key at %d: kept %q; want %q, no part of the key", pre, head, want)
		}
	}
}
