// Package think separates a reasoning model's thinking from its answer.
//
// Reasoning models (DeepSeek-R1, Qwen3, QwQ and their distillations) write
// their thinking inline, wrapped in <think>...</think> (or <thinking>,
// <reasoning>), when the server does not split it into a separate field.
// Everything that reads a model's answer (the LLM client and its cache, the
// SQL and JSON extractors) must not search that thinking: a reasoning model
// drafts queries and objects there before it settles on the final one.
//
// The package is a leaf: it imports only the standard library, so that
// parsers which must stay light (runners/sqltext, runners/jsontext) and the
// LLM client (runners/llm) share one definition of where the thinking ends.
package think

import (
	"strings"
	"unicode"
)

// tags are the opening and closing tags of inline reasoning.
var tags = [][2]string{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<reasoning>", "</reasoning>"},
}

// Split separates the reasoning a model wrote inline from its answer. It
// removes every <think>...</think> block (and the <thinking> and
// <reasoning> variants; tags match case-insensitively, and a block opened
// by one variant may be closed by another) and returns the remaining text,
// trimmed, as the answer and the blocks' contents, trimmed and joined by a
// blank line, as the reasoning. Where a removed block had no white space on
// either side, a line break takes its place, so that the words on its two
// sides (two clauses of a query, say) are not glued together.
//
// Three shapes real servers produce are handled besides closed blocks:
//   - an unclosed block (the answer was cut while the model was still
//     thinking): everything after the opening tag is reasoning, and the
//     answer is what came before it;
//   - a closing tag that closes no block (chat templates such as Qwen3's
//     and DeepSeek-R1's put the opening <think> into the prompt, so the
//     completion starts inside the block): everything before it is
//     reasoning, so the answer is what follows the last such tag;
//   - several blocks, interleaved with answer text: all blocks are removed.
func Split(text string) (answer, reasoning string) {
	if !strings.Contains(text, "<") {
		return strings.TrimSpace(text), ""
	}
	type segment struct {
		text   string
		answer bool
	}
	var segs []segment
	lower := asciiLower(text)
	pos := 0
	for {
		open, openLen := first(lower[pos:], 0)
		cl, clLen := first(lower[pos:], 1)
		if cl >= 0 && (open < 0 || cl < open) {
			// A closing tag that closes no block: all so far was
			// reasoning (the opening tag was in the prompt).
			for i := range segs {
				segs[i].answer = false
			}
			segs = append(segs, segment{text[pos : pos+cl], false})
			pos += cl + clLen
			continue
		}
		if open < 0 {
			segs = append(segs, segment{text[pos:], true})
			break
		}
		segs = append(segs, segment{text[pos : pos+open], true})
		body := pos + open + openLen
		end, endLen := first(lower[body:], 1)
		if end < 0 { // unclosed: cut while thinking
			segs = append(segs, segment{text[body:], false})
			break
		}
		segs = append(segs, segment{text[body : body+end], false})
		pos = body + end + endLen
	}
	var ans strings.Builder
	var rsn []string
	for _, s := range segs {
		if !s.answer {
			if r := strings.TrimSpace(s.text); r != "" {
				rsn = append(rsn, r)
			}
			continue
		}
		if a := ans.String(); a != "" && s.text != "" && !endsSpace(a) && !startsSpace(s.text) {
			ans.WriteByte('\n')
		}
		ans.WriteString(s.text)
	}
	return strings.TrimSpace(ans.String()), strings.Join(rsn, "\n\n")
}

func startsSpace(s string) bool { return strings.TrimLeftFunc(s, unicode.IsSpace) != s }
func endsSpace(s string) bool   { return strings.TrimRightFunc(s, unicode.IsSpace) != s }

// Has reports whether s holds an opening or closing reasoning tag, that is
// whether Split would find reasoning in it.
func Has(s string) bool {
	if !strings.Contains(s, "<") {
		return false
	}
	lower := asciiLower(s)
	for _, t := range tags {
		if strings.Contains(lower, t[0]) || strings.Contains(lower, t[1]) {
			return true
		}
	}
	return false
}

// first finds the earliest opening (kind 0) or closing (kind 1) reasoning
// tag of any variant in lower and returns its offset and length, or -1 and
// 0 when there is none.
func first(lower string, kind int) (at, n int) {
	at = -1
	for _, t := range tags {
		if i := strings.Index(lower, t[kind]); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(t[kind])
		}
	}
	return at, n
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower rewrites invalid UTF-8 and
// changes lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
