package sqltext

import "strings"

// chatTokens are the special tokens of chat templates (ChatML/Qwen,
// Llama-3, Llama-2/Mistral, Phi-3, DeepSeek, Gemma, GPT-2 style) that leak
// into a completion when a server does not stop on them or does not strip
// them. Text after one of them is a new turn the model hallucinated; one
// before any answer text is dropped.
var chatTokens = []string{
	"<|im_end|>", "<|im_start|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|begin_of_text|>",
	"<|start_header_id|>", "<|end_header_id|>", "<|endoftext|>", "<|end|>", "<|assistant|>", "<|user|>",
	"<|EOT|>", "</s>", "<s>", "[INST]", "[/INST]", "<end_of_turn>", "<start_of_turn>",
	"<｜end▁of▁sentence｜>", "<｜begin▁of▁sentence｜>", "<｜Assistant｜>", "<｜User｜>",
}

// roleWords are the role names a start-of-turn token is followed by.
var roleWords = []string{"assistant", "model", "system", "user"}

// reasoningTags are the tags reasoning models wrap inline thinking in (as
// llm.SplitReasoning knows them; sqltext does not import llm).
var reasoningTags = [][2]string{{"<think>", "</think>"}, {"<thinking>", "</thinking>"}, {"<reasoning>", "</reasoning>"}}

// prepare removes what is not the answer from a response: reasoning blocks,
// chat-template tokens and what follows an end-of-turn token, wrapper tags
// such as <answer>; it turns [SQL] ... [/SQL] markers into <sql> tags and
// decodes the HTML entities of <, >, &, ' and ".
func prepare(s string) string {
	s = stripReasoning(s)
	s = stripChatTokens(s)
	if strings.Contains(s, "[SQL]") || strings.Contains(s, "[/SQL]") {
		s = strings.NewReplacer("[SQL]", "<sql>", "[/SQL]", "</sql>").Replace(s)
	}
	if strings.Contains(s, "&") {
		s = htmlEntities.Replace(s)
	}
	return stripWrapperTags(s)
}

// htmlEntities decodes the entities of SQL's comparison operators that
// answers rendered through HTML carry (b &gt; 1).
var htmlEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#39;", "'", "&quot;", `"`)

// wrapperTags are the XML-style tags models put around a whole answer
// (<answer>...</answer> in the R1-style SQL models, <code> from HTML);
// they are replaced by line breaks so that the SQL inside starts a line.
var wrapperTags = []string{"answer", "final_answer", "final", "query", "solution", "output", "result", "code"}

func stripWrapperTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	lower := asciiLower(s)
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		for _, t := range wrapperTags {
			if strings.HasPrefix(lower[j:], t+">") {
				b.WriteString(s[last:i])
				b.WriteByte('\n')
				last = j + len(t) + 1
				i = last - 1
				break
			}
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// stripChatTokens cuts s at the first chat-template token that follows
// answer text and drops those (with a role word after them) that precede it.
func stripChatTokens(s string) string {
	if !strings.ContainsAny(s, "<[") {
		return s
	}
	for {
		at, tok := -1, ""
		for _, t := range chatTokens {
			if i := strings.Index(s, t); i >= 0 && (at < 0 || i < at) {
				at, tok = i, t
			}
		}
		if at < 0 {
			return s
		}
		if strings.TrimSpace(s[:at]) != "" {
			return s[:at]
		}
		rest := s[at+len(tok):]
		trimmed := strings.TrimLeft(rest, " \t")
		for _, r := range roleWords {
			if len(trimmed) >= len(r) && strings.EqualFold(trimmed[:len(r)], r) && (len(trimmed) == len(r) || !isIdentStart(trimmed[len(r)])) {
				rest = trimmed[len(r):]
				break
			}
		}
		s = rest
	}
}

// stripReasoning removes <think>-style blocks as llm.SplitReasoning does: a
// closing tag with no opening one drops everything before it (the opening
// tag was in the prompt), an unclosed block everything after its opening
// tag, and closed blocks are removed wherever they are.
func stripReasoning(s string) string {
	if !strings.Contains(s, "</") && !strings.Contains(s, "<t") && !strings.Contains(s, "<r") && !strings.Contains(s, "<T") && !strings.Contains(s, "<R") {
		return s
	}
	lower := asciiLower(s)
	openAt, closeAt := -1, -1
	var closeTag, firstClose string
	for _, t := range reasoningTags {
		if i := strings.Index(lower, t[0]); i >= 0 && (openAt < 0 || i < openAt) {
			openAt, closeTag = i, t[1]
		}
		if i := strings.Index(lower, t[1]); i >= 0 && (closeAt < 0 || i < closeAt) {
			closeAt, firstClose = i, t[1]
		}
	}
	if closeAt >= 0 && (openAt < 0 || closeAt < openAt) {
		return stripReasoning(s[closeAt+len(firstClose):])
	}
	if openAt < 0 {
		return s
	}
	body := openAt + len(closeTag) - 1
	end := strings.Index(lower[body:], closeTag)
	if end < 0 {
		return s[:openAt]
	}
	return s[:openAt] + "\n" + stripReasoning(s[body+end+len(closeTag):])
}

// asciiLower lower-cases the ASCII letters of s only, so that byte offsets
// in the result are offsets in s (strings.ToLower may change the length of
// invalid UTF-8 and of some letters).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
