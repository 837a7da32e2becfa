package sqltext

import (
	"regexp"
	"slices"
	"strings"
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

// prepare removes what is not the answer from a response whose reasoning
// blocks ExtractWith already removed (think.Split): surrounding white
// space, chat-template tokens and what follows an end-of-turn token,
// wrapper tags such as <answer>; it turns the wrappers <<SQL>>, <</SQL>>,
// [SQL] and [/SQL] into <sql> tags and decodes the HTML entities of <, >,
// &, ' and ".
func prepare(s string) string {
	s = stripChatTokens(strings.TrimSpace(s))
	if strings.Contains(s, "SQL]") || strings.Contains(s, "sql]") || strings.Contains(s, "<<") {
		s = sqlWrappers.Replace(s)
	}
	if strings.Contains(s, "&") {
		s = htmlEntities.Replace(s)
	}
	return stripWrapperTags(s)
}

// sqlWrappers turns the SQL wrappers prompts ask for into <sql> tags.
var sqlWrappers = strings.NewReplacer("<<SQL>>", "<sql>", "<<sql>>", "<sql>", "<</SQL>>", "</sql>", "<</sql>>", "</sql>",
	"[SQL]", "<sql>", "[sql]", "<sql>", "[/SQL]", "</sql>", "[/sql]", "</sql>")

// htmlEntities decodes the entities of SQL's comparison operators that
// answers rendered through HTML carry (b &gt; 1).
var htmlEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#39;", "'", "&quot;", `"`)

// wrapperTags are the XML-style tags models put around a whole answer
// (<answer>...</answer> in the R1-style SQL models, <code> from HTML);
// stripWrapperTags replaces them by line breaks so that the SQL inside
// starts a line, and the sqlTagNames by <sql> tags.
var wrapperTags = []string{"answer", "final_answer", "final", "query", "solution", "output", "result", "code"}

// sqlTagNames are the tags other than <sql> that prompts ask the SQL to be
// put in (<sql_query>, <SQLQuery>, <final_sql>); they read as <sql> tags.
var sqlTagNames = []string{"sql_query", "sqlquery", "final_sql", "sql_answer", "sql_statement", "final_sql_query"}

func stripWrapperTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	lower := asciiLower(s)
	tagAt := func(j int, names []string) string {
		for _, t := range names {
			if strings.HasPrefix(lower[j:], t+">") {
				return t
			}
		}
		return ""
	}
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
		if t := tagAt(j, wrapperTags); t != "" {
			b.WriteString(s[last:i])
			b.WriteByte('\n')
			last = j + len(t) + 1
			i = last - 1
		} else if t := tagAt(j, sqlTagNames); t != "" {
			b.WriteString(s[last:j]) // up to and with "<" or "</"
			b.WriteString("sql>")
			last = j + len(t) + 1
			i = last - 1
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
// Text without an upper-case ASCII letter is returned as it is.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !isASCIIUpper(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		b.WriteByte(s[i] + 'a' - 'A') // s[i] is upper case
		j := i + 1
		for j < len(s) && !isASCIIUpper(s[j]) {
			j++
		}
		b.WriteString(s[i+1 : j])
		i = j
	}
	return b.String()
}

func isASCIIUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// roleRe finds the role markers of a transcript: a chat-template
// start-of-turn token followed by its role, or a line that starts with a
// role name and a colon ("User:", "### Assistant:", "**Human:**"), or with
// a few-shot prompt's labels ("Question:", "### Instruction:",
// "### Response:").
var roleRe = regexp.MustCompile(`(?im)(?:<\|im_start\|>[ \t]*(\w+)|<\|start_header_id\|>[ \t]*(\w+)[ \t]*<\|end_header_id\|>|<start_of_turn>[ \t]*(\w+)|(\[INST\])|(\[/INST\])|<\|(user|assistant|system)\|>|<｜(User|Assistant)｜>|^[ \t>#*]*(user|human|assistant|ai|bot|gpt|system|question|q|instruction|input|response)[ \t]*(?:\*\*)?[ \t]*:(?:\*\*)?)`)

// promptLabels are the few-shot labels that start a new example's
// question; they mark a user turn only after an answer (a completion that
// ran on into the next example), never before one (a model restating the
// question it answers).
var promptLabels = map[string]bool{"question": true, "q": true, "instruction": true, "input": true}

// userTokens are the chat-template spellings of a user turn's start.
var userTokens = []string{"<|im_start|>user", "<|start_header_id|>user", "<start_of_turn>user", "[INST]", "<|user|>", "<｜User｜>"}

// userLabels are the role names and few-shot labels of roleRe's line form
// that start a user turn.
var userLabels = []string{"user", "human", "question", "q", "instruction", "input"}

// maybeTranscript reports whether s could hold a user turn (a template
// token or a line that starts with a user label and a colon), sparing the
// cost of roleRe on most responses.
func maybeTranscript(s string) bool {
	for _, t := range userTokens {
		if strings.Contains(s, t) {
			return true
		}
	}
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " \t>#*")
		for _, w := range userLabels {
			if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) {
				if r := strings.TrimLeft(t[len(w):], " \t*"); strings.HasPrefix(r, ":") {
					return true
				}
			}
		}
	}
	return false
}

// assistantTurns splits a transcript into its assistant turns, in order
// (none when it holds only user and system turns), or returns nil when s
// is no transcript (it holds no user turn). The text before the first role
// marker is the assistant's own; a system turn is dropped with the user
// turns. A few-shot label ("Question:") that follows
// SQL ends the transcript: what follows is an example the model made up.
func assistantTurns(s string) []string {
	if !maybeTranscript(s) {
		return nil
	}
	ms := roleRe.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return nil
	}
	roles := make([]string, len(ms))
	firstLabel := -1
	for k, m := range ms {
		var role string
		for g := 1; 2*g+1 < len(m); g++ {
			if m[2*g] >= 0 {
				role = strings.ToLower(s[m[2*g]:m[2*g+1]])
				break
			}
		}
		switch {
		case role == "[inst]" || role == "human":
			role = "user"
		case role == "[/inst]" || role == "model" || role == "ai" || role == "bot" || role == "gpt" || role == "response":
			role = "assistant"
		case promptLabels[role]:
			if firstLabel < 0 {
				firstLabel = k
			}
			role = "label"
		}
		roles[k] = role
	}
	if firstLabel >= 0 {
		// A few-shot label after an answer starts an example the model
		// made up: the transcript ends there. Before any answer, the
		// labels are no turns.
		at := ms[firstLabel][0]
		if before := prepare(s[:at]); len(candidates(before, asciiLower(before))) > 0 {
			s, ms, roles = s[:at], ms[:firstLabel], roles[:firstLabel]
			if !slices.Contains(roles, "user") {
				return []string{s}
			}
		} else {
			var keep [][]int
			var kept []string
			for k, m := range ms {
				if roles[k] != "label" {
					keep, kept = append(keep, m), append(kept, roles[k])
				}
			}
			ms, roles = keep, kept
		}
	}
	if !slices.Contains(roles, "user") {
		return nil
	}
	turns := []string{} // a transcript without an assistant turn has no SQL
	if lead := s[:ms[0][0]]; strings.TrimSpace(lead) != "" {
		turns = append(turns, lead)
	}
	for k, m := range ms {
		if roles[k] != "assistant" {
			continue
		}
		end := len(s)
		if k+1 < len(ms) {
			end = ms[k+1][0]
		}
		turns = append(turns, s[m[1]:end])
	}
	return turns
}
