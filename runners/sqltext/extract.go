package sqltext

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/runners/think"
	"github.com/t2sbench/t2sbench/sqllex"
)

// NoSQL is the note of an extraction that found no SQL in a model's
// response. It is an outcome of its own, never an empty prediction.
const NoSQL = "no SQL in response"

// Style names where in a response the extracted SQL was found.
type Style string

// Extraction styles.
const (
	// StyleNone: no SQL was found (Extraction.Note is NoSQL).
	StyleNone Style = "none"
	// StyleFence: a closed ``` fence, with any language tag or none,
	// including a fence opened on the SQL's own line (```SELECT ...```).
	StyleFence Style = "fence"
	// StyleUnclosedFence: a fence that was never closed (the answer was
	// cut at a stop sequence or at max_tokens).
	StyleUnclosedFence Style = "fence-unclosed"
	// StyleTag: <sql>...</sql> or [SQL]...[/SQL] tags.
	StyleTag Style = "tag"
	// StyleJSON: a string field ("sql", "query", "final_sql", ...) of a
	// JSON object, escapes decoded.
	StyleJSON Style = "json"
	// StyleBare: an unfenced statement in running text, cut at its end.
	StyleBare Style = "bare"
	// StyleContinuation: the response continues a prompt that ended in
	// the start of a statement (Options.Continues).
	StyleContinuation Style = "continuation"
)

// Extraction is the outcome of ExtractSQL.
type Extraction struct {
	// SQL is the extracted statement, trimmed, without trailing
	// semicolons, SQL comments or markdown escapes; empty when none was
	// found.
	SQL string `json:"sql"`
	// Style is where the SQL was found; StyleNone when it was not.
	Style Style `json:"style"`
	// Final reports that an explicit final-answer marker ("Final SQL:",
	// "**Final Query**", ...) chose the SQL among several candidates.
	Final bool `json:"final,omitempty"`
	// Candidates counts the candidate queries the response held.
	Candidates int `json:"candidates,omitempty"`
	// Reason says which rule chose the SQL among the candidates (see
	// Reason); ReasonNone when no SQL was found.
	Reason Reason `json:"reason"`
}

// Reason names the rule by which ExtractWith chose its answer. The rules
// are tried in the order the constants are listed, after the response was
// narrowed to the last assistant turn of a transcript.
type Reason string

// Extraction reasons.
const (
	// ReasonNone: no SQL was found.
	ReasonNone Reason = "none"
	// ReasonContinuation: the response continued the statement the prompt
	// ended with (Options.Continues).
	ReasonContinuation Reason = "continuation"
	// ReasonSingle: the response (or its last assistant turn) held one
	// candidate.
	ReasonSingle Reason = "single"
	// ReasonFinalMarker: the first candidate at or after the last
	// explicit final-answer marker ("Final SQL:", "Final answer:",
	// "**Final Query**", ...).
	ReasonFinalMarker Reason = "final_marker"
	// ReasonLastCorrection: the last complete candidate, introduced by a
	// correction cue ("Wait", "Corrected query:", "Actually", "Oops", ...)
	// after an earlier candidate: the later query replaces the earlier.
	ReasonLastCorrection Reason = "last_correction"
	// ReasonFirstOfAlternatives: the first of a chain of candidates each
	// introduced by an alternative cue ("Alternatively", "Another way",
	// "You can also", "If you want ... you can use"): the later queries
	// are options beside the answer, not replacements of it.
	ReasonFirstOfAlternatives Reason = "first_of_alternatives"
	// ReasonLastComplete: several candidates and no cue: the last
	// complete one among the fenced, tagged and JSON candidates, else
	// among the statements at line starts, else mid-sentence.
	ReasonLastComplete Reason = "last_complete"
	// ReasonLastIncomplete: several candidates, none complete: the last.
	ReasonLastIncomplete Reason = "last_incomplete"
	// ReasonLastAssistantTurn: the response was a transcript of several
	// turns, and the SQL is the only candidate, or the last complete one,
	// of its last assistant turn that holds SQL (a cue or marker inside
	// that turn gives its own reason instead).
	ReasonLastAssistantTurn Reason = "last_assistant_turn"
)

// Reasons lists the extraction reasons in the order of their rules.
var Reasons = []Reason{ReasonContinuation, ReasonFinalMarker, ReasonLastCorrection, ReasonFirstOfAlternatives,
	ReasonLastComplete, ReasonLastIncomplete, ReasonLastAssistantTurn, ReasonSingle, ReasonNone}

