package sqltext

import (
	"errors"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	type kw struct {
		Keywords []string `json:"keywords"`
	}
	tests := []struct {
		name string
		in   string
		want string // first keyword; "" means an error is expected
	}{
		{"bare object", `{"keywords": ["a"]}`, "a"},
		{"fenced", "Reasoning first.\n```json\n{\"keywords\": [\"b\"]}\n```\n", "b"},
		{"unlabelled fence", "```\n{\"keywords\": [\"c\"]}\n```", "c"},
		{"last fence wins", "```json\n{\"keywords\": [\"old\"]}\n```\nrevised:\n```json\n{\"keywords\": [\"new\"]}\n```", "new"},
		{"bad last fence falls back", "```json\n{\"keywords\": [\"ok\"]}\n```\n```json\n{broken\n```", "ok"},
		{"object after prose", `I think the answer is {"keywords": ["d"]} as shown.`, "d"},
		{"braces inside strings", `{"keywords": ["x}{y"]}`, "x}{y"},
		{"escaped quote in string", `{"keywords": ["say \"}\""]}`, `say "}"`},
		{"last object wins", `{"keywords": ["first"]} then {"keywords": ["second"]}`, "second"},
		{"nested object", `{"keywords": ["n"], "meta": {"k": {"z": 1}}}`, "n"},
		{"no object", "SELECT 1", ""},
		{"unbalanced", `{"keywords": ["a"]`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v kw
			err := DecodeJSON(tc.in, &v)
			if tc.want == "" {
				if !errors.Is(err, ErrNoJSON) {
					t.Fatalf("DecodeJSON(%q) err = %v; want ErrNoJSON", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeJSON(%q) err = %v", tc.in, err)
			}
			if len(v.Keywords) == 0 || v.Keywords[0] != tc.want {
				t.Errorf("DecodeJSON(%q) = %+v; want first keyword %q", tc.in, v, tc.want)
			}
		})
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add("```json\n{\"a\": 1}\n```")
	f.Add(`x {"a": "}"} y {`)
	f.Fuzz(func(t *testing.T, s string) {
		var v map[string]any
		if err := DecodeJSON(s, &v); err != nil && !errors.Is(err, ErrNoJSON) {
			t.Fatalf("error %v does not wrap ErrNoJSON", err)
		}
	})
}
