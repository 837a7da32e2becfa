package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/t2sbench/t2sbench/runners/llm"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/sqllex"
)

// Sim answer styles (Config.Style).
const (
	// StyleClean answers in exactly the shape each responder writes:
	// one line of prose and a ```sql block, a ```dsl block, a ```json
	// block. It is the default.
	StyleClean = "clean"
	// StyleRealistic renders every responder's answer the way real
	// instruction-tuned and reasoning models write (see renderStyled):
	// fences with any tag, prose around the answer, numbered drafts,
	// SQL inside JSON, leaked chat-template tokens, markdown escapes,
	// reasoning blocks holding a draft, answers cut at max_tokens.
	StyleRealistic = "realistic"
)

// Defaults of the realistic style.
const (
	// DefaultCutRate is the share of samples cut mid-way with
	// finish_reason "length": a small share, as with a max_tokens budget
	// sized for the task. A single-sample runner loses about p*cut_rate of
	// EX to cuts (0.6 points at p = 0.6), which keeps a realistic run within
	// 2 points of a clean one when every other rendering is parsed;
	// multi-call searches meet a cut in most questions.
	DefaultCutRate = 0.01
	// DefaultReasoningRate is the share of samples that carry a
	// reasoning block (a draft, then the final answer), as reasoning
	// models (DeepSeek-R1, Qwen3, QwQ) do for every sample.
	DefaultReasoningRate = 0.3
)

// simForm is one rendering of an answer and its share of samples.
type simForm struct {
	name   string
	weight float64
}

// Renderings of a SQL answer (llm.AnswerSQL), each a style real models write
// (fences, prose, drafts with a final answer, JSON, escapes), with their
// shares of samples; the shares sum to 1.
var simSQLForms = []simForm{
	{"fence", 0.30},          // ```TAG block, TAG drawn from simSQLTags
	{"fence_own_line", 0.05}, // the SQL starts on the fence's line: ```SELECT ...
	{"prose", 0.15},          // a lead-in, the fenced SQL, an explanation
	{"steps", 0.10},          // numbered steps, a draft query, then "Final SQL:" and the final one
	{"json", 0.05},           // {"sql": "..."}, raw or in a ```json block
	{"template_token", 0.05}, // a leaked chat-template token after the SQL
	{"escaped", 0.05},        // bare SQL with markdown escapes (\_ and \*)
	{"unclosed", 0.05},       // a fence never closed (cut at a stop sequence)
	{"stray_close", 0.05},    // bare SQL followed by a closing fence only
	{"comment", 0.05},        // a -- comment line inside the fence
	{"bare", 0.10},           // a lead-in, the bare SQL, a blank line, an explanation
}

// simSQLTags are the fence tags drawn uniformly ("" is an untagged fence).
var simSQLTags = []string{"sql", "SQL", "sqlite", "SQLite", "mysql", "postgresql", ""}

// simTemplateTokens are end-of-turn tokens servers leak when a chat
// template's stop tokens are misconfigured.
var simTemplateTokens = []string{"<|im_end|>", "</s>", "<|eot_id|>", "<|endoftext|>", "[/SQL]"}

// Renderings of a JSON answer (llm.AnswerJSON); the shares sum to 1.
var simJSONForms = []simForm{
	{"raw", 0.20},        // the JSON alone, as strict-mode servers return it
	{"fence", 0.30},      // the responder's prose and a ```json block
	{"prose", 0.25},      // prose, a ```json block, a trailing explanation
	{"bare_prose", 0.15}, // prose, the JSON unfenced, a trailing explanation
	{"untagged", 0.10},   // an untagged ``` block
}

// Renderings of ReAct DSL calls (llm.AnswerDSL), the forms runners/reactdsl's
// DSL.md says a parser must accept; the shares sum to 1.
var simDSLForms = []simForm{
	{"dsl", 0.35},       // ```dsl block (as the prompt asks)
	{"python", 0.20},    // ```python block
	{"untagged", 0.15},  // untagged ``` block
	{"bare", 0.15},      // call lines without a fence
	{"backticks", 0.15}, // a list of calls, each in inline backticks
}

