package think

import "testing"

// TestSplit covers the shapes reasoning models produce, each written from
// its description: a closed block before the answer, several blocks, an
// unclosed block (cut while thinking), a closing tag that closes no block
// (the template put <think> in the prompt), tag case and variants, and
// text with no reasoning at all.
func TestSplit(t *testing.T) {
	cases := []struct {
		name, in, answer, reasoning string
	}{
		{"none", "SELECT 1", "SELECT 1", ""},
		{"none with a less-than", " SELECT a FROM t WHERE b < 2 ", "SELECT a FROM t WHERE b < 2", ""},
		{"closed", "<think>\nmaybe ```sql\nSELECT 2\n``` no\n</think>\n\n```sql\nSELECT 1\n```", "```sql\nSELECT 1\n```", "maybe ```sql\nSELECT 2\n``` no"},
		{"several", "<think>a</think>x <think>b</think> y", "x  y", "a\n\nb"},
		{"unclosed", "<think>let me think about SELECT 2", "", "let me think about SELECT 2"},
		{"text then unclosed", "Answer soon. <think>hmm", "Answer soon.", "hmm"},
		{"orphan close", "the user wants counts\n</think>\nSELECT count(*) FROM t", "SELECT count(*) FROM t", "the user wants counts"},
		{"upper case", "<THINK>r</THINK>a", "a", "r"},
		{"thinking variant", "<thinking>r</thinking>\na", "a", "r"},
		{"empty block", "<think>\n\n</think>\n\nSELECT 1", "SELECT 1", ""},
		{"orphan close then block", "r1</think>a<think>r2</think>b", "a\nb", "r1\n\nr2"},
		// A block between two parts of one query leaves a line break,
		// not the two parts glued together.
		{"block inside a query", "SELECT a<think>or b?</think>FROM t", "SELECT a\nFROM t", "or b?"},
		// The model closed its thinking twice: the last closing tag
		// ends it, and the text between the two was thinking too.
		{"two orphan closes", "r1</think>r2</think>SELECT 1", "SELECT 1", "r1\n\nr2"},
		{"orphan close after a block", "<think>r1</think>r2\n</think>\nSELECT 1", "SELECT 1", "r1\n\nr2"},
		// A block opened by one variant and closed by another still
		// ends at its closing tag.
		{"mixed variants", "<thinking>x</reasoning>y", "y", "x"},
		{"answer before a block", "{\"a\": 1}\n<think>done?</think>\nyes.", "{\"a\": 1}\n\nyes.", "done?"},
		// Found by fuzzing: invalid UTF-8 must not shift offsets.
		{"invalid utf8", "0000000\xf3000000</think>x", "x", "0000000\xf3000000"},
		{"invalid utf8 upper", "\xff<THINK>\xc3r</THINK>a", "\xff\na", "\xc3r"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, r := Split(c.in)
			if a != c.answer || r != c.reasoning {
				t.Errorf("Split(%q) = (%q, %q); want (%q, %q)", c.in, a, r, c.answer, c.reasoning)
			}
		})
	}
}

func TestHas(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"SELECT a FROM t WHERE b < 2", false},
		{"<think>x</think>y", true},
		{"x</THINKING>y", true},
		{"<reasoning>x", true},
		{"<thinker>", false},
	}
	for _, c := range cases {
		if got := Has(c.in); got != c.want {
			t.Errorf("Has(%q) = %v; want %v", c.in, got, c.want)
		}
	}
}

// FuzzSplit checks that Split never lengthens its input, that the answer
// holds no reasoning tag and that splitting an answer again leaves it as
// it is.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "a</think>b", "<think>a", "<thinking>x</reasoning>y", "", "a</think>b</think>c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, r := Split(s)
		if len(a)+len(r) > len(s) {
			t.Fatalf("output longer than input: %q -> (%q, %q)", s, a, r)
		}
		if Has(a) {
			t.Fatalf("answer holds a reasoning tag: %q -> %q", s, a)
		}
		if a2, r2 := Split(a); a2 != a || r2 != "" {
			t.Fatalf("Split(%q) = (%q, %q); want the answer unchanged", a, a2, r2)
		}
	})
}
