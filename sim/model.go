package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// Defaults of the behaviour model's penalties (see the package
// documentation). They are modelling choices, not measurements of any
// model; each is a model option (Config, spec keys schema_penalty,
// value_penalty, evidence_penalty).
const (
	// DefaultSchemaPenalty: a model cannot name a table or column it was
	// not shown, so a final SQL whose gold needs one is always a
	// wrong-table or wrong-column mistake.
	DefaultSchemaPenalty = 1.0
	// DefaultValuePenalty: a literal the prompt does not show is spelled
	// wrongly 80% of the time (a model guesses the stored spelling of a
	// name, code or date format right about one time in five).
	DefaultValuePenalty = 0.8
	// DefaultEvidencePenalty: without the benchmark's evidence a sample is
	// right about a third less often, the relative drop BIRD's authors
	// report for ChatGPT and GPT-4 without external knowledge (Li et al.,
	// "Can LLM Already Serve as A Database Interface?", NeurIPS 2023,
	// Table 2: e.g. GPT-4 dev EX 46.35 with, 30.90 without: 1 - 30.90/46.35
	// = 0.33).
	DefaultEvidencePenalty = 0.35
)

// Mistake kinds forced by missing information (Outcome.Kind); the other
// kinds are Corrupt's.
const (
	MistakeTable    = "missing_table"    // a table the gold reads is not in the prompt's schema
	MistakeColumn   = "missing_column"   // a column the gold reads is not in the prompt's schema
	MistakeValue    = "missing_value"    // a literal of the gold is nowhere in the prompt
	MistakeEvidence = "missing_evidence" // the benchmark's evidence is not in the prompt
)

// Outcome is the behaviour model's decision for one final-SQL sample.
type Outcome struct {
	// SQL is the query the sample gives.
	SQL string
	// Right reports whether SQL is the gold SQL.
	Right bool
	// Kind is "" when Right, else the mistake's kind: a Mistake* kind
	// when missing information forced it, else a Corrupt kind.
	Kind string
	// Missing lists what the prompt lacks of what the gold needs
	// ("table t", "column t.c", "value 'v'", "evidence").
	Missing []string
}

// needs is what a gold SQL needs from a prompt.
type needs struct {
	tables  []string    // schema names of the tables it reads
	columns []colNeed   // the columns it names
	values  []valueNeed // its string literals
}

// colNeed is a column the gold names, with the gold tables that have a
// column of that name (any of them showing it is enough).
type colNeed struct {
	name   string
	tables []string
}

// valueNeed is a string literal of the gold: tok is its token index,
// value its text without quotes and LIKE wildcards at the ends.
type valueNeed struct {
	tok   int
	value string
}

// analyse lists what gold needs, resolving names against schema (nil:
// tables by name only, no columns).
func analyse(gold string, schema *datasets.Schema) needs {
	toks := tokenize(gold)
	var n needs
	refs := tableRefs(toks, schema)
	seen := map[string]bool{}
	if schema != nil {
		for i, t := range toks {
			if !t.is("FROM") && !t.is("JOIN") && !(t.text == "," && inFrom(toks, i)) {
				continue
			}
			j := nextTok(toks, i)
			if j < 0 {
				continue
			}
			if tab, ok := schema.Table(toks[j].name()); ok && !seen[strings.ToLower(tab.Name)] {
				seen[strings.ToLower(tab.Name)] = true
				n.tables = append(n.tables, tab.Name)
			}
		}
	} else {
		n.tables = fromTables(gold)
	}
	colSeen := map[string]bool{}
	for i, t := range toks {
		switch t.kind {
		case tkString:
			v := strings.ReplaceAll(t.text[1:len(t.text)-1], "''", "'")
			if isFormat(v) || !comparedToColumn(toks, i) {
				continue
			}
			v = strings.Trim(v, "%")
			if strings.TrimSpace(v) == "" {
				continue
			}
			n.values = append(n.values, valueNeed{tok: i, value: v})
			continue
		case tkWord, tkIdent:
		default:
			continue
		}
		if schema == nil || t.kind == tkWord && sqlKeyword(t.text) {
			continue
		}
		if nx := nextTok(toks, i); nx >= 0 && (toks[nx].text == "(" || toks[nx].text == ".") {
			continue
		}
		var tabs []string
		if p := prevTok(toks, i); p > 0 && toks[p].text == "." {
			if tab := refs[strings.ToLower(toks[p-1].name())]; tab != nil && hasColumn(tab, t.name()) {
				tabs = []string{tab.Name}
			}
		} else {
			for _, name := range n.tables {
				if tab, ok := schema.Table(name); ok && hasColumn(tab, t.name()) {
					tabs = append(tabs, tab.Name)
				}
			}
		}
		if len(tabs) == 0 {
			continue
		}
		key := strings.ToLower(strings.Join(tabs, ",") + "." + t.name())
		if !colSeen[key] {
			colSeen[key] = true
			n.columns = append(n.columns, colNeed{name: t.name(), tables: tabs})
		}
	}
	return n
}