// Independent flags of the realistic style and their rates.
const (
	simSemicolonRate = 0.3  // SQL ends with ";"
	simLayoutRate    = 0.3  // SQL laid out on several lines (a clause a line)
	simIndentRate    = 0.6  // JSON indented (else compact)
	simShuffleRate   = 0.5  // JSON object keys in a shuffled order
	simNumStrRate    = 0.3  // JSON numbers written as strings ("3")
	simNumberedRate  = 0.3  // DSL calls numbered "1. "
	simDSLSemiRate   = 0.25 // DSL calls end with ";"
	// Of the samples with reasoning: in the server's reasoning field, or
	// inline in the text as <think>...</think>, or inline with the
	// opening tag in the prompt (only "</think>" in the text); the rest.
	simReasoningFieldRate  = 0.5
	simReasoningClosedRate = 0.35
)

var (
	simLeadIns = []string{
		"Here is the SQL query:",
		"Here's the query that answers the question:",
		"To answer this, we need to query the relevant tables.",
		"Sure! The query is:",
		"The SQL is as follows:",
	}
	simExplanations = []string{
		"This returns exactly the rows the question asks for.",
		"It selects the requested columns and keeps only the rows that meet the question's conditions.",
		"The query reads the tables named above and applies the conditions from the question.",
		"Note: adjust the column names if your schema differs.",
	}
	simStepOne = []string{
		"Start from the tables the question names:",
		"First, a query over the main table:",
		"A first version of the query:",
	}
	simStepTwo = []string{
		"Checking it against the question, it misses a condition, so I fix it.",
		"That does not match every part of the question; the corrected query follows.",
		"Revising the columns and conditions gives the final version.",
	}
	simFinalMarkers = []string{"Final SQL:", "**Final SQL:**", "Final query:"}
	simComments     = []string{"-- rows the question asks for", "-- answer query", "-- filter by the question's conditions"}
	simJSONLeadIns  = []string{
		"Here is the JSON:",
		"Sure, here is the requested output:",
		"Based on the schema and the question, the answer is:",
	}
	simJSONExplanations = []string{
		"These entries follow the question's wording.",
		"Let me know if you need anything else.",
		"Each entry is taken from the schema and the question.",
	}
	simThinkOpenings = []string{
		"Okay, let me work out what the question asks.",
		"Let me think about which tables and conditions are needed.",
		"First, I need to understand the question and the schema.",
	}
	simDraftIntros = []string{"A first attempt:", "Maybe something like this:", "Draft:"}
	simDoubts      = []string{
		"Wait, that does not match every condition in the question. Let me check again and fix it.",
		"Hmm, that misses part of the question; the corrected version follows.",
		"No, that is not quite right; let me revise it.",
	}
)

// styled is one sample as the realistic style renders it, after the
// client-side split of inline reasoning.
type styled struct {
	answer    string
	reasoning string
	finish    string
	// emitted is the number of characters the model produced (reasoning,
	// tags and answer) before the split, for token accounting.
	emitted int
	// forms names the renderings drawn ("sql/fence", "tag/SQLite",
	// "reasoning/inline", "cut", ...), for tests and traces.
	forms []string
	// draft is the draft answer inside the reasoning ("" when none).
	draft string
}

// styleOpts are the settings the realistic style draws with.
type styleOpts struct {
	cutRate       float64
	reasoningRate float64
	// maxChars cuts the emitted text at the request's max_tokens (0: no
	// limit).
	maxChars int
}