// Found reports whether SQL was found.
func (e Extraction) Found() bool { return e.SQL != "" }

// ReasonFor is the reason to record (Result.Extraction) for an answer
// whose SQL, read from e, is sql: ReasonNone when sql is empty (no answer,
// or an extraction the caller did not take), else e.Reason.
func (e Extraction) ReasonFor(sql string) Reason {
	if sql == "" {
		return ReasonNone
	}
	return e.Reason
}

// Note is NoSQL when no SQL was found, else empty.
func (e Extraction) Note() string {
	if e.Found() {
		return ""
	}
	return NoSQL
}

// Options configures ExtractWith.
type Options struct {
	// Continues is the start of a statement the prompt ended with (for
	// example "SELECT"), for models that continue the prompt rather than
	// answer it: a response that does not itself open a fence, a tag, a
	// JSON object, markdown bold, a label ("SQL:") or a statement
	// (StartsStatement) is read as the rest of that statement, when the two
	// together read as SQL.
	Continues string
}

// ExtractSQL returns the SQL statement in a model's response, the style it
// was written in, or an explicit no-SQL outcome. See ExtractWith.
func ExtractSQL(out string) Extraction { return ExtractWith(out, Options{}) }

// ExtractWith returns the SQL statement in a model's response.
//
// The response is first cleaned: <think>-style reasoning blocks are removed
// (callers should pass the answer only, as llm.SplitReasoning gives it; a
// block left in is never searched). A response that is a transcript of
// several turns (it holds a user turn: "User:" or "Human:" lines,
// <|im_start|>user, [INST], <|start_header_id|>user, <start_of_turn>user,
// ...) is narrowed to its last assistant turn that holds SQL; the text
// before the first role marker is the assistant's. A few-shot label
// ("Question:", "Q:", "### Instruction:") after SQL starts an example the
// model made up, and the response ends there; before any SQL (a restated
// question) it is no turn. The text is then cut at a leaked end-of-turn
// chat-template token (<|im_end|>, <|eot_id|>, </s>, [/INST], <|end|>,
// <｜end▁of▁sentence｜>, ...), start-of-turn tokens and wrapper tags
// (<answer>, <code>) are dropped, the wrappers <<SQL>>, [SQL] ... [/SQL],
// <sql_query>, <SQLQuery> and <final_sql> read as <sql> tags, and HTML
// entities (&gt;) decoded. With Options.Continues, a response that
// continues the prompt's statement is read with it (continuation).
//
// Candidates are then collected: ``` fences with any language tag (an
// untagged or non-SQL tag needs content that starts like SQL), fences
// opened on the SQL's own line, an unclosed last fence, <sql> tags (and the
// wrappers above), JSON objects with an "sql"-like string field, and
// statements in running text (a SELECT or WITH at the start of a line,
// after a "SQL:" or "Final SQL query:" style label or inline backtick, or
// mid-sentence when it has a FROM; after an SQL label also a capitalised
// "Select" that reads from a table without prose words), which end at a
// semicolon, a fence, a blank line or the first line that does not
// continue the statement (prose). Prose that merely contains "select" or
// "with" is not SQL.
//
// One candidate is the answer (single). Among several, these rules choose,
// in order, and Extraction.Reason names the rule that chose:
//
//  1. final_marker: the first candidate at or after the last explicit final
//     marker ("Final SQL:", "Final answer:", "**Final Query**", ...).
//  2. Otherwise the last complete candidate (balanced quotes and
//     parentheses, not ending on a dangling keyword) among the fenced,
//     tagged and JSON ones, else among the statements at line starts, else
//     mid-sentence; the last candidate when none is complete
//     (last_incomplete).
//  3. The text between that candidate and the one before it is then read
//     for cue words; the first cue in it counts. A correction cue ("Wait",
//     "Corrected query:", "Actually", "Oops", "On second thought", "Let me
//     fix", "The correct query") keeps the later candidate
//     (last_correction). An alternative cue ("Alternatively", "Another
//     way", "You can also", "If you want ... you can use", "Or
//     equivalently", "Option 2") moves the answer back to the earlier
//     candidate when that one is complete and fenced, tagged, JSON or reads
//     from a table (a mention such as "`SELECT name` picks the column" is
//     no answer), and again while the text before that one is an
//     alternative cue (first_of_alternatives). No cue leaves the choice of
//     rule 2 (last_complete). The same cues in the comments between the
//     statements of one closed fence or tag ("-- Alternatively:") choose
//     among them.
//
// In a transcript, single and last_complete read last_assistant_turn.
//
// The chosen SQL has its comments and markdown escapes (\_, \*, \#)
// outside string literals removed (a backslash inside a literal may be
// real and is kept, in a fence and out), stray backticks and trailing
// semicolons stripped.
func ExtractWith(out string, opt Options) Extraction {
	text, _ := think.Split(out)
	turns := assistantTurns(text)
	if turns == nil {
		return extractText(text, opt)
	}
	for i := len(turns) - 1; i >= 0; i-- {
		e := extractText(turns[i], opt)
		if !e.Found() {
			continue
		}
		switch e.Reason {
		case ReasonSingle, ReasonLastComplete:
			e.Reason = ReasonLastAssistantTurn
		}
		return e
	}
	return Extraction{Style: StyleNone, Reason: ReasonNone}
}

