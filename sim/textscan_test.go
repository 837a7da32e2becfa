package sim

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// normalizeTextRunes is normalizeText as it was: every rune decoded,
// unicode.IsSpace and unicode.ToLower on each.
func normalizeTextRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// stepHeadRe is the pattern stepHeads stands for, as canonicalSteps ran
// it before.
var stepHeadRe = regexp.MustCompile(`(?m)^Step \d+ \([^()\n]*\):[ \t]*\n`)

// TestNormalizeTextEqualsRunes checks normalizeText against the rune by
// rune version on datasets' golden schema renderings, a search prompt and
// 20,000 random texts of the pieces where the two could differ: ASCII
// and Unicode white space (NEL, NBSP, em space, ideographic space), upper
// case letters of both (the Kelvin sign and dotted I lower to ASCII
// letters, É to two bytes), invalid UTF-8, runs of white space at the
// start and end.
func TestNormalizeTextEqualsRunes(t *testing.T) {
	texts := append(goldenRenders(t), searchPrompt(t, 6), "", " ", "\xff", "\xc3", "A\u0085B")
	pieces := []string{"A", "z", "Q", "é", "É", "Σ", "İ", "\u212a", "ß", "  ", " ", "\t", "\n", "\r\n", "\v", "\f",
		"\u0085", "\u00a0", "\u2003", "\u3000", "\xff", "\xc3", "\xe2\x80", "1", "_", "(", "'", "SELECT", "【"}
	texts = append(texts, randomTexts(pieces, 24, 3)...)
	for _, s := range texts {
		if got, want := normalizeText(s), normalizeTextRunes(s); got != want {
			t.Fatalf("normalizeText(%q) = %q; rune by rune %q", s, got, want)
		}
	}
}

// TestStepHeadsEqualRegexp checks stepHeads against stepHeadRe on search
// prompts and on 20,000 random texts of the pieces of a head and what
// breaks one: a missing digit or space, parentheses inside the action, a
// head without its newline, text after the colon, "step" in lower case,
// heads back to back, multi-byte and invalid UTF-8 inside the action.
func TestStepHeadsEqualRegexp(t *testing.T) {
	texts := []string{searchPrompt(t, 1), searchPrompt(t, 6), "", "Step 1 (A):\n", "Step 1 (A):"}
	pieces := []string{"Step ", "Step", "step ", "1", "42", " (", "(", ")", "):", ":", "Schema Selection", "é", "\xff",
		"【", "\n", " ", "\t", "x", "Step 3 (Action):\n", "Step 12 (SQL Generation): \t\n", "Step 2 (A (B)):\n"}
	texts = append(texts, randomTexts(pieces, 16, 5)...)
	for _, s := range texts {
		var want [][2]int
		for _, m := range stepHeadRe.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := stepHeads(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("stepHeads(%q) = %v; the regexp gives %v", s, got, want)
		}
	}
}

// searchPrompt is a prompt of the shape Alpha-SQL's later calls send: a
// Spider schema rendering, the question and steps quoted earlier answers
// in the layout of mctsql.StepsText with Alpha-SQL's head and gap
// ("Step N (Action):", the answer, a blank line; sim may not import
// runners/mctsql, so the layout is written here), some of them fenced SQL.
func searchPrompt(t testing.TB, steps int) string {
	var b strings.Builder
	b.WriteString("You are an SQL expert. 【Database Schema】\n")
	b.WriteString(goldenRender(t, "ddl_full.sql"))
	b.WriteString("\n【Question】\nHow many singers from France performed in a concert in 2014?\n\n【Previous reasoning steps】\n")
	for i := range steps {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "Step %d (Schema Selection):\nThe question needs table(s) singer, concert; step %d keeps the join on singer.singer_id = concert.singer_id.\n\n", i+1, i+1)
		case 1:
			fmt.Fprintf(&b, "Step %d (Identify Column Values):\nsinger.country = 'France', concert.year = 2014\n\n", i+1)
		default:
			fmt.Fprintf(&b, "Step %d (SQL Generation):\n```sql\nSELECT count(*) FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id\nWHERE T1.country = 'France'\n```\n\n", i+1)
		}
	}
	b.WriteString("【Next Step】\nStep " + fmt.Sprint(steps+1) + " (SQL Revision):\n")
	return b.String()
}

// BenchmarkNormalizeText normalizes a search prompt of six steps (about
// 5 KB): "runes" is the rune by rune version it replaced, in the same
// process, for the ratio.
func BenchmarkNormalizeText(b *testing.B) {
	benchAgainst(b, "bytes", func(s string) { normalizeText(s) }, "runes", func(s string) { normalizeTextRunes(s) })
}

// BenchmarkStepHeads finds the step heads of a search prompt of six steps:
// "regexp" is stepHeadRe, which stepHeads replaced, in the same process.
func BenchmarkStepHeads(b *testing.B) {
	benchAgainst(b, "scan", func(s string) { stepHeads(s) }, "regexp", func(s string) { stepHeadRe.FindAllStringIndex(s, -1) })
}

// benchAgainst runs fn and the version it replaced, old, on a search
// prompt of six steps, as the sub-benchmarks name and oldName.
func benchAgainst(b *testing.B, name string, fn func(string), oldName string, old func(string)) {
	text := searchPrompt(b, 6)
	for _, s := range []struct {
		name string
		fn   func(string)
	}{{name, fn}, {oldName, old}} {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				s.fn(text)
			}
		})
	}
}