// renderStyled renders a responder's clean answer of the given kind in a
// real model's style, drawing everything from rng. schema (may be nil)
// lets SQL drafts be realistic corruptions of the final query.
//
// Every rendering but a cut one still holds the clean answer for a parser
// of the styles real models produce: the final SQL
// wins over any draft, JSON decodes to the same values up to key order and
// numbers written as strings, DSL calls are the same calls.
func renderStyled(kind llm.AnswerKind, clean string, schema *datasets.Schema, o styleOpts, rng *rand.Rand) styled {
	var st styled
	text, draft := clean, ""
	switch kind {
	case llm.AnswerSQL:
		text, draft = renderSQL(clean, schema, rng, &st)
	case llm.AnswerJSON:
		text, draft = renderJSON(clean, rng, &st)
	case llm.AnswerDSL:
		text, draft = renderDSL(clean, rng, &st)
	default:
		st.forms = append(st.forms, "text/plain")
	}
	if draft == "" {
		draft = textDraft(text)
	}
	field, inline := "", false
	if rng.Float64() < o.reasoningRate {
		r := pickString(rng, simThinkOpenings) + "\n" + pickString(rng, simDraftIntros) + "\n" + draft + "\n" + pickString(rng, simDoubts)
		st.draft = draft
		switch x := rng.Float64(); {
		case x < simReasoningFieldRate:
			field = r
			st.forms = append(st.forms, "reasoning/field")
		case x < simReasoningFieldRate+simReasoningClosedRate:
			text = "<think>\n" + r + "\n</think>\n\n" + text
			inline = true
			st.forms = append(st.forms, "reasoning/inline")
		default:
			text = r + "\n</think>\n\n" + text
			inline = true
			st.forms = append(st.forms, "reasoning/orphan_close")
		}
	}
	st.finish = llm.FinishStop
	total := len(field) + len(text)
	cut := total
	if rng.Float64() < o.cutRate {
		cut = int(float64(total) * (0.2 + 0.7*rng.Float64()))
		st.forms = append(st.forms, "cut")
	}
	if o.maxChars > 0 && o.maxChars < cut {
		cut = o.maxChars
		st.forms = append(st.forms, "cut/max_tokens")
	}
	if cut < total {
		st.finish = llm.FinishLength
		if cut <= len(field) {
			field, text = field[:runeStart(field, cut)], ""
		} else {
			text = text[:runeStart(text, cut-len(field))]
		}
	}
	st.emitted = len(field) + len(text)
	if inline {
		st.answer, st.reasoning = llm.SplitReasoning(text)
	} else {
		st.answer, st.reasoning = text, field
	}
	return st
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func pickString(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

// pickForm draws a form by weight.
func pickForm(rng *rand.Rand, forms []simForm) string {
	x := rng.Float64()
	for _, f := range forms {
		if x < f.weight {
			return f.name
		}
		x -= f.weight
	}
	return forms[len(forms)-1].name
}

// lastFence splits text around its last ```tag block: the text before the
// opening fence, the block's body, the text after the closing fence.
func lastFence(text, tag string) (pre, body, post string, ok bool) {
	open := "```" + tag + "\n"
	i := strings.LastIndex(text, open)
	if i < 0 {
		return "", "", "", false
	}
	start := i + len(open)
	j := strings.Index(text[start:], "\n```")
	if j < 0 {
		return "", "", "", false
	}
	return text[:i], text[start : start+j], text[start+j+len("\n```"):], true
}

// renderSQL renders the last ```sql block of a clean answer in a drawn
// style; it returns the text and the draft for a reasoning block.
func renderSQL(clean string, schema *datasets.Schema, rng *rand.Rand, st *styled) (string, string) {
	pre, sql, post, ok := lastFence(clean, "sql")
	if !ok {
		st.forms = append(st.forms, "sql/unchanged")
		return clean, ""
	}
	form := pickForm(rng, simSQLForms)
	tag := pickString(rng, simSQLTags)
	s := sql
	if rng.Float64() < simLayoutRate {
		s = layoutSQL(s)
		st.forms = append(st.forms, "sql/layout")
	}
	sq := s
	if rng.Float64() < simSemicolonRate {
		sq += ";"
	}
	draftSQL, _ := Corrupt(sql, schema, rng)
	draft := "```sql\n" + draftSQL + "\n```"
	if form == "unclosed" && strings.TrimSpace(post) != "" {
		form = "fence" // an unclosed fence ends the text
	}
	st.forms = append(st.forms, "sql/"+form)
	fence := func(body string) string {
		st.forms = append(st.forms, "tag/"+tag)
		return "```" + tag + "\n" + body + "\n```"
	}
	var b string
	switch form {
	case "fence":
		b = fence(sq)
	case "fence_own_line":
		if !strings.Contains(sq, "\n") && rng.IntN(2) == 0 {
			b = "```" + sq + "```"
			st.forms = append(st.forms, "variant/one_line")
		} else {
			b = "```" + sq + "\n```"
			st.forms = append(st.forms, "variant/closed_below")
		}
	case "prose":
		b = pickString(rng, simLeadIns) + "\n\n" + fence(sq) + "\n\n" + pickString(rng, simExplanations)
	case "steps":
		b = "1. " + pickString(rng, simStepOne) + "\n\n```" + tag + "\n" + draftSQL + "\n```\n\n2. " +
			pickString(rng, simStepTwo) + "\n\n" + pickString(rng, simFinalMarkers) + "\n" + fence(sq)
	case "json":
		obj := `{"sql": ` + jsonString(s) + `}`
		keys := rng.IntN(3)
		st.forms = append(st.forms, []string{"variant/sql_only", "variant/reasoning_then_sql", "variant/sql_then_explanation"}[keys])
		switch keys {
		case 1:
			obj = `{"reasoning": ` + jsonString(pickString(rng, simExplanations)) + `, "sql": ` + jsonString(s) + `}`
		case 2:
			obj = "{\n  \"sql\": " + jsonString(s) + ",\n  \"explanation\": " + jsonString(pickString(rng, simExplanations)) + "\n}"
		}
		if rng.IntN(2) == 0 {
			b = "```json\n" + obj + "\n```"
			st.forms = append(st.forms, "variant/json_fenced")
		} else {
			b = obj
			st.forms = append(st.forms, "variant/json_raw")
		}
	case "template_token":
		tok := pickString(rng, simTemplateTokens)
		st.forms = append(st.forms, "token/"+tok)
		if rng.IntN(2) == 0 {
			b = fence(sq) + "\n" + tok
			st.forms = append(st.forms, "variant/after_fence")
		} else {
			b = sq + tok
			st.forms = append(st.forms, "variant/after_bare_sql")
		}
	case "escaped":
		labels := []string{"SQL: ", "**SQL:** ", ""}
		label := rng.IntN(len(labels))
		st.forms = append(st.forms, []string{"variant/label_sql", "variant/label_bold_sql", "variant/no_label"}[label])
		b = pickString(rng, simLeadIns) + "\n\n" + labels[label] + markdownEscape(sq) + "\n\n" + pickString(rng, simExplanations)
	case "unclosed":
		b = "```" + tag + "\n" + sq + "\n"
		st.forms = append(st.forms, "tag/"+tag)
	case "stray_close":
		b = sq + "\n```"
	case "comment":
		b = fence(pickString(rng, simComments) + "\n" + sq)
	case "bare":
		b = pickString(rng, simLeadIns) + "\n" + sq + "\n\n" + pickString(rng, simExplanations)
	}
	return pre + b + post, draft
}

// layoutSQL puts each main clause of sql on its own line, as models lay
// out longer queries; text inside quotes is never touched.
func layoutSQL(sql string) string {
	toks := tokenize(sql)
	for i := 1; i < len(toks); i++ {
		if toks[i-1].kind != tkSpace || toks[i].kind != tkWord {
			continue
		}
		switch strings.ToUpper(toks[i].text) {
		case "FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT":
			toks[i-1] = token{tkSpace, "\n"}
		}
	}
	return joinTokens(toks)
}

// markdownEscape escapes "_" in words and "*" outside quotes, as a model
// writing SQL into markdown prose does ("singer\_id", "count(\*)").
func markdownEscape(sql string) string {
	var b strings.Builder
	for _, t := range tokenize(sql) {
		switch t.kind {
		case tkWord:
			b.WriteString(strings.ReplaceAll(t.text, "_", `\_`))
		case tkPunct:
			b.WriteString(strings.ReplaceAll(t.text, "*", `\*`))
		default:
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// jsonString encodes s as a JSON string without HTML escapes, as models
// write it.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// textDraft is the draft of a free-text answer: its first half.
func textDraft(text string) string {
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) > 1 {
		return strings.Join(lines[:(len(lines)+1)/2], "\n")
	}
	t := strings.TrimSpace(text)
	if len(t) < 2 {
		return "(no answer yet)"
	}
	return t[:runeStart(t, len(t)/2)] + "..."
}

// jnode is a JSON value that keeps its object keys in order.
type jnode struct {
	kind byte // '{' object, '[' array, 's' string, 'n' number, 'l' literal
	keys []string
	kids []*jnode
	text string // string value, number or literal text
}

func parseJNode(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &jnode{kind: byte(v)}
		if v != '{' && v != '[' {
			return nil, fmt.Errorf("unexpected %q", v)
		}
		for dec.More() {
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				ks, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", k)
				}
				n.keys = append(n.keys, ks)
			}
			kid, err := parseJNode(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &jnode{kind: 's', text: v}, nil
	case json.Number:
		return &jnode{kind: 'n', text: v.String()}, nil
	case bool:
		return &jnode{kind: 'l', text: fmt.Sprint(v)}, nil
	case nil:
		return &jnode{kind: 'l', text: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// write renders n, indented by two spaces per level when indent is set.
func (n *jnode) write(b *strings.Builder, indent bool, depth int) {
	nl := func(d int) {
		if indent {
			b.WriteString("\n" + strings.Repeat("  ", d))
		}
	}
	switch n.kind {
	case '{', '[':
		b.WriteByte(n.kind)
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
				if !indent {
					b.WriteByte(' ')
				}
			}
			nl(depth + 1)
			if n.kind == '{' {
				b.WriteString(jsonString(n.keys[i]) + ": ")
			}
			k.write(b, indent, depth+1)
		}
		if len(n.kids) > 0 {
			nl(depth)
		}
		if n.kind == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	case 's':
		b.WriteString(jsonString(n.text))
	default:
		b.WriteString(n.text)
	}
}

func (n *jnode) String(indent bool) string {
	var b strings.Builder
	n.write(&b, indent, 0)
	return b.String()
}

// numbersToStrings writes every number as a string ("3"), as models do
// when a schema does not pin the type down.
func (n *jnode) numbersToStrings() {
	if n.kind == 'n' {
		n.kind = 's'
	}
	for _, k := range n.kids {
		k.numbersToStrings()
	}
}

// shuffleKeys puts the keys of every object in a random order.
func (n *jnode) shuffleKeys(rng *rand.Rand) {
	if n.kind == '{' {
		rng.Shuffle(len(n.keys), func(i, j int) {
			n.keys[i], n.keys[j] = n.keys[j], n.keys[i]
			n.kids[i], n.kids[j] = n.kids[j], n.kids[i]
		})
	}
	for _, k := range n.kids {
		k.shuffleKeys(rng)
	}
}

// draftOf returns a copy of n whose first non-empty array lost its last
// element (a draft that missed an item), or nil when n has no array.
func (n *jnode) draftOf() *jnode {
	c := *n
	c.kids = append([]*jnode(nil), n.kids...)
	if n.kind == '[' && len(n.kids) > 0 {
		c.kids = c.kids[:len(c.kids)-1]
		return &c
	}
	for i, k := range n.kids {
		if d := k.draftOf(); d != nil {
			c.kids[i] = d
			return &c
		}
	}
	return nil
}

// findJSON locates the JSON object of a clean answer: the last ```json
// block, else the first {...} value.
func findJSON(clean string) (pre string, n *jnode, post string, ok bool) {
	parse := func(s string) (*jnode, int, bool) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		n, err := parseJNode(dec)
		if err != nil || n.kind != '{' {
			return nil, 0, false
		}
		return n, int(dec.InputOffset()), true
	}
	if pre, body, post, ok := lastFence(clean, "json"); ok {
		if n, end, ok := parse(body); ok && strings.TrimSpace(body[end:]) == "" {
			return pre, n, post, true
		}
	}
	i := strings.IndexByte(clean, '{')
	if i < 0 {
		return "", nil, "", false
	}
	n, end, ok := parse(clean[i:])
	if !ok {
		return "", nil, "", false
	}
	return clean[:i], n, clean[i+end:], true
}

// renderJSON renders the JSON object of a clean answer in a drawn style.
func renderJSON(clean string, rng *rand.Rand, st *styled) (string, string) {
	pre, n, post, ok := findJSON(clean)
	if !ok {
		st.forms = append(st.forms, "json/unchanged")
		return clean, ""
	}
	draft := "{}"
	if d := n.draftOf(); d != nil {
		draft = d.String(false)
	}
	if draft == n.String(false) {
		draft = `{"draft": true}`
	}
	form := pickForm(rng, simJSONForms)
	st.forms = append(st.forms, "json/"+form)
	indent := rng.Float64() < simIndentRate
	if rng.Float64() < simShuffleRate {
		n.shuffleKeys(rng)
		st.forms = append(st.forms, "json/shuffled")
	}
	if rng.Float64() < simNumStrRate {
		n.numbersToStrings()
		st.forms = append(st.forms, "json/numbers_as_strings")
	}
	j := n.String(indent)
	lead := strings.TrimSpace(pre)
	if lead == "" {
		lead = pickString(rng, simJSONLeadIns)
	}
	var out string
	switch form {
	case "raw":
		out = j
	case "fence":
		out = pre + "```json\n" + j + "\n```" + post
	case "prose":
		out = lead + "\n\n```json\n" + j + "\n```\n\n" + pickString(rng, simJSONExplanations)
	case "bare_prose":
		out = lead + "\n" + j + "\n\n" + pickString(rng, simJSONExplanations)
	case "untagged":
		out = pre + "```\n" + j + "\n```" + post
	}
	return out, draft
}

// renderDSL renders the last ```dsl block of a clean answer in a drawn
// style.
func renderDSL(clean string, rng *rand.Rand, st *styled) (string, string) {
	pre, body, post, ok := lastFence(clean, "dsl")
	if !ok {
		st.forms = append(st.forms, "dsl/unchanged")
		return clean, ""
	}
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	perLine := true // every line is one whole call: lines may be decorated
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.Contains(l, "`") || !balanced(l) {
			perLine = false
		}
	}
	draft := dslDraft(lines)
	form := pickForm(rng, simDSLForms)
	if !perLine && (form == "bare" || form == "backticks") {
		form = "dsl"
	}
	st.forms = append(st.forms, "dsl/"+form)
	numbered := perLine && form != "backticks" && rng.Float64() < simNumberedRate
	semi := perLine && rng.Float64() < simDSLSemiRate
	if numbered {
		st.forms = append(st.forms, "dsl/numbered")
	}
	if semi {
		st.forms = append(st.forms, "dsl/semicolon")
	}
	bullet := rng.IntN(2) == 0
	out := make([]string, len(lines))
	for i, l := range lines {
		if semi {
			l += ";"
		}
		switch {
		case form == "backticks" && bullet:
			l = "- `" + l + "`"
		case form == "backticks":
			l = fmt.Sprintf("%d. `%s`", i+1, l)
		case numbered:
			l = fmt.Sprintf("%d. %s", i+1, l)
		}
		out[i] = l
	}
	calls := strings.Join(out, "\n")
	var b string
	switch form {
	case "dsl":
		b = "```dsl\n" + calls + "\n```"
	case "python":
		b = "```python\n" + calls + "\n```"
	case "untagged":
		b = "```\n" + calls + "\n```"
	default: // bare, backticks
		b = calls
	}
	return pre + b + post, "```dsl\n" + draft + "\n```"
}

// dslDraft is a draft of DSL calls: the first call, then an answer of its
// relation (the premature answer(r1) a reasoning model writes while it
// thinks).
func dslDraft(lines []string) string {
	first := strings.TrimSpace(lines[0])
	target := "r1"
	if i := strings.Index(first, "="); i > 0 && isIdentifier(strings.TrimSpace(first[:i])) {
		target = strings.TrimSpace(first[:i])
	}
	d := first + "\nanswer(" + target + ")"
	if d == strings.Join(lines, "\n") {
		d = "answer(" + target + "_draft)"
	}
	return d
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// lineLex are the sqllex options balanced reads a line with: '...' and
// "..." with backslash escapes and doubled quotes, an unterminated one an
// error, no comments ('#' and "--" are punctuation). A backquote would
// open a quote: the lines balanced is asked about hold none.
var lineLex = sqllex.Options{MySQL: true, NoComments: true, Strict: true}

// balanced reports whether brackets outside quotes close on line l: its
// quotes are closed and it holds as many '(' and '[' as ')' and ']'.
func balanced(l string) bool {
	toks, err := sqllex.Lex(l, lineLex)
	if err != nil {
		return false
	}
	depth := 0
	for _, t := range toks {
		switch {
		case t.Kind != sqllex.Punct:
		case t.Text == "(" || t.Text == "[":
			depth++
		case t.Text == ")" || t.Text == "]":
			depth--
		}
	}
	return depth == 0
}