// extractText is ExtractWith on one turn of a response.
func extractText(out string, opt Options) Extraction {
	text := prepare(out)
	if opt.Continues != "" {
		if e, ok := continuation(text, opt.Continues); ok {
			return e
		}
	}
	lower := asciiLower(text)
	cands := candidates(text, lower)
	if len(cands) == 0 {
		return Extraction{Style: StyleNone, Reason: ReasonNone}
	}
	c, why := choose(text, lower, cands)
	return Extraction{SQL: c.sql, Style: c.style, Final: why == ReasonFinalMarker, Candidates: len(cands), Reason: why}
}

// candidate is one query found in the response, at text[start:end].
type candidate struct {
	start, end int
	sql        string
	style      Style
	delimited  bool // fence, tag or JSON
	lineStart  bool // bare: began a line (or followed a label)
	// why is set when cue words inside a block chose the block's SQL
	// among its statements.
	why Reason
}

// finalRe finds an explicit final-answer marker at the start of a line,
// after markdown decoration, a list number or a step label: "Final SQL:",
// "**Final Query**", "### Final SQL Query", "The final answer is", ...
// "final" in the middle of a sentence ("before the final answer, let me
// check") is no marker.
var finalRe = regexp.MustCompile(`(?im)^[ \t>#*_\-]*(?:\d+[.)][ \t]*)?(?:(?:step[ \t]*\d+[ \t]*[:.)-][ \t]*)?(?:\*\*|__)?)?(?:(?:the|my|our|so,?[ \t]+the|thus,?[ \t]+the|therefore,?[ \t]+the|here[ \t]+is[ \t]+the|here's[ \t]+the)[ \t]+)?final[ \t]+(?:(?:sql|sqlite|mysql)[ \t]+)?(?:sql|query|answer|solution|statement)\b`)

// candidates returns the candidate queries of text, whose asciiLower is
// lower.
func candidates(text, lower string) []candidate {
	var cs []candidate
	for _, f := range scanFences(text) {
		body := text[f.body:f.bodyEnd]
		sql, why := blockSQL(body, f.closed, sqlTag(f.tag))
		if sql == "" {
			continue
		}
		st := StyleFence
		if !f.closed {
			st = StyleUnclosedFence
		}
		cs = append(cs, candidate{start: f.open, end: f.end, sql: sql, style: st, delimited: true, why: why})
	}
	for _, tg := range scanTags(lower) {
		if overlaps(cs, tg.body) {
			continue
		}
		if sql, why := blockSQL(text[tg.body:tg.bodyEnd], tg.closed, true); sql != "" {
			cs = append(cs, candidate{start: tg.open, end: tg.end, sql: sql, style: StyleTag, delimited: true, why: why})
		}
	}
	for _, o := range jsonSpans(text) {
		if overlaps(cs, o[0]) {
			continue
		}
		if sql := jsonSQL(text[o[0]:o[1]]); sql != "" {
			cs = append(cs, candidate{start: o[0], end: o[1], sql: sql, style: StyleJSON, delimited: true})
		}
	}
	for _, i := range lowerKeywordStarts(lower) {
		if overlaps(cs, i) {
			continue
		}
		ls := lineStart(text, i)
		inline := i > 0 && text[i-1] == '`' && (i < 2 || text[i-2] != '`')
		raw, end := cut(text, i, inline)
		if !plausible(raw, ls, ls && sqlLabelled(text, i)) {
			continue
		}
		if sql := finish(raw); sql != "" {
			cs = append(cs, candidate{start: i, end: end, sql: sql, style: StyleBare, lineStart: ls})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].start < cs[b].start })
	return cs
}

