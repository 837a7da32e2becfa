package sqltext

import (
	"strings"

	"github.com/t2sbench/t2sbench/runners/think"
)

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

// prepare removes what is not the answer from a response: reasoning blocks
// (think.Split), chat-template tokens and what follows an end-of-turn
// token, wrapper tags such as <answer>; it turns [SQL] ... [/SQL] markers
// into <sql> tags and decodes the HTML entities of <, >, &, ' and ".
func prepare(s string) string {
	s, _ = think.Split(s)
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
