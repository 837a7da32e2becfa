package sim

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/runners/think"
)

// Draw keys. A request's draws are seeded by its messages, but a later
// prompt of a multi-step runner quotes the model's earlier answers as the
// model wrote them: as assistant turns of a conversation (ReAct), as the
// "Step N (Action):" blocks of a reasoning path (Alpha-SQL, IESR), or as
// the SQL a runner extracted from them (revision prompts, SteinerSQL's
// retries). The clean and the realistic style write the same answer in
// different forms (prose, fences, numbered drafts, JSON layout, SQL
// layout, reasoning blocks, escapes), so hashing the prompt as sent would
// give the same decision a different draw in each style. drawMessages
// therefore replaces every quoted answer by its payload, read the way the
// runners read it (canonicalAnswer), and Model.requestHash folds the white
// space inside the fenced blocks of the result (foldFences), where runners
// quote the SQL they extracted: the same decision gets the same draw in
// both styles. A prompt that quotes no answer and holds no fenced block
// (the baselines' prompts) hashes as sent.

// stepHeads returns the offsets (start, end) of the heads of the quoted
// earlier answers in a reasoning path: each line that reads "Step", a
// space, ASCII digits, a space, "(", an action without parentheses,
// "):", spaces or tabs, and ends there ("Step 2 (Schema Selection):"),
// its newline included; the answer runs to the next head or to the next
// line starting with a 【section】 mark. It is the regular expression
// `(?m)^Step \d+ \([^()\n]*\):[ \t]*\n`'s matches (a head is one whole
// line), found a line at a time without the regexp package's backtracker,
// which took a tenth of the simulator's time on search prompts.
func stepHeads(text string) [][2]int {
	var heads [][2]int
	for at := 0; at < len(text); {
		if end := stepHeadAt(text, at); end > 0 {
			heads = append(heads, [2]int{at, end})
			at = end
			continue
		}
		nl := strings.IndexByte(text[at:], '\n')
		if nl < 0 {
			break
		}
		at += nl + 1
	}
	return heads
}

// stepHeadAt returns the end of the step head that starts text[at:] (just
// past its newline), or 0 when the line at does not hold one.
func stepHeadAt(text string, at int) int {
	rest, ok := strings.CutPrefix(text[at:], "Step ")
	if !ok {
		return 0
	}
	digits := 0
	for digits < len(rest) && '0' <= rest[digits] && rest[digits] <= '9' {
		digits++
	}
	rest, ok = strings.CutPrefix(rest[digits:], " (")
	if digits == 0 || !ok {
		return 0
	}
	stop := strings.IndexAny(rest, "()\n")
	if stop < 0 {
		return 0
	}
	rest, ok = strings.CutPrefix(rest[stop:], "):")
	if !ok {
		return 0
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "\n") {
		return 0
	}
	return len(text) - len(rest) + 1
}

// drawMessages returns msgs with every quoted earlier answer replaced by
// its payload (canonicalAnswer): the content of each assistant message,
// and each "Step N (Action):" block of the other messages. The result is
// what the simulator reads a prompt from (ParsePrompt) and seeds its draws
// with (Model.requestHash); the runner's messages are left as they are.
func drawMessages(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if m.Role == "assistant" {
			out[i].Content = canonicalAnswer(m.Content)
			continue
		}
		out[i].Content = canonicalSteps(m.Content)
	}
	return out
}

// canonicalSteps replaces the text of every "Step N (Action):" block of
// text by its payload.
func canonicalSteps(text string) string {
	heads := stepHeads(text)
	if heads == nil {
		return text
	}
	var b strings.Builder
	at := 0
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		if k := strings.Index(text[h[1]:end], "\n【"); k >= 0 {
			end = h[1] + k + 1
		}
		b.WriteString(text[at:h[1]])
		b.WriteString(canonicalAnswer(text[h[1]:end]))
		b.WriteString("\n\n")
		at = end
	}
	b.WriteString(text[at:])
	return b.String()
}

// canonicalAnswer is the payload of a model's answer, read the way the
// runners read answers: its reasoning removed (think.Split), then the DSL
// calls when every call line parses (reactdsl.ParseCalls), else the SQL
// (sqltext.ExtractSQL, which also reads SQL in JSON and drops markdown
// escapes, comments, drafts before a final marker), else the JSON object
// (jsontext.Decode; keys sorted, numbers and numeric strings alike), else
// the text itself. Each is written one way, so the forms of the
// realistic style and the clean style's single form give the same key.
func canonicalAnswer(text string) string {
	ans, _ := think.Split(text)
	if calls, errs := reactdsl.ParseCalls(ans); len(calls) > 0 && len(errs) == 0 {
		var b strings.Builder
		b.WriteString("dsl:\n")
		for _, c := range calls {
			b.WriteString(c.String())
			b.WriteByte('\n')
		}
		return b.String()
	}
	if e := sqltext.ExtractSQL(ans); e.Found() {
		return "sql:\n" + foldSpace(e.SQL) + "\n"
	}
	var v any
	if err := jsontext.Decode(ans, &v); err == nil {
		if js, err := json.Marshal(foldNumbers(v)); err == nil {
			return "json:\n" + string(js) + "\n"
		}
	}
	return "text:\n" + foldSpace(ans) + "\n"
}

// foldNumbers writes every number of a decoded JSON value as a string, so
// that 3 and "3" (a model that quotes its numbers) read alike.
func foldNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case map[string]any:
		for k, e := range x {
			x[k] = foldNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = foldNumbers(e)
		}
	}
	return v
}

// foldSpace replaces every run of white space in s by one space and trims
// both ends: SQL laid out a clause a line and on one line read alike.
func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// foldFences folds the white space inside every fenced block of text (a
// line starting with ``` up to the next such line) to single spaces, and
// leaves the rest as it is: a query quoted a clause a line and on one line
// read alike, and a text without fences is unchanged.
func foldFences(text string) string {
	if !strings.Contains(text, "```") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	open := -1
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimLeft(l, " \t"), "```")
		switch {
		case open < 0:
			b.WriteString(l)
			if fence {
				open = i + 1
			}
		case fence:
			b.WriteString(foldSpace(strings.Join(lines[open:i], " ")))
			b.WriteByte('\n')
			b.WriteString(l)
			open = -1
		}
	}
	if open >= 0 {
		b.WriteString(strings.Join(lines[open:], ""))
	}
	return b.String()
}