// overlaps reports whether position i lies inside a candidate already
// taken (a subquery of a bare statement, SQL inside a fence).
func overlaps(cs []candidate, i int) bool {
	for _, c := range cs {
		if i >= c.start && i < c.end {
			return true
		}
	}
	return false
}

// choose picks the answer among cs (sorted by start) in text, whose
// asciiLower is lower, and says by which rule; see ExtractWith.
func choose(text, lower string, cs []candidate) (candidate, Reason) {
	if len(cs) == 1 {
		if cs[0].why != "" {
			return cs[0], cs[0].why
		}
		return cs[0], ReasonSingle
	}
	marks := finalMarks(text, lower)
	for k := len(marks) - 1; k >= 0; k-- {
		m := marks[k]
		for _, c := range cs {
			if c.end > m {
				return c, ReasonFinalMarker
			}
		}
	}
	c, why := lastComplete(cs)
	if why != ReasonLastComplete {
		return c, why
	}
	c, why = cued(text, cs, c)
	if why == ReasonLastComplete && c.why != "" {
		why = c.why
	}
	return c, why
}

// finalMarks returns where finalRe matches in text, whose asciiLower is
// lower. A match starts a line, never runs past its end and holds "final"
// in some case (no other character folds to its letters), so finalRe is
// tried only on the lines that hold it in lower, each once.
func finalMarks(text, lower string) []int {
	var out []int
	for i := 0; i < len(lower); {
		j := strings.Index(lower[i:], "final")
		if j < 0 {
			break
		}
		ls := strings.LastIndexByte(lower[:i+j], '\n') + 1
		le := len(lower)
		if e := strings.IndexByte(lower[i+j:], '\n'); e >= 0 {
			le = i + j + e
		}
		if finalRe.MatchString(text[ls:le]) {
			out = append(out, ls)
		}
		i = le + 1
	}
	return out
}

// lastComplete is rule 2 of ExtractWith: the last complete candidate of the
// best tier, or the last candidate when none is complete.
func lastComplete(cs []candidate) (candidate, Reason) {
	tiers := [3][]candidate{}
	for _, c := range cs {
		tiers[tier(c)] = append(tiers[tier(c)], c)
	}
	last := func(tier []candidate, ok func(string) bool) (candidate, bool) {
		for i := len(tier) - 1; i >= 0; i-- {
			if ok(tier[i].sql) {
				return tier[i], true
			}
		}
		return candidate{}, false
	}
	for k, tier := range tiers {
		if len(tier) == 0 {
			continue
		}
		// In running text a query without FROM ("`SELECT name` picks
		// the column") is more often a mention than the answer.
		if k > 0 {
			if c, ok := last(tier, func(s string) bool { return complete(s) && strong(s) }); ok {
				return c, ReasonLastComplete
			}
		}
		if c, ok := last(tier, complete); ok {
			return c, ReasonLastComplete
		}
		return tier[len(tier)-1], ReasonLastIncomplete
	}
	return cs[len(cs)-1], ReasonLastIncomplete
}

// tier ranks a candidate: 0 fenced, tagged or JSON, 1 a statement at a line
// start, 2 one mid-sentence.
func tier(c candidate) int {
	switch {
	case c.delimited:
		return 0
	case c.lineStart:
		return 1
	}
	return 2
}

var (
	// correctionRe finds the words that introduce a query replacing an
	// earlier one; the interjections (Wait, Actually, Oops) only where
	// they start a sentence, not in "it actually counts the rows".
	correctionRe = regexp.MustCompile(`(?i)(?:(?:^|[.!?:;\n][ \t>*_#]*)(?:wait|actually|oops|hmm|hold on)\b|\b(?:corrected|correction|correcting|on second thought|on reflection|my (?:mistake|bad|apologies)|i apologi[sz]e|i made (?:a|an) (?:mistake|error)|let me (?:fix|correct|revise|redo)|(?:revised|updated|fixed|improved) (?:sql|query|version|answer)|(?:is|was|that's|it's) (?:wrong|incorrect|not (?:right|correct))|doesn't work|does not work|the (?:correct|right) (?:sql|query|version|answer)|refined|(?:a )?better (?:sql|query|version|approach|solution))\b)`)
	// alternativeRe finds the words that introduce a query offered beside
	// an earlier one.
	alternativeRe = regexp.MustCompile(`(?i)\b(?:alternatively|an alternative|alternative (?:query|approach|solution|way|version|form|formulation)|another (?:way|approach|option|solution|query|version|possibility|formulation)|you (?:can|could|may|might) also|(?:or|also),? equivalently|equivalently|(?:option|approach|method|solution|version) (?:2|two|b)|if you (?:also |only |instead )?(?:want|need|prefer|wish|would like|'d like)\b[^\n]*?\byou (?:can|could|may|might)(?: also)? (?:use|run|write|try))\b`)
)

