package llm

import "testing"

// TestSplitReasoning covers the shapes reasoning models produce, each
// written from its description: a closed block before the answer, several
// blocks, an unclosed block (cut while thinking), an orphan closing tag
// (the template put <think> in the prompt), tag case and variants, and
// text with no reasoning at all.
func TestSplitReasoning(t *testing.T) {
	cases := []struct {
		name, in, answer, reasoning string
	}{
		{"none", "SELECT 1", "SELECT 1", ""},
		{"closed", "<think>\nmaybe ```sql\nSELECT 2\n``` no\n</think>\n\n```sql\nSELECT 1\n```", "```sql\nSELECT 1\n```", "maybe ```sql\nSELECT 2\n``` no"},
		{"several", "<think>a</think>x <think>b</think> y", "x  y", "a\n\nb"},
		{"unclosed", "<think>let me think about SELECT 2", "", "let me think about SELECT 2"},
		{"text then unclosed", "Answer soon. <think>hmm", "Answer soon.", "hmm"},
		{"orphan close", "the user wants counts\n</think>\nSELECT count(*) FROM t", "SELECT count(*) FROM t", "the user wants counts"},
		{"upper case", "<THINK>r</THINK>a", "a", "r"},
		{"thinking variant", "<thinking>r</thinking>\na", "a", "r"},
		{"empty block", "<think>\n\n</think>\n\nSELECT 1", "SELECT 1", ""},
		{"orphan close then block", "r1</think>a<think>r2</think>b", "ab", "r1\n\nr2"},
		// Found by fuzzing: invalid UTF-8 must not shift offsets.
		{"invalid utf8", "0000000\xf3000000</think>x", "x", "0000000\xf3000000"},
		{"invalid utf8 upper", "\xff<THINK>\xc3r</THINK>a", "\xffa", "\xc3r"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, r := SplitReasoning(c.in)
			if a != c.answer || r != c.reasoning {
				t.Errorf("SplitReasoning(%q) = (%q, %q); want (%q, %q)", c.in, a, r, c.answer, c.reasoning)
			}
		})
	}
}

func FuzzSplitReasoning(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "a</think>b", "<think>a", "<thinking>x</reasoning>y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, r := SplitReasoning(s)
		if len(a)+len(r) > len(s) {
			t.Fatalf("output longer than input: %q -> (%q, %q)", s, a, r)
		}
	})
}