// comparedToColumn reports whether the string literal at i is a value a
// column is compared with: "col = 'v'" (any comparison operator, LIKE,
// GLOB, NOT LIKE) or "col [NOT] IN ('v', ...)". Literals compared with an
// expression ("strftime('%m-%d', d) > '09-01'") are constants the model
// derives, not stored values.
func comparedToColumn(toks []token, i int) bool {
	isCol := func(j int) bool {
		return j >= 0 && (toks[j].kind == tkWord && !sqlKeyword(toks[j].text) || toks[j].kind == tkIdent)
	}
	skipNot := func(j int) int {
		if j >= 0 && toks[j].is("NOT") {
			return prevTok(toks, j)
		}
		return j
	}
	p := prevTok(toks, i)
	if p < 0 {
		return false
	}
	switch t := toks[p]; {
	case t.kind == tkPunct && (t.text == "=" || t.text == "==" || t.text == "<>" || t.text == "!=" || t.text == "<" || t.text == ">" || t.text == "<=" || t.text == ">="):
		return isCol(prevTok(toks, p))
	case t.is("LIKE") || t.is("GLOB"):
		return isCol(skipNot(prevTok(toks, p)))
	case t.text == "(" || t.text == ",":
		for j := p; j >= 0; j = prevTok(toks, j) {
			switch {
			case toks[j].text == "(":
				in := prevTok(toks, j)
				return in >= 0 && toks[in].is("IN") && isCol(skipNot(prevTok(toks, in)))
			case toks[j].text == "," || toks[j].kind == tkString:
			default:
				return false
			}
		}
	}
	return false
}

// isFormat reports whether a literal is a strftime-style format ("%Y",
// "%m-%d") rather than a value.
func isFormat(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '%' && (v[i+1] >= 'a' && v[i+1] <= 'z' || v[i+1] >= 'A' && v[i+1] <= 'Z') {
			return true
		}
	}
	return false
}

// missing is what a prompt lacks of n.
type missing struct {
	tables   []string
	columns  []colNeed
	values   []valueNeed
	evidence bool
}

func (m missing) list() []string {
	var out []string
	for _, t := range m.tables {
		out = append(out, "table "+t)
	}
	for _, c := range m.columns {
		out = append(out, "column "+c.tables[0]+"."+c.name)
	}
	for _, v := range m.values {
		out = append(out, fmt.Sprintf("value %q", v.value))
	}
	if m.evidence {
		out = append(out, "evidence")
	}
	return out
}