// firstCue returns the kind of the first cue in text: ReasonLastCorrection
// for a correction cue, ReasonFirstOfAlternatives for an alternative cue,
// "" for none. The first one counts, so that "Wait, alternatively ..." is
// a correction and "Alternatively ..., which is actually faster" an
// alternative.
func firstCue(text string) Reason {
	c := correctionRe.FindStringIndex(text)
	a := alternativeRe.FindStringIndex(text)
	switch {
	case c != nil && (a == nil || c[0] <= a[0]):
		return ReasonLastCorrection
	case a != nil:
		return ReasonFirstOfAlternatives
	}
	return ""
}

// cued is rule 3 of ExtractWith: it reads the cue words between c, chosen
// by rule 2, and the candidates before it.
func cued(text string, cs []candidate, c candidate) (candidate, Reason) {
	i := slices.IndexFunc(cs, func(x candidate) bool { return x.start == c.start })
	why := ReasonLastComplete
	for i > 0 {
		prev := cs[i-1]
		gap := text[min(prev.end, cs[i].start):cs[i].start]
		cue := firstCue(gap)
		if cue == ReasonLastCorrection {
			if why == ReasonLastComplete {
				why = ReasonLastCorrection
			}
			break
		}
		if cue != ReasonFirstOfAlternatives || !complete(prev.sql) || !(prev.delimited || strong(prev.sql)) {
			break
		}
		i--
		why = ReasonFirstOfAlternatives
	}
	return cs[i], why
}

// strong reports whether sql reads from a table (has FROM) or is a WITH
// statement.
func strong(sql string) bool {
	return hasFrom(sql) || strings.EqualFold(leadingWord(strings.TrimLeft(sql, "(")), "with")
}

// continuation reads text as the rest of a statement that begins with
// prefix, unless the text opens an answer of its own.
func continuation(text, prefix string) (Extraction, bool) {
	t := strings.TrimLeft(text, " \t\r\n")
	if t == "" || !continuesSelect(t) || StartsStatement(t) {
		return Extraction{}, false
	}
	s := strings.TrimSpace(prefix) + " " + t
	raw, _ := cut(s, 0, false)
	if !plausible(raw, true, false) {
		return Extraction{}, false
	}
	sql := finish(raw)
	if sql == "" {
		return Extraction{}, false
	}
	return Extraction{SQL: sql, Style: StyleContinuation, Candidates: 1, Reason: ReasonContinuation}, true
}

// continuesSelect reports whether t can be the rest of a statement rather
// than an answer of its own: it starts with an identifier, a number, a
// quote, "*" or "(" (not a fence, a tag, a JSON object, markdown bold or
// a heading), and its first word is no label ("SQL:").
func continuesSelect(t string) bool {
	c := t[0]
	switch {
	case c == '*':
		return !strings.HasPrefix(t, "**")
	case c == '(' || c == '"' || c == '\'' || (c == '`' && !strings.HasPrefix(t, "```")):
		return true
	case !isIdentStart(c) && !(c >= '0' && c <= '9'):
		return false
	}
	w := leadingWord(t)
	return !strings.HasPrefix(strings.TrimLeft(t[len(w):], " \t"), ":")
}

// sqlTag reports whether a fence's language tag names SQL (sql, SQL,
// sqlite, mysql, postgresql, tsql, plsql, ...).
func sqlTag(tag string) bool {
	t := strings.ToLower(tag)
	return strings.Contains(t, "sql") || t == "postgres" || t == "duckdb"
}

