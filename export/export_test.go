package export

import (
	"strings"
	"testing"
)

func TestFlatten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"one line", "SELECT a FROM t", "SELECT a FROM t", false},
		{"line breaks and tabs", "SELECT a,\n\tb\r\nFROM t\n", "SELECT a,  b  FROM t", false},
		{"line comment dropped", "SELECT a -- the name\nFROM t -- end", "SELECT a  FROM t", false},
		{"block comment kept on one line", "SELECT /* a\nb */ 1", "SELECT /* a b */ 1", false},
		{"dashes in a string are text", "SELECT '--x' FROM t", "SELECT '--x' FROM t", false},
		{"escaped quote", "SELECT 'it''s\n' FROM t", "SELECT 'it''s ' FROM t", true},
		{"newline in a double-quoted name", "SELECT \"a\nb\" FROM t", "SELECT \"a b\" FROM t", true},
		{"tab in a bracket name", "SELECT [a\tb] FROM t", "SELECT [a b] FROM t", true},
		{"backticks", "SELECT `x`\nFROM t", "SELECT `x` FROM t", false},
		{"unterminated string", "SELECT 'abc\n", "SELECT 'abc", true},
		{"only a comment", "-- nothing", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := Flatten(tt.in)
			if got != tt.want || changed != tt.changed {
				t.Errorf("Flatten(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
			}
			if strings.ContainsAny(got, "\n\r\t") {
				t.Errorf("Flatten(%q) = %q keeps a line break or TAB", tt.in, got)
			}
		})
	}
}

// FuzzFlatten checks Flatten's promises on any input: one line, no
// TAB, and a second pass changes nothing.
func FuzzFlatten(f *testing.F) {
	for _, s := range []string{"SELECT a,\n\tb -- c\nFROM t", "SELECT 'x\ny' /* a\nb */", "[a\tb]\r\n`c`", "--", "'", "/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		flat, _ := Flatten(sql)
		if strings.ContainsAny(flat, "\n\r\t") {
			t.Fatalf("Flatten(%q) = %q keeps a line break or TAB", sql, flat)
		}
		if again, changed := Flatten(flat); again != flat || changed {
			t.Fatalf("Flatten(%q) = %q, then %q (changed %v); want no change", sql, flat, again, changed)
		}
	})
}
