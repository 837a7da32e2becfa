package suggest

import "testing"

// TestDistance checks the edit distance on pairs whose distance is counted
// by hand in the comment of each case.
func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},           // three insertions
		{"sweeep", "sweep", 1},   // one deletion
		{"limti", "limit", 1},    // one transposition (ti -> it)
		{"kitten", "sitting", 3}, // k->s, e->i, insert g
		{"runn", "run", 1},
		{"ablation", "ablations", 1},
		{"héllo", "hello", 1}, // runes, not bytes
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Distance(tt.b, tt.a); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d; want %d (symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// TestClosest checks the suggestion and the distance limits.
func TestClosest(t *testing.T) {
	t.Parallel()
	keys := []string{"name", "label", "params", "sweep", "ablations", "roles", "grid", "backbones", "seeds"}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"one deletion", "sweeep", "sweep"},
		{"case-insensitive", "SWEEP", "sweep"},
		{"transposition", "lable", "label"},
		{"two edits in a long name", "ablatons", "ablations"},
		{"far from every key", "temperature", ""},
		{"short name, two edits", "gr", ""},
		{"itself is not suggested", "sweep", ""},
		{"unique prefix", "back", "backbones"},
		{"prefix of two keys", "ro", ""},
		{"prefix of two keys, three runes", "par", "params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.in, keys); got != tt.want {
				t.Errorf("Closest(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
	// "resp" is 4 edits from both flags and starts both: no suggestion.
	if got := Closest("resp", []string{"response-field", "response-prefix"}); got != "" {
		t.Errorf("Closest(resp) = %q; want none (a prefix of two names)", got)
	}
	if got, want := Hint("sweeep", keys), ` (did you mean "sweep"?)`; got != want {
		t.Errorf("Hint = %q; want %q", got, want)
	}
	if got := Hint("temperature", keys); got != "" {
		t.Errorf("Hint(temperature) = %q; want none", got)
	}
}