// blockSQL returns the SQL of a fence or tag body: its last statement that
// looks like SQL. A closed block (trusted) splits at semicolons only; an
// unclosed one is cut like running text. A block whose tag names SQL
// yields its cleaned content even when no statement starts with SELECT or
// WITH. In a closed block, a statement whose leading comment is an
// alternative cue ("-- Alternatively:") does not replace the complete one
// before it, unless a later comment is a correction cue; the reason is
// then first_of_alternatives or last_correction, else empty.
func blockSQL(body string, closed, sqlTagged bool) (string, Reason) {
	var last string
	var why Reason
	if closed {
		for _, st := range splitStatements(body) {
			s := lastStatement(finish(st))
			if !LooksLikeSQL(s) {
				continue
			}
			if last != "" && complete(last) {
				lead := st
				if ks := keywordStarts(st); len(ks) > 0 {
					lead = st[:ks[0]]
				}
				switch cue := firstCue(lead); {
				case cue == ReasonLastCorrection:
					why = ReasonLastCorrection
				case why == ReasonFirstOfAlternatives || cue == ReasonFirstOfAlternatives:
					why = ReasonFirstOfAlternatives
					continue
				}
			}
			last = s
		}
	} else {
		for _, i := range keywordStarts(body) {
			if i > 0 && !lineStart(body, i) {
				continue
			}
			raw, _ := cut(body, i, false)
			if s := finish(raw); LooksLikeSQL(s) {
				last = s
			}
		}
	}
	if last == "" && sqlTagged && closed {
		last = finish(body)
	}
	return last, why
}

// lastStatement returns the last statement of s that looks like SQL when
// s, once cleaned, still holds several (a stray backtick hid a semicolon
// from splitStatements), else s.
func lastStatement(s string) string {
	if strings.IndexByte(s, ';') < 0 {
		return s // one statement at most
	}
	parts := splitStatements(s)
	if len(parts) < 2 {
		return s
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if p := finish(parts[i]); LooksLikeSQL(p) {
			return p
		}
	}
	return s
}

// splitStatements splits s at semicolons outside quotes and comments.
func splitStatements(s string) []string {
	if strings.IndexByte(s, ';') < 0 { // no ';' byte, no ';' token
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var out []string
	start := 0
	sqllex.Scan(s, commentLex, func(k sqllex.Token) bool { // never fails without Strict
		if k.Kind == sqllex.Punct && k.Text == ";" {
			out = append(out, s[start:k.Start])
			start = k.End
		}
		return true
	})
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// jsonKeys are the fields (lower case, without '_', '-' and spaces) whose
// string value carries the SQL of a JSON answer, most specific first.
var jsonKeys = []string{"finalsql", "finalquery", "finalsqlquery", "sql", "sqlquery", "query", "sqlstatement", "finalanswer", "answer", "statement"}

// jsonSQL returns the SQL in a JSON object's SQL-like field, or "". Bytes
// that are not UTF-8, which JSON text cannot hold, are dropped rather than
// decoded as U+FFFD.
func jsonSQL(obj string) string {
	if !utf8.ValidString(obj) {
		obj = strings.ToValidUTF8(obj, "")
	}
	var v any
	if err := json.Unmarshal([]byte(obj), &v); err != nil {
		if err := json.Unmarshal([]byte(escapeControls(obj)), &v); err != nil {
			return ""
		}
	}
	return findJSONSQL(v, 0)
}

// jsonKeyReplacer removes '_', '-' and spaces from a JSON field's name.
var jsonKeyReplacer = strings.NewReplacer("_", "", "-", "", " ", "")

func findJSONSQL(v any, depth int) string {
	m, ok := v.(map[string]any)
	if !ok || depth > 3 {
		return ""
	}
	norm := make(map[string]any, len(m))
	keys := make([]string, 0, len(m))
	for k, x := range m {
		n := jsonKeyReplacer.Replace(strings.ToLower(k))
		norm[n] = x
		keys = append(keys, k)
	}
	for _, k := range jsonKeys {
		if s, ok := norm[k].(string); ok {
			if e := ExtractSQL(s); e.Found() {
				return e.SQL
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s := findJSONSQL(m[k], depth+1); s != "" {
			return s
		}
	}
	return ""
}

// escapeControls escapes raw newlines, tabs and carriage returns inside
// JSON string literals, which models emit although JSON forbids them.
func escapeControls(s string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case in && c == '\n':
			b.WriteString(`\n`)
			continue
		case in && c == '\r':
			b.WriteString(`\r`)
			continue
		case in && c == '\t':
			b.WriteString(`\t`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// jsonSpans returns the [start, end) of the balanced top-level {...} spans
// of s, skipping braces inside JSON strings.
func jsonSpans(s string) [][2]int {
	var out [][2]int
	if strings.IndexByte(s, '{') < 0 {
		return nil
	}
	depth, start := 0, -1
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"' && depth > 0:
			inStr = !inStr
		case inStr:
		case c == '{':
			if depth == 0 {
				start = i
			}
			depth++
		case c == '}' && depth > 0:
			depth--
			if depth == 0 {
				out = append(out, [2]int{start, i + 1})
			}
		}
	}
	return out
}