// hasValue reports whether the prompt shows value v: the whole value, or,
// for a LIKE pattern, each of its parts between wildcards ("2024-07%
// 12:00" is shown by a hint "LIKE '2024-07%'" and the words "the 12:00
// reading").
func (p *Prompt) hasValue(v string) bool {
	if p.Contains(v) {
		return true
	}
	if !strings.Contains(v, "%") {
		return false
	}
	for _, part := range strings.Split(v, "%") {
		if strings.TrimSpace(part) != "" && !p.Contains(strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

// lacks compares n with what prompt p shows.
func lacks(n needs, p *Prompt, evidence string) missing {
	var m missing
	for _, t := range n.tables {
		if _, ok := p.Table(t); !ok {
			m.tables = append(m.tables, t)
		}
	}
	for _, c := range n.columns {
		shown := false
		for _, t := range c.tables {
			if p.HasColumn(t, c.name) {
				shown = true
			}
		}
		if !shown {
			m.columns = append(m.columns, c)
		}
	}
	for _, v := range n.values {
		if !p.hasValue(v.value) {
			m.values = append(m.values, v)
		}
	}
	m.evidence = strings.TrimSpace(evidence) != "" && !p.Contains(evidence)
	return m
}

// decide draws the final SQL of sample c (see the package documentation):
//
//	P(right) = q · (1 - schema_penalty)^[a table or column missing]
//	             · (1 - value_penalty)^[a literal missing]
//	             · (1 - evidence_penalty)^[evidence missing]
//
// with q the question's difficulty. The draw against q comes first from
// the sample's generator (c.correct); the three channel draws and the
// draw of a repeated mistake come from a generator of their own, always
// all four.
func (m *Model) decide(c *Sample) Outcome {
	gold := c.example.GoldSQL
	n := m.needsOf(c.example, c.schema)
	ms := lacks(n, c.Prompt, c.example.Evidence)
	u := [3]float64{c.chRand.Float64(), c.chRand.Float64(), c.chRand.Float64()}
	o := Outcome{Missing: ms.list()}
	// A mistake repeats the question's modal one (drawn from a generator
	// keyed by the question alone) with probability Repeat(rho), else it
	// is the sample's own; the draw comes after the channel draws, from
	// their generator, so that it pairs across styles.
	mrng := c.Rand
	if c.chRand.Float64() < Repeat(m.rho) {
		mrng = m.modalRand(c.example)
	}
	switch {
	case (len(ms.tables) > 0 || len(ms.columns) > 0) && u[0] < m.pen.schema:
		if len(ms.tables) > 0 {
			o.SQL, o.Kind = wrongTable(gold, ms.tables[mrng.IntN(len(ms.tables))], c.Prompt, n.tables, mrng), MistakeTable
		} else {
			o.SQL, o.Kind = wrongNamedColumn(gold, ms.columns[mrng.IntN(len(ms.columns))], c.Prompt, mrng), MistakeColumn
		}
	case len(ms.values) > 0 && u[1] < m.pen.value:
		o.SQL, o.Kind = misspell(gold, ms.values[mrng.IntN(len(ms.values))], mrng), MistakeValue
	case ms.evidence && u[2] < m.pen.evidence:
		o.SQL, _ = Corrupt(gold, c.schema, mrng)
		o.Kind = MistakeEvidence
	case c.correct:
		o.SQL, o.Right = gold, true
	default:
		o.SQL, o.Kind = Corrupt(gold, c.schema, mrng)
	}
	return o
}

// needsOf analyses (once) the gold SQL of ex.
func (m *Model) needsOf(ex datasets.Example, schema *datasets.Schema) needs {
	key := ex.DBID + "\x00" + ex.ID + "\x00" + ex.GoldSQL
	if v, ok := m.needs.Load(key); ok {
		return v.(needs)
	}
	n := analyse(ex.GoldSQL, schema)
	m.needs.Store(key, n)
	return n
}

// wrongTable replaces the missing table after FROM/JOIN with a table the
// prompt shows (one the gold does not read when there is one), or, when
// the prompt shows none, a guessed name: the model writes the table it
// believes holds the data.
func wrongTable(gold, table string, p *Prompt, goldTables []string, rng *rand.Rand) string {
	var pool []string
	for _, t := range p.Tables {
		if !containsFold(goldTables, t.Name) {
			pool = append(pool, t.Name)
		}
	}
	if len(pool) == 0 {
		for _, t := range p.Tables {
			if !strings.EqualFold(t.Name, table) {
				pool = append(pool, t.Name)
			}
		}
	}
	guess := guessName(table, rng)
	if len(pool) > 0 {
		guess = pool[rng.IntN(len(pool))]
	}
	toks := tokenize(gold)
	done := false
	for i, t := range toks {
		if !t.is("FROM") && !t.is("JOIN") && !(t.text == "," && inFrom(toks, i)) {
			continue
		}
		j := nextTok(toks, i)
		if j >= 0 && (toks[j].kind == tkWord || toks[j].kind == tkIdent) && strings.EqualFold(toks[j].name(), table) {
			toks[j].text = quoteLike(toks[j], guess)
			done = true
		}
	}
	if !done {
		return "SELECT * FROM " + quoteLike(token{tkWord, guess}, guess)
	}
	return joinTokens(toks)
}

// wrongNamedColumn replaces every reference to the missing column with a
// column the prompt shows for one of its tables (or any shown column, or
// a guessed name).
func wrongNamedColumn(gold string, c colNeed, p *Prompt, rng *rand.Rand) string {
	var pool []string
	for _, tn := range c.tables {
		if t, ok := p.Table(tn); ok {
			for _, col := range t.Columns {
				if !strings.EqualFold(col.Name, c.name) {
					pool = append(pool, col.Name)
				}
			}
		}
	}
	if len(pool) == 0 {
		for _, t := range p.Tables {
			for _, col := range t.Columns {
				if !strings.EqualFold(col.Name, c.name) {
					pool = append(pool, col.Name)
				}
			}
		}
	}
	guess := guessName(c.name, rng)
	if len(pool) > 0 {
		guess = pool[rng.IntN(len(pool))]
	}
	toks := tokenize(gold)
	for i, t := range toks {
		if (t.kind == tkWord || t.kind == tkIdent) && strings.EqualFold(t.name(), c.name) {
			if nx := nextTok(toks, i); nx >= 0 && (toks[nx].text == "(" || toks[nx].text == ".") {
				continue
			}
			toks[i].text = quoteLike(t, guess)
		}
	}
	return joinTokens(toks)
}

// guessName is a plausible name for an identifier the model was not shown.
func guessName(name string, rng *rand.Rand) string {
	low := strings.ToLower(name)
	switch {
	case strings.HasSuffix(low, "s"):
		return name + "_list"
	case rng.IntN(2) == 0:
		return name + "s"
	default:
		return name + "_info"
	}
}

// misspell replaces the literal of v with a plausible wrong spelling that
// no LIKE pattern or case-insensitive comparison can mistake for the
// original: a plural, two letters swapped, or a multi-word value's space
// written as a hyphen or dropped.
func misspell(gold string, v valueNeed, rng *rand.Rand) string {
	toks := tokenize(gold)
	body := toks[v.tok].text[1 : len(toks[v.tok].text)-1]
	val := strings.ReplaceAll(body, "''", "'")
	pre, post := "", ""
	for strings.HasPrefix(val, "%") {
		pre, val = pre+"%", val[1:]
	}
	for strings.HasSuffix(val, "%") {
		post, val = post+"%", val[:len(val)-1]
	}
	var variants []string
	if strings.Contains(val, " ") {
		variants = append(variants, strings.Replace(val, " ", "-", 1), strings.Replace(val, " ", "", 1))
	}
	if r := []rune(val); len(r) >= 4 {
		for tries := 0; tries < 4; tries++ {
			i := 1 + rng.IntN(len(r)-2)
			if r[i] != r[i+1] {
				s := append([]rune(nil), r...)
				s[i], s[i+1] = s[i+1], s[i]
				variants = append(variants, string(s))
				break
			}
		}
	}
	if strings.HasSuffix(strings.ToLower(val), "s") {
		variants = append(variants, val+"es")
	} else {
		variants = append(variants, val+"s")
	}
	w := variants[rng.IntN(len(variants))]
	toks[v.tok].text = "'" + strings.ReplaceAll(pre+w+post, "'", "''") + "'"
	return joinTokens(toks)
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// penalties are the behaviour model's validated penalties.
type penalties struct{ schema, value, evidence float64 }

// penaltiesOf validates the penalty options of cfg (nil: the default).
func penaltiesOf(cfg Config) (penalties, error) {
	p := penalties{DefaultSchemaPenalty, DefaultValuePenalty, DefaultEvidencePenalty}
	for _, o := range []struct {
		key string
		v   *float64
		dst *float64
	}{{"schema_penalty", cfg.SchemaPenalty, &p.schema}, {"value_penalty", cfg.ValuePenalty, &p.value}, {"evidence_penalty", cfg.EvidencePenalty, &p.evidence}} {
		if o.v == nil {
			continue
		}
		if *o.v < 0 || *o.v > 1 || math.IsNaN(*o.v) {
			return p, fmt.Errorf("sim: %s = %g out of range [0, 1]", o.key, *o.v)
		}
		*o.dst = *o.v
	}
	return p, nil
}

// Needs is what a gold SQL needs from a prompt under the behaviour model
// (see the package documentation): the schema names of the tables it
// reads, its columns as "table.column" (the first of its tables that has
// the column), and the values it compares columns with.
type Needs struct {
	Tables, Columns, Values []string
}

// Analyse lists what gold needs, resolving names against schema (nil:
// tables by name only, no columns).
func Analyse(gold string, schema *datasets.Schema) Needs {
	n := analyse(gold, schema)
	out := Needs{Tables: n.tables}
	for _, c := range n.columns {
		out.Columns = append(out.Columns, c.tables[0]+"."+c.name)
	}
	for _, v := range n.values {
		out.Values = append(out.Values, v.value)
	}
	return out
}

// HasValue reports whether the prompt shows value v (see the package
// documentation).
func (p *Prompt) HasValue(v string) bool { return p.hasValue(v) }

// ParseText reads a prompt given as one text.
func ParseText(text string) *Prompt { return parsePromptText(text) }
