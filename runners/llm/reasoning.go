package llm

import "strings"

// Reasoning tags that reasoning models (DeepSeek-R1, Qwen3, QwQ and their
// distillations) wrap their thinking in when the server does not split it
// into a separate field.
var reasoningTags = [][2]string{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<reasoning>", "</reasoning>"},
}

// SplitReasoning separates the reasoning a model wrote inline from its
// answer. It removes every <think>...</think> block (and the <thinking> and
// <reasoning> variants; tags match case-insensitively) and returns the
// remaining text, trimmed, as the answer and the blocks' contents, joined by
// a blank line, as the reasoning.
//
// Three shapes real servers produce are handled besides closed blocks:
//   - an unclosed block (the answer was cut while the model was still
//     thinking): everything after the opening tag is reasoning, and the
//     answer is what came before it;
//   - a closing tag with no opening one (chat templates such as Qwen3's and
//     DeepSeek-R1's put the opening <think> into the prompt, so the
//     completion starts inside the block): everything before the first
//     closing tag is reasoning;
//   - several blocks, interleaved with answer text: all blocks are removed.
func SplitReasoning(text string) (answer, reasoning string) {
	lower := asciiLower(text)
	var ans, rsn []string
	rest, restLower := text, lower
	// An orphan closing tag before any opening tag: the opening tag was
	// in the prompt.
	if open, _, ci, ct := firstTag(restLower); ci >= 0 && (open < 0 || ci < open) {
		rsn = append(rsn, rest[:ci])
		cut := ci + len(ct)
		rest, restLower = rest[cut:], restLower[cut:]
	}
	for {
		open, closeTag, _, _ := firstTag(restLower)
		if open < 0 {
			ans = append(ans, rest)
			break
		}
		ans = append(ans, rest[:open])
		openLen := len(closeTag) - 1 // "</x>" is one byte longer than "<x>"
		body := rest[open+openLen:]
		bodyLower := restLower[open+openLen:]
		end := strings.Index(bodyLower, closeTag)
		if end < 0 { // unclosed: cut while thinking
			rsn = append(rsn, body)
			break
		}
		rsn = append(rsn, body[:end])
		rest, restLower = body[end+len(closeTag):], bodyLower[end+len(closeTag):]
	}
	var parts []string
	for _, r := range rsn {
		if r = strings.TrimSpace(r); r != "" {
			parts = append(parts, r)
		}
	}
	return strings.TrimSpace(strings.Join(ans, "")), strings.Join(parts, "\n\n")
}

// firstTag finds the earliest opening reasoning tag in lower (-1 if none)
// with the closing tag of its kind, and the earliest closing tag of any kind
// (-1 if none) with that tag in firstCloseTag.
func firstTag(lower string) (open int, closeTag string, firstClose int, firstCloseTag string) {
	open, firstClose = -1, -1
	for _, t := range reasoningTags {
		if i := strings.Index(lower, t[0]); i >= 0 && (open < 0 || i < open) {
			open, closeTag = i, t[1]
		}
		if i := strings.Index(lower, t[1]); i >= 0 && (firstClose < 0 || i < firstClose) {
			firstClose, firstCloseTag = i, t[1]
		}
	}
	return open, closeTag, firstClose, firstCloseTag
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
